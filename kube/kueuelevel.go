package kube

import (
	"cmp"
	"fmt"

	"github.com/gangsched/gangsched/topology"
)

// missingLevel says why pod set request r cannot be planned on tree, whose
// levels are the Kueue Topology's: it names a level the Topology does not
// have, its Required or Preferred level first, then its slice layers.
// Kueue leaves such a Workload inadmissible with this reason (v0.17
// pkg/cache/scheduler/tas_flavor_snapshot.go, "no requested topology
// level"), one Workload's request being no reason to stop admitting the
// others. It returns "" when the tree has every level r names and its
// slice layers nest there (see sliceLayersReason).
func missingLevel(tree *topology.Tree, r topology.PodSetRequest) string {
	if key := cmp.Or(r.Required, r.Preferred); key != "" {
		if _, ok := tree.Level(key); !ok {
			return "no requested topology level: " + key
		}
	}
	for i, l := range r.Slices {
		if _, ok := tree.Level(l.Key); ok {
			continue
		}
		what := "slices"
		if i > 0 {
			what = "additional slice layer"
		}
		return fmt.Sprintf("no requested topology level for %s: %s", what, l.Key)
	}
	return sliceLayersReason(tree, r)
}

// sliceLayersReason says why the slice layers of r, whose levels tree has,
// do not nest there, in Kueue v0.17's words and order
// (tas_flavor_snapshot.go: findTopologyAssignment, buildSliceSizeAtLevel):
// the first layer wider than the set's required or preferred level, then
// an inner layer not narrower than the one around it or whose size does
// not divide that layer's. Kueue's Workload API checks none of it on
// topologyRequest, and leaves the Workload pending; its job webhooks refuse
// an inner size that does not divide on the annotation ([StampJob] too).
// "" when they nest.
func sliceLayersReason(tree *topology.Tree, r topology.PodSetRequest) string {
	if len(r.Slices) == 0 {
		return ""
	}
	outer := r.Slices[0]
	at, _ := tree.Level(outer.Key)
	if key := cmp.Or(r.Required, r.Preferred); key != "" {
		if l, _ := tree.Level(key); l > at {
			return fmt.Sprintf("podset slice topology %s is above the podset topology %s", outer.Key, key)
		}
	}
	for _, l := range r.Slices[1:] {
		in, _ := tree.Level(l.Key)
		switch {
		case in <= at:
			return fmt.Sprintf("additional slice layer topology %s must be at a lower level than %s", l.Key, outer.Key)
		case outer.Size%l.Size != 0:
			return fmt.Sprintf("additional slice layer size %d must evenly divide parent layer size %d", l.Size, outer.Size)
		}
		outer, at = l, in
	}
	return ""
}

// missingLevels is missingLevel for the first pod set of rs that names a
// level tree lacks, prefixed with the set's name; "" when none does.
func missingLevels(tree *topology.Tree, rs []topology.PodSetRequest) string {
	for _, r := range rs {
		if msg := missingLevel(tree, r); msg != "" {
			return fmt.Sprintf("pod set %q: %s", r.PodSet, msg)
		}
	}
	return ""
}
