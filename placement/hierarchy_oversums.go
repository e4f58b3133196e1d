package placement

import (
	"math"

	"github.com/gangsched/gangsched/internal/arith"
)

// sumsAtOnce moves usedSum for a push that added count pods of one usage
// row req, none of it negative (a uniform leaf's members: push adds each
// node's run of them with that row), as sums would over the nodes the
// push changed, and reports whether it did; when it did not, usedSum is
// as it was and the caller calls sums. Over the changed nodes, the
// rows' growth is req × count in all (each node's growth is req times its
// pods, a node's runs adding up), and none is negative, so sums' running
// sum of a resource only grows: it reaches neither its saturation check
// nor the recount over every node when the final sum stays within int64
// and the sum before it was not saturated. That is the one case taken
// here, without reading a node: a leaf spreads over up to ~16 hosts on a
// fragmented rack, whose rows sums read again, and frameNodes sorted them
// for it.
func (o *usageOverlay) sumsAtOnce(req []int64, count int) bool {
	sum := o.s.usedSum
	if len(req) != len(sum) {
		return false
	}
	for r, q := range req {
		if q < 0 || sum[r] == math.MaxInt64 {
			return false
		}
		if d := arith.MulSat(q, int64(count)); d == math.MaxInt64 || sum[r] > math.MaxInt64-d {
			return false
		}
	}
	for r, q := range req {
		sum[r] += q * int64(count)
	}
	return true
}

// noSumsAtOnce, set by tests alone, makes push take sums over the changed
// nodes always: the path sumsAtOnce must agree with.
var noSumsAtOnce bool
