package kube

import (
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	kueueconfigv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	kueueconfigv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// KueueTransformation is one entry of a Kueue Configuration's
// resources.transformations, as Kueue v0.17 applies it to a pod set's
// per-pod requests before they are charged to quota (pkg/workload
// workload.go applyResourceTransformations; KEP-2937 resource
// transformations; read, not copied). Read them with
// [ReadKueueTransformations].
type KueueTransformation struct {
	// Input is the resource transformed.
	Input placement.ResourceName
	// Replace drops Input from the charge (strategy Replace); without it
	// Input is charged as well (strategy Retain, Kueue's default).
	Replace bool
	// MultiplyBy, when set, is a resource whose request, in whole units
	// rounded up, multiplies the Input's before it is used (multiplyBy);
	// a pod that does not request it leaves the Input as it is.
	MultiplyBy placement.ResourceName
	// Outputs are the resources charged per whole unit of Input, by
	// name, in thousandths of the output's canonical unit (so "500m"
	// credits per unit is 500, "5Gi" is 5Gi × 1000).
	Outputs map[placement.ResourceName]int64
}

// ReadKueueTransformations reads the resources.transformations of Kueue's
// Configuration cfg (a *config.kueue.x-k8s.io/v1beta1 or v1beta2
// Configuration; another type, nil or one without transformations reads
// as none), keyed by input, as Kueue's manager reads them at start.
//
// Errors (a [*placement.FieldError] naming obj and the field
// resources.transformations[i]….): an empty input or output name; a
// strategy other than Retain or Replace (unset is Retain), or an input
// named twice, both of which Kueue's Configuration validation refuses; an
// output quantity that is negative (Kueue does not refuse one, but would
// charge less than nothing) or past int64 in thousandths of its unit.
func ReadKueueTransformations(obj string, cfg any) (map[placement.ResourceName]*KueueTransformation, error) {
	type entry struct {
		input, multiplyBy corev1.ResourceName
		strategy          *string
		outputs           corev1.ResourceList
	}
	var es []entry
	switch c := cfg.(type) {
	case *kueueconfigv1beta2.Configuration:
		if c != nil && c.Resources != nil {
			for _, t := range c.Resources.Transformations {
				es = append(es, entry{t.Input, t.MultiplyBy, (*string)(t.Strategy), t.Outputs})
			}
		}
	case *kueueconfigv1beta1.Configuration:
		if c != nil && c.Resources != nil {
			for _, t := range c.Resources.Transformations {
				es = append(es, entry{t.Input, t.MultiplyBy, (*string)(t.Strategy), t.Outputs})
			}
		}
	}
	if len(es) == 0 {
		return nil, nil
	}
	out := make(map[placement.ResourceName]*KueueTransformation, len(es))
	at := map[placement.ResourceName]int{}
	for i, e := range es {
		f := "resources.transformations[" + itoa(i) + "]"
		in := placement.ResourceName(e.input)
		if in == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".input", "must not be empty")
		}
		if j, dup := at[in]; dup {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, f+".input", "%q is also resources.transformations[%d]'s input (Kueue's Configuration validation refuses it)", in, j)
		}
		at[in] = i
		t := &KueueTransformation{Input: in, MultiplyBy: placement.ResourceName(e.multiplyBy), Outputs: map[placement.ResourceName]int64{}}
		switch s := e.strategy; {
		case s == nil || *s == string(kueueconfigv1beta2.Retain):
		case *s == string(kueueconfigv1beta2.Replace):
			t.Replace = true
		default:
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".strategy", "%q is not Retain or Replace (Kueue's Configuration validation refuses it)", *s)
		}
		for _, r := range sortedNames(e.outputs) {
			ff := f + ".outputs[" + string(r) + "]"
			q := e.outputs[r]
			switch {
			case r == "":
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".outputs", "empty resource name")
			case q.Sign() < 0:
				return nil, placement.Errorf(placement.ErrInvalid, obj, ff, "%s is negative: Kueue would charge less than nothing", q.String())
			case q.Cmp(maxMilli) > 0:
				return nil, placement.Errorf(placement.ErrInvalid, obj, ff, "%s does not fit in int64 thousandths", quoted(q))
			}
			t.Outputs[placement.ResourceName(r)] = q.MilliValue()
		}
		out[in] = t
	}
	return out, nil
}

