package dra

import (
	"fmt"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// CheckPlacement implements [placement.PlacementChecker]: it excludes a
// placement (a topology domain) whose nodes cannot reach the devices the
// group's claims need, before the solver tries any member there. A device
// counts once however many of the placement's nodes reach it, so a
// network-attached device (a nodeSelector slice) counts for every node it
// serves. The check is a necessary condition, by counts: for each claim
// spec (the claims from one template) and for all the claims together,
// the matching devices the nodes reach must be at least as many as the
// claims need (each request's smallest count; an All request needs one).
// Claims that may share devices (admin access, devices that allow
// multiple allocations) are not counted. Too few devices even on an idle
// cluster is Unresolvable; too few free ones is a plain rejection, which
// preemption may lift. An allocated claim must be reachable from some node
// of the placement.
//
// It checks only when the group needs every pending member (a gang whose
// minCount covers them all): otherwise which members go, and so which
// claims need devices, is the search's choice.
func (h hook) CheckPlacement(p *placement.Placement) placement.Rejection {
	if !h.r.allNeeded {
		return placement.Rejection{}
	}
	return h.r.checkPlacement(p.Nodes)
}

// tally is what a placement's nodes offer the claims of one spec.
type tally struct {
	sp        *spec
	claims    []int32
	need      int  // devices each claim needs at least
	unbounded bool // the claims may share devices: no count applies
	idle      int  // matching devices the nodes reach
	free      int  // of those, held by no claim in the ledger
}

func (r *reserver) checkPlacement(nodes []placement.NodeID) placement.Rejection {
	reach := r.reachedBy(nodes)
	for ci, c := range r.rs.claims {
		if c.base == nil {
			continue
		}
		ok := false
		for _, id := range nodes {
			if c.base.Reachable(r.node(id)) {
				ok = true
				break
			}
		}
		if !ok {
			return placement.Rejection{Reason: r.claimReason(int32(ci), "allocated devices not reachable from any node of the placement"), Unresolvable: true}
		}
	}
	var ts []*tally
	for ci, c := range r.rs.claims {
		if c.base != nil {
			continue
		}
		var t *tally
		for _, x := range ts {
			if x.sp == c.spec {
				t = x
			}
		}
		if t == nil {
			t = &tally{sp: c.spec}
			ts = append(ts, t)
		}
		t.claims = append(t.claims, int32(ci))
	}
	// Each spec alone, then all together: a device counts once in all.
	r.epoch++
	var all tally
	for _, t := range ts {
		r.count(t, reach, &all)
		if t.unbounded {
			continue
		}
		if rej, bad := r.short(t.claims, t.need*len(t.claims), t.idle, t.free, len(nodes)); bad {
			return rej
		}
		all.claims = append(all.claims, t.claims...)
		all.need += t.need * len(t.claims)
	}
	if len(ts) > 1 && len(all.claims) > 0 {
		if rej, bad := r.short(all.claims, all.need, all.idle, all.free, len(nodes)); bad {
			return rej
		}
	}
	return placement.Rejection{}
}

// reachedBy lists the devices that some node of nodes reaches, each once.
func (r *reserver) reachedBy(nodes []placement.NodeID) []int32 {
	if len(r.mark) != len(r.inv.devs) {
		r.mark = make([]uint32, len(r.inv.devs))
	}
	r.epoch++
	out := r.reach[:0]
	for _, id := range nodes {
		r.inv.eachReachable(r.node(id), func(d int32) bool {
			if r.mark[d] != r.epoch {
				r.mark[d] = r.epoch
				out = append(out, d)
			}
			return true
		})
	}
	r.reach = out
	return out
}

// count fills t from the devices reach: its need, whether it is
// unbounded, and the matching devices, idle and free; all gets the devices
// not counted for an earlier spec (marked with the current epoch).
func (r *reserver) count(t *tally, reach []int32, all *tally) {
	for q := range t.sp.reqs {
		least := -1
		for a := range t.sp.reqs[q].alts {
			alt := &t.sp.reqs[q].alts[a]
			n := alt.count
			if alt.all {
				n = 1
			}
			if least < 0 || n < least {
				least = n
			}
			t.unbounded = t.unbounded || alt.admin
		}
		t.need += least
	}
	if t.unbounded {
		return
	}
	matched := r.matched[:0]
	for _, d := range reach {
		if r.serves(t.sp, d) {
			if r.inv.devs[d].multi {
				t.unbounded = true
				return
			}
			matched = append(matched, d)
		}
	}
	r.matched = matched
	for _, d := range matched {
		free := !r.l.used.get(int(d))
		t.idle++
		if free {
			t.free++
		}
		if r.mark[d] != r.epoch {
			r.mark[d] = r.epoch
			all.idle++
			if free {
				all.free++
			}
		}
	}
}

// serves reports whether device d may serve some request of sp: it
// matches an alternative's class and selectors, its taints are tolerated
// and it can provide the capacity asked for.
func (r *reserver) serves(sp *spec, d int32) bool {
	for q := range sp.reqs {
		for a := range sp.reqs[q].alts {
			if sp.reqs[q].alts[a].usable(r.inv, d) {
				return true
			}
		}
	}
	return false
}

// short rejects when claims, needing need devices, find fewer among the
// devices the placement's n nodes reach: idle matching, free of those.
func (r *reserver) short(claims []int32, need, idle, free, n int) (placement.Rejection, bool) {
	if free >= need {
		return placement.Rejection{}, false
	}
	var b strings.Builder
	b.WriteString(r.claimList(claims))
	verb := "need"
	if len(claims) == 1 {
		verb = "needs"
	}
	fmt.Fprintf(&b, " %s %d devices; the placement's %d nodes reach %d matching", verb, need, n, idle)
	if idle >= need {
		fmt.Fprintf(&b, ", %d free", free)
	}
	return placement.Rejection{Reason: b.String(), Unresolvable: idle < need}, true
}

// claimList names claims: all of up to three, else the first two and the
// last, with the count.
func (r *reserver) claimList(claims []int32) string {
	if len(claims) == 1 {
		return "ResourceClaim " + r.name(claims[0])
	}
	names := make([]string, 0, 3)
	if len(claims) <= 3 {
		for _, c := range claims {
			names = append(names, r.name(c))
		}
		return "ResourceClaims " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("ResourceClaims %s, %s, … %s (%d claims)", r.name(claims[0]), r.name(claims[1]), r.name(claims[len(claims)-1]), len(claims))
}
