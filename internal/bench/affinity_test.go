package bench_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// The affinity cells: the matrix's empty 1,000-host cluster, a
// gang of 8, 64 or 512 GPU members labelled app=w, zero Options, and one
// pod anti-affinity term against app=w, required or preferred (weight
// 10), carried either by the group's one bound member (on host-00000,
// topology key rack: no member may share its rack) or by every pending
// member (topology key hostname: one member to a host). The members are
// alike, so a decision places them by domain (placement's alike runs);
// members that differ fall back to one by one, O(members × hosts).
const affinityHosts = 1000

var affinitySizes = []int{8, 64, 512}

// affinityCell is one affinity cell: required or preferred, carried by the
// bound member or by the members.
type affinityCell struct {
	p        int
	required bool
	members  bool
}

func (c affinityCell) name() string {
	kind, who := "preferred", "bound"
	if c.required {
		kind = "required"
	}
	if c.members {
		who = "members"
	}
	return fmt.Sprintf("affinity/n=%d/p=%d/%s/%s", affinityHosts, c.p, kind, who)
}

func affinityCells() []affinityCell {
	var out []affinityCell
	for _, p := range affinitySizes {
		for _, req := range []bool{true, false} {
			for _, members := range []bool{false, true} {
				out = append(out, affinityCell{p, req, members})
			}
		}
	}
	return out
}

// affinityInput is a cell's snapshot (the bound member included), group,
// and the floor's view of the term.
type affinityInput struct {
	c     *bench.Cluster
	s     *placement.Snapshot
	g     *placement.Group
	apart bench.Apart
}

func (c affinityCell) input(tb testing.TB) affinityInput {
	return cached("affinity-"+c.name(), func() affinityInput {
		gc := gpuCluster(tb, affinityHosts, false)
		in := affinityInput{c: gc.c, s: gc.s, g: bench.GPUGang("pg", c.p), apart: bench.Apart{Level: -1, Members: c.members, Required: c.required}}
		key := bench.HostKey
		if !c.members {
			key, in.apart.Level, in.apart.Matching = bench.RackKey, gc.c.Level(bench.RackKey), []int32{0}
		}
		term := placement.PodAffinityTerm{LabelSelector: placement.LabelSelector{MatchLabels: map[string]string{"app": "w"}}, TopologyKey: key}
		anti := &placement.Affinity{PodAntiAffinity: &placement.PodAffinity{}}
		if c.required {
			anti.PodAntiAffinity.Required = []placement.PodAffinityTerm{term}
		} else {
			anti.PodAntiAffinity.Preferred = []placement.WeightedPodAffinityTerm{{Weight: 10, Term: term}}
		}
		for i := range in.g.Members {
			in.g.Members[i].Labels = map[string]string{"app": "w"}
			if c.members {
				in.g.Members[i].Affinity = anti
			}
		}
		if !c.members {
			bound := placement.Pod{Namespace: "default", Name: "pg-bound", SchedulingGroup: "pg", NodeName: gc.c.Nodes[0].Name,
				Labels: map[string]string{"app": "w"}, Affinity: anti, Requests: placement.ResourceList{placement.ResourceGPU: bench.PodGPU, placement.ResourceCPU: bench.PodGPUCPU}}
			s, err := gc.s.Apply(placement.Change{Bind: []placement.Pod{bound}})
			if err != nil {
				tb.Fatal(err)
			}
			// The floor's cluster: host 0 holds the bound member.
			cl := *gc.c
			cl.Free = [2][]int64{append([]int64(nil), gc.c.Free[0]...), append([]int64(nil), gc.c.Free[1]...)}
			cl.Free[0][0] -= bench.PodGPU
			cl.Free[1][0] -= bench.PodGPUCPU
			in.c, in.s = &cl, s
			in.g.MinCount++
		}
		return in
	})
}

