package bench_test

import (
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// TestRackDecision_AllocatesPerMembersNotRacks holds a rack-constrained
// decision of 8 members to O(members) allocation: on 10,000 hosts (312
// racks) it may allocate no more than on 1,000 (31 racks) plus a little.
// Before the topology generator reused its per-rack arrays (candidates,
// their split, a placement per rack) it allocated 34.7 KB against 6.4 KB.
func TestRackDecision_AllocatesPerMembersNotRacks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-host cluster")
	}
	bytes := map[int]int64{}
	for _, n := range []int{1000, 10000} {
		for _, frag := range []bool{false, true} {
			c := cell{n: n, p: 8, key: bench.RackKey, fragmented: frag}
			g, grp, opts, _, _ := solveCell(t, c)
			r := testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					d, _ := placement.Solve(g.s, grp, opts)
					sink += int64(len(d.Assignments))
				}
			})
			bytes[n] = max(bytes[n], r.AllocedBytesPerOp())
			t.Logf("%s: %d B/op, %d allocs/op", c.name(), r.AllocedBytesPerOp(), r.AllocsPerOp())
		}
	}
	if bytes[10000] > bytes[1000]+512 {
		t.Fatalf("a rack decision allocates %d B on 10,000 hosts against %d B on 1,000: it grows with the racks", bytes[10000], bytes[1000])
	}
}
