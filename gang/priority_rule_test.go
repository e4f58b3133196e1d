package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfile_PriorityRuleCoversBoundAndUnset: since v1.37 upstream's
// validatePodGroup holds every pod of a PodGroup, or of a hierarchy's
// leaves, pending and scheduled, to the group's (the root's) priority, 0
// when it is unset. v1.36 lets them differ (the group binds); v1.37 fails
// the cycle with SchedulerError, v1.38 with PodGroupError, naming the pod
// and spec.priority. Before, only pending pods were checked, and not at
// all when the group's (root's) priority was unset.
func TestProfile_PriorityRuleCoversBoundAndUnset(t *testing.T) {
	p100 := int32(100)
	type setup struct {
		pgPrio    *int32 // the PodGroup's, or the root's for a tree
		tree      bool
		boundPrio int32 // a bound member's ("g-b" on n1; for a tree, of leaf "g2" with no pending pod)
	}
	cases := []struct {
		name string
		setup
		err string // under v1.37/v1.38; "" binds
	}{
		{"podgroup unset, pods 100", setup{nil, false, 100},
			`PodGroup default/g: pod "default/g-0": spec.priority: 100 differs from its PodGroup default/g's priority 0 (spec.priority unset) (since v1.37 every member carries its group's priority: give the PodGroup the pods' priorityClassName, or the pods the PodGroup's)`},
		{"podgroup unset, pods 0", setup{nil, false, 0}, ""},
		{"podgroup 100, a bound member 7", setup{&p100, false, 7},
			`PodGroup default/g: pod "default/g-b": spec.priority: 7 differs from its PodGroup default/g's priority 100 (since v1.37 every member carries its group's priority: give the PodGroup the pods' priorityClassName, or the pods the PodGroup's)`},
		{"podgroup 100, all 100", setup{&p100, false, 100}, ""},
		{"root unset, pods 100", setup{nil, true, 100},
			`CompositePodGroup default/root: pod "default/g-0": spec.priority: 100 differs from the priority 0 (spec.priority unset) of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g's hierarchy (since v1.37 every pod of a hierarchy carries its root's priority: give the root the pods' priorityClassName, or the pods the root's)`},
		{"root unset, pods 0", setup{nil, true, 0}, ""},
		{"root 100, another leaf's bound member 7", setup{&p100, true, 7},
			`CompositePodGroup default/root: pod "default/g2-b": spec.priority: 7 differs from the priority 100 of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g2's hierarchy (since v1.37 every pod of a hierarchy carries its root's priority: give the root the pods' priorityClassName, or the pods the root's)`},
		{"root 100, all 100", setup{&p100, true, 100}, ""},
	}
	for _, c := range cases {
		for _, profile := range []Profile{ProfileV136, ProfileV137, ProfileV138} {
			t.Run(fmt.Sprintf("%s/%s", c.name, profile), func(t *testing.T) {
				podPrio := c.boundPrio
				if c.pgPrio != nil {
					podPrio = *c.pgPrio
				}
				boundGroup := "g"
				if c.tree {
					boundGroup = "g2"
				}
				b := member(boundGroup+"-b", boundGroup, cpu(1000), 0)
				b.NodeName, b.Priority = "n1", c.boundPrio
				s := NewScheduler(Options{Profile: profile})
				snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, []placement.Pod{b})
				require.NoError(t, err)
				g := gangPG("g", 1)
				if c.tree {
					root := cpg("root", "", "", 1)
					root.Spec.Priority = c.pgPrio
					root.Spec.SchedulingPolicy.Gang = nil
					root.Spec.SchedulingPolicy.Basic = &BasicSchedulingPolicy{}
					require.NoError(t, s.SetCompositePodGroup(root))
					// The leaves carry the root's priority, which v1.38
					// checks first (TestProfile_V138TreeGroupRule).
					g = leafPG("g", "root", "", 1)
					g.Spec.Priority = c.pgPrio
					g2 := leafPG("g2", "root", "", 1)
					g2.Spec.Priority = c.pgPrio
					require.NoError(t, s.SetPodGroup(g2))
				} else {
					g.Spec.Priority = c.pgPrio
				}
				require.NoError(t, s.SetPodGroup(g))
				p := member("g-0", "g", cpu(1000), 0)
				p.Priority = podPrio
				require.NoError(t, s.AddPod(p))
				r, ok := s.Cycle(snap, t0)
				require.True(t, ok)
				requireMemberRule(t, r, profile, c.tree, c.err, []string{"g-0@n1"})
			})
		}
	}
}
