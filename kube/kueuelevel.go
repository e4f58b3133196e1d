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
// others. It returns "" when the tree has every level r names.
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
