package topology

import (
	"cmp"
	"math/bits"
)

// takeFrom takes need units of unit pods each from us as p.order(us,
// leastFree) and then p.consume(dst, us, need, unit, m, !leastFree) do —
// the same units, the same takes, the same rest — while ordering only
// the few units that decide it (the descent's hot path: most of a rack's
// hosts are taken whole, and sorting them all cost a quarter of a
// fragmented plan). It may permute us and appends the units used to dst
// in an order of its own (the descent's callers read takes, not order).
// While p prefers, it orders and consumes as they do.
//
// Consume takes the units in order, each whole, until the first unit
// whose capacity reaches what is left; that one — or, by best fit, the
// first of the smallest capacity that does among it and the units after
// it — takes the rest. Units of no capacity are never taken and decide
// nothing. So, with C the capacity of the units of some: when C ≤ need
// every unit is taken whole; when need is small the first units in order
// decide (selected one by one, as a selection sort would); when the
// excess C − need is small, the last units do: walking from the last,
// the unit whose capacity makes the units walked exceed the excess is
// the first that reaches what is left, and the ones after it are the
// best fit's other candidates. After a few selections it sorts what is
// left instead, keeping the units already placed; it sorts at once when
// more selections than that are needed (each walks at most the largest
// capacity), or when order would sort many units by packed keys — unless
// they are counted in slices: then takePacked selects by their keys
// without sorting them all.
func (p *planner) takeFrom(dst, us []int, need, unit int64, m capMode, leastFree bool) ([]int, int64) {
	bestFit := !leastFree
	if p.prefer || need <= 0 {
		p.order(us, leastFree)
		return p.consume(dst, us, need, unit, m, bestFit)
	}
	// The units with capacity, first; their total and the largest.
	var total, largest int64
	n := 0
	for i, u := range us { // without a branch, as below
		c := max(p.capOf(m, u), 0) // below 0: a negative count
		total += c
		largest = max(largest, c)
		us[i], us[n] = us[n], u
		n += positive(c)
	}
	us = us[:n]
	if total <= need {
		for _, u := range us {
			p.setTake(u, p.capOf(m, u)*unit)
		}
		return append(dst, us...), need - total
	}
	// Many units counted in slices (a balanced set pooling the nodes of
	// hundreds of hosts): a weighted selection by packed keys.
	if m.slices && n >= packedOrderMin {
		if pk, ok := p.pack(us, leastFree); ok {
			return p.takePacked(dst, pk, need, unit, bestFit), 0
		}
	}
	// A selection scans the units left: after a few, sorting them is
	// cheaper. Each selection walks at most the largest capacity, so
	// when the side it starts from needs more selections than that, the
	// units are sorted at once; so are many units, which order sorts by
	// packed keys, cheaper than a few scans comparing field by field.
	budget := int64(bits.Len(uint(n)))
	front := need <= total-need
	sels := (total-need)/largest + 1 // from the last: the walked exceed the excess
	if front {
		sels = (need + largest - 1) / largest // from the first: the selected reach need
	}
	if sels > budget || n >= packedOrderMin {
		p.order(us, leastFree)
		return p.consume(dst, us, need, unit, m, bestFit)
	}
	if front {
		// From the first: select the next unit in order into us[j].
		for j := 0; ; j++ { // ends: the units hold more than need
			if int64(j) == budget {
				p.order(us[j:], leastFree)
				return p.consume(dst, us[j:], need, unit, m, bestFit)
			}
			p.selectFirst(us[j:], leastFree)
			u, c := us[j], p.capOf(m, us[j])
			if c >= need {
				if bestFit {
					u = p.bestFitUnordered(us[j:], need, m)
				}
				p.setTake(u, need*unit)
				return append(dst, u), 0
			}
			p.setTake(u, c*unit)
			need -= c
			dst = append(dst, u)
		}
	}
	// From the last: select the previous unit in order into us[end-1]
	// until the units walked, us[end:], exceed the excess.
	excess, walked := total-need, int64(0)
	end := n
	// us[:lo] come before the other units in order. By best fit in
	// slices the order's first key is the capacity, the most first, and
	// every unit walked but the last holds at most the excess: the units
	// that hold more go first, and the selections scan the others until
	// none is left (of a fragmented rack's hosts, a few).
	lo := 0
	if m.slices && bestFit {
		for i, u := range us { // without a branch: which side is a coin toss
			us[i], us[lo] = us[lo], u
			lo += positive(p.slice[u] - excess)
		}
	}
	for {
		if int64(n-end) == budget {
			p.order(us[:end], leastFree)
			return p.consume(dst, us, need, unit, m, bestFit)
		}
		if end == lo {
			lo = 0
		}
		p.selectLast(us[lo:end], leastFree)
		end--
		walked += p.capOf(m, us[end])
		if walked > excess {
			break
		}
	}
	// us[end] is the first unit that reaches what is left; us[end:] are
	// in order.
	left := walked - excess
	u := us[end]
	if bestFit {
		u = p.bestFit(us[end:], left, m)
	}
	for _, v := range us[:end] {
		p.setTake(v, p.capOf(m, v)*unit)
	}
	p.setTake(u, left*unit)
	return append(append(dst, us[:end]...), u), 0
}

// positive is 1 when x > 0, else 0: a count that compiles without a
// branch, for loops whose test is a coin toss (a fragmented cluster's
// units).
func positive(x int64) int {
	var b int
	if x > 0 {
		b = 1
	}
	return b
}

// compareUnits is order's comparison while p does not prefer: the most
// slices first (the fewest with leastFree), then the fewest pods, then
// the path (a node's deepest domain's, then its name).
func (p *planner) compareUnits(a, b int, leastFree bool) int {
	if c := cmp.Compare(p.slice[b], p.slice[a]); c != 0 {
		if leastFree {
			return -c
		}
		return c
	}
	if c := cmp.Compare(p.pods[a], p.pods[b]); c != 0 {
		return c
	}
	if a >= p.D && b >= p.D {
		sc := p.t.plan
		return cmp.Compare(sc.tieRank[a-p.D], sc.tieRank[b-p.D])
	}
	return cmp.Compare(a, b)
}

// selectFirst moves the first of us in order to us[0].
func (p *planner) selectFirst(us []int, leastFree bool) {
	k := 0
	for i := 1; i < len(us); i++ {
		if p.compareUnits(us[i], us[k], leastFree) < 0 {
			k = i
		}
	}
	us[0], us[k] = us[k], us[0]
}

// selectLast moves the last of us in order to us[len(us)-1].
func (p *planner) selectLast(us []int, leastFree bool) {
	k, last := 0, len(us)-1
	for i := 1; i < len(us); i++ {
		if p.compareUnits(us[i], us[k], leastFree) > 0 {
			k = i
		}
	}
	us[last], us[k] = us[k], us[last]
}

// bestFitUnordered is bestFit of us in BestFit order, us unordered: of
// the units whose capacity reaches need, the smallest capacity, then the
// first in order.
func (p *planner) bestFitUnordered(us []int, need int64, m capMode) int {
	best, bc := -1, int64(0)
	for _, u := range us {
		c := p.capOf(m, u)
		if c < need {
			continue
		}
		if best < 0 || c < bc || c == bc && p.compareUnits(u, best, false) < 0 {
			best, bc = u, c
		}
	}
	return best
}
