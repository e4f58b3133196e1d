package dra

// assignSlab hands out the assigns a reserver's searches return, with
// their devices and alternatives, from blocks that double as they fill:
// an assign is never appended to nor freed while its reserver lives, and
// a gang's members each take one, so one allocation per block replaces
// three per member. out and claims are the slices of pointers and claim
// numbers a search with want and plan return, reused: their caller reads
// them before the reserver searches again.
type assignSlab struct {
	as      []assign
	devs    []int32
	alts    []*calt
	nas     int // the size of the last block of assigns
	ndevs   int // and of devices
	nalts   int // and of alternatives
	claims0 int // the first block's assigns: the claims to allocate, one each, up to 256
	out     []*assign
	claims  []int32
	// The last block of each kind, whole: rewind hands them out again.
	asBlock   []assign
	devsBlock []int32
	altsBlock []*calt
}

// rewind makes the last blocks free again, for a reserver reused by the
// next solve: nothing the slab handed out is read after the solve it was
// handed out in. The assigns are zeroed (take hands out zero ones), and
// so are the alternatives, which the pool should not keep alive.
func (s *assignSlab) rewind() {
	clear(s.asBlock)
	clear(s.altsBlock)
	s.as, s.devs, s.alts = s.asBlock, s.devsBlock, s.altsBlock
	clear(s.out)
	s.out, s.claims = s.out[:0], s.claims[:0]
}

// take returns nvars zero assigns and room for picks devices and as many
// alternatives, each of length 0 and capacity picks.
func (s *assignSlab) take(nvars, picks int) ([]assign, []int32, []*calt) {
	as, devs := s.takeDevs(nvars, picks)
	if len(s.alts) < picks {
		s.nalts = max(picks, 2*s.nalts, picks*s.claims0)
		s.alts = make([]*calt, s.nalts)
		s.altsBlock = s.alts
	}
	alts := s.alts[:0:picks]
	s.alts = s.alts[picks:]
	return as, devs, alts
}

// takeDevs is take without the alternatives, for assigns whose devices
// all serve one alternative (see calt.self).
func (s *assignSlab) takeDevs(nvars, picks int) ([]assign, []int32) {
	if len(s.as) < nvars {
		s.nas = max(nvars, 2*s.nas, s.claims0)
		s.as = make([]assign, s.nas)
		s.asBlock = s.as
	}
	if len(s.devs) < picks {
		// The first block fits as many picks for every claim.
		s.ndevs = max(picks, 2*s.ndevs, picks*s.claims0)
		s.devs = make([]int32, s.ndevs)
		s.devsBlock = s.devs
	}
	as, devs := s.as[:nvars:nvars], s.devs[:0:picks]
	s.as, s.devs = s.as[nvars:], s.devs[picks:]
	return as, devs
}

// ptrs returns as's pointers in s.out.
func (s *assignSlab) ptrs(as []assign) []*assign {
	s.out = s.out[:0]
	for i := range as {
		s.out = append(s.out, &as[i])
	}
	return s.out
}

// claimsOf returns the claims of vars, in s.claims.
func (s *assignSlab) claimsOf(vars []svar) []int32 {
	s.claims = s.claims[:0]
	for _, v := range vars {
		s.claims = append(s.claims, v.claim)
	}
	return s.claims
}
