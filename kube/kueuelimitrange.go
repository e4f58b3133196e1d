package kube

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// limitBounds are a namespace's LimitRanges summed up as Kueue v0.17's
// scheduler sums them to check a Workload (pkg/util/limitrange Summarize:
// over every LimitRange of the namespace and its items, the lowest max
// and the highest min of each resource), per item type, in canonical
// units; a bound of 0 is kept.
type limitBounds struct {
	containerMax, containerMin, podMax, podMin map[placement.ResourceName]int64
}

// any reports whether b bounds anything.
func (b limitBounds) any() bool {
	return b.containerMax != nil || b.containerMin != nil || b.podMax != nil || b.podMin != nil
}

// read sums up the max and min of lr's Container and Pod items
// into b. Errors name lr and the field: a quantity [Quantity] refuses.
func (b *limitBounds) read(lr *corev1.LimitRange) error {
	obj := objName("LimitRange", lr.Namespace, lr.Name)
	for i, it := range lr.Spec.Limits {
		f := "spec.limits[" + itoa(i) + "]"
		var maxes, mins *map[placement.ResourceName]int64
		switch it.Type {
		case corev1.LimitTypeContainer:
			maxes, mins = &b.containerMax, &b.containerMin
		case corev1.LimitTypePod:
			maxes, mins = &b.podMax, &b.podMin
		default:
			continue
		}
		for _, bound := range []struct {
			name   string
			rl     corev1.ResourceList
			into   *map[placement.ResourceName]int64
			keepLo bool
		}{{"max", it.Max, maxes, true}, {"min", it.Min, mins, false}} {
			for _, r := range sortedNames(bound.rl) {
				v, err := Quantity(obj, f+"."+bound.name+"["+string(r)+"]", r, bound.rl[r])
				if err != nil {
					return err
				}
				if *bound.into == nil {
					*bound.into = map[placement.ResourceName]int64{}
				}
				rn := placement.ResourceName(r)
				if old, ok := (*bound.into)[rn]; ok && (bound.keepLo && old <= v || !bound.keepLo && old >= v) {
					continue
				}
				(*bound.into)[rn] = v
			}
		}
	}
	return nil
}

// Kueue v0.17's words for a pod set it will not try
// (pkg/scheduler/scheduler.go nominate; pkg/workload/resources.go;
// pkg/util/limitrange).
const (
	resourcesInvalidWords    = "resources validation failed"
	limitRangeInvalidWords   = "resources didn't satisfy LimitRange constraints"
	requestsOverLimitsWords  = "requests must not exceed its limits"
	requestsAboveMaxWords    = "requests must not be above the limitRange max"
	requestsBelowMinWords    = "requests must not be below the limitRange min"
	kueuePodSetSpecFieldPath = "spec.podSets[%d].template.spec"
)

