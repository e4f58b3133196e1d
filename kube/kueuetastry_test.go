package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Without queues, under Kueue's words, a pending Workload keeps the
// topology failure of its try, worded as Kueue's, until a preemption
// frees room, as Kueue sets it aside until then; one read with such a
// message keeps it; other messages are not kept, and nothing is kept
// without Kueue's words or with queues (kueueasidereason.go keeps those).
func TestKeptTASMessage(t *testing.T) {
	w := &KueueWorkload{Obj: &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}, Group: &placement.Group{Namespace: "default", Name: "w"}}
	a := &admitter{opts: KueueOptions{KueueWords: true}}
	first := `couldn't assign flavors to pod set main: topology "t" allows to fit only 8 out of 12 pod(s)`
	later := `couldn't assign flavors to pod set main: topology "t" allows to fit only 2 out of 12 pod(s)`
	require.Equal(t, first, a.keptTASMessage(w, first))
	m, ok := a.keptNow(w)
	require.True(t, ok)
	require.Equal(t, first, m)
	require.Equal(t, first, a.keptTASMessage(w, later), "nothing freed: the first try's")
	require.Equal(t, first, a.keptTASMessage(w, "insufficient quota"), "nothing freed: not tried again by Kueue")
	a.preemptions++
	_, ok = a.keptNow(w)
	require.False(t, ok, "a preemption: tried again")
	require.Equal(t, later, a.keptTASMessage(w, later))
	a.preemptions++
	require.Equal(t, "insufficient quota", a.keptTASMessage(w, "insufficient quota"))
	require.Equal(t, "still short", a.keptTASMessage(w, "still short"), "a quota message is not kept")

	// Read back: the input's Pending message is the last try's.
	r := &KueueWorkload{Obj: &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "r"}}, Group: &placement.Group{Namespace: "default", Name: "r"}}
	r.Obj.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending", Message: first}}
	a = &admitter{opts: KueueOptions{KueueWords: true}}
	require.Equal(t, first, a.keptTASMessage(r, later))
	// gangsim's own words, or queues, keep nothing here.
	a = &admitter{opts: KueueOptions{}}
	require.Equal(t, "own words", a.keptTASMessage(r, "own words"))
	a = &admitter{opts: KueueOptions{KueueWords: true, Queues: &KueueQueues{}}}
	require.Equal(t, later, a.keptTASMessage(r, later))
}
