package bench_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// upstreamGreedyHierarchy is a comparator for the hierarchy benchmarks,
// not a solver: it decides a KEP-6012 tree the way upstream's alpha does
// (issue 19), greedily. Children are taken in creation (slice) order, each
// confined to the domain its parent assumed, and a child placed is never
// taken back for a sibling (no backtracking: KEP-6012's "resource
// stealing" goes unanswered). A node tries the domains of its key in
// value order and keeps the first where its children meet its quorum
// (MinGroupCount; one for basic); a leaf is placement.Solve confined to
// one domain, as many members as fit, committed with Snapshot.Apply (the
// scheduler's assume). It returns the members placed; 0 when the root's
// quorum is not met. ix holds each node's label values, built once per
// snapshot as a scheduler's node cache would (newGreedyIndex).
func upstreamGreedyHierarchy(s *placement.Snapshot, ix greedyIndex, root *placement.HierarchyNode) (int, error) {
	_, placed, ok, err := ix.node(s, root, ix.all)
	if !ok {
		placed = 0
	}
	return placed, err
}

// greedyIndex is, per topology key, each node's value ("" and false for
// a node without it).
type greedyIndex struct {
	all    []placement.NodeID
	values map[string][]string
	has    map[string][]bool
}

func newGreedyIndex(s *placement.Snapshot, keys ...string) greedyIndex {
	ix := greedyIndex{values: map[string][]string{}, has: map[string][]bool{}}
	for i := range s.NumNodes() {
		ix.all = append(ix.all, placement.NodeID(i))
	}
	for _, k := range keys {
		vs, has := make([]string, s.NumNodes()), make([]bool, s.NumNodes())
		for i := range vs {
			vs[i], has[i] = s.Node(placement.NodeID(i)).Labels[k]
		}
		ix.values[k], ix.has[k] = vs, has
	}
	return ix
}

func (ix greedyIndex) node(s *placement.Snapshot, n *placement.HierarchyNode, allowed []placement.NodeID) (*placement.Snapshot, int, bool, error) {
	for _, dom := range ix.domains(n.TopologyKey, allowed) {
		if g := n.Group; g != nil {
			pl := placement.Placement{Nodes: dom}
			d, err := placement.Solve(s, g, placement.Options{Generator: placement.PlacementGeneratorFunc(
				func(*placement.Snapshot, placement.GroupView) ([]placement.Placement, error) {
					return []placement.Placement{pl}, nil
				})})
			if err != nil {
				return s, 0, false, err
			}
			if d.Status != placement.Scheduled {
				continue
			}
			byKey := make(map[placement.Key]int, len(g.Members))
			for i := range g.Members {
				byKey[g.Members[i].Key()] = i
			}
			ch := placement.Change{Bind: make([]placement.Pod, len(d.Assignments))}
			for k, a := range d.Assignments {
				ch.Bind[k] = g.Members[byKey[a.Pod]]
				ch.Bind[k].NodeName = a.Node
			}
			next, err := s.Apply(ch)
			return next, len(ch.Bind), err == nil, err
		}
		cur, sat, placed := s, 0, 0
		for _, c := range n.Children {
			next, p, ok, err := ix.node(cur, c, dom)
			if err != nil {
				return s, 0, false, err
			}
			if ok {
				cur, sat, placed = next, sat+1, placed+p
			}
		}
		need := int(n.MinGroupCount)
		if n.Policy == placement.PolicyBasic {
			need = 1
		}
		if sat >= need {
			return cur, placed, true, nil
		}
	}
	return s, 0, false, nil
}

// domains splits allowed by key's values, in value order; a node without
// the key is in none. No key: allowed is the one domain.
func (ix greedyIndex) domains(key string, allowed []placement.NodeID) [][]placement.NodeID {
	if key == "" {
		return [][]placement.NodeID{allowed}
	}
	vs, has := ix.values[key], ix.has[key]
	by := map[string][]placement.NodeID{}
	for _, id := range allowed {
		if has[id] {
			by[vs[id]] = append(by[vs[id]], id)
		}
	}
	out := make([][]placement.NodeID, 0, len(by))
	for _, v := range slices.Sorted(maps.Keys(by)) {
		out = append(out, by[v])
	}
	return out
}

// The greedy comparator places every member of the benchmark trees (min
// equals size there: nothing to steal), and fails KEP-6012's resource
// stealing, which SolveHierarchy places: block b0 has racks of 3 and 2
// free GPUs, and the first child (min 2, 3 pods) takes the rack of 3
// whole, leaving its sibling (min 3) nothing.
func TestUpstreamGreedyHierarchy(t *testing.T) {
	for _, h := range hierarchyShapes {
		g := gpuCluster(t, 10000, true)
		root, total := h.root(false)
		placed, err := upstreamGreedyHierarchy(g.s, newGreedyIndex(g.s, bench.BlockKey, bench.RackKey, bench.HostKey), root)
		if err != nil || placed != total {
			t.Fatalf("%s: %v placed %d of %d", h.name, err, placed, total)
		}
	}
	node := func(name, rack string, gpus int64) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{bench.BlockKey: "b0", bench.RackKey: rack},
			Allocatable: placement.ResourceList{placement.ResourceGPU: gpus, placement.ResourceCPU: 100_000, placement.ResourcePods: 110}}
	}
	s := mustSnapshot(t, []placement.Node{node("n0", "r0", 3), node("n1", "r1", 2)}, nil)
	a, b := bench.GPUGang("a", 3), bench.GPUGang("b", 3)
	a.MinCount, b.MinCount = 2, 3
	root := &placement.HierarchyNode{Name: "root", TopologyKey: bench.BlockKey, MinGroupCount: 2, Children: []*placement.HierarchyNode{
		{Name: "a", TopologyKey: bench.RackKey, Group: a}, {Name: "b", TopologyKey: bench.RackKey, Group: b}}}
	if placed, err := upstreamGreedyHierarchy(s, newGreedyIndex(s, bench.BlockKey, bench.RackKey), root); err != nil || placed != 0 {
		t.Fatalf("greedy: %v placed %d, want 0 (resource stealing)", err, placed)
	}
	d, err := placement.SolveHierarchy(s, root, placement.Options{})
	if err != nil || d.Status != placement.Scheduled || placedMembers(d) != 5 {
		t.Fatalf("SolveHierarchy: %v %v placed %d: %s", err, d.Status, placedMembers(d), d.Message)
	}
}
