package placement

import (
	"cmp"
	"fmt"
	"slices"
)

// excluded asks the Reservers that implement [PlacementChecker] about
// generated placement p and reports whether one rejected it; the
// rejection's reason is counted in sel. The default placement of every
// node is never asked: excluding it would only repeat the member search's
// own verdict.
func (sv *solver) excluded(p *Placement, sel *selection) bool {
	if sv.opts.Generator == nil {
		return false
	}
	for i, r := range sv.reservers {
		pc, ok := r.(PlacementChecker)
		if !ok {
			continue
		}
		rej := pc.CheckPlacement(p)
		if rej.OK() {
			continue
		}
		if sv.failed(rej, fmt.Sprintf("Options.Reservers[%d].CheckPlacement on placement %q", i, p.Name), nil, NodeInfo{}) {
			return true
		}
		k := slices.IndexFunc(sel.excluded, func(rc ReasonCount) bool { return rc.Reason == rej.Reason })
		if k < 0 {
			sel.excluded = append(sel.excluded, ReasonCount{Reason: rej.Reason})
			k = len(sel.excluded) - 1
		}
		sel.excluded[k].Nodes += len(p.Nodes)
		sel.resolvableExcl = sel.resolvableExcl || !rej.Unresolvable
		sv.hookCut = sv.hookCut || rej.Cut
		return true
	}
	return false
}

// allExcluded completes decision d when every usable placement was
// excluded by a PlacementChecker: the reasons, most nodes first, and
// Unresolvable when no exclusion could change by removing pods.
func (sv *solver) allExcluded(d Decision, sel selection) Decision {
	d.MostFit = sv.bound
	d.Reasons = slices.Clone(sel.excluded)
	slices.SortStableFunc(d.Reasons, func(a, b ReasonCount) int { return cmp.Compare(b.Nodes, a.Nodes) })
	if !sel.resolvableExcl && d.Status == Unschedulable {
		d.Status = Unresolvable
	}
	d.Message = fmt.Sprintf("%s: every placement was excluded before its members were tried: %s", sv.fitCount(sv.bound), formatReasons(d.Reasons))
	return d
}
