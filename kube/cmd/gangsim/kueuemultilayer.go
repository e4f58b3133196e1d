package main

import (
	"fmt"

	"github.com/gangsched/gangsched/kube"
)

// multiLayerWarnings name, in input order, the slice layers of Kueue
// Workloads ws that were read as Kueue v0.17 reads them with its
// TASMultiLayerTopology gate off (kube.KueueReadOptions): a layers
// annotation ignored where the set has no topologyRequest, and a
// topologyRequest's layers past the first. A user who wrote them most
// likely meant them, and the answer differs from the gate's.
func multiLayerWarnings(ws []*kube.KueueWorkload) []string {
	var out []string
	for _, w := range ws {
		obj := fmt.Sprintf("Kueue Workload %q", w.Key().String())
		for i, ps := range w.Obj.Spec.PodSets {
			f := fmt.Sprintf("spec.podSets[%d]", i)
			switch tr := ps.TopologyRequest; {
			case tr != nil && len(tr.PodsetSliceRequiredTopologyConstraints) > 1:
				out = append(out, fmt.Sprintf("%s: %s.topologyRequest.podsetSliceRequiredTopologyConstraints: only the first layer is read, as Kueue v0.17 reads it with its TASMultiLayerTopology gate off (its default); -kueue-multi-layer-topology reads every layer", obj, f))
			case tr == nil:
				if _, ok := ps.Template.Annotations[kube.KueueSliceConstraints]; ok {
					out = append(out, fmt.Sprintf("%s: %s.template.metadata.annotations[%s]: ignored, as Kueue v0.17's job framework ignores it with its TASMultiLayerTopology gate off (its default); -kueue-multi-layer-topology reads it", obj, f, kube.KueueSliceConstraints))
				}
			}
		}
	}
	return out
}
