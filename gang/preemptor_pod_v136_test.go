package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfileV136_LonePodPreemptsPodByPod: a pod with no scheduling group
// ([LonePodGroup]) preempts in v1.36 as v1.36.3's per-pod DefaultPreemption
// does: each victim pod at its own priority, and only the pods it needs,
// even members of a disruptionMode PodGroup group (whose ranking at the
// group's priority serves a PodGroup preemptor only). bg has priority 10
// and mode PodGroup. "held": bg's member on n1 at priority 500, "plain"
// (50, no group) on n2: v1.36 takes plain. "two": bg's members held (10)
// on n1 and held2 (10) on n2: v1.36 evicts one of them, v1.37 (whose
// per-pod path is group-aware) bg whole. The v1.36 rows are
// kube/testdata/v136/pod-preemptor-*.yaml, run against the real
// kube-scheduler v1.36.3; the v1.37 row's input (in v1beta1, mode all)
// against v1.37.2, which evicted held and held2 in 3 of 3 runs. v1.37 on
// "held" is left out: v1.37.2 takes plain there (it admits held at bg's 10
// but picks the node by its pods' own priorities), which the v1.37
// profile does not model ([Profile]).
func TestProfileV136_LonePodPreemptsPodByPod(t *testing.T) {
	p10 := int32(10)
	nodes := []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}
	held := member("held", "bg", cpu(2000), 0)
	held.NodeName, held.Priority = "n1", 500
	plain := placement.Pod{Namespace: "default", Name: "plain", NodeName: "n2", Requests: cpu(2000), Priority: 50}
	held10 := held
	held10.Priority = 10
	held2 := member("held2", "bg", cpu(2000), 0)
	held2.NodeName, held2.Priority = "n2", 10
	cases := []struct {
		name    string
		profile Profile
		bound   []placement.Pod
		want    int      // pods evicted
		among   []string // the evicted pods are among these
	}{
		{"held/v1.36: held ranks at its own 500", ProfileV136, []placement.Pod{held, plain}, 1, []string{"plain"}},
		{"two/v1.36: one member, not bg whole", ProfileV136, []placement.Pod{held10, held2}, 1, []string{"held", "held2"}},
		{"two/v1.37: bg whole", ProfileV137, []placement.Pod{held10, held2}, 2, []string{"held", "held2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{Preemption: true, Profile: c.profile}, nodes, c.bound...)
			bg := basicPG("bg")
			bg.Spec.Priority, bg.Spec.DisruptionMode = &p10, DisruptionModePodGroup
			h.setPG(bg)
			k := placement.Key{Namespace: "default", Name: "pod:solo"}
			h.setPG(LonePodGroup(k, 100))
			solo := placement.Pod{Namespace: "default", Name: "solo", SchedulingGroup: k.Name, Requests: cpu(2000), Priority: 100}
			h.addPods(solo)
			r, ok := h.cycle()
			require.True(t, ok)
			require.NoError(t, r.Err)
			require.NotNil(t, r.Preemption)
			got := r.Preemption.EvictedPods()
			require.Len(t, got, c.want, r.Condition.Message)
			for _, v := range got {
				require.Contains(t, c.among, v.Name, r.Condition.Message)
			}
		})
	}
}

// TestProfileV136_PodGroupOfOneStillRanksGroups: a real PodGroup of one
// pod, built as [LonePodGroup]'s but not by it, is a PodGroup preemptor:
// v1.36 ranks held at bg's 10 (disruptionMode PodGroup), as
// kube/testdata/v136/victim-podgroup-mode.yaml checked against v1.36.3.
func TestProfileV136_PodGroupOfOneStillRanksGroups(t *testing.T) {
	p10, p100 := int32(10), int32(100)
	held := member("held", "bg", cpu(2000), 0)
	held.NodeName, held.Priority = "n1", 500
	plain := placement.Pod{Namespace: "default", Name: "plain", NodeName: "n2", Requests: cpu(2000), Priority: 50}
	h := newHarness(t, Options{Preemption: true, Profile: ProfileV136}, []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}, held, plain)
	bg := basicPG("bg")
	bg.Spec.Priority, bg.Spec.DisruptionMode = &p10, DisruptionModePodGroup
	h.setPG(bg)
	hi := basicPG("hi")
	hi.Spec.Priority = &p100
	h.setPG(hi)
	m := member("m0", "hi", cpu(2000), 0)
	m.Priority = 100
	h.addPods(m)
	r, ok := h.cycle()
	require.True(t, ok)
	require.NoError(t, r.Err)
	require.NotNil(t, r.Preemption)
	require.Equal(t, []placement.Key{key("held")}, r.Preemption.EvictedPods(), r.Condition.Message)
}
