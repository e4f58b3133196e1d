package gang_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// A tree's conditions say what preemption found, as a PodGroup's do: a
// root gang (priority 100) of a (1 pod) and b (2 pods), each in one rack,
// on two racks of 2 slots: n1 holds keep, n2 holds x and y. When the tree
// preempts, waits because preemption cannot help or is not allowed, or
// runs without preemption, every object of the tree gets the same
// condition message, Result.Message. The part after the decision's own
// message opens as a plain PodGroup's does in the same state (b alone as
// a root PodGroup: flat).
func TestCycleTree_ConditionsSayPreemption(t *testing.T) {
	const unfit = `1 of min 2 children fit (1 unschedulable, 0 unresolvable); fails at "PodGroup b"`
	for _, tc := range []struct {
		name        string
		preempt     bool
		keep, x, y  int32 // priorities of the bound pods
		never       bool  // every member has preemptionPolicy Never (v1.37 refuses a tree whose pods' policies differ)
		want        string
		flatOpening string // of the flat PodGroup's message after its decision's
	}{
		{name: "preempting", preempt: true, keep: 20, x: 5, y: 5,
			want:        unfit + "; preempting: evict 2 pods in 2 victims of priority at most 5 (preemptor 100); then 2 of min 2 children of \"root\" scheduled",
			flatOpening: "; preempting: evict 2 pods in 2 victims of priority at most 5 (preemptor 100); then "},
		{name: "no candidate", preempt: true, keep: 200, x: 200, y: 200,
			want:        unfit + "; preemption cannot help: no pod of priority below 100 is in the way",
			flatOpening: "; preemption cannot help: no pod of priority below 100 is in the way"},
		{name: "candidates do not help", preempt: true, keep: 200, x: 5, y: 200,
			want:        unfit + "; preemption cannot help: even with every candidate victim of priority below 100 removed (1 in all), 1 of min 2 children fit (1 unschedulable, 0 unresolvable)",
			flatOpening: "; preemption cannot help: even with every candidate victim of priority below 100 removed (1 in all), "},
		{name: "not allowed", preempt: true, keep: 20, x: 5, y: 5, never: true,
			want:        unfit + "; preemption not allowed: pod default/a-0 has preemptionPolicy Never",
			flatOpening: "; preemption not allowed: "},
		{name: "preemption off", keep: 20, x: 5, y: 5, want: unfit, flatOpening: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bound := func(name, node string, prio int32) placement.Pod {
				return placement.Pod{Namespace: "default", Name: name, NodeName: node, Requests: cpu(1000), Priority: prio}
			}
			pods := []placement.Pod{bound("keep", "n1", tc.keep), bound("x", "n2", tc.x), bound("y", "n2", tc.y)}
			nodes := []placement.Node{rackNode("n1", "b", "r1", 2000), rackNode("n2", "b", "r2", 2000)}
			members := func(h *harness, group string, n int) {
				for i := range n {
					p := member(fmt.Sprintf("%s-%d", group, i), group, cpu(1000), i)
					p.Priority = 100
					if tc.never {
						p.PreemptionPolicy = placement.PreemptNever
					}
					h.addPods(p)
				}
			}
			h := newHarness(t, Options{Preemption: tc.preempt}, nodes, pods...)
			root := cpg("root", "", "", 2)
			prio := int32(100)
			root.Spec.Priority = &prio
			h.setCPG(root)
			h.setPG(leafPG("a", "root", rackKey, 1))
			h.setPG(leafPG("b", "root", rackKey, 2))
			members(h, "a", 1)
			members(h, "b", 2)
			r, ok := h.cycle()
			require.True(t, ok)
			require.Empty(t, r.Bind)
			require.Equal(t, tc.want, r.Message())
			require.Len(t, r.Hierarchy.Conditions, 3)
			for _, c := range r.Hierarchy.Conditions {
				require.Equal(t, ConditionFalse, c.Condition.Status, c.Key)
				require.Equal(t, ReasonUnschedulable, c.Condition.Reason, c.Key)
				require.Equal(t, tc.want, c.Condition.Message, c.Key)
			}

			flat := newHarness(t, Options{Preemption: tc.preempt}, nodes, pods...)
			flat.setPG(withTopology(gangPG("b", 2), rackKey))
			members(flat, "b", 2)
			fr, ok := flat.cycle()
			require.True(t, ok)
			require.NotNil(t, fr.Condition)
			rest, ok := strings.CutPrefix(fr.Condition.Message, fr.Decision.Message)
			require.True(t, ok, fr.Condition.Message)
			require.True(t, strings.HasPrefix(rest, tc.flatOpening), "flat: %q", rest)
			require.Equal(t, tc.flatOpening == "", rest == "", "flat: %q", rest)
		})
	}
}

// A PodGroup under a CompositePodGroup that a placed tree leaves out is
// told so: root (basic) holds i1 and i2, each a gang of one leaf of two
// pods, on one node of two slots; i1's a binds, i2 would fit alone. b
// used to read "waiting for members: fewer than minCount exist", though
// both its members exist.
func TestCycleTree_LeftOutInnerChildsLeafCondition(t *testing.T) {
	s := NewScheduler(Options{})
	root := cpg("root", "", "", 1)
	root.Spec.SchedulingPolicy.Gang, root.Spec.SchedulingPolicy.Basic = nil, &BasicSchedulingPolicy{}
	require.NoError(t, s.SetCompositePodGroup(root))
	for _, c := range []*CompositePodGroup{cpg("i1", "root", "", 1), cpg("i2", "root", "", 1)} {
		require.NoError(t, s.SetCompositePodGroup(c))
	}
	require.NoError(t, s.SetPodGroup(leafPG("a", "i1", "", 2)))
	require.NoError(t, s.SetPodGroup(leafPG("b", "i2", "", 2)))
	for _, g := range []string{"a", "b"} {
		for i := range 2 {
			require.NoError(t, s.AddPod(member(fmt.Sprintf("%s-%d", g, i), g, cpu(1000), i)))
		}
	}
	snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 2000)}, nil)
	require.NoError(t, err)
	r, ok := s.Cycle(snap, t0)
	require.True(t, ok)
	require.NoError(t, r.Err)
	require.Equal(t, []string{"a-0@n1", "a-1@n1"}, bindNames(r))
	var got []string
	for _, hc := range r.Hierarchy.Conditions {
		if hc.Kind == "PodGroup" {
			got = append(got, fmt.Sprintf("%s %s %s: %s", hc.Key.Name, hc.Condition.Status, hc.Condition.Reason, hc.Condition.Message))
		}
	}
	require.Equal(t, []string{
		"a True Scheduled: 2 of 2 members placed",
		`b False Unschedulable: "i2", which holds it, does not fit beside its placed siblings`,
	}, got)
}
