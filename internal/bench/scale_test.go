package bench_test

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// The scale cells: an 8-member gang with a required
// rack on the empty GPU cluster of 50,000 and 100,000 hosts, listed member
// by member (members) and as one pod set (podset), beside the matrix's
// floor: scale/n=<hosts>/p=8/rack/<members|podset>. The pod set path
// should never be the slower one.
var scaleHosts = []int{50_000, 100_000}

func scale() []workload {
	var out []workload
	for _, n := range scaleHosts {
		c := cell{n: n, p: 8, key: bench.RackKey}
		for _, podSet := range []bool{false, true} {
			form := "members"
			if podSet {
				form = "podset"
			}
			out = append(out, workload{
				name: fmt.Sprintf("scale/n=%d/p=%d/rack/%s", n, c.p, form),
				decision: func(b *testing.B) (func(), []metric) {
					var g *gpu
					var grp *placement.Group
					var opts placement.Options
					if podSet {
						g, grp, opts, _ = solvePodSetCell(b, c)
					} else {
						g, grp, opts, _, _ = solveCell(b, c)
					}
					return func() {
						d, _ := placement.Solve(g.s, grp, opts)
						sink += int64(len(d.Assignments) + len(d.PodSetAssignments))
					}, nil
				},
				floor: cellFloor(c),
			})
		}
	}
	return out
}
