package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfile_VictimOfUnsetPodGroupRanksAtZero: v1.37.2's GetPodPriority
// ranks a bound pod whose PodGroup exists at the PodGroup's priority, 0
// when spec.priority is unset, whatever the pod's own; a pod whose
// PodGroup does not exist keeps its own, as in v1.36. "held" (priority
// 500, of PodGroup "bg") fills n1 and "plain" (priority 50, no group)
// fills n2; a gang of priority 100 needs one of the two nodes. v1.36
// cannot evict held (500) and takes plain; v1.37 ranks held at 0 and
// takes it instead, as the real kube-scheduler v1.37.2 does (kubeoracle on
// the same input). v1.38.0-beta.0 dropped GetPodPriority: its victims
// rank at their pods' own priority (NewPodVictim), so it takes plain
// again.
func TestProfile_VictimOfUnsetPodGroupRanksAtZero(t *testing.T) {
	held := member("held", "bg", cpu(2000), 0)
	held.NodeName, held.Priority = "n1", 500
	plain := placement.Pod{Namespace: "default", Name: "plain", NodeName: "n2", Requests: cpu(2000), Priority: 50}
	nodes := []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}
	p10 := int32(10)
	cases := []struct {
		profile  Profile
		bgExists bool
		bgPrio   *int32 // bg's spec.priority when it exists
		want     string
	}{
		{ProfileV136, true, nil, "plain"},
		{ProfileV137, true, nil, "held"},
		{ProfileV138, true, nil, "plain"},
		{ProfileV136, false, nil, "plain"},
		{ProfileV137, false, nil, "plain"},
		{ProfileV138, false, nil, "plain"},
		// bg's priority 10 ranks held in v1.37; v1.36 only under
		// disruptionMode PodGroup (TestProfileV136_VictimAndPreemptorRank);
		// v1.38 ranks it at 500.
		{ProfileV136, true, &p10, "plain"},
		{ProfileV137, true, &p10, "held"},
		{ProfileV138, true, &p10, "plain"},
	}
	for _, c := range cases {
		name := string(c.profile) + "/PodGroup missing"
		switch {
		case c.bgPrio != nil:
			name = string(c.profile) + "/PodGroup 10"
		case c.bgExists:
			name = string(c.profile) + "/PodGroup unset"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, Options{Preemption: true, Profile: c.profile}, nodes, held, plain)
			if c.bgExists {
				bg := basicPG("bg")
				bg.Spec.Priority = c.bgPrio
				h.setPG(bg)
			}
			h.setPG(gangPG("train", 1)) // priority 100
			m := member("m0", "train", cpu(2000), 0)
			m.Priority = 100
			h.addPods(m)
			r, ok := h.cycle()
			require.True(t, ok)
			require.NoError(t, r.Err)
			require.NotNil(t, r.Preemption)
			require.Equal(t, []placement.Key{{Namespace: "default", Name: c.want}}, r.Preemption.EvictedPods(), r.Condition.Message)
		})
	}
}
