package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfile_SchedulerNameRule: since v1.37 upstream's group cycle holds
// every pod of a PodGroup, or of a hierarchy's leaves, pending and bound,
// to the first queued pod's spec.schedulerName (v1.37.2 validatePodGroup,
// v1.38.0-beta.0 validatePodGroupHierarchy), before priority and policy.
// v1.37 fails the cycle with SchedulerError, v1.38 with PodGroupError,
// naming the pod, the field and the first pod; v1.36 holds only pending
// pods to one name (TestProfileV136_SchedulerNameRule).
func TestProfile_SchedulerNameRule(t *testing.T) {
	const us, other = "gangsched-scheduler", "default-scheduler"
	cases := []struct {
		name          string
		tree          bool
		second, bound string // the second pending pod's and the bound member's names
		secondPrio    int32  // the second pending pod's priority (the group's is 0)
		err           string // under v1.37/v1.38; "" binds
	}{
		{"podgroup, one name", false, us, us, 100, ""},
		{"podgroup, a pending pod names another", false, other, us, 100,
			`PodGroup default/g: pod "default/g-1": spec.schedulerName: "default-scheduler" differs from "gangsched-scheduler", pod "default/g-0"'s (since v1.37 every pod of a group, pending or bound, names one scheduler: give them one spec.schedulerName)`},
		{"podgroup, a bound member another scheduler placed", false, us, other, 100,
			`PodGroup default/g: pod "default/g-b": spec.schedulerName: "default-scheduler" differs from "gangsched-scheduler", pod "default/g-0"'s (since v1.37 every pod of a group, pending or bound, names one scheduler: give them one spec.schedulerName)`},
		{"podgroup, the name is checked before the priority", false, other, us, 7,
			`PodGroup default/g: pod "default/g-1": spec.schedulerName: "default-scheduler" differs from "gangsched-scheduler", pod "default/g-0"'s (since v1.37 every pod of a group, pending or bound, names one scheduler: give them one spec.schedulerName)`},
		{"tree, one name", true, us, us, 100, ""},
		{"tree, another leaf's bound member", true, us, other, 100,
			`CompositePodGroup default/root: pod "default/g2-b": spec.schedulerName: "default-scheduler" differs from "gangsched-scheduler", pod "default/g-0"'s (since v1.37 every pod of a hierarchy, pending or bound, names one scheduler: give them one spec.schedulerName)`},
		{"tree, a pending pod names another", true, other, us, 100,
			`CompositePodGroup default/root: pod "default/g-1": spec.schedulerName: "default-scheduler" differs from "gangsched-scheduler", pod "default/g-0"'s (since v1.37 every pod of a hierarchy, pending or bound, names one scheduler: give them one spec.schedulerName)`},
	}
	for _, c := range cases {
		for _, profile := range []Profile{ProfileV137, ProfileV138} { // v1.36: TestProfileV136_SchedulerNameRule
			t.Run(fmt.Sprintf("%s/%s", c.name, profile), func(t *testing.T) {
				boundGroup := "g"
				if c.tree {
					boundGroup = "g2"
				}
				b := member(boundGroup+"-b", boundGroup, cpu(1000), 0)
				b.NodeName, b.SchedulerName = "n1", c.bound
				s := NewScheduler(Options{Profile: profile})
				snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, []placement.Pod{b})
				require.NoError(t, err)
				g := gangPG("g", 2)
				if c.tree {
					root := cpg("root", "", "", 1)
					root.Spec.SchedulingPolicy.Gang = nil
					root.Spec.SchedulingPolicy.Basic = &BasicSchedulingPolicy{}
					require.NoError(t, s.SetCompositePodGroup(root))
					g = leafPG("g", "root", "", 2)
					require.NoError(t, s.SetPodGroup(leafPG("g2", "root", "", 1)))
				}
				require.NoError(t, s.SetPodGroup(g))
				for i, name := range []string{us, c.second} {
					p := member(fmt.Sprintf("g-%d", i), "g", cpu(1000), 0)
					p.SchedulerName = name
					if i == 1 {
						p.Priority = c.secondPrio
					}
					require.NoError(t, s.AddPod(p))
				}
				r, ok := s.Cycle(snap, t0)
				require.True(t, ok)
				requireMemberRule(t, r, profile, c.tree, c.err, []string{"g-0@n1", "g-1@n1"})
			})
		}
	}
}
