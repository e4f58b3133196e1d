package bench_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// The floor reads plain slices; they must say what the snapshot and the
// topology tree say, or the floor would answer another question.
func TestGPUCluster_FloorViewMatchesSnapshotAndTree(t *testing.T) {
	for _, fragmented := range []bool{false, true} {
		c := bench.GPUCluster(1000, fragmented)
		s := mustSnapshot(t, c.Nodes, c.Bound)
		for i := range c.Nodes {
			for r := range 2 {
				require.Equal(t, s.Free(placement.NodeID(i), c.Res[r]), c.Free[r][i], "node %d %s", i, c.Res[r])
			}
		}
		tree, err := topology.NewTree(s, c.Keys)
		require.NoError(t, err)
		for _, l := range c.Levels {
			level, ok := tree.Level(l.Key)
			require.True(t, ok)
			var starts []int32
			for d := range tree.Domains(level) {
				require.Equal(t, int(d.Nodes[len(d.Nodes)-1]-d.Nodes[0])+1, len(d.Nodes), "domain %s is not a run of nodes", d.Path)
				starts = append(starts, int32(d.Nodes[0]))
			}
			require.Equal(t, l.Start[:len(l.Start)-1], starts, l.Key)
		}
	}
	// Fragmented means some hosts full, some empty, some in between.
	c := bench.GPUCluster(1000, true)
	require.Contains(t, c.Free[0], int64(0))
	require.Contains(t, c.Free[0], int64(bench.HostGPU))
	require.Contains(t, c.Free[0], int64(3))
}

func TestGangFloor_Place(t *testing.T) {
	c := bench.GPUCluster(64, false) // 2 racks of 32 hosts, one block
	f := bench.NewGangFloor(c)
	rack, block := c.Level(bench.RackKey), c.Level(bench.BlockKey)
	pod := bench.Request{bench.PodGPU, bench.PodGPUCPU}

	// 9 one-GPU members fill host 0 of the first rack (ties go first).
	n, out := f.Place(rack, pod, 9, nil, false)
	require.Equal(t, 9, n)
	require.Equal(t, []bench.Slots{{0, 8}, {1, 1}}, out)
	// A rack holds 256; 257 fit only in the block, the last on host 32.
	n, _ = f.Place(rack, pod, 257, out, false)
	require.Zero(t, n)
	n, out = f.Place(block, pod, 257, out, false)
	require.Equal(t, 257, n)
	require.Equal(t, bench.Slots{32, 1}, out[len(out)-1])
	n, _ = f.Place(-1, pod, 512, out, false)
	require.Equal(t, 512, n)

	// Committed placements are taken: the first rack now offers fewer
	// slots, so the best fit is the fuller rack.
	n, _ = f.Place(rack, pod, 8, out, true)
	require.Equal(t, 8, n)
	_, out = f.Place(rack, pod, 1, out, true)
	require.Equal(t, []bench.Slots{{1, 1}}, out)
	_, out = f.Place(rack, pod, 256, out, false)
	require.Equal(t, int32(32), out[0].Node, "only the second rack still holds 256")
	n, _ = f.Place(block, pod, 512, out, false)
	require.Zero(t, n)
	f.Reset()
	n, _ = f.Place(block, pod, 512, out, false)
	require.Equal(t, 512, n)

	// A resource the request does not name limits nothing.
	n, out = f.Place(-1, bench.Request{0, bench.PodGPUCPU}, 9, out, false)
	require.Equal(t, 9, n)
	require.Equal(t, []bench.Slots{{0, 8}, {1, 1}}, out, "cpu 64 holds 8 of cpu 8")
}