// applyKueueTransformations returns the per-pod charge of requests req
// (canonical units, a resource requested at 0 present at 0) under ts, as
// Kueue v0.17 computes it after dropping excluded resources: req itself
// when ts transforms none of its resources, else a new list in which
//
//   - a transformed input's quantity is first multiplied by its
//     MultiplyBy resource's request in whole units, rounded up, when the
//     pod requests that resource;
//   - each output gets, per whole unit of that quantity (a CPU quantity
//     rounded up to whole CPUs, as resource.Quantity.Value does), its
//     quantity per unit, the outputs of several inputs summed, then
//     rounded up to the output's canonical unit;
//   - a Retain input keeps its (multiplied) quantity, a Replace one is
//     dropped, and a resource no transformation names is kept;
//   - a Retain input's output to itself is lost: Kueue sets the input's
//     quantity after its outputs (a Replace input's output to itself is
//     its charge).
//
// Where an output of one input names a resource the pod also requests
// untransformed, or another Retain input, Kueue's result depends on Go
// map order over the requests (the sum when the resource comes first,
// the request alone, that output lost, when the input does); gangsim
// charges the sum. Products and sums past int64 are math.MaxInt64, over
// any quota.
func applyKueueTransformations(req placement.ResourceList, ts map[placement.ResourceName]*KueueTransformation) placement.ResourceList {
	if !slices.ContainsFunc(slices.Collect(maps.Keys(req)), func(r placement.ResourceName) bool { return ts[r] != nil }) {
		return req
	}
	kept := placement.ResourceList{}
	outMilli := map[placement.ResourceName]int64{}
	for r, v := range req {
		t := ts[r]
		if t == nil {
			kept[r] = arith.SatAdd(kept[r], v)
			continue
		}
		if m, ok := req[t.MultiplyBy]; ok && t.MultiplyBy != "" {
			v = arith.MulSat(v, wholeUnits(t.MultiplyBy, m))
		}
		n := wholeUnits(r, v)
		for o, per := range t.Outputs {
			if o == r && !t.Replace {
				// Kueue writes a Retain input after its own outputs, over
				// its output to itself.
				continue
			}
			outMilli[o] = arith.SatAdd(outMilli[o], arith.MulSat(per, n))
		}
		if !t.Replace {
			kept[r] = arith.SatAdd(kept[r], v)
		}
	}
	for o, m := range outMilli {
		kept[o] = arith.SatAdd(kept[o], fromMilli(o, m))
	}
	return kept
}

// wholeUnits is canonical quantity v of resource r in whole units, rounded
// up (resource.Quantity.Value): v itself but for "cpu", whose canonical
// unit is the millicore.
func wholeUnits(r placement.ResourceName, v int64) int64 {
	if r != placement.ResourceCPU || v == math.MaxInt64 {
		return v
	}
	return v/1000 + min(1, v%1000)
}

// fromMilli is m thousandths of resource r's whole unit in r's canonical
// unit, rounded up as Kueue reads a quantity (pkg/resources
// ResourceValue: MilliValue for "cpu", Value for the rest).
func fromMilli(r placement.ResourceName, m int64) int64 {
	if r == placement.ResourceCPU || m == math.MaxInt64 {
		return m
	}
	return m/1000 + min(1, m%1000)
}

// charge is a pod's charge to quota for its requests req (canonical
// units) and the resources zeros it requests at 0, as Kueue v0.17
// computes it (pkg/workload totalRequestsFromPodSets): the excluded
// resources dropped, then the transformations applied. nil when o
// neither excludes nor transforms: the requests are the charge.
func (o KueueReadOptions) charge(req placement.ResourceList, zeros []placement.ResourceName) placement.ResourceList {
	if len(o.ExcludeResourcePrefixes) == 0 && len(o.Transformations) == 0 {
		return nil
	}
	ch := withZeros(req, zeros)
	excludeResources(ch, o.ExcludeResourcePrefixes)
	return applyKueueTransformations(ch, o.Transformations)
}

// withZeros is a copy of req with each of zeros present at 0.
func withZeros(req placement.ResourceList, zeros []placement.ResourceName) placement.ResourceList {
	out := make(placement.ResourceList, len(req)+len(zeros))
	maps.Copy(out, req)
	for _, r := range zeros {
		out[r] = 0
	}
	return out
}

// readTransformations reads Kueue Configuration cfg's
// resources.transformations into c ([ReadKueueTransformations]), the
// error located at object o.
func (c *Cluster) readTransformations(o *manifest.Object, cfg any) error {
	ts, err := ReadKueueTransformations("Kueue Configuration", cfg)
	if err != nil {
		return o.Wrap(err)
	}
	c.kueueTransforms = ts
	return nil
}
