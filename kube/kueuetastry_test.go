package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A pending Workload keeps the topology failure of its try, worded as
// Kueue's, until a preemption frees room, as Kueue sets it aside until
// then; one read with such a message keeps it; other messages are not
// kept.
func TestKeptTASMessage(t *testing.T) {
	w := &KueueWorkload{Obj: &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}, Group: &placement.Group{Namespace: "default", Name: "w"}}
	a := &admitter{opts: KueueOptions{Plan: topology.KueueProfile.Options()}}
	first := `couldn't assign flavors to pod set main: topology "t" allows to fit only 8 out of 12 pod(s)`
	later := `couldn't assign flavors to pod set main: topology "t" allows to fit only 2 out of 12 pod(s)`
	m, d := a.keptTASMessage(w, first, "best holds 8")
	require.Equal(t, []string{first, "best holds 8"}, []string{m, d})
	m, d = a.keptTASMessage(w, later, "best holds 2")
	require.Equal(t, []string{first, "best holds 8"}, []string{m, d}, "nothing freed: the first try's")
	m, d = a.keptTASMessage(w, "insufficient quota", "")
	require.Equal(t, []string{first, "best holds 8"}, []string{m, d}, "nothing freed: not tried again by Kueue")
	a.preemptions++
	m, d = a.keptTASMessage(w, later, "best holds 2")
	require.Equal(t, []string{later, "best holds 2"}, []string{m, d}, "a preemption: tried again")
	a.preemptions++
	m, d = a.keptTASMessage(w, "insufficient quota", "")
	require.Equal(t, []string{"insufficient quota", ""}, []string{m, d})
	m, _ = a.keptTASMessage(w, "still short", "")
	require.Equal(t, "still short", m, "a quota message is not kept")

	// Read back: the input's Pending message is the last try's.
	r := &KueueWorkload{Obj: &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "r"}}, Group: &placement.Group{Namespace: "default", Name: "r"}}
	r.Obj.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending", Message: first}}
	a = &admitter{opts: KueueOptions{Plan: topology.KueueProfile.Options()}}
	m, d = a.keptTASMessage(r, later, "best holds 2")
	require.Equal(t, []string{first, "best holds 2"}, []string{m, d})
	// gangsched's profile keeps nothing read.
	a = &admitter{opts: KueueOptions{Plan: topology.GangschedProfile.Options()}}
	m, _ = a.keptTASMessage(r, "own words", "")
	require.Equal(t, "own words", m)
}