// TestGangFloor_PlaceWidening: in a domain of the level when one holds
// the set, as Place; else over the whole cluster from its first node when
// it holds the set; else nothing.
func TestGangFloor_PlaceWidening(t *testing.T) {
	c := bench.GPUCluster(64, false) // 2 racks of 32 hosts (256 slots each), one block
	f := bench.NewGangFloor(c)
	rack := c.Level(bench.RackKey)
	pod := bench.Request{bench.PodGPU, bench.PodGPUCPU}
	_, in := f.Place(rack, pod, 8, nil, true) // host 0 full: the first rack holds 248
	require.Equal(t, []bench.Slots{{0, 8}}, in)

	n, out := f.PlaceWidening(rack, pod, 250, nil)
	require.Equal(t, 250, n)
	require.Equal(t, bench.Slots{32, 8}, out[0], "the second rack holds 250, the first does not")
	n, out = f.PlaceWidening(rack, pod, 9, out)
	require.Equal(t, 9, n)
	require.Equal(t, []bench.Slots{{1, 8}, {2, 1}}, out, "the tightest rack, as Place")
	n, out = f.PlaceWidening(rack, pod, 300, out)
	require.Equal(t, 300, n)
	require.Len(t, out, 38, "no rack holds 300: hosts 1..31 and 32..38 of the cluster")
	require.Equal(t, []bench.Slots{{1, 8}, {38, 4}}, []bench.Slots{out[0], out[37]})
	n, out = f.PlaceWidening(rack, pod, 504, out)
	require.Equal(t, 504, n, "the cluster holds 504")
	require.Equal(t, bench.Slots{63, 8}, out[len(out)-1])
	n, out = f.PlaceWidening(rack, pod, 505, out)
	require.Zero(t, n, "the cluster holds 504")
	require.Empty(t, out)
}

// TestProp_GangFloorPlaceIsPlainFirstFit: Place, which divides by one
// multiplication per node, answers as the plain pass that divides, on
// random free quantities (up to the floor's bound of 2^36) and requests
// (up to 2^28, zero and one included), with and without commit.
func TestProp_GangFloorPlaceIsPlainFirstFit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "nodes")
		size := rapid.IntRange(1, 8).Draw(t, "domain size")
		quantity := rapid.OneOf(rapid.Int64Range(0, 20), rapid.Int64Range(0, 1<<36-1))
		c := &bench.Cluster{Nodes: make([]placement.Node, n), Free: [2][]int64{make([]int64, n), make([]int64, n)}}
		for r := range 2 {
			for i := range n {
				c.Free[r][i] = quantity.Draw(t, "free")
			}
		}
		var start []int32
		for i := 0; i < n; i += size {
			start = append(start, int32(i))
		}
		c.Levels = []bench.Level{{Key: "d", Start: append(start, int32(n))}}
		f := bench.NewGangFloor(c)
		free := [2][]int64{slices.Clone(c.Free[0]), slices.Clone(c.Free[1])}
		request := rapid.OneOf(rapid.Int64Range(0, 3), rapid.Int64Range(1, 1<<28-1))
		for range rapid.IntRange(1, 4).Draw(t, "calls") {
			level := rapid.IntRange(-1, 0).Draw(t, "level")
			unit := bench.Request{request.Draw(t, "unit0"), request.Draw(t, "unit1")}
			count := rapid.IntRange(0, 50).Draw(t, "count")
			commit := rapid.Bool().Draw(t, "commit")
			got, out := f.Place(level, unit, count, nil, commit)
			want, wantOut := plainPlace(c, free, level, unit, count, commit)
			require.Equal(t, want, got)
			require.Equal(t, wantOut, out)
		}
	})
}

// plainPlace is Place written plainly: a division per node and resource,
// a slice of sums, a first fit.
func plainPlace(c *bench.Cluster, free [2][]int64, level int, unit bench.Request, count int, commit bool) (int, []bench.Slots) {
	slots := func(i int) int64 {
		s := int64(1 << 40) // unlimited, as Place counts a resource not requested
		for r := range 2 {
			if unit[r] > 0 {
				s = min(s, free[r][i]/unit[r])
			}
		}
		return s
	}
	start := []int32{0, int32(len(c.Nodes))}
	if level >= 0 {
		start = c.Levels[level].Start
	}
	var sums []int64
	for d := range len(start) - 1 {
		var sum int64
		for i := start[d]; i < start[d+1]; i++ {
			sum += slots(int(i))
		}
		sums = append(sums, sum)
	}
	best := -1
	for d, s := range sums {
		if count > 0 && s >= int64(count) && (best < 0 || s < sums[best]) {
			best = d
		}
	}
	var out []bench.Slots
	if best < 0 {
		return 0, out
	}
	left := int64(count)
	for i := start[best]; left > 0; i++ {
		if s := min(slots(int(i)), left); s > 0 {
			out = append(out, bench.Slots{Node: i, Count: int32(s)})
			left -= s
			if commit {
				free[0][i] -= s * unit[0]
				free[1][i] -= s * unit[1]
			}
		}
	}
	return count, out
}

