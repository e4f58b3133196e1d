package kube

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Kueue's slice and group annotations on a pod template (KEP-2724; Kueue's
// jobframework validates them the same way).
const (
	// KueueSliceRequiredTopology is the level each slice of the pods must
	// share one domain of; it comes with KueueSliceSize.
	KueueSliceRequiredTopology = "kueue.x-k8s.io/podset-slice-required-topology"
	// KueueSliceSize is the number of pods per slice, a decimal ≥ 1.
	KueueSliceSize = "kueue.x-k8s.io/podset-slice-size"
	// KueueSliceConstraints is the multi-layer form: a JSON array of
	// {"topology": key, "size": n}, outermost first, at most three,
	// exclusive with the two above.
	KueueSliceConstraints = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
	// KueuePodSetGroup names the PodSetGroup of the template (sets of one
	// group share one domain). A Job has one pod template, so gangsim
	// checks it and has nothing to group it with.
	KueuePodSetGroup = "kueue.x-k8s.io/podset-group-name"
)

// maxSliceAnnotation bounds the JSON read from KueueSliceConstraints.
const maxSliceAnnotation = 4096

// kueueSlices returns the slice layers that a Job's pod template asks for,
// checked as Kueue checks them: the single-layer pair together or not at
// all, or the multi-layer array alone; keys valid label keys; sizes ≥ 1,
// each inner size dividing the outer one; at most three layers; the pod
// count (parallelism) a multiple of the outermost size and not below it.
func kueueSlices(obj string, annotations map[string]string, pods int32) ([]gang.TopologyConstraint, error) {
	return kueueSlicesAt(obj, "spec.template", "spec.parallelism", annotations, pods)
}

// kueueSlicesAt is kueueSlices for a pod template at field tmpl of obj
// (a Kueue Workload's "spec.podSets[i].template") whose pod count is the
// field count.
func kueueSlicesAt(obj, tmpl, count string, annotations map[string]string, pods int32) ([]gang.TopologyConstraint, error) {
	field := func(a string) string { return tmpl + ".metadata.annotations[" + a + "]" }
	key, hasKey := annotations[KueueSliceRequiredTopology]
	size, hasSize := annotations[KueueSliceSize]
	multi, hasMulti := annotations[KueueSliceConstraints]
	if g, ok := annotations[KueuePodSetGroup]; ok {
		if _, err := strconv.ParseUint(g, 10, 64); err == nil || g == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueuePodSetGroup), "%q must be a name, not a number or empty", g)
		}
		if hasKey || hasSize || hasMulti {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueuePodSetGroup), "may not be set with slice annotations")
		}
	}
	type layer struct {
		Topology string `json:"topology"`
		Size     int32  `json:"size"`
	}
	var layers []layer
	switch {
	case hasMulti && (hasKey || hasSize):
		return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueueSliceConstraints), "may not be set with %s or %s", KueueSliceRequiredTopology, KueueSliceSize)
	case hasMulti:
		if len(multi) > maxSliceAnnotation {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueueSliceConstraints), "%d bytes, more than %d", len(multi), maxSliceAnnotation)
		}
		dec := json.NewDecoder(strings.NewReader(multi))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&layers); err != nil {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueueSliceConstraints), "not a JSON array of {\"topology\", \"size\"}: %v", err)
		}
		if dec.More() {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueueSliceConstraints), "text after the JSON array")
		}
		if len(layers) == 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueueSliceConstraints), "no slice layer")
		}
	case hasKey != hasSize:
		missing := KueueSliceSize
		if hasSize {
			missing = KueueSliceRequiredTopology
		}
		return nil, placement.Errorf(placement.ErrInvalid, obj, field(missing), "must be set together with %s", map[bool]string{true: KueueSliceRequiredTopology, false: KueueSliceSize}[hasKey])
	case hasKey:
		n, err := strconv.ParseInt(size, 10, 32)
		if err != nil {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueueSliceSize), "%q is not a decimal integer", size)
		}
		layers = []layer{{Topology: key, Size: int32(n)}}
	default:
		return nil, nil
	}
	if len(layers) > topology.MaxSliceLayers {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field(KueueSliceConstraints), "%d slice layers, more than %d", len(layers), topology.MaxSliceLayers)
	}
	out := make([]gang.TopologyConstraint, len(layers))
	for i, l := range layers {
		f := field(KueueSliceSize)
		if hasMulti {
			f = fmt.Sprintf("%s[%d]", field(KueueSliceConstraints), i)
		}
		if errs := validation.IsQualifiedName(l.Topology); len(errs) > 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "topology %q is not a node label key: %s", l.Topology, strings.Join(errs, "; "))
		}
		if l.Size < 1 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "size %d is below 1", l.Size)
		}
		if i > 0 && layers[i-1].Size%l.Size != 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "size %d does not divide the outer layer's size %d", l.Size, layers[i-1].Size)
		}
		for _, o := range layers[:i] {
			if o.Topology == l.Topology {
				return nil, placement.Errorf(placement.ErrInvalid, obj, f, "topology %q names a level of an outer layer", l.Topology)
			}
		}
		out[i] = gang.TopologyConstraint{Key: l.Topology, SliceSize: l.Size}
	}
	if z := layers[0].Size; z > pods || pods%z != 0 {
		return nil, placement.Errorf(placement.ErrInvalid, obj, count, "%d pods are not a multiple of the slice size %d", pods, z)
	}
	return out, nil
}

// keepKueueConstraints adds to the input's PodGroup k the slice layers
// and preferred levels of the Job's Kueue annotations, which stamped
// carries: the PodGroup API has a field for neither, so a PodGroup written
// out and read back lacks them (a preferred level lost so was planned
// member by member on the second run: the tester kbreak's finding 08).
func (c *Cluster) keepKueueConstraints(k placement.Key, stamped *gang.PodGroup) {
	for _, pg := range c.PodGroups {
		if pg.Key() != k {
			continue
		}
		for _, tc := range stamped.Spec.SchedulingConstraints.Topology {
			if tc.SliceSize > 0 || tc.Preferred {
				pg.Spec.SchedulingConstraints.Topology = mergeTopology(pg.Spec.SchedulingConstraints.Topology, tc)
			}
		}
	}
}
