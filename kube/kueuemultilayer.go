package kube

import (
	"fmt"
	"maps"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// KueueReadOptions say how [ConvertKueueWorkloadWith] reads a Kueue
// Workload as Kueue's feature gates would have it; the zero value is Kueue
// v0.17 with its default gates.
type KueueReadOptions struct {
	// MultiLayerTopology is Kueue's TASMultiLayerTopology gate (v0.17:
	// alpha, off by default). On, a pod set's slice layers are all read,
	// from topologyRequest.podsetSliceRequiredTopologyConstraints or from
	// its template's annotation [KueueSliceConstraints], and checked as
	// [StampJob] checks that annotation.
	//
	// Off, they are read as Kueue v0.17 reads them without the gate:
	//   - the annotation is ignored, neither parsed nor checked (its job
	//     framework's pkg/controller/jobframework/tas.go builds the
	//     topologyRequest without it), so the set has no slices unless the
	//     single-layer pair [KueueSliceRequiredTopology] and
	//     [KueueSliceSize] gives them, and a PodSetGroup name beside it is
	//     no conflict; Kueue's job webhooks refuse the annotation outright
	//     then, but a Workload of the input has passed them, and Kueue's
	//     StatefulSet and AppWrapper integrations, with no such check,
	//     drop it so;
	//   - the field keeps its first layer as the set's slice level and
	//     size and its inner layers are ignored, not even their levels
	//     looked up (pkg/cache/scheduler/tas_flavor_snapshot.go:
	//     buildSliceSizeAtLevel and HasLevel read them only with the gate,
	//     the slice level and size are the first layer's either way).
	MultiLayerTopology bool
	// Admission is what Kueue reads to adjust each pod set's template
	// before charging it: the namespace's LimitRanges and the
	// RuntimeClasses (see [Admission]); nil adjusts nothing.
	Admission *Admission
	// ExcludeResourcePrefixes is Kueue's Configuration
	// resources.excludeResourcePrefixes: a pod set's requests of a
	// resource whose name starts with one of them are not charged to
	// quota. Kueue v0.17's topology-aware scheduling still places the pods
	// by them (it reads the template's own requests), and so does gangsim.
	ExcludeResourcePrefixes []string
	// Transformations are Kueue's Configuration
	// resources.transformations, by input ([ReadKueueTransformations]):
	// what a pod set is charged for its requests, after the excluded
	// resources are dropped. Topology-aware scheduling places the pods
	// by their own requests, as Kueue v0.17's does.
	Transformations map[placement.ResourceName]*KueueTransformation
}

// templateAnnotations are the template annotations ann that a pod set's
// request is read from: ann less [KueueSliceConstraints] with the gate
// off (a copy; ann is the Workload's own and is written back as given).
func (o KueueReadOptions) templateAnnotations(ann map[string]string) map[string]string {
	if _, ok := ann[KueueSliceConstraints]; !ok || o.MultiLayerTopology {
		return ann
	}
	out := maps.Clone(ann)
	delete(out, KueueSliceConstraints)
	return out
}

// fieldLayers are the layers of topologyRequest's
// podsetSliceRequiredTopologyConstraints ls that Kueue reads: the first
// alone with the gate off.
func (o KueueReadOptions) fieldLayers(ls []kueue.PodsetSliceRequiredTopologyConstraint) []kueue.PodsetSliceRequiredTopologyConstraint {
	if o.MultiLayerTopology || len(ls) < 2 {
		return ls
	}
	return ls[:1]
}

// checkFieldLayers refuses topologyRequest's
// podsetSliceRequiredTopologyConstraints ls at field f (the request's
// field) as Kueue's Workload CRD does, whatever its gates: more than three
// layers, a topology empty or longer than 63 bytes, a size below 1. Only
// the gate decides which layers are then read (fieldLayers).
func checkFieldLayers(obj, f string, ls []kueue.PodsetSliceRequiredTopologyConstraint) error {
	f += ".podsetSliceRequiredTopologyConstraints"
	if len(ls) > 3 {
		return placement.Errorf(placement.ErrInvalid, obj, f, "has %d layers: Kueue's Workload API allows at most 3", len(ls))
	}
	for i, l := range ls {
		if n := len(l.Topology); n < 1 || n > 63 {
			return placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s[%d].topology", f, i), "%q is %d bytes: Kueue's Workload API wants 1 to 63", l.Topology, n)
		}
		if l.Size < 1 {
			return placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s[%d].size", f, i), "%d is below 1 (Kueue's Workload API minimum)", l.Size)
		}
	}
	return nil
}
