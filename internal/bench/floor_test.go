package bench_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/bench"
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
	reqs := c.Requests(bench.GPUGang("pg", 512).Members)
	out := make([]int32, len(reqs))

	// 8 one-GPU members fill host 0 of the first rack (ties go first).
	require.Equal(t, 9, f.Place(rack, reqs[:9], out[:9], false))
	require.Equal(t, []int32{0, 0, 0, 0, 0, 0, 0, 0, 1}, out[:9])
	// A rack holds 256; 257 fit only in the block, the last on host 32.
	require.Equal(t, 0, f.Place(rack, reqs[:257], out[:257], false))
	require.Equal(t, 257, f.Place(block, reqs[:257], out[:257], false))
	require.Equal(t, int32(32), out[256])
	require.Equal(t, 512, f.Place(-1, reqs, out, false))

	// Committed placements are taken: the first rack now offers fewer
	// slots, so the best fit is the fuller rack.
	require.Equal(t, 8, f.Place(rack, reqs[:8], out[:8], true))
	require.Equal(t, 1, f.Place(rack, reqs[:1], out[:1], true))
	require.Equal(t, int32(1), out[0])
	require.Equal(t, 256, f.Place(rack, reqs[:256], out[:256], false))
	require.Equal(t, int32(32), out[0], "only the second rack still holds 256")
	require.Equal(t, 0, f.Place(block, reqs, out, false))
	f.Reset()
	require.Equal(t, 512, f.Place(block, reqs, out, false))

	// A member larger than any host's room: next-fit places the others
	// and, with commit, takes back what it placed.
	big := append(slices.Clone(reqs[:2]), bench.Request{9, 1000})
	require.Equal(t, 2, f.Place(-1, big, out[:3], true))
	require.Equal(t, []int32{0, 0, -1}, out[:3])
	require.Equal(t, 512, f.Place(-1, reqs, out, false), "a failed commit is undone")
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