// solve is the cell's decision, checked: it schedules, verifies, keeps a
// required term, and agrees with the floor that the gang fits.
func (c affinityCell) solve(tb testing.TB) (affinityInput, placement.Decision) {
	tb.Helper()
	in := c.input(tb)
	d, err := placement.Solve(in.s, in.g, placement.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if d.Status != placement.Scheduled || len(d.Assignments) != c.p {
		tb.Fatalf("%s: %s, %d placed: %s", c.name(), d.Status, len(d.Assignments), d.Message)
	}
	if err := placement.Verify(in.s, in.g, d); err != nil {
		tb.Fatalf("%s: %v", c.name(), err)
	}
	hosts := map[placement.NodeID]bool{}
	for _, a := range d.Assignments {
		switch {
		case c.required && c.members && hosts[a.NodeID]:
			tb.Fatalf("%s: two members on %s", c.name(), a.Node)
		case c.required && !c.members && a.NodeID < bench.HostsPerRack:
			tb.Fatalf("%s: %s joined the bound member's rack", c.name(), a.Node)
		}
		hosts[a.NodeID] = true
	}
	if placed, _ := bench.NewGangFloor(in.c).PlaceApart(gpuPod, c.p, in.apart, nil); placed != c.p {
		tb.Fatalf("%s: the floor placed %d", c.name(), placed)
	}
	return in, d
}

func affinity() []workload {
	var out []workload
	for _, c := range affinityCells() {
		out = append(out, workload{
			name: c.name(),
			decision: func(b *testing.B) (func(), []metric) {
				in, d := c.solve(b)
				return func() {
					d, _ := placement.Solve(in.s, in.g, placement.Options{})
					sink += int64(len(d.Assignments))
				}, []metric{{float64(len(d.Assignments)), "placed"}}
			},
			floor: func(b *testing.B) (func(), []metric) {
				in := c.input(b)
				f, out := bench.NewGangFloor(in.c), make([]bench.Slots, 0, c.p)
				placed, _ := f.PlaceApart(gpuPod, c.p, in.apart, out)
				return func() {
					n, out := f.PlaceApart(gpuPod, c.p, in.apart, out)
					sink += int64(n + len(out))
				}, []metric{{float64(placed), "placed"}}
			},
		})
	}
	return out
}

// TestAffinityCells_DecisionAgreesWithFloor checks the 8- and 64-member
// affinity cells (the benchmarks check every cell before timing it).
func TestAffinityCells_DecisionAgreesWithFloor(t *testing.T) {
	for _, c := range affinityCells() {
		if c.p <= 64 {
			c.solve(t)
		}
	}
}

func TestGangFloor_PlaceApart(t *testing.T) {
	c := bench.GPUCluster(64, false) // 2 racks of 32 hosts
	f := bench.NewGangFloor(c)
	rack := c.Level(bench.RackKey)

	// A bound pod on host 0 keeps a required term's members out of rack 0.
	n, out := f.PlaceApart(gpuPod, 9, bench.Apart{Level: rack, Matching: []int32{0}, Required: true}, nil)
	require.Equal(t, 9, n)
	require.Equal(t, []bench.Slots{{32, 8}, {33, 1}}, out)
	n, _ = f.PlaceApart(gpuPod, 257, bench.Apart{Level: rack, Matching: []int32{0}, Required: true}, out)
	require.Zero(t, n, "one rack holds 256")
	// A preferred term fills rack 1 first, then gives way.
	n, out = f.PlaceApart(gpuPod, 257, bench.Apart{Level: rack, Matching: []int32{0}}, out)
	require.Equal(t, 257, n)
	require.Equal(t, bench.Slots{0, 1}, out[len(out)-1])

	// A bound pod's hostname term bars its host only.
	n, out = f.PlaceApart(gpuPod, 9, bench.Apart{Level: -1, Matching: []int32{0}, Required: true}, out)
	require.Equal(t, 9, n)
	require.Equal(t, []bench.Slots{{1, 8}, {2, 1}}, out)

	// Members that carry a hostname term take a host each.
	n, out = f.PlaceApart(gpuPod, 3, bench.Apart{Level: -1, Members: true, Required: true}, out)
	require.Equal(t, 3, n)
	require.Equal(t, []bench.Slots{{0, 1}, {1, 1}, {2, 1}}, out)
	n, _ = f.PlaceApart(gpuPod, 65, bench.Apart{Level: -1, Members: true, Required: true}, out)
	require.Zero(t, n, "64 hosts")
}
