package bench_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/internal/cputime"
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

// root builds the tree afresh (SolveHierarchy reads, never changes, it):
// each leaf's pods listed as members ([bench.GPUGang]), or with sets as
// one pod set of them ([bench.PodSetGang], as a batch system describes
// a child: a template and a count).
func (h hierarchyShape) root(sets bool) (*placement.HierarchyNode, int) {
	total := 0
	leaves := func(prefix string) []*placement.HierarchyNode {
		var out []*placement.HierarchyNode
		for i := range h.leaves {
			name := fmt.Sprintf("%s-l%d", prefix, i)
			g := bench.GPUGang(name, h.pods)
			if sets {
				g = bench.PodSetGang(name, h.pods)
			}
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
// upstreamGreedyHierarchy, beside the same floor; and a third,
// "hierarchy/n=…/<shape>/podset/<state>", with each leaf given as one pod
// set of its pods (as Kueue or JobSet describe a child: a template and a
// count), beside its own floor (hierarchyPodSetFloor), checked before
// timing to place as the listed form does, leaf by leaf and node by node.
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
					root, total := h.root(false)
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
				// A host that keeps placement.HierarchyBuffers between
				// cycles: the answer's memory is reused, not allocated.
				name: name + "/buffers",
				decision: func(b *testing.B) (func(), []metric) {
					g := gpuCluster(b, c.n, c.fragmented)
					root, _ := h.root(false)
					want, err := placement.SolveHierarchy(g.s, root, placement.Options{})
					if err != nil {
						b.Fatal(err)
					}
					var buf placement.HierarchyBuffers
					hopts := placement.HierarchyOptions{Buffers: &buf}
					for range 2 { // the second call reuses what the first grew
						d, err := placement.SolveHierarchyWith(g.s, root, placement.Options{}, hopts)
						if err != nil || !reflect.DeepEqual(d, want) {
							b.Fatalf("with buffers: %v, %v; want the decision made without", err, d.Message)
						}
					}
					return func() {
						d, _ := placement.SolveHierarchyWith(g.s, root, placement.Options{}, hopts)
						sink += d.Steps
					}, nil
				},
				floor: floor,
			}, workload{
				name: name + "/upstream-greedy",
				decision: func(b *testing.B) (func(), []metric) {
					g := gpuCluster(b, c.n, c.fragmented)
					root, total := h.root(false)
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
			}, workload{
				name: fmt.Sprintf("hierarchy/n=%d/%s/podset/%s", c.n, h.name, c.state()),
				decision: func(b *testing.B) (func(), []metric) {
					g := gpuCluster(b, c.n, c.fragmented)
					root := solvePodSetHierarchy(b, g, h)
					return func() {
						d, _ := placement.SolveHierarchy(g.s, root, placement.Options{})
						sink += d.Steps
					}, nil
				},
				floor: hierarchyPodSetFloor(h, c),
			})
		}
	}
	return out
}

