package kube

import (
	"fmt"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// maxUnhealthyNodes is the most entries Kueue v0.17's Workload API takes
// in status.unhealthyNodes (its MaxItems).
const maxUnhealthyNodes = 8

// checkUnhealthyNodes validates status.unhealthyNodes of Workload obj as
// Kueue's API does (a list map keyed by name, so each name once, of at
// most eight entries), and refuses an empty name, which names no node.
// Read otherwise, a duplicate would be dropped and an empty name taken
// for a gone node without a word. Errors name the field (ErrInvalid or
// ErrDuplicate).
func checkUnhealthyNodes(obj string, w *kueue.Workload) error {
	us := w.Status.UnhealthyNodes
	if len(us) > maxUnhealthyNodes {
		return placement.Errorf(placement.ErrInvalid, obj, "status.unhealthyNodes", "%d entries: Kueue's API takes at most %d", len(us), maxUnhealthyNodes)
	}
	seen := map[string]bool{}
	for i, u := range us {
		f := fmt.Sprintf("status.unhealthyNodes[%d].name", i)
		if u.Name == "" {
			return placement.Errorf(placement.ErrInvalid, obj, f, "must be set")
		}
		if seen[u.Name] {
			return placement.Errorf(placement.ErrDuplicate, obj, f, "node %q is listed twice", u.Name)
		}
		seen[u.Name] = true
	}
	return nil
}
