package placement

// attemptPool is the scratch's attempts. No attempt outlives its Solve —
// a Decision copies what it keeps, and the winner's assignments are a
// list of their own — so the first few attempts of a Solve, with their
// node and seq tables, reuse the memory of the previous Solve's instead of
// taking three allocations each (a gang's greedy pass is usually the only
// attempt). Later ones are allocated: a search over many placements keeps
// no more than pooledAttempts tables alive at once because of the pool.
type attemptPool struct {
	all  [pooledAttempts]attempt
	used int
	// node and seq hold, per pooled attempt, its tables' memory.
	node [pooledAttempts][]NodeID
	seq  [pooledAttempts][]int
}

// pooledAttempts bounds the attempts a Solve takes from the pool.
const pooledAttempts = 4

// get returns a zero attempt on p. With tables, its node table has an
// entry per member, each -1 (waiting), and its seq room for every member.
func (ap *attemptPool) get(p *Placement, members int, tables bool) *attempt {
	if ap.used == pooledAttempts {
		if !tables {
			return &attempt{p: p}
		}
		return fillWaiting(&attempt{p: p, node: make([]NodeID, members), seq: make([]int, 0, members)})
	}
	k := ap.used
	ap.used++
	a := &ap.all[k] // zero (see release): set field by field
	a.p = p
	if tables {
		ap.node[k] = grow(ap.node[k], members)
		if cap(ap.seq[k]) < members {
			ap.seq[k] = make([]int, 0, members)
		}
		a.node, a.seq = ap.node[k], ap.seq[k][:0]
		fillWaiting(a)
	}
	return a
}

// fillWaiting marks every member of a waiting and returns a.
func fillWaiting(a *attempt) *attempt {
	for i := range a.node {
		a.node[i] = -1
	}
	return a
}

// release zeroes the attempts handed out, so that the pool keeps nothing
// they pointed to (placements, assignments) alive; the tables' memory
// stays.
func (ap *attemptPool) release() {
	clear(ap.all[:ap.used])
	ap.used = 0
}
