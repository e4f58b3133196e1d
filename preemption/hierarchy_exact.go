package preemption

import (
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// subsetCost is a subset of FindHierarchy's candidates, as a bit mask,
// with its [Cost] packed into fields that compare as Cost.Compare does
// (see lessSubset): 40 bytes, so that 2^14 of them take 640 KiB.
type subsetCost struct {
	viol  int64 // BudgetViolations
	sum   int64 // PrioritySum
	start int64 // Start as startKeys packs it: the cheaper, the lower
	maxp  int32 // MaxPriority
	pods  int32
	mask  uint32
}

// startKeys returns the packing of a Cost's Start, for subsets of units,
// as a key that is lower when cheaper: a later start is cheaper, and no
// start (zero) counts as the latest. A key is the start's rank among the
// units' start times, latest first (the Start of a subset is one of
// them), not its UnixNano, which wraps outside the years 1678 to 2262
// that a pod's start time may lie in.
func startKeys(units []*hunit) func(time.Time) int64 {
	var ts []time.Time
	for _, u := range units {
		if !u.v.StartTime.IsZero() {
			ts = append(ts, u.v.StartTime)
		}
	}
	latestFirst := func(a, b time.Time) int { return b.Compare(a) }
	slices.SortFunc(ts, latestFirst)
	ts = slices.CompactFunc(ts, time.Time.Equal)
	return func(t time.Time) int64 {
		if t.IsZero() {
			return -1
		}
		i, _ := slices.BinarySearchFunc(ts, t, latestFirst)
		return int64(i)
	}
}

// lessSubset orders subsets by Cost (as Cost.Compare), then by mask: of
// two sets of equal cost, the one whose mask is lower spares the more
// important units (bit n-1-i is unit i, and units are in VictimOrder).
func lessSubset(a, b *subsetCost) bool {
	switch {
	case a.viol != b.viol:
		return a.viol < b.viol
	case a.maxp != b.maxp:
		return a.maxp < b.maxp
	case a.sum != b.sum:
		return a.sum < b.sum
	case a.pods != b.pods:
		return a.pods < b.pods
	case a.start != b.start:
		return a.start < b.start
	}
	return a.mask < b.mask
}

// subsetCosts returns every nonempty subset of units (at most
// MaxExactHierarchyUnits) with its cost as hierarchyCost defines it.
// Each cost but the budget violations is the cost of the subset without
// its lowest bit's unit, plus that unit; the violations are counted per
// subset, over the budgets that guard some candidate only: a cluster may
// have a budget per application, and one that guards no candidate adds
// no violation to any subset. O(2^n) plus O(units' pods × budgets) to
// match the budgets, plus O(2^n × (hits + guarding budgets)) when some
// budget guards a candidate, hits being the (unit, budget) pairs.
func subsetCosts(units []*hunit, budgets []DisruptionBudget) []subsetCost {
	n := len(units)
	type add struct {
		pods  int32
		sum   int64
		prio  int32
		start int64
	}
	// hit is how many pods of a unit budget b (an index into allowed)
	// guards.
	type hit struct {
		b int
		n int64
	}
	adds := make([]add, n)   // by bit
	hits := make([][]hit, n) // by bit
	var allowed []int64      // per budget that guards some candidate
	slot := map[int]int{}    // budgets index -> allowed index
	startKey := startKeys(units)
	for i, u := range units {
		a := add{pods: int32(len(u.pods)), prio: u.v.Priority, start: startKey(u.v.StartTime)}
		bit := n - 1 - i
		for j, p := range u.pods {
			prio := u.prio[j]
			if u.v.Whole {
				prio = u.v.Priority
			}
			a.sum += int64(prio) + 1<<31
			for b := range budgets {
				if budgets[b].Namespace != p.Namespace || !budgets[b].Selector.Matches(p.Labels) {
					continue
				}
				k, ok := slot[b]
				if !ok {
					k = len(allowed)
					slot[b] = k
					allowed = append(allowed, int64(budgets[b].DisruptionsAllowed))
				}
				if x := slices.IndexFunc(hits[bit], func(h hit) bool { return h.b == k }); x >= 0 {
					hits[bit][x].n++
				} else {
					hits[bit] = append(hits[bit], hit{k, 1})
				}
			}
		}
		adds[bit] = a
	}
	out := make([]subsetCost, 1<<n)
	out[0] = subsetCost{maxp: math.MinInt32, start: math.MinInt64}
	count := make([]int64, len(allowed))
	for mask := uint32(1); mask < 1<<n; mask++ {
		bit := bits.TrailingZeros32(mask)
		c, a := out[mask&(mask-1)], adds[bit]
		c.mask, c.pods, c.sum = mask, c.pods+a.pods, c.sum+a.sum
		switch {
		case a.prio > c.maxp:
			c.maxp, c.start = a.prio, a.start
		case a.prio == c.maxp:
			c.start = max(c.start, a.start) // the earliest start among the highest priority
		}
		if len(allowed) > 0 {
			clear(count)
			for m := mask; m != 0; m &= m - 1 {
				for _, h := range hits[bits.TrailingZeros32(m)] {
					count[h.b] += h.n
				}
			}
			c.viol = 0
			for k, g := range count {
				c.viol += max(g-allowed[k], 0)
			}
		}
		out[mask] = c
	}
	return out[1:]
}

// exactVictims returns the cheapest subset of units (at most
// MaxExactHierarchyUnits, in VictimOrder) whose removal lets the tree fit,
// solving the subsets in Cost order, cheapest first; nil when none fits
// within MaxExactHierarchySolves solves. A subset capa (when not nil)
// finds unable to free enough is passed over without a solve: it cannot
// fit. Of two subsets of equal cost, the one that spares the more
// important units comes first. The subsets are costed at once and kept in
// a heap, so that only those taken are put in order: O(2^n) plus O(taken
// × (n + capa's check)) to order and check them.
func exactVictims(units []*hunit, budgets []DisruptionBudget, capa *hcapacity,
	fits func([]*hunit) (*placement.Snapshot, placement.HierarchyDecision, bool, error),
) ([]*hunit, *placement.Snapshot, placement.HierarchyDecision, error) {
	h := subsetCosts(units, budgets)
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	n := len(units)
	for solves := 0; len(h) > 0 && solves < MaxExactHierarchySolves; {
		mask := h[0].mask
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		siftDown(h, 0)
		if capa != nil && !capa.enough(mask) {
			continue
		}
		solves++
		var set []*hunit
		for i, u := range units {
			if mask&(1<<(n-1-i)) != 0 {
				set = append(set, u)
			}
		}
		snap, sd, ok, err := fits(set)
		if err != nil {
			return nil, nil, placement.HierarchyDecision{}, err
		}
		if ok {
			return set, snap, sd, nil
		}
	}
	return nil, nil, placement.HierarchyDecision{}, nil
}

// siftDown restores the heap order (lessSubset, least first) of h below
// index i.
func siftDown(h []subsetCost, i int) {
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(h) && lessSubset(&h[c], &h[least]) {
				least = c
			}
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}