// solvePodSetHierarchy returns shape h with pod-set leaves, checked on g:
// its decision must place every pod, and as many on each node, leaf by
// leaf, as the same tree with the pods listed.
func solvePodSetHierarchy(tb testing.TB, g *gpu, h hierarchyShape) *placement.HierarchyNode {
	tb.Helper()
	members, total := h.root(false)
	want, err := placement.SolveHierarchy(g.s, members, placement.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	root, _ := h.root(true)
	d, err := placement.SolveHierarchy(g.s, root, placement.Options{})
	if err != nil || d.Status != placement.Scheduled || placedMembers(d) != total {
		tb.Fatalf("%s: %v %v placed %d of %d: %s", h.name, err, d.Status, placedMembers(d), total, d.Message)
	}
	if len(d.Decisions) != len(want.Decisions) {
		tb.Fatalf("%s: %d leaves placed, listed members %d", h.name, len(d.Decisions), len(want.Decisions))
	}
	for i := range d.Decisions {
		if d.Decisions[i].Group != want.Decisions[i].Group {
			tb.Fatalf("%s: leaf %d is %v, listed members %v", h.name, i, d.Decisions[i].Group, want.Decisions[i].Group)
		}
		if err := samePerNode(want.Decisions[i], d.Decisions[i]); err != nil {
			tb.Fatalf("%s: leaf %v: %v", h.name, d.Decisions[i].Group, err)
		}
	}
	return root
}

// hierarchyPodSetFloor is the floor of shape h with pod-set leaves on cell
// c: the pod set matrix's ([cellFloor]), each leaf's template read once
// (its GPU and CPU requests) and the counts summed, then
// [bench.GangFloor.Place] of that many pods in one block — every node read
// once, pods per node out, as a pod set is answered. Like the member
// floor it ignores racks and hosts, so it is a floor, not an answer.
func hierarchyPodSetFloor(h hierarchyShape, c cell) prepare {
	return func(b *testing.B) (func(), []metric) {
		g := gpuCluster(b, c.n, c.fragmented)
		root, total := h.root(true)
		var sets []*placement.PodSet
		var walk func(n *placement.HierarchyNode)
		walk = func(n *placement.HierarchyNode) {
			if n.Group != nil {
				for i := range n.Group.PodSets {
					sets = append(sets, &n.Group.PodSets[i])
				}
			}
			for _, ch := range n.Children {
				walk(ch)
			}
		}
		walk(root)
		f, out, level := bench.NewGangFloor(g.c), make([]bench.Slots, 0, total), g.c.Level(bench.BlockKey)
		place := func() (int, []bench.Slots) {
			// The smallest request of each resource is the slot, as
			// GangFloor.NextFit takes it (the shapes' templates are one).
			unit, count := bench.Request{-1, -1}, 0
			for _, ps := range sets {
				gpu, cpu := ps.Template.Requests[placement.ResourceGPU], ps.Template.Requests[placement.ResourceCPU]
				if unit[0] < 0 || gpu < unit[0] {
					unit[0] = gpu
				}
				if unit[1] < 0 || cpu < unit[1] {
					unit[1] = cpu
				}
				count += int(ps.Count)
			}
			return f.Place(level, unit, count, out, false)
		}
		if placed, _ := place(); placed != total {
			b.Fatalf("%s: the floor places %d of %d", h.name, placed, total)
		}
		return func() {
			n, out := place()
			sink += int64(n + len(out))
		}, nil
	}
}

// hierarchyFloor is the floor of shape h on cell c (see hierarchies).
func hierarchyFloor(h hierarchyShape, c cell) prepare {
	return func(b *testing.B) (func(), []metric) {
		g := gpuCluster(b, c.n, c.fragmented)
		root, _ := h.root(false)
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

// BenchmarkHierarchyAnswer times, per hierarchy workload, the least any
// decision that answers a tree as SolveHierarchy does must write, whatever
// it decides: per leaf, a check that its members' names increase and one
// placement.Assignment per member (key, node name and ID: the nodes of
// SolveHierarchy's own decision) in a slice allocated for it, the leaf's
// Decision (group, status, placement, required count) in the Decisions
// slice, and a NodeResult per node of the tree (name, status, domain, its
// children's results in a slice allocated for them, a leaf's decision).
// It reads no request: the floor reads each member's once. A hierarchy
// cell's decision cannot come closer to its floor than (this + the
// floor) / the floor.
func BenchmarkHierarchyAnswer(b *testing.B) {
	for _, h := range hierarchyShapes {
		for _, f := range []bool{false, true} {
			c := cell{n: 10000, fragmented: f}
			b.Run(fmt.Sprintf("hierarchy/n=%d/%s/%s", c.n, h.name, c.state()), func(b *testing.B) {
				g := gpuCluster(b, c.n, c.fragmented)
				root, total := h.root(false)
				d, err := placement.SolveHierarchy(g.s, root, placement.Options{})
				if err != nil || d.Status != placement.Scheduled || placedMembers(d) != total {
					b.Fatalf("%v %v placed %d of %d: %s", err, d.Status, placedMembers(d), total, d.Message)
				}
				// The nodes of the decision, per leaf in member order.
				nodes := map[string][]placement.NodeID{}
				for _, ld := range d.Decisions {
					for _, a := range ld.Assignments {
						nodes[ld.Group.Name] = append(nodes[ld.Group.Name], a.NodeID)
					}
				}
				all := g.c.Nodes
				var decisions []placement.Decision
				var result func(n *placement.HierarchyNode) placement.NodeResult
				result = func(n *placement.HierarchyNode) placement.NodeResult {
					r := placement.NodeResult{Name: n.Name, Status: placement.Scheduled, Min: int(n.MinGroupCount)}
					if gr := n.Group; gr != nil {
						at := nodes[gr.Name]
						out := make([]placement.Assignment, len(gr.Members))
						for i := range gr.Members {
							m := &gr.Members[i]
							if i > 0 && gr.Members[i-1].Name >= m.Name {
								return placement.NodeResult{}
							}
							e := &out[i]
							e.Pod.Namespace, e.Pod.Name, e.Node, e.NodeID = m.Namespace, m.Name, all[at[i]].Name, at[i]
						}
						r.Domain, r.Min = all[at[0]].Name, int(gr.MinCount)
						decisions = append(decisions, placement.Decision{Group: gr.Key(), Status: placement.Scheduled,
							Placement: placement.Placement{Name: r.Domain}, Assignments: out, Required: int(gr.MinCount)})
						r.Decision = &decisions[len(decisions)-1]
						return r
					}
					r.Children = make([]placement.NodeResult, len(n.Children))
					for i, ch := range n.Children {
						r.Children[i] = result(ch)
						r.Scheduled++
					}
					return r
				}
				answer := func() placement.HierarchyDecision {
					decisions = make([]placement.Decision, 0, len(d.Decisions))
					out := placement.HierarchyDecision{Status: placement.Scheduled, Root: result(root)}
					out.Decisions = decisions
					return out
				}
				if a := answer(); placedMembers(a) != total || a.Root.Scheduled != len(root.Children) {
					b.Fatalf("the answer places %d of %d", placedMembers(a), total)
				}
				cputime.Loop(b, func() {
					a := answer()
					sink += int64(len(a.Decisions) + a.Root.Scheduled)
				})
			})
		}
	}
}

// BenchmarkHierarchyMembers times, per hierarchy workload with listed
// members, the least any decision must do with its members, whatever it
// decides: per member, read its full requests (the map's length and its
// two names, nvidia.com/gpu and cpu, each a lookup as the floor's one) and
// its identity (namespace and group name equal to its group's, no node
// name, names ascending), and write its placement.Assignment (key, node
// name and ID: the nodes of SolveHierarchy's own decision) into one array
// sized for every member of the tree, as SolveHierarchy carves them; per
// leaf, its Decision (group, status, placement, required count). It
// decides nothing and reads no node: set beside the cell's floor,
// (this + the floor) / the floor is how close to the floor a decision
// over listed members can come; the rest of a decision is what it spends
// beyond.
func BenchmarkHierarchyMembers(b *testing.B) {
	for _, h := range hierarchyShapes {
		for _, f := range []bool{false, true} {
			c := cell{n: 10000, fragmented: f}
			b.Run(fmt.Sprintf("hierarchy/n=%d/%s/%s", c.n, h.name, c.state()), func(b *testing.B) {
				g := gpuCluster(b, c.n, c.fragmented)
				root, total := h.root(false)
				d, err := placement.SolveHierarchy(g.s, root, placement.Options{})
				if err != nil || d.Status != placement.Scheduled || placedMembers(d) != total {
					b.Fatalf("%v %v placed %d of %d: %s", err, d.Status, placedMembers(d), total, d.Message)
				}
				// The leaves in the decision's order, each with its nodes in member order.
				var leaves []*placement.Group
				var at [][]placement.NodeID
				for _, ld := range d.Decisions {
					var ids []placement.NodeID
					for _, a := range ld.Assignments {
						ids = append(ids, a.NodeID)
					}
					var find func(n *placement.HierarchyNode) *placement.Group
					find = func(n *placement.HierarchyNode) *placement.Group {
						if n.Group != nil && n.Group.Name == ld.Group.Name {
							return n.Group
						}
						for _, ch := range n.Children {
							if gr := find(ch); gr != nil {
								return gr
							}
						}
						return nil
					}
					leaves, at = append(leaves, find(root)), append(at, ids)
				}
				all := g.c.Nodes
				read := func() ([]placement.Decision, int64) {
					var sum int64
					out := make([]placement.Assignment, total)
					decisions := make([]placement.Decision, len(leaves))
					k := 0
					for l, gr := range leaves {
						ms, ids := gr.Members, at[l]
						for i := range ms {
							m := &ms[i]
							rq := m.Requests
							gpu, ok1 := rq[placement.ResourceGPU]
							cpu, ok2 := rq[placement.ResourceCPU]
							if len(rq) != 2 || !ok1 || !ok2 || m.Namespace != gr.Namespace || m.SchedulingGroup != gr.Name ||
								m.NodeName != "" || (i > 0 && ms[i-1].Name >= m.Name) {
								return nil, 0
							}
							sum += gpu + cpu
							e := &out[k+i]
							e.Pod.Namespace, e.Pod.Name, e.Node, e.NodeID = m.Namespace, m.Name, all[ids[i]].Name, ids[i]
						}
						decisions[l] = placement.Decision{Group: gr.Key(), Status: placement.Scheduled,
							Placement: placement.Placement{Name: all[ids[0]].Name}, Assignments: out[k : k+len(ms) : k+len(ms)], Required: int(gr.MinCount)}
						k += len(ms)
					}
					return decisions, sum
				}
				if ds, sum := read(); sum == 0 || len(ds) != len(d.Decisions) || ds[len(ds)-1].Assignments[0].Node == "" {
					b.Fatal("no answer")
				}
				cputime.Loop(b, func() {
					ds, sum := read()
					sink += sum + int64(len(ds))
				})
			})
		}
	}
}

// placedMembers counts the pods d places: listed members and pod-set
// pods.
func placedMembers(d placement.HierarchyDecision) int {
	n := 0
	for _, ld := range d.Decisions {
		n += len(ld.Assignments)
		for _, a := range ld.PodSetAssignments {
			n += int(a.Count)
		}
	}
	return n
}

// Each hierarchy workload places every member of its tree, and its pod
// set form as the members.
func TestHierarchyWorkloads_Place(t *testing.T) {
	for _, h := range hierarchyShapes {
		g := gpuCluster(t, 10000, true)
		root, total := h.root(false)
		d, err := placement.SolveHierarchy(g.s, root, placement.Options{})
		if err != nil || d.Status != placement.Scheduled || placedMembers(d) != total {
			t.Fatalf("%s: %v %v placed %d of %d: %s", h.name, err, d.Status, placedMembers(d), total, d.Message)
		}
		solvePodSetHierarchy(t, g, h)
	}
}