// kueueResourcesInvalid is why Kueue v0.17's scheduler leaves Workload
// pod sets specs (each as Kueue adjusts it, [Admission.adjustKueueTemplate],
// in spec.podSets order, count 0 included; effs their effective requests,
// a resource requested at 0 present at 0) in namespace ns inadmissible
// before trying any flavor, in its words, or "" when it does not: first
// a container or init container requesting more than its limit
// (workload.ValidateResources), then a container beyond the namespace's
// LimitRanges' Container max or min (the larger of its request and limit
// against the max, the smaller against the min, each resource it names)
// or a pod beyond their Pod max or min (its effective requests)
// (workload.ValidateLimitRange). Each failure names the field and the
// resources, as apimachinery's field.Invalid writes them ("<path>:
// Invalid value: [\"cpu\"]: <why>"), several in brackets, ", " between
// them. Kueue lists the resources of one failure in Go map order; gangsim
// sorts them.
func (a *Admission) kueueResourcesInvalid(ns string, specs []*corev1.PodSpec, effs []map[placement.ResourceName]int64) string {
	var errs []string
	for i, spec := range specs {
		path := fmt.Sprintf(kueuePodSetSpecFieldPath, i)
		for field, c := range containersOf(spec) {
			req, lim := canonicalList(c.Resources.Requests), canonicalList(c.Resources.Limits)
			if rs := greaterKeys(req, lim); len(rs) > 0 {
				errs = append(errs, invalidValue(path+"."+field, rs, requestsOverLimitsWords))
			}
		}
	}
	if len(errs) > 0 {
		return resourcesInvalidWords + ": " + aggregateWords(errs)
	}
	if a == nil {
		return ""
	}
	b, ok := a.kueueBounds[ns]
	if !ok {
		return ""
	}
	for i, spec := range specs {
		path := fmt.Sprintf(kueuePodSetSpecFieldPath, i)
		for field, c := range containersOf(spec) {
			if b.containerMax == nil && b.containerMin == nil {
				break // no Container item bounds them
			}
			req, lim := canonicalList(c.Resources.Requests), canonicalList(c.Resources.Limits)
			lo, hi := mergeKeep(req, lim, false), mergeKeep(req, lim, true)
			at := path + "." + field
			if rs := greaterKeys(hi, b.containerMax); len(rs) > 0 {
				errs = append(errs, invalidValue(at, rs, requestsAboveMaxWords))
			}
			if rs := greaterKeys(b.containerMin, lo); len(rs) > 0 {
				errs = append(errs, invalidValue(at, rs, requestsBelowMinWords))
			}
		}
		if rs := greaterKeys(effs[i], b.podMax); len(rs) > 0 {
			errs = append(errs, invalidValue(path, rs, requestsAboveMaxWords))
		}
		if rs := greaterKeys(b.podMin, effs[i]); len(rs) > 0 {
			errs = append(errs, invalidValue(path, rs, requestsBelowMinWords))
		}
	}
	if len(errs) > 0 {
		return limitRangeInvalidWords + ": " + aggregateWords(errs)
	}
	return ""
}

// containersOf yields spec's init containers, then its containers, each
// with its field path ("initContainers[0]", "containers[1]"), in the order
// Kueue's checks list their failures.
func containersOf(spec *corev1.PodSpec) iter.Seq2[string, *corev1.Container] {
	return func(yield func(string, *corev1.Container) bool) {
		for j := range spec.InitContainers {
			if !yield(fmt.Sprintf("initContainers[%d]", j), &spec.InitContainers[j]) {
				return
			}
		}
		for j := range spec.Containers {
			if !yield(fmt.Sprintf("containers[%d]", j), &spec.Containers[j]) {
				return
			}
		}
	}
}

// canonicalList is rl in canonical units, zeros kept; a quantity
// [Quantity] refuses is left out (the template's own conversion refuses
// it first).
func canonicalList(rl corev1.ResourceList) map[placement.ResourceName]int64 {
	out := make(map[placement.ResourceName]int64, len(rl))
	for r, q := range rl {
		if v, err := Quantity("", "", r, q); err == nil {
			out[placement.ResourceName(r)] = v
		}
	}
	return out
}

// mergeKeep is a and b merged, the larger of two values of one resource
// kept when hi, else the smaller (Kueue's MergeResourceListKeepMax and
// KeepMin).
func mergeKeep(a, b map[placement.ResourceName]int64, hi bool) map[placement.ResourceName]int64 {
	out := maps.Clone(a)
	if out == nil {
		out = map[placement.ResourceName]int64{}
	}
	for r, v := range b {
		if w, ok := out[r]; ok && (w > v) == hi {
			v = w
		}
		out[r] = v
	}
	return out
}

// greaterKeys are the resources of a above their value in b, those b
// lacks not compared, sorted (Kueue's Requests.GreaterKeys, which lists
// them in map order).
func greaterKeys(a, b map[placement.ResourceName]int64) []placement.ResourceName {
	var out []placement.ResourceName
	for r, v := range a {
		if w, ok := b[r]; ok && v > w {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// invalidValue is apimachinery's field.Invalid error for resources rs at
// path, as its Error method writes it (the value as JSON).
func invalidValue(path string, rs []placement.ResourceName, why string) string {
	quoted := make([]string, len(rs))
	for i, r := range rs {
		quoted[i] = fmt.Sprintf("%q", r)
	}
	return path + ": Invalid value: [" + strings.Join(quoted, ",") + "]: " + why
}

// aggregateWords joins errs as apimachinery's aggregate error writes
// them: one alone, several in brackets with ", " between, each message
// once.
func aggregateWords(errs []string) string {
	var uniq []string
	for _, e := range errs {
		if !slices.Contains(uniq, e) {
			uniq = append(uniq, e)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return "[" + strings.Join(uniq, ", ") + "]"
}
