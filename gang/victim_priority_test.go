package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfile_VictimOfUnsetPodGroupRanksAtZero: since v1.37 upstream's
// GetPodPriority ranks a bound pod whose PodGroup exists at the PodGroup's
// priority, 0 when spec.priority is unset, whatever the pod's own; a pod
// whose PodGroup does not exist keeps its own, as in v1.36. "held"
// (priority 500, of PodGroup "bg") fills n1 and "plain" (priority 50, no
// group) fills n2; a gang of priority 100 needs one of the two nodes. v1.36
// cannot evict held (500) and takes plain; v1.37 and v1.38 rank held at 0
// and take it instead, as the real kube-scheduler v1.37.2 does
// (kubeoracle on the same input, see the commit message). Before, every
// profile evicted plain.
func TestProfile_VictimOfUnsetPodGroupRanksAtZero(t *testing.T) {
	held := member("held", "bg", cpu(2000), 0)
	held.NodeName, held.Priority = "n1", 500
	plain := placement.Pod{Namespace: "default", Name: "plain", NodeName: "n2", Requests: cpu(2000), Priority: 50}
	nodes := []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}
	cases := []struct {
		profile  Profile
		bgExists bool
		want     string
	}{
		{ProfileV136, true, "plain"},
		{ProfileV137, true, "held"},
		{ProfileV138, true, "held"},
		{ProfileV136, false, "plain"},
		{ProfileV137, false, "plain"},
		{ProfileV138, false, "plain"},
	}
	for _, c := range cases {
		name := string(c.profile) + "/PodGroup missing"
		if c.bgExists {
			name = string(c.profile) + "/PodGroup unset"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, Options{Preemption: true, Profile: c.profile}, nodes, held, plain)
			if c.bgExists {
				bg := basicPG("bg")
				bg.Spec.Priority = nil
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
