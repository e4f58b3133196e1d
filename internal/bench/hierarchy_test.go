package bench_test

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// hierarchyShape is a KEP-6012 tree on the GPU cluster: a root gang by
// block over inner gangs, each over leaf gangs of one-GPU pods.
type hierarchyShape struct {
	name   string
	inner  int    // inner nodes under the root (0: the leaves hang from the root)
	leaves int    // leaves under each inner node (or the root)
	pods   int    // pods of each leaf
	inKey  string // topology key of an inner node
	leaf   string // topology key of a leaf
}

var hierarchyShapes = []hierarchyShape{
	// 2 levels: a root by block, 8 children of 64 pods by rack.
	{name: "2-level/8x64", leaves: 8, pods: 64, leaf: bench.RackKey},
	// 3 levels: a root by block, 4 racks of 4 leaves of 8 pods by host.
	{name: "3-level/4x4x8", inner: 4, leaves: 4, pods: 8, inKey: bench.RackKey, leaf: bench.HostKey},
}

// root builds the tree afresh (SolveHierarchy reads, never changes, it).
func (h hierarchyShape) root() (*placement.HierarchyNode, int) {
	total := 0
	leaves := func(prefix string) []*placement.HierarchyNode {
		var out []*placement.HierarchyNode
		for i := range h.leaves {
			name := fmt.Sprintf("%s-l%d", prefix, i)
			g := bench.GPUGang(name, h.pods)
			total += h.pods
			out = append(out, &placement.HierarchyNode{Name: name, TopologyKey: h.leaf, Group: g})
		}
		return out
	}
	r := &placement.HierarchyNode{Name: "root", TopologyKey: bench.BlockKey}
	if h.inner == 0 {
		r.Children = leaves("root")
	} else {
		for i := range h.inner {
			name := fmt.Sprintf("root-i%d", i)
			r.Children = append(r.Children, &placement.HierarchyNode{Name: name, TopologyKey: h.inKey, MinGroupCount: int32(h.leaves), Children: leaves(name)})
		}
	}
	r.MinGroupCount = int32(len(r.Children))
	return r, total
}

// hierarchies are the KEP-6012 workloads: each shape on the 10,000-host
// GPU cluster, empty and fragmented, beside a floor that reads every
// node's free GPUs once (summed per block) and every member's request
// once, and picks the first block that holds the members' sum. (The
// floor ignores racks and hosts, so it is a floor, not an answer.) Each
// is run a second time, ".../upstream-greedy", by the comparator
// upstreamGreedyHierarchy, beside the same floor.
func hierarchies() []workload {
	var out []workload
	for _, h := range hierarchyShapes {
		for _, f := range []bool{false, true} {
			c := cell{n: 10000, fragmented: f}
			name := fmt.Sprintf("hierarchy/n=%d/%s/%s", c.n, h.name, c.state())
			floor := hierarchyFloor(h, c)
			out = append(out, workload{
				name: name,
				decision: func(b *testing.B) (func(), []metric) {
					g := gpuCluster(b, c.n, c.fragmented)
					root, total := h.root()
					d, err := placement.SolveHierarchy(g.s, root, placement.Options{})
					if err != nil || d.Status != placement.Scheduled || placedMembers(d) != total {
						b.Fatalf("%v %v placed %d of %d: %s", err, d.Status, placedMembers(d), total, d.Message)
					}
					return func() {
						d, _ := placement.SolveHierarchy(g.s, root, placement.Options{})
						sink += d.Steps
					}, nil
				},
				floor: floor,
			}, workload{
				name: name + "/upstream-greedy",
				decision: func(b *testing.B) (func(), []metric) {
					g := gpuCluster(b, c.n, c.fragmented)
					root, total := h.root()
					ix := newGreedyIndex(g.s, bench.BlockKey, bench.RackKey, bench.HostKey) // kept across cycles, as a node cache
					if placed, err := upstreamGreedyHierarchy(g.s, ix, root); err != nil || placed != total {
						b.Fatalf("%v placed %d of %d", err, placed, total)
					}
					return func() {
						placed, _ := upstreamGreedyHierarchy(g.s, ix, root)
						sink += int64(placed)
					}, nil
				},
				floor: floor,
			})
		}
	}
	return out
}

// hierarchyFloor is the floor of shape h on cell c (see hierarchies).
func hierarchyFloor(h hierarchyShape, c cell) prepare {
	return func(b *testing.B) (func(), []metric) {
		g := gpuCluster(b, c.n, c.fragmented)
		root, _ := h.root()
		var members []placement.Pod
		var walk func(n *placement.HierarchyNode)
		walk = func(n *placement.HierarchyNode) {
			if n.Group != nil {
				members = append(members, n.Group.Members...)
			}
			for _, ch := range n.Children {
				walk(ch)
			}
		}
		walk(root)
		blocks := g.c.Levels[g.c.Level(bench.BlockKey)].Start
		return func() {
			var need int64
			for i := range members {
				need += members[i].Requests[placement.ResourceGPU]
			}
			first := -1
			for d := 0; d+1 < len(blocks); d++ {
				var free int64
				for i := blocks[d]; i < blocks[d+1]; i++ {
					free += g.c.Free[0][i]
				}
				if free >= need && first < 0 {
					first = d
				}
			}
			sink += int64(first)
		}, nil
	}
}

func placedMembers(d placement.HierarchyDecision) int {
	n := 0
	for _, ld := range d.Decisions {
		n += len(ld.Assignments)
	}
	return n
}

// Each hierarchy workload places every member of its tree.
func TestHierarchyWorkloads_Place(t *testing.T) {
	for _, h := range hierarchyShapes {
		g := gpuCluster(t, 10000, true)
		root, total := h.root()
		d, err := placement.SolveHierarchy(g.s, root, placement.Options{})
		if err != nil || d.Status != placement.Scheduled || placedMembers(d) != total {
			t.Fatalf("%s: %v %v placed %d of %d: %s", h.name, err, d.Status, placedMembers(d), total, d.Message)
		}
	}
}
