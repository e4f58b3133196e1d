package placementtest

import (
	"cmp"
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// Pair names one member (by pod name) and one node.
type Pair struct{ Pod, Node string }

func comparePair(a, b Pair) int {
	if c := cmp.Compare(a.Pod, b.Pod); c != 0 {
		return c
	}
	return cmp.Compare(a.Node, b.Node)
}

// Filter is a generated caller filter ([placement.Filter]). It rejects the
// member/node pairs in Deny, and, when Headroom is not negative, a node whose
// free cpu after the member (and the members assumed onto it before) would
// fall below Headroom millicores: a rule that depends on earlier members, as
// a hook's may.
type Filter struct {
	// Deny is sorted by pod name, then node name, without duplicates.
	Deny []Pair
	// Headroom is in millicores; negative means no headroom rule.
	Headroom int64
	// Unresolvable marks the Deny rejections unresolvable (the headroom
	// rejection never is: freeing cpu helps).
	Unresolvable bool
}

var _ placement.Filter = (*Filter)(nil)

// Filter implements [placement.Filter].
func (f *Filter) Filter(pod *placement.Pod, node placement.NodeInfo) placement.Rejection {
	if _, ok := slices.BinarySearchFunc(f.Deny, Pair{pod.Name, node.Node().Name}, comparePair); ok {
		return placement.Rejection{Reason: "denied by test filter", Unresolvable: f.Unresolvable}
	}
	if f.Headroom >= 0 && node.Free(placement.ResourceCPU)-pod.Requests[placement.ResourceCPU] < f.Headroom {
		return placement.Rejection{Reason: fmt.Sprintf("test filter: less than %dm cpu left", f.Headroom)}
	}
	return placement.Rejection{}
}

// Filters generates [Filter]s over the names [Clusters] and [Groups] use:
// up to 8 denied pairs of members m00–m05 and nodes n00–n07, and a cpu
// headroom of 0–2 cores half of the time.
func Filters() *rapid.Generator[*Filter] {
	return rapid.Custom(func(t *rapid.T) *Filter {
		f := &Filter{Headroom: -1, Unresolvable: rapid.Bool().Draw(t, "unresolvable")}
		for range rapid.IntRange(0, 8).Draw(t, "deny") {
			f.Deny = append(f.Deny, Pair{
				Pod:  fmt.Sprintf("m%02d", rapid.IntRange(0, 5).Draw(t, "pod")),
				Node: fmt.Sprintf("n%02d", rapid.IntRange(0, 7).Draw(t, "node")),
			})
		}
		slices.SortFunc(f.Deny, comparePair)
		f.Deny = slices.Compact(f.Deny)
		if rapid.Bool().Draw(t, "headroom") {
			f.Headroom = int64(rapid.IntRange(0, 4).Draw(t, "headroomMilli")) * 500
		}
		return f
	})
}

// Quota is a generated placement filter ([placement.PlacementFilter]), a
// cap on a group's whole assignment such as a GPU quota: it rejects an
// assignment whose members request more than Max of Resource in total.
type Quota struct {
	// Resource is the resource capped, e.g. nvidia.com/gpu.
	Resource placement.ResourceName
	// Max is the most of Resource the assignment may request in total,
	// in canonical units.
	Max int64
	// Unresolvable marks the rejection as one that removing pods cannot
	// change (see [placement.Rejection]).
	Unresolvable bool
}

var _ placement.PlacementFilter = (*Quota)(nil)

// FilterPlacement implements [placement.PlacementFilter]. Assignments that
// name no pending pod of g (member or pod set) count nothing.
func (q *Quota) FilterPlacement(s *placement.Snapshot, g placement.GroupView, _ *placement.Placement, a []placement.Assignment) placement.Rejection {
	r := slices.Index(s.Resources(), q.Resource)
	var sum int64
	for j, i := range g.PendingIndexes(a) {
		if i >= 0 && r >= 0 {
			sum += g.RequestVector(s, i)[r] * a[j].Pods()
		}
	}
	if sum > q.Max {
		return placement.Rejection{Reason: fmt.Sprintf("quota: %s %d > %d", q.Resource, sum, q.Max), Unresolvable: q.Unresolvable}
	}
	return placement.Rejection{}
}

// Quotas generates [Quota]s of 0–8 cores of cpu or 0–4 GPUs.
func Quotas() *rapid.Generator[*Quota] {
	return rapid.Custom(func(t *rapid.T) *Quota {
		q := &Quota{Resource: placement.ResourceGPU, Max: int64(rapid.IntRange(0, 4).Draw(t, "gpu")), Unresolvable: rapid.Bool().Draw(t, "unresolvable")}
		if rapid.Bool().Draw(t, "cpu") {
			q.Resource, q.Max = placement.ResourceCPU, int64(rapid.IntRange(0, 8).Draw(t, "cores"))*1000
		}
		return q
	})
}
