package topology

import "github.com/gangsched/gangsched/placement"

// genScratch is what Generate would otherwise allocate per domain of a
// level on every call — the candidate domains, their split, and the
// answer, a placement per domain — kept on the tree and reused under its
// lock, so that a decision allocates O(members), not O(racks).
type genScratch struct {
	doms  []DomainID
	ok    []cand
	short []DomainID
	// closest holds closest's candidates with their bounds, kq its
	// multiples of the largest request.
	closest []cand
	kq      []int64
	// slots holds slots' copies per free class, for one call's member.
	slots classCounts
	// spare is an answer Solve released (see Generator.ReleasePlacements),
	// nil while a caller holds it.
	spare []placement.Placement
	// b and sh are the builder and shape of the generate in progress
	// (Generator.builder); between calls only their memory is kept.
	b  builder
	sh shape
}

// forget drops what the builder and shape point to (the group, its
// members, the snapshot) once a generate is done, keeping their memory.
func (gs *genScratch) forget() {
	classes := gs.b.classes[:cap(gs.b.classes)]
	clear(classes)
	gs.b = builder{classes: classes[:0]}
	gs.forgetShape()
}

// forgetShape drops what the shape points to (the group, the snapshot),
// keeping its memory: ScoreSums shapes a group in it as generate does.
func (gs *genScratch) forgetShape() {
	gs.sh = shape{requested: gs.sh.requested, vectors: gs.sh.vectors}
}

// take returns an empty answer with room for n placements: the spare when
// it has the room (then no longer spare), else a new one.
func (gs *genScratch) take(n int) []placement.Placement {
	if cap(gs.spare) >= n {
		out := gs.spare[:0]
		gs.spare = nil
		return out
	}
	return make([]placement.Placement, 0, n)
}

// ReleasePlacements implements [placement.PlacementReleaser]: Solve hands
// back an answer of Generate once its decision no longer reads it, and the
// next Generate on the tree reuses its memory. The larger of it and the
// spare already kept is kept.
func (gen *Generator) ReleasePlacements(ps []placement.Placement) {
	t := gen.tree
	if t == nil || cap(ps) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if cap(ps) > cap(t.gen.spare) {
		// Not cleared: the names and node lists it points to are the
		// tree's (a restricted list of widen's at worst lives on until
		// overwritten).
		t.gen.spare = ps[:0]
	}
}

var _ placement.PlacementReleaser = (*Generator)(nil)
