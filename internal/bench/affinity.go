package bench

import "slices"

// Apart is one pod anti-affinity term as the floor of the affinity cells
// reads it: the term's topology key as domains (runs of node indices),
// and which pods it counts.
type Apart struct {
	// Level is the index in Cluster.Levels of the term's topology key, or
	// -1 for kubernetes.io/hostname (every node its own domain).
	Level int
	// Matching are the nodes of the bound pods the term counts: for a
	// bound member's own term, that member's node (no member may join its
	// domain); empty for the members' own terms.
	Matching []int32
	// Members says the members carry the term themselves and match it:
	// at most one member to a domain.
	Members bool
	// Required says the term must hold; a preferred one gives way, all
	// members placed in the domains it allows first.
	Required bool
}

// PlaceApart is [GangFloor.Place] (no topology constraint) for count
// members of request unit under anti-affinity term a, with the term's
// bookkeeping done once per node: per-domain counts of matching pods,
// kept as members are placed, decide which nodes a member may take. One
// pass over every node sums the slots of the domains without a matching
// pod and of the others; a first-fit pass places the members in the
// former and, for a preferred term, then in the latter. When the members
// carry the term a domain takes at most one of them, required or
// preferred, so a preferred term with fewer domains than members does not
// fit here as it would in a decision (the cells have more hosts than
// members). It returns count or 0 and the answer, members per node,
// appended to out[:0].
func (f *GangFloor) PlaceApart(unit Request, count int, a Apart, out []Slots) (int, []Slots) {
	out = out[:0]
	if count <= 0 {
		return 0, out
	}
	starts := f.hosts
	if a.Level >= 0 {
		starts = f.c.Levels[a.Level].Start
	}
	domains := len(starts) - 1
	counts := f.counts[:domains]
	clear(counts)
	for _, n := range a.Matching {
		d, _ := slices.BinarySearch(starts, n+1)
		counts[d-1]++
	}
	d0, d1 := newDivider(unit[0]), newDivider(unit[1])
	free0, free1 := f.free[0], f.free[1]
	most := int64(unlimited) // members a domain takes
	if a.Members {
		most = 1
	}
	var open, taken int64 // slots in domains without and with matching pods
	if a.Level < 0 {
		// Every domain one node: the same sums without a loop per
		// domain, which costs more than its one node (a third of the
		// pass at 1,000 hosts).
		for d := range domains {
			if sum := min(d0.div(free0[d]), d1.div(free1[d]), most); counts[d] == 0 {
				open += sum
			} else {
				taken += sum
			}
		}
	} else {
		for d := range domains {
			var sum int64
			for i := starts[d]; i < starts[d+1]; i++ {
				sum += min(d0.div(free0[i]), d1.div(free1[i]))
			}
			if sum = min(sum, most); counts[d] == 0 {
				open += sum
			} else {
				taken += sum
			}
		}
	}
	want := int64(count)
	if open < want && (a.Required || open+taken < want) {
		return 0, out
	}
	left := want
	for pass := 0; pass < 2 && left > 0; pass++ {
		for d := 0; d < domains && left > 0; d++ {
			if (counts[d] == 0) != (pass == 0) {
				continue
			}
			for i := starts[d]; i < starts[d+1] && left > 0; i++ {
				s := min(d0.div(free0[i]), d1.div(free1[i]), left)
				if a.Members {
					s = min(s, 1-counts[d])
				}
				if s <= 0 {
					continue
				}
				out = append(out, Slots{Node: i, Count: int32(s)})
				left -= s
				if a.Members {
					counts[d] += s
				}
			}
		}
	}
	return count, out
}
