package topology

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// kueueReplacement is the request Kueue v0.17's node hot swap makes for
// the pods of a failed node (findReplacementAssignment in
// pkg/cache/scheduler/tas_flavor_snapshot.go): the set's own request, its
// slices reduced to what the lost count can keep whole, confined to one
// domain.
type kueueReplacement struct {
	req PodSetRequest
	// level and dom are the required replacement domain; dom is -1 when
	// the replacement may go anywhere.
	level int
	dom   DomainID
	// fail, when not "", says why Kueue finds no replacement before it
	// searches any node.
	fail string
}

// kueueReplacementFor returns Kueue's replacement request for lost pods
// of a set with request req whose surviving pods are survivors (NodeIDs
// set, at least one), as requiredReplacementDomain and
// findReplacementAssignment build it:
//   - a sliced set whose lost count is not a multiple of its outermost
//     slice size is confined to the domain of the incomplete slice — of
//     the innermost layer whose size does not divide the lost count —
//     the domain of that layer's level whose survivors plus the lost
//     count make whole slices (findIncompleteSliceDomain; where several
//     do, which only survivors not in whole slices allow, Kueue takes one
//     in Go map order and this the first by path); its slices become the
//     innermost layer whose size divides the lost count alone, or none;
//   - otherwise a set with a Required level is confined to the survivors'
//     domain of that level;
//   - otherwise the replacement may go anywhere, planned as a new set of
//     the lost count would be (a Preferred level is searched from the
//     whole topology, not near the survivors).
//
// When no domain holds the incomplete slice, or the reduced request has
// neither a level nor slices left (a slice-only set: Kueue's request
// then names no topology level and fails), fail says so.
func (t *Tree) kueueReplacementFor(req PodSetRequest, survivors []placement.PodSetAssignment, lost int64) kueueReplacement {
	kr := kueueReplacement{req: req, dom: -1}
	if n := len(req.Slices); n > 0 && lost%int64(req.Slices[0].Size) != 0 {
		i := n - 1 // the innermost broken layer: layer 0 is broken
		for i > 0 && lost%int64(req.Slices[i].Size) == 0 {
			i--
		}
		layer := req.Slices[i]
		lv, _ := t.Level(layer.Key)
		kr.level, kr.dom = lv, t.incompleteSlice(survivors, lv, int64(layer.Size), lost)
		if kr.dom < 0 {
			kr.fail = fmt.Sprintf("no %q domain of the surviving pods completes its slices of %d with the %d lost", layer.Key, layer.Size, lost)
			return kr
		}
		kr.req.Slices = nil
		for j := n - 1; j >= 0; j-- {
			if lost%int64(req.Slices[j].Size) == 0 {
				kr.req.Slices = []SliceLayer{req.Slices[j]}
				break
			}
		}
		if kr.req.Slices == nil && req.Required == "" && req.Preferred == "" && !req.Unconstrained {
			kr.fail = fmt.Sprintf("no slice layer's size divides the %d pods lost, and a set of slices alone then names no topology level for their replacement (Kueue v0.17: \"topology level not specified\")", lost)
		}
		return kr
	}
	if req.Required != "" {
		lv, _ := t.Level(req.Required)
		kr.level, kr.dom = lv, t.domainOf(survivors[0].NodeID, lv)
	}
	return kr
}

// incompleteSlice returns the domain of level lv whose surviving pods plus
// lost make whole slices of size, the first by path, or -1. Survivors on
// nodes without a domain at lv are skipped, as Kueue skips them.
func (t *Tree) incompleteSlice(survivors []placement.PodSetAssignment, lv int, size, lost int64) DomainID {
	counts := map[DomainID]int64{} // a set of thousands of nodes lies in few domains
	for _, a := range survivors {
		if d := t.domainOf(a.NodeID, lv); d >= 0 {
			counts[d] += int64(a.Count)
		}
	}
	best := DomainID(-1)
	for d, n := range counts {
		if (n+lost)%size == 0 && (best < 0 || d < best) {
			best = d
		}
	}
	return best
}

// planReplacement plans delta, the lost pods of a set, with kr's request,
// on the nodes inside kr's domain alone (Kueue leaves the others out of
// its counts: belongsToRequiredDomain in fillInCounts); with kr.fail, it
// is Unresolvable with that message.
func (t *Tree) planReplacement(s *placement.Snapshot, delta *placement.Group, kr *kueueReplacement, opts PlanOptions) (placement.Decision, error) {
	if kr.fail != "" {
		return placement.Decision{Group: delta.Key(), Status: placement.Unresolvable, Message: kr.fail}, nil
	}
	if kr.dom >= 0 {
		level, dom := kr.level, kr.dom
		why := "outside the replacement domain " + t.doms[dom].path
		opts.Filters = append(slices.Clip(opts.Filters), placement.FilterFunc(func(_ *placement.Pod, n placement.NodeInfo) placement.Rejection {
			if t.domainOf(n.ID(), level) != dom {
				return placement.Rejection{Reason: why, Unresolvable: true}
			}
			return placement.Rejection{}
		}))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	opts.Buffers = nil // the resize keeps the delta's decision
	p, err := t.planLocked(s, delta, []PodSetRequest{kr.req}, opts, nil)
	return p.Decision, err
}
