package placement_test

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// hookSet is a drawn set of the caller's hooks that read what the
// overlay could get wrong — pods on a node, pods of the snapshot, the
// members of other groups — and decide by it, each call written to log.
type hookSet struct {
	filter, placementFilter, scorer, nodeScorer, reserver bool
	salt                                                  uint32
	podCap                                                int // a Filter rejects a node with this many pods
	log                                                   *[]string
}

func drawHookSet(t *rapid.T) hookSet {
	return hookSet{
		filter: rapid.Bool().Draw(t, "filter"), placementFilter: rapid.Bool().Draw(t, "placement filter"),
		scorer: rapid.Bool().Draw(t, "scorer"), nodeScorer: rapid.Bool().Draw(t, "node scorer"), reserver: rapid.Bool().Draw(t, "reserver"),
		salt: rapid.Uint32().Draw(t, "salt"), podCap: rapid.IntRange(1, 4).Draw(t, "pod cap"),
	}
}

func (h hookSet) hash(parts ...any) uint32 {
	f := fnv.New32a()
	fmt.Fprint(f, h.salt, parts)
	return f.Sum32()
}

// onNode is what a hook reads of node n's pods: their names, sorted.
func onNode(n placement.NodeInfo) []string {
	var out []string
	for p := range n.Snapshot().PodsOn(n.ID()) {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// others counts the pods of the snapshot and the bound members of every
// leaf group g0…g5 but g.
func others(s *placement.Snapshot, g string) string {
	out := fmt.Sprint(s.NumPods())
	for i := range 6 {
		if name := fmt.Sprintf("l%d", i); name != g {
			out += fmt.Sprintf(" %d", len(s.GroupMembers(placement.Key{Namespace: "ns", Name: name})))
		}
	}
	return out
}

func (h hookSet) options(log *[]string) placement.Options {
	var opts placement.Options
	rec := func(format string, args ...any) { *log = append(*log, fmt.Sprintf(format, args...)) }
	if h.filter {
		opts.Filters = []placement.Filter{placement.FilterFunc(func(p *placement.Pod, n placement.NodeInfo) placement.Rejection {
			pods := onNode(n)
			rec("filter %s %s %v %d", p.Name, n.Node().Name, pods, n.Free(placement.ResourceCPU))
			if len(pods) >= h.podCap || h.hash(p.Name, n.Node().Name)%5 == 0 {
				return placement.Rejection{Reason: "drawn"}
			}
			return placement.Rejection{}
		})}
	}
	var last *placement.Snapshot // kept past its call, as a cache would
	if h.placementFilter {
		opts.PlacementFilters = []placement.PlacementFilter{placement.PlacementFilterFunc(func(s *placement.Snapshot, g placement.GroupView, p *placement.Placement, a []placement.Assignment) placement.Rejection {
			o := others(s, g.Name)
			rec("placement filter %s %s %v %s", g.Name, p.Name, a, o)
			if last != nil {
				changed, ok := last.ChangedNodes(s)
				rec("since the last call: %v %v; then %s", changed, ok, others(last, ""))
			}
			last = s
			if h.hash(g.Name, p.Name, o)%4 == 0 {
				return placement.Rejection{Reason: "drawn"}
			}
			return placement.Rejection{}
		})}
	}
	if h.scorer {
		opts.Scorer = placement.PlacementScorerFunc(func(s *placement.Snapshot, g placement.GroupView, p *placement.Placement, a []placement.Assignment) (int64, error) {
			o := others(s, g.Name)
			rec("score %s %s %v %s", g.Name, p.Name, a, o)
			return int64(h.hash(g.Name, a, o) % 100), nil
		})
	}
	if h.nodeScorer {
		opts.NodeScorer = placement.NodeScorerFunc(func(p *placement.Pod, n placement.NodeInfo) (int64, error) {
			pods := onNode(n)
			rec("node score %s %s %v", p.Name, n.Node().Name, pods)
			return int64(h.hash(p.Name, n.Node().Name, pods) % 100), nil
		})
	}
	if h.reserver {
		opts.Reservers = []placement.NewReserverFunc{func(s *placement.Snapshot, g placement.GroupView) (placement.Reserver, error) {
			rec("new reserver %s %s", g.Name, others(s, g.Name))
			held := map[string]int{} // reserved pods per node, this solve
			return placement.ReserverFuncs{
				FilterFunc: func(p *placement.Pod, n placement.NodeInfo) placement.Rejection {
					rec("reserver filter %s %s %d", p.Name, n.Node().Name, held[n.Node().Name])
					if held[n.Node().Name]+len(onNode(n)) > h.podCap {
						return placement.Rejection{Reason: "drawn"}
					}
					return placement.Rejection{}
				},
				ReserveFunc: func(p *placement.Pod, n placement.NodeInfo) {
					rec("reserve %s %s", p.Name, n.Node().Name)
					held[n.Node().Name]++
				},
				UnreserveFunc: func(p *placement.Pod, n placement.NodeInfo) {
					rec("unreserve %s %s", p.Name, n.Node().Name)
					held[n.Node().Name]--
				},
			}, nil
		}}
	}
	return opts
}

// With the caller's hooks, the search on the overlay (pods indexed, a
// frozen snapshot per Solve) makes exactly the hook calls, with the same
// arguments as the hooks read them, and the decision that committing each
// leaf with Snapshot.Apply (the plain reference) makes — under drawn
// hooks whose answers depend on pods on a node, the snapshot's pod count
// and other groups' members, and one that keeps the snapshot it saw and
// reads it, and ChangedNodes from it, at its next call. Leaves are named
// l0…l5 here.
func TestHierarchy_PropHooksSeeApply(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawHCase(t)
		leaf := 0
		var rename func(n *placement.HierarchyNode)
		rename = func(n *placement.HierarchyNode) {
			if g := n.Group; g != nil {
				name := fmt.Sprintf("l%d", leaf)
				leaf++
				n.Name, g.Name = name, name
				for i := range g.Members {
					g.Members[i].Name, g.Members[i].SchedulingGroup = fmt.Sprintf("%s-%d", name, i), name
				}
			}
			for _, ch := range n.Children {
				rename(ch)
			}
		}
		rename(c.root)
		// Some pods are bound already, in and out of groups.
		var bound []placement.Pod
		for i, n := range c.nodes {
			if n.Allocatable[placement.ResourceCPU] > 0 && rapid.Bool().Draw(t, "bound") {
				bound = append(bound, placement.Pod{Namespace: "ns", Name: fmt.Sprintf("b%d", i), NodeName: n.Name,
					SchedulingGroup: rapid.SampledFrom([]string{"", "l0", "x"}).Draw(t, "bound group"), Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
			}
		}
		s, err := placement.NewSnapshot(c.nodes, bound)
		if err != nil {
			t.Fatal(err)
		}
		h := drawHookSet(t)
		var fast, ref []string
		d1, err1 := placement.SolveHierarchy(s, c.root, h.options(&fast))
		d2, err2 := placement.SolveHierarchyApplied(s, c.root, h.options(&ref))
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("errors: overlay %v, applied %v", err1, err2)
		}
		if !reflect.DeepEqual(d1, d2) {
			t.Fatalf("overlay %v %s %v, applied %v %s %v", d1.Status, d1.Message, leafNodes(d1), d2.Status, d2.Message, leafNodes(d2))
		}
		if !slices.Equal(fast, ref) {
			for i := range min(len(fast), len(ref)) {
				if fast[i] != ref[i] {
					t.Fatalf("hook call %d: overlay %q, applied %q", i, fast[i], ref[i])
				}
			}
			t.Fatalf("%d hook calls on the overlay, %d applied", len(fast), len(ref))
		}
	})
}
