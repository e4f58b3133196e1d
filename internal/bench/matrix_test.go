package bench_test

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// The matrix: hosts × members × required level × cluster state.
var (
	matrixHosts = []int{1000, 5000, 10000}
	matrixSizes = []int{8, 64, 512, 4096}
	// matrixKeys are the constraints: a required rack, a required block,
	// none ("" — every node one placement).
	matrixKeys = []string{bench.RackKey, bench.BlockKey, ""}
)

// gpu is a GPU cluster with its snapshot and topology tree.
type gpu struct {
	c    *bench.Cluster
	s    *placement.Snapshot
	tree *topology.Tree
}

func gpuCluster(tb testing.TB, n int, fragmented bool) *gpu {
	return cached(fmt.Sprint("gpu-", n, fragmented), func() *gpu {
		c := bench.GPUCluster(n, fragmented)
		s := mustSnapshot(tb, c.Nodes, c.Bound)
		tree, err := topology.NewTree(s, c.Keys)
		if err != nil {
			tb.Fatal(err)
		}
		return &gpu{c: c, s: s, tree: tree}
	})
}

func gpuGang(size int) *placement.Group {
	return cached(fmt.Sprint("gpu-gang-", size), func() *placement.Group { return bench.GPUGang("pg", size) })
}

// constraint returns the topology constraints of key ("" for none).
func constraint(key string) []topology.Constraint {
	if key == "" {
		return nil
	}
	return []topology.Constraint{{Key: key}}
}

func keyName(key string) string {
	switch key {
	case bench.RackKey:
		return "rack"
	case bench.BlockKey:
		return "block"
	}
	return "none"
}

// cell is one cell of the matrix.
type cell struct {
	n, p       int
	key        string
	fragmented bool
}

func (c cell) state() string {
	if c.fragmented {
		return "fragmented"
	}
	return "empty"
}

func (c cell) name() string {
	return fmt.Sprintf("n=%d/p=%d/%s/%s", c.n, c.p, keyName(c.key), c.state())
}

func cells() []cell {
	var out []cell
	for _, n := range matrixHosts {
		for _, p := range matrixSizes {
			for _, k := range matrixKeys {
				for _, f := range []bool{false, true} {
					out = append(out, cell{n, p, k, f})
				}
			}
		}
	}
	return out
}

// solveCell is the cell's decision, checked: placement.Solve with the
// options the tree gives for the constraint, and the floor's answer on the
// same input. The two must agree on whether the gang fits; a scheduled
// decision must verify.
func solveCell(tb testing.TB, c cell) (g *gpu, grp *placement.Group, opts placement.Options, d placement.Decision, floorPlaced int) {
	tb.Helper()
	g, grp = gpuCluster(tb, c.n, c.fragmented), gpuGang(c.p)
	opts, err := g.tree.SolverOptions(constraint(c.key), topology.MostAllocated)
	if err != nil {
		tb.Fatal(err)
	}
	if d, err = placement.Solve(g.s, grp, opts); err != nil {
		tb.Fatal(err)
	}
	if d.Status == placement.Scheduled {
		if err := placement.Verify(g.s, grp, d); err != nil {
			tb.Fatalf("%s: decision does not verify: %v", c.name(), err)
		}
	}
	floorPlaced, _ = bench.NewGangFloor(g.c).Place(g.c.Level(c.key), gpuPod, c.p, nil, false)
	if fits := floorPlaced == c.p; fits != (d.Status == placement.Scheduled) {
		tb.Fatalf("%s: the floor says fits=%v, the decision says %v (%s)", c.name(), fits, d.Status, d.Message)
	}
	return g, grp, opts, d, floorPlaced
}

func matrix() []workload {
	var out []workload
	for _, c := range cells() {
		out = append(out, workload{
			name: c.name(),
			decision: func(b *testing.B) (func(), []metric) {
				g, grp, opts, d, _ := solveCell(b, c)
				return func() {
					d, _ := placement.Solve(g.s, grp, opts)
					sink += int64(len(d.Assignments))
				}, []metric{{float64(len(d.Assignments)), "placed"}}
			},
			floor: cellFloor(c),
		})
	}
	return out
}

