package bench

import "slices"

// GangFloor is the touch-once floor over a [Cluster]: a plain Go pass
// over flat slices — no maps, no snapshot, no hooks — that sums each
// domain's free slots, picks a domain and first-fits the members in it. No
// decision can do less than read every node and every member once, so the
// ratio of a decision's time to this one, measured in the same run, says
// how far the decision is from that bound. It keeps its own copy of the
// cluster's free quantities, so a stream of placements can update it.
type GangFloor struct {
	c    *Cluster
	free [2][]int64
}

// NewGangFloor returns a floor over c with c's free quantities.
func NewGangFloor(c *Cluster) *GangFloor {
	return &GangFloor{c: c, free: [2][]int64{slices.Clone(c.Free[0]), slices.Clone(c.Free[1])}}
}

// Reset restores the cluster's free quantities.
func (f *GangFloor) Reset() {
	copy(f.free[0], f.c.Free[0])
	copy(f.free[1], f.c.Free[1])
}

// Place places the members (their requests, all-or-nothing) in one domain
// of level (an index of Cluster.Levels, or -1 for the whole cluster) and
// returns how many it placed, writing each member's node index (or -1) to
// out, which must be as long as reqs.
//
// One pass over the members takes the smallest request of each resource
// (the slot); one pass over every node sums the slots each domain offers;
// the domain with the fewest slots that still holds every member wins
// (ties to the first); a first-fit pass over its nodes, members in the
// given order, moving to the next node when the member does not fit
// (exact for identical members, a cheap next-fit otherwise), places them.
// When no domain has the slots, it returns 0 without placing. With commit
// the placement's requests are taken from the floor's free quantities
// when every member was placed.
func (f *GangFloor) Place(level int, reqs []Request, out []int32, commit bool) int {
	if len(reqs) == 0 {
		return 0
	}
	unit := reqs[0]
	for _, r := range reqs[1:] {
		unit[0], unit[1] = min(unit[0], r[0]), min(unit[1], r[1])
	}
	start := []int32{0, int32(len(f.c.Nodes))}
	if level >= 0 {
		start = f.c.Levels[level].Start
	}
	want := int64(len(reqs))
	free0, free1 := f.free[0], f.free[1]
	best, bestSum := -1, int64(0)
	for d := range len(start) - 1 {
		var sum int64
		for i := start[d]; i < start[d+1]; i++ {
			sum += slots(free0[i], free1[i], unit, want)
		}
		if sum >= want && (best < 0 || sum < bestSum) {
			best, bestSum = d, sum
		}
	}
	if best < 0 {
		return 0
	}
	k, end := start[best], start[best+1]
	g, c := free0[k], free1[k]
	placed := 0
	for j, r := range reqs {
		for k < end && (g < r[0] || c < r[1]) {
			if commit {
				free0[k], free1[k] = g, c
			}
			if k++; k < end {
				g, c = free0[k], free1[k]
			}
		}
		if k == end {
			out[j] = -1
			continue
		}
		out[j] = k
		g, c = g-r[0], c-r[1]
		placed++
	}
	if commit {
		if k < end {
			free0[k], free1[k] = g, c
		}
		if placed < len(reqs) {
			for j, n := range out {
				if n >= 0 {
					free0[n] += reqs[j][0]
					free1[n] += reqs[j][1]
				}
			}
		}
	}
	return placed
}

// slots is how many copies of unit fit in free quantities a and b, at
// most limit.
func slots(a, b int64, unit Request, limit int64) int64 {
	s := limit
	if unit[0] > 0 {
		s = min(s, max(a, 0)/unit[0])
	}
	if unit[1] > 0 {
		s = min(s, max(b, 0)/unit[1])
	}
	return s
}
