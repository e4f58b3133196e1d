package dra

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// SaturatedAgrees asks the slow path's shortcut (see saturated) about
// member p on node ni of h, a Reserver of Ledger.Reserver, in the state h
// is in, worded and terse; each time it answers, it runs the full slow
// path too. answered counts the answers; agree says every answer was the
// full path's verdict (ok, outcome, idle, reason and claims).
func SaturatedAgrees(h placement.Reserver, p *placement.Pod, ni placement.NodeInfo) (answered int, agree bool) {
	r := h.(hook).r
	refs := r.refs(p)
	for _, terse := range []bool{false, true} {
		r.terse = terse
		short, ok := r.saturated(refs, ni.ID())
		if !ok {
			continue
		}
		answered++
		_, full := r.searchSlow(refs, ni.ID(), false)
		if terse {
			full.vars = nil // verdict does not read them: rejection answers before
		}
		if short.ok != full.ok || short.out != full.out || short.idle != full.idle || short.why != full.why ||
			!slices.Equal(claimsOf(short.vars), claimsOf(full.vars)) {
			r.terse = false
			return answered, false
		}
	}
	r.terse = false
	return answered, true
}