// podSetMatrix is the matrix with the gang given as one pod set
// (placement.PodSet, as Kueue hands a PodSet over): every cell again under
// "podset/", the same floor. Before timing, each cell checks that the
// decision agrees with the member-by-member one node by node.
func podSetMatrix() []workload {
	var out []workload
	for _, c := range cells() {
		out = append(out, workload{
			name: "podset/" + c.name(),
			decision: func(b *testing.B) (func(), []metric) {
				g, grp, opts, d := solvePodSetCell(b, c)
				placed := 0
				for _, a := range d.PodSetAssignments {
					placed += int(a.Count)
				}
				return func() {
					d, _ := placement.Solve(g.s, grp, opts)
					sink += int64(len(d.PodSetAssignments))
				}, []metric{{float64(placed), "placed"}}
			},
			floor: cellFloor(c),
		})
	}
	return out
}

// TestPodSetMatrix_SameAsMembers checks the smallest clusters' cells of
// the pod set matrix (the benchmarks check every cell before timing it):
// the pod set decides as the members do, pods per node, and verifies.
func TestPodSetMatrix_SameAsMembers(t *testing.T) {
	for _, c := range cells() {
		if c.n != matrixHosts[0] {
			continue
		}
		solvePodSetCell(t, c)
	}
}

// gpuPod is the request of every member of the matrix's gangs.
var gpuPod = bench.Request{bench.PodGPU, bench.PodGPUCPU}

// cellFloor is the floor of cell c (and of its pod set variant): the
// members' request and count in, members per host out, as a pod set is
// answered. It reads no member: how much reading a listed gang costs is
// BenchmarkMemberInput's figure, and answering it BenchmarkMemberAnswer's.
func cellFloor(c cell) prepare {
	return func(b *testing.B) (func(), []metric) {
		g := gpuCluster(b, c.n, c.fragmented)
		f, out, level := bench.NewGangFloor(g.c), make([]bench.Slots, 0, c.p), g.c.Level(c.key)
		placed, _ := f.Place(level, gpuPod, c.p, out, false)
		return func() {
			n, out := f.Place(level, gpuPod, c.p, out, false)
			sink += int64(n + len(out))
		}, []metric{{float64(placed), "placed"}}
	}
}

// solvePodSetCell is the pod set variant of cell c, checked: it must place
// as many pods on each node as the members' decision, and verify.
func solvePodSetCell(tb testing.TB, c cell) (*gpu, *placement.Group, placement.Options, placement.Decision) {
	tb.Helper()
	g, _, opts, want, _ := solveCell(tb, c)
	grp := cached(fmt.Sprint("podset-gang-", c.p), func() *placement.Group { return bench.PodSetGang("pg", c.p) })
	d, err := placement.Solve(g.s, grp, opts)
	if err != nil {
		tb.Fatal(err)
	}
	if err := samePerNode(want, d); err != nil {
		tb.Fatalf("%s: %v", c.name(), err)
	}
	if err := placement.Verify(g.s, grp, d); err != nil {
		tb.Fatalf("%s: pod set decision does not verify: %v", c.name(), err)
	}
	return g, grp, opts, d
}

// samePerNode reports how a pod set decision differs from the decision on
// the same pods listed as members: status, placement and pods per node.
func samePerNode(members, sets placement.Decision) error {
	if members.Status != sets.Status || members.Placement.Name != sets.Placement.Name {
		return fmt.Errorf("members: %s in %q, pod set: %s in %q", members.Status, members.Placement.Name, sets.Status, sets.Placement.Name)
	}
	perNode := map[string]int32{}
	for _, a := range members.Assignments {
		perNode[a.Node]++
	}
	for _, a := range sets.PodSetAssignments {
		if perNode[a.Node] -= a.Count; perNode[a.Node] == 0 {
			delete(perNode, a.Node)
		}
	}
	if len(perNode) > 0 {
		return fmt.Errorf("pods per node differ (members minus pod set): %v", perNode)
	}
	return nil
}

// trees builds the topology tree of the largest cluster; its floor is one
// pass reading every node's block and rack labels.
func trees() []workload {
	var out []workload
	for _, f := range []bool{false, true} {
		c := cell{n: 10000, fragmented: f}
		out = append(out, workload{
			name: fmt.Sprintf("tree/n=%d/%s", c.n, c.state()),
			decision: func(b *testing.B) (func(), []metric) {
				g := gpuCluster(b, c.n, c.fragmented)
				return func() {
					t, err := topology.NewTree(g.s, g.c.Keys)
					if err != nil {
						b.Fatal(err)
					}
					sink += int64(len(t.Keys()))
				}, nil
			},
			floor: func(b *testing.B) (func(), []metric) {
				g := gpuCluster(b, c.n, c.fragmented)
				return func() {
					racks := map[string]int{}
					for i := range g.c.Nodes {
						l := g.c.Nodes[i].Labels
						racks[l[bench.BlockKey]+"/"+l[bench.RackKey]]++
					}
					sink += int64(len(racks))
				}, nil
			},
		})
	}
	return out
}

