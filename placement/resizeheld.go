package placement

import (
	"fmt"
	"slices"
)

// checkHeld checks that s holds the usage of existing, set's pods per node
// (checked, NodeIDs set), where s holds no reservation of the set: the
// pods bound to each node must request at least count × the template's
// requests of every resource. A host that never committed the set (no
// [Change].Reserve, its pods not bound in the snapshot) would otherwise
// get a growth placed beside pods the snapshot does not count, and a
// node overcommitted without a word. Pods of other groups may make up
// the usage: this is the check a snapshot without the set's pods cannot
// pass, not proof that they are there. Cost: O(E × R) for E entries and R
// requested resources.
func (s *Snapshot) checkHeld(g *Group, set PodSet, existing []PodSetAssignment) error {
	res := make([]ResourceName, 0, len(set.Template.Requests))
	for r, q := range set.Template.Requests {
		if q > 0 {
			res = append(res, r)
		}
	}
	slices.Sort(res) // the first resource short is named, the same every run
	for _, a := range existing {
		for _, r := range res {
			need := int64(a.Count) * set.Template.Requests[r] // existingPods bounded the product
			if got := s.Requested(a.NodeID, r); got < need {
				return Errorf(ErrInvalid, fmt.Sprintf("pod set %q of %s", set.Name, groupObj(g)), "resize.existing",
					"lists %d pods on node %q, requesting %d %s, but the pods bound there request %d: the snapshot must hold the existing pods (bound, or reserved with Change.Reserve)",
					a.Count, a.Node, need, r, got)
			}
		}
	}
	return nil
}
