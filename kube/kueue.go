package kube

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Kueue's topology annotations on a pod template (kueue.x-k8s.io
// PodSet topology requests, Kueue's topology-aware scheduling): the value
// is a node label key the PodSet's pods must share one domain of
// (required) or should (preferred).
const (
	KueueRequiredTopology  = "kueue.x-k8s.io/podset-required-topology"
	KueuePreferredTopology = "kueue.x-k8s.io/podset-preferred-topology"
)

// kueueTopologies returns the constraints of the Kueue topology
// annotations of a Job's pod template, checked: each value a valid label
// key. Both may be set — the common request is a required block with a
// preferred rack inside it — and a key named both ways is required.
func kueueTopologies(obj string, annotations map[string]string) ([]gang.TopologyConstraint, error) {
	return kueueTopologiesAt(obj, "spec.template", annotations)
}

// kueueTopologiesAt is kueueTopologies for a pod template at field tmpl
// of obj.
func kueueTopologiesAt(obj, tmpl string, annotations map[string]string) ([]gang.TopologyConstraint, error) {
	var out []gang.TopologyConstraint
	for _, a := range []string{KueueRequiredTopology, KueuePreferredTopology} {
		key, ok := annotations[a]
		if !ok {
			continue
		}
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, tmpl+".metadata.annotations["+a+"]", "%q is not a node label key: %s", key, strings.Join(errs, "; "))
		}
		out = mergeTopology(out, gang.TopologyConstraint{Key: key, Preferred: a == KueuePreferredTopology})
	}
	return out, nil
}

// mergeTopology adds tc to cs unless cs names its key already (a slice
// layer and a plain constraint are apart); a key named both required and
// preferred is required, and a slice layer named twice keeps its first
// size.
func mergeTopology(cs []gang.TopologyConstraint, tc gang.TopologyConstraint) []gang.TopologyConstraint {
	i := slices.IndexFunc(cs, func(c gang.TopologyConstraint) bool {
		return c.Key == tc.Key && (c.SliceSize > 0) == (tc.SliceSize > 0)
	})
	if i < 0 {
		return append(cs, tc)
	}
	cs[i].Preferred = cs[i].Preferred && tc.Preferred
	return cs
}

// addTopologies adds the constraints of Kueue annotations to the stamped
// Workload template and PodGroup, merged with spec.scheduling's own by
// [mergeTopology].
func addTopologies(cs []gang.TopologyConstraint, out *JobObjects) {
	for _, own := range []*[]gang.TopologyConstraint{&out.PodGroup.Spec.SchedulingConstraints.Topology, &out.Workload.Spec.PodGroupTemplates[0].SchedulingConstraints.Topology} {
		merged := slices.Clone(*own)
		for _, tc := range cs {
			merged = mergeTopology(merged, tc)
		}
		*own = merged
	}
}
