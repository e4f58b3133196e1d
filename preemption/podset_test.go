package preemption_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// A batch system's gang of 4 given as a template and a count (a pod set)
// preempts as the same 4 pods listed as members: the same victims, the
// room counted as the pod set's node counts.
func TestScenario_PodSetPreempts(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(2000)), node("n2", cpu(2000))}, []placement.Pod{
		started(bound("a", "n1", "", low, cpu(1000)), 1),
		started(bound("b", "n1", "", low, cpu(1000)), 2),
		started(bound("c", "n2", "", mid, cpu(1000)), 3),
		started(bound("d", "n2", "", high+1, cpu(1000)), 4),
	})
	g := &placement.Group{Namespace: ns, Name: "batch", MinCount: 3, PodSets: []placement.PodSet{
		{Name: "workers", Count: 3, Template: placement.Pod{Priority: high, Requests: cpu(1000)}},
	}}
	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome, p.Message)
	require.Equal(t, []string{"a", "b", "c"}, evicted(p))
	require.True(t, p.Proven)
	require.Equal(t, []placement.PodSetAssignment{
		{PodSet: "workers", Node: "n1", NodeID: 0, Count: 2},
		{PodSet: "workers", Node: "n2", NodeID: 1, Count: 1},
	}, p.Decision.PodSetAssignments)
	for i, v := range p.Victims {
		require.Equal(t, []placement.Key{key("workers")}, p.MakesRoomFor(i), v.Pods)
	}
}

// A pod set whose template has preemptionPolicy Never may not preempt; an
// unknown policy is an error naming the pod set's field.
func TestFind_PodSetPreemptionPolicy(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(1000))}, []placement.Pod{bound("a", "n1", "", low, cpu(1000))})
	g := &placement.Group{Namespace: ns, Name: "batch", MinCount: 1, PodSets: []placement.PodSet{
		{Name: "workers", Count: 1, Template: placement.Pod{Priority: high, Requests: cpu(1000), PreemptionPolicy: placement.PreemptNever}},
	}}
	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.NotAllowed, p.Outcome)
	require.Contains(t, p.Message, "pod set default/workers has preemptionPolicy Never")
	g.PodSets[0].Template.PreemptionPolicy = "Sometimes"
	_, err := preemption.Find(s, g, preemption.Input{}, placement.Options{})
	require.ErrorContains(t, err, "podSets[0].template.spec.preemptionPolicy")
}

// Identical members given as one pod set preempt exactly as when listed:
// the same outcome, victims and cost.
func TestProp_PodSetAsMembers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := smallWorld.Draw(t, "world")
		s := w.snapshot(t)
		tmpl := w.group.Members[0]
		for i := range w.group.Members {
			w.group.Members[i].Requests = tmpl.Requests
		}
		listed, err := preemption.Find(s, &w.group, w.in, w.opts())
		require.NoError(t, err)
		set := w.group
		set.Members = nil
		set.PodSets = []placement.PodSet{{Name: "hi-set", Count: int32(len(w.group.Members)), Template: placement.Pod{Priority: tmpl.Priority, QueuedAt: tmpl.QueuedAt, Requests: tmpl.Requests}}}
		asSet, err := preemption.Find(s, &set, w.in, w.opts())
		require.NoError(t, err)
		require.Equal(t, listed.Outcome, asSet.Outcome, "%s / %s", listed.Message, asSet.Message)
		require.Equal(t, listed.EvictedPods(), asSet.EvictedPods())
		require.Equal(t, listed.Cost, asSet.Cost)
		if asSet.Outcome == preemption.Preempt {
			require.NoError(t, placement.Verify(asSet.After, &set, asSet.Decision, w.opts().Filters...))
		}
	})
}
