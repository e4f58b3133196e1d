package preemption_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// A CannotHelp plan's message gives the verdict once, without the
// decision a caller shows before it: with no pod below the preemptor,
// only that; with candidates that free too little, how many members fit
// without them and an "at most" line for each resource the members lack
// (cpu here), never for one they do not lack (memory, pods). MostFreeable
// keeps every resource either way, for a host that reads the numbers.
func TestFind_CannotHelpMessage(t *testing.T) {
	const gi = 1 << 30
	n1 := node("n1", placement.ResourceList{placement.ResourceCPU: 4000, placement.ResourceMemory: 8 * gi, placement.ResourcePods: 110})
	req := placement.ResourceList{placement.ResourceCPU: 3000, placement.ResourceMemory: gi}
	for _, tc := range []struct {
		name     string
		pods     []placement.Pod
		want     string
		freeable []preemption.Freeable
	}{
		{name: "no lower pod",
			pods: []placement.Pod{bound("keep", "n1", "", high, cpu(2000))},
			want: "preemption cannot help: no pod of priority below 100 is in the way",
			freeable: []preemption.Freeable{
				{Resource: placement.ResourceCPU, Node: "n1", Free: 2000, Request: 3000},
				{Resource: placement.ResourceMemory, Node: "n1", Free: 8 * gi, Request: gi},
				{Resource: placement.ResourcePods, Node: "n1", Free: 109, Request: 1},
			}},
		{name: "lower pods free too little",
			pods: []placement.Pod{bound("keep", "n1", "", high, cpu(2000)), bound("low", "n1", "", low, cpu(1000))},
			want: "preemption cannot help: even with every candidate victim of priority below 100 removed (1 in all), 0 of min 1 members fit; " +
				"at most cpu 2000 on node n1 (1000 free + 1000 from lower-priority pods), a member requests 3000",
			freeable: []preemption.Freeable{
				{Resource: placement.ResourceCPU, Node: "n1", Free: 1000, Freed: 1000, Request: 3000},
				{Resource: placement.ResourceMemory, Node: "n1", Free: 8 * gi, Request: gi},
				{Resource: placement.ResourcePods, Node: "n1", Free: 108, Freed: 1, Request: 1},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot([]placement.Node{n1}, tc.pods)
			p := find(t, s, gang("hi", 1, 1, mid, req), preemption.Input{}, placement.Options{})
			require.Equal(t, preemption.CannotHelp, p.Outcome)
			require.Equal(t, tc.want, p.Message)
			require.Equal(t, tc.freeable, p.MostFreeable)
		})
	}
}

// Room reserved without pods (Change.Reserve: a batch system's admitted
// pod set) is never a victim; the verdict says it holds the room, so
// that "no pod ... is in the way" does not read as wrong to one who
// knows a lower-priority workload is there (the tester kbreak's finding
// 11: a Kueue Workload beside a higher-priority Job).
func TestFind_CannotHelpNamesReservedRoom(t *testing.T) {
	n1 := node("n1", placement.ResourceList{placement.ResourceCPU: 4000, placement.ResourcePods: 110})
	reserve := func(group string, pods int32) placement.PodSetUsage {
		return placement.PodSetUsage{Group: placement.Key{Namespace: "default", Name: group}, PodSet: "main",
			Requests: cpu(1000), Nodes: []placement.PodSetAssignment{{Node: "n1", Count: pods}}}
	}
	for _, tc := range []struct {
		name    string
		reserve []placement.PodSetUsage
		lower   bool
		want    string
	}{
		{name: "one set, no lower pod", reserve: []placement.PodSetUsage{reserve("w1", 3)},
			want: `preemption cannot help: no pod of priority below 100 is in the way; room for 3 pods is reserved without pods (pod set "main" of default/w1), which preemption never frees`},
		{name: "two sets, a lower pod freeing too little", reserve: []placement.PodSetUsage{reserve("w2", 1), reserve("w1", 2)}, lower: true,
			want: "preemption cannot help: even with every candidate victim of priority below 100 removed (1 in all), 0 of min 1 members fit; " +
				`at most cpu 1000 on node n1 (0 free + 1000 from lower-priority pods), a member requests 3000; room for 3 pods is reserved without pods (2 pod sets, the first "main" of default/w1), which preemption never frees`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pods []placement.Pod
			if tc.lower {
				pods = append(pods, bound("low", "n1", "", low, cpu(1000)))
			}
			s, err := snapshot([]placement.Node{n1}, pods).Apply(placement.Change{Reserve: tc.reserve})
			require.NoError(t, err)
			p := find(t, s, gang("hi", 1, 1, mid, cpu(3000)), preemption.Input{}, placement.Options{})
			require.Equal(t, preemption.CannotHelp, p.Outcome)
			require.Equal(t, tc.want, p.Message)
		})
	}
}