func TestGangFloor_NextFit(t *testing.T) {
	c := bench.GPUCluster(64, false)
	f := bench.NewGangFloor(c)
	reqs := c.Requests(bench.GPUGang("pg", 9).Members)
	out := make([]int32, len(reqs))
	require.Equal(t, 9, f.NextFit(c.Level(bench.RackKey), reqs, out))
	require.Equal(t, []int32{0, 0, 0, 0, 0, 0, 0, 0, 1}, out)
	// A member larger than any host's room: next-fit places the others.
	big := append(slices.Clone(reqs[:2]), bench.Request{9, 1000})
	require.Equal(t, 2, f.NextFit(-1, big, out[:3]))
	require.Equal(t, []int32{0, 0, -1}, out[:3])
	require.Zero(t, f.NextFit(c.Level(bench.RackKey), c.Requests(bench.GPUGang("pg", 257).Members), make([]int32, 257)))
}

func TestPacked_Floor(t *testing.T) {
	w := bench.PackedCluster(16, 12)
	s := mustSnapshot(t, w.Nodes, w.Bound)
	for i := range w.Nodes {
		require.Equal(t, s.Free(placement.NodeID(i), placement.ResourceCPU), w.Free[i])
		require.Zero(t, w.Free[i], "packed")
	}
	scratch, out := make([]int64, len(w.Free)), make([]int32, len(w.MemberCPU))
	require.Equal(t, 12, w.Floor(scratch, out))
	require.Equal(t, []int32{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, out)
}

// BenchmarkGangFloor_Alternatives sets the floor's slot sum (p=64 over the
// racks of the fragmented 10,000-host cluster) beside the simple ways of
// writing it: "divide" divides per node by the request, as the floor did
// before; "constant" divides by the GPU pod's request as
// compile-time constants (which the compiler turns into multiplications),
// the fastest a pass for this one request can be. The floor should be no
// slower than either.
func BenchmarkGangFloor_Alternatives(b *testing.B) {
	c := bench.GPUCluster(10000, true)
	starts, free0, free1 := c.Levels[c.Level(bench.RackKey)].Start, c.Free[0], c.Free[1]
	const want = 64
	// pick ends a domain's sum: the fewest slots that hold want, ties to
	// the first.
	pick := func(best int, bestSum int64, d int, sum int64) (int, int64) {
		if sum >= want && (best < 0 || sum < bestSum) {
			return d, sum
		}
		return best, bestSum
	}
	unit := bench.Request{bench.PodGPU, bench.PodGPUCPU}
	f, out := bench.NewGangFloor(c), make([]bench.Slots, 0, want)
	for _, alt := range []struct {
		name string
		run  func() int
	}{
		{"floor", func() int {
			n, out := f.Place(c.Level(bench.RackKey), unit, want, out, false)
			return n + len(out)
		}},
		{"divide", func() int {
			u0, u1 := unit[0], unit[1]
			best, bestSum := -1, int64(0)
			for d := range len(starts) - 1 {
				var sum int64
				for i := starts[d]; i < starts[d+1]; i++ {
					sum += min(free0[i]/u0, free1[i]/u1)
				}
				best, bestSum = pick(best, bestSum, d, sum)
			}
			return best
		}},
		{"constant", func() int {
			best, bestSum := -1, int64(0)
			for d := range len(starts) - 1 {
				var sum int64
				for i := starts[d]; i < starts[d+1]; i++ {
					sum += min(free0[i]/bench.PodGPU, free1[i]/bench.PodGPUCPU)
				}
				best, bestSum = pick(best, bestSum, d, sum)
			}
			return best
		}},
	} {
		b.Run(alt.name, func(b *testing.B) {
			if alt.run() <= 0 {
				b.Fatal("no domain chosen")
			}
			cputime.Loop(b, func() { sink += int64(alt.run()) })
		})
	}
}
