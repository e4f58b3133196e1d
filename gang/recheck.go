package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// recheckPlacement runs the placement filters of opts on decision d's whole
// assignment, as hooks see one in Solve (a pod set's pods as one entry per
// set and node, Member set), before the cycle binds. Solve ran them on
// the placement it chose, but a planned group (a KEP-5732 plan of the
// topology profile) is decided outside Solve and never met them, and a
// filter is the only check of rules such as DoNotSchedule topology spread
// that [placement.Verify] does not know. A rejection is an error wrapping
// [placement.ErrViolation] that names the filter and its reason; a
// filter's own error wraps [placement.ErrHook].
func recheckPlacement(snap *placement.Snapshot, g *placement.Group, d *placement.Decision, filters []placement.PlacementFilter) error {
	if len(filters) == 0 {
		return nil
	}
	a := make([]placement.Assignment, 0, len(d.Assignments)+len(d.PodSetAssignments))
	a = append(a, d.Assignments...)
	for _, ps := range d.PodSetAssignments {
		a = append(a, placement.Assignment{Pod: placement.Key{Namespace: g.Namespace, Name: ps.PodSet}, Node: ps.Node, NodeID: ps.NodeID, Count: ps.Count})
	}
	for i, k := range g.PendingIndexes(a) {
		a[i].Member = k
	}
	view := placement.GroupView{Group: g}
	for k, f := range filters {
		r := f.FilterPlacement(snap, view, &d.Placement, a)
		switch {
		case r.Err != nil:
			return fmt.Errorf("%w: Options.PlacementFilters[%d] on placement %q: %w", placement.ErrHook, k, d.Placement.Name, r.Err)
		case !r.OK():
			return fmt.Errorf("%w: PodGroup %s: Options.PlacementFilters[%d] rejects placement %q: %s", placement.ErrViolation, g.Key(), k, d.Placement.Name, r.Reason)
		}
	}
	return nil
}