// TestMatrix_DecisionAgreesWithFloor checks the smallest clusters' cells
// (the benchmarks check every cell before timing it): the decision and the
// floor agree on fits versus does-not-fit, and a scheduled decision places
// every member and verifies.
func TestMatrix_DecisionAgreesWithFloor(t *testing.T) {
	fits, not := 0, 0
	for _, c := range cells() {
		if c.n != matrixHosts[0] {
			continue
		}
		_, _, _, d, placed := solveCell(t, c)
		if d.Status == placement.Scheduled {
			fits++
			if len(d.Assignments) != c.p || placed != c.p {
				t.Errorf("%s: %d members placed, floor %d, want %d", c.name(), len(d.Assignments), placed, c.p)
			}
		} else {
			not++
		}
	}
	// The matrix has both answers: a rack holds at most 256 one-GPU pods.
	if fits == 0 || not == 0 {
		t.Errorf("%d cells fit, %d do not: want both", fits, not)
	}
}

// BenchmarkMemberInput times the least any decision over a gang listed
// member by member must do before deciding anything: read each member's
// name and its two requests (nvidia.com/gpu and cpu) from its Requests map,
// as placement.Pod holds them. The floors of the matrix read the same
// requests from a flat slice, prepared outside the timer; set beside a
// cell's floor, this says how much of the member cells' ratio no solver
// can remove without another input (placement.PodSet).
func BenchmarkMemberInput(b *testing.B) {
	for _, p := range matrixSizes {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) {
			members := gpuGang(p).Members
			read := func() int64 {
				var sum int64
				for i := range members {
					m := &members[i]
					sum += int64(len(m.Name)) + m.Requests[placement.ResourceGPU] + m.Requests[placement.ResourceCPU]
				}
				return sum
			}
			if read() == 0 {
				b.Fatal("nothing read")
			}
			cputime.Loop(b, func() { sink += read() })
		})
	}
}

// BenchmarkMemberAnswer times the least any decision that answers a listed
// gang member by member must do, whatever it decides: what
// BenchmarkMemberInput reads, a check that the names are distinct (that
// they increase, as they do here), and the answer — one
// placement.Assignment per member, with its key and a node's name and ID
// (eight members to a host, as the floor's first-fit puts them) — in a
// slice allocated for it, as a Decision's Assignments are. A member cell's
// decision cannot come closer to its floor than (this + the floor) / the
// floor. The p=…/affinity variants, for the affinity cells' members, also
// check each member's identity (namespace, group, not bound) and read its
// label against the term's selector, one member to a host.
func BenchmarkMemberAnswer(b *testing.B) {
	run := func(b *testing.B, p int, affinity bool) {
		g, nodes := gpuGang(p), gpuCluster(b, 1000, false).c.Nodes
		if affinity {
			g = bench.GPUGang("pg", p) // a fresh copy: the labels are its own
			for i := range g.Members {
				g.Members[i].Labels = map[string]string{"app": "w"}
			}
		}
		answer := func() ([]placement.Assignment, int64) {
			var sum int64
			out := make([]placement.Assignment, len(g.Members))
			for i := range g.Members {
				m := &g.Members[i]
				if i > 0 && g.Members[i-1].Name >= m.Name {
					return nil, 0
				}
				sum += m.Requests[placement.ResourceGPU] + m.Requests[placement.ResourceCPU]
				id := placement.NodeID(i / 8 % len(nodes))
				if affinity {
					if m.Namespace != g.Namespace || m.SchedulingGroup != g.Name || m.NodeName != "" || m.Labels["app"] != "w" {
						return nil, 0
					}
					id = placement.NodeID(i % len(nodes))
				}
				e := &out[i]
				e.Pod.Namespace, e.Pod.Name, e.Node, e.NodeID = m.Namespace, m.Name, nodes[id].Name, id
			}
			return out, sum
		}
		if out, sum := answer(); sum == 0 || len(out) != p || out[p-1].Node == "" {
			b.Fatal("no answer")
		}
		cputime.Loop(b, func() {
			out, sum := answer()
			sink += sum + int64(len(out))
		})
	}
	for _, p := range matrixSizes {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) { run(b, p, false) })
	}
	for _, p := range affinitySizes {
		b.Run(fmt.Sprintf("p=%d/affinity", p), func(b *testing.B) { run(b, p, true) })
	}
}
