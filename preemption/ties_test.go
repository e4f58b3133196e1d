package preemption_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// inBatch puts p in PodGroup "batch", whose disruptionMode is Pod: the pod
// stays its own victim, but ranks as more important than a plain pod of
// the same priority, so it comes later in eviction order.
func inBatch(p placement.Pod) placement.Pod {
	p.SchedulingGroup = "batch"
	return p
}

var batchPods = preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("batch"): {DisruptionMode: preemption.DisruptionModePod}}}

// Two full nodes whose one pod each costs the same (priority, start, one
// pod): the victim whose name comes first goes, though the other comes
// first in eviction order (a plain pod before a PodGroup's). Of two racks
// whose victim sets cost the same, likewise; of two racks where the same
// whole group is the cheapest set, the rack whose name comes first.
func TestScenario_EqualCostNodesTieByName(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(1000)), node("n2", cpu(1000))}, []placement.Pod{
		bound("b-pod", "n1", "", low, cpu(1000)),
		inBatch(bound("a-pod", "n2", "", low, cpu(1000))),
	})
	p := find(t, s, gang("pre", 1, 1, high, cpu(1000)), batchPods, placement.Options{})
	require.Equal(t, []string{"a-pod"}, evicted(p))
	require.Equal(t, map[string]string{"pre-0": "n2"}, assigned(p.Decision))
	require.True(t, p.Proven)

	// A gang of two that must share a rack: each rack's two pods cost the
	// same; rack-2's names come first.
	racks := []placement.Node{
		node("n1", cpu(1000), rackKey, "rack-1"), node("n2", cpu(1000), rackKey, "rack-1"),
		node("n3", cpu(1000), rackKey, "rack-2"), node("n4", cpu(1000), rackKey, "rack-2"),
	}
	s = snapshot(racks, []placement.Pod{
		bound("c-pod", "n1", "", low, cpu(1000)), bound("d-pod", "n2", "", low, cpu(1000)),
		inBatch(bound("a-pod", "n3", "", low, cpu(1000))), inBatch(bound("b-pod", "n4", "", low, cpu(1000))),
	})
	opts := placement.Options{Generator: rackGenerator()}
	p = find(t, s, gang("pre", 2, 2, high, cpu(1000)), batchPods, opts)
	require.Equal(t, []string{"a-pod", "b-pod"}, evicted(p))
	require.Equal(t, map[string]string{"pre-0": "n3", "pre-1": "n4"}, assigned(p.Decision))
	require.True(t, p.Proven)

	// One whole group, a pod in each rack: the same set is cheapest in
	// both racks, and the plan places the member in rack-1.
	whole := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("w"): {DisruptionMode: preemption.DisruptionModePodGroup}}}
	s = snapshot(racks[1:3], []placement.Pod{
		bound("w-0", "n2", "w", low, cpu(1000)), bound("w-1", "n3", "w", low, cpu(1000)),
	})
	p = find(t, s, gang("pre", 1, 1, high, cpu(1000)), whole, opts)
	require.Equal(t, []string{"w-0", "w-1"}, evicted(p))
	require.Equal(t, map[string]string{"pre-0": "n2"}, assigned(p.Decision))
	require.True(t, p.Proven)
}

// One node of four pods that cost the same each; a gang of two needs two
// of them gone. Every pair costs the same: the pair whose sorted names
// come first goes (a-pod, the PodGroup's, comes last in eviction order).
// A whole group of two pods ties with two pods, and its name decides.
func TestScenario_EqualCostSetsTieByName(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(4000))}, []placement.Pod{
		inBatch(bound("a-pod", "n1", "", low, cpu(1000))),
		bound("b-pod", "n1", "", low, cpu(1000)),
		bound("c-pod", "n1", "", low, cpu(1000)),
		bound("d-pod", "n1", "", low, cpu(1000)),
	})
	p := find(t, s, gang("pre", 2, 2, high, cpu(1000)), batchPods, placement.Options{})
	require.Equal(t, []string{"a-pod", "b-pod"}, evicted(p))
	require.True(t, p.Proven)
	require.Equal(t, preemption.NoLimit, p.Limit)

	whole := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("a-grp"): {DisruptionMode: preemption.DisruptionModePodGroup}}}
	s = snapshot([]placement.Node{node("n1", cpu(4000))}, []placement.Pod{
		bound("x-0", "n1", "a-grp", low, cpu(1000)),
		bound("x-1", "n1", "a-grp", low, cpu(1000)),
		bound("b-pod", "n1", "", low, cpu(1000)),
		bound("c-pod", "n1", "", low, cpu(1000)),
	})
	p = find(t, s, gang("pre", 2, 2, high, cpu(1000)), whole, placement.Options{})
	require.Equal(t, []string{"x-0", "x-1"}, evicted(p))
	require.True(t, p.Proven)
}
