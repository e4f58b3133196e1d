package kube

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/gangsched/gangsched/placement"
)

// Admission holds what the API server's LimitRanger and RuntimeClass
// admission plugins (plugin/pkg/admission/limitranger and runtimeclass,
// Kubernetes v1.37.2) and Kueue v0.17's queue manager
// (pkg/workload/resources.go AdjustResources) read to change a pod spec
// before it is charged: each namespace's LimitRanges of type Container and
// the RuntimeClasses. Build one with [NewAdmission]; the zero value and nil
// change nothing. It is read-only once built.
type Admission struct {
	// limits are each namespace's LimitRanges that have a Container item,
	// in name order (the order in which the API server lists them; the
	// plugin's informer gives no order, so with two LimitRanges setting
	// one resource the first by name is taken).
	limits map[string][]containerDefaults
	// kueueLimits are each namespace's Container defaults as Kueue
	// summarizes them: the first of each resource over its LimitRanges
	// and their items, in order ([Admission.adjustKueueTemplate]).
	kueueLimits map[string]containerDefaults
	// kueueBounds are each namespace's LimitRanges' max and min as
	// Kueue's scheduler checks a Workload against them
	// ([Admission.kueueResourcesInvalid]), for namespaces that have any.
	kueueBounds map[string]limitBounds
	// classes are the RuntimeClasses by name.
	classes map[string]*nodev1.RuntimeClass
}

// containerDefaults are the default limits and requests of Container
// items, with the API server's LimitRange defaulting applied
// (SetDefaults_LimitRangeItem, pkg/apis/core/v1/defaults.go: default from
// max, defaultRequest from default, then from min).
type containerDefaults struct {
	limits, requests corev1.ResourceList
}

// NewAdmission reads LimitRanges and RuntimeClasses for [Admission].
//
// Errors (a [*placement.FieldError] naming the object and field): a nil
// object; a LimitRange without a name, or with an item of another type
// than Pod, Container or PersistentVolumeClaim, or a quantity of a
// Container item's max, min, default or defaultRequest that [Quantity]
// refuses, or a defaultRequest above the default or a default above the
// max (the API server's LimitRange validation refuses both); a
// RuntimeClass without a name, or an overhead.podFixed quantity that
// [ResourceList] refuses. Two objects of one kind and name are refused
// ([placement.ErrDuplicate]).
func NewAdmission(limitRanges []*corev1.LimitRange, runtimeClasses []*nodev1.RuntimeClass) (*Admission, error) {
	a := &Admission{}
	seen := map[placement.Key]bool{}
	byNS := map[string][]*corev1.LimitRange{}
	for _, lr := range limitRanges {
		if lr == nil {
			return nil, errNil("LimitRange")
		}
		obj := objName("LimitRange", lr.Namespace, lr.Name)
		k := placement.Key{Namespace: lr.Namespace, Name: lr.Name}
		switch {
		case lr.Name == "":
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		case seen[k]:
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		seen[k] = true
		byNS[lr.Namespace] = append(byNS[lr.Namespace], lr)
	}
	for _, ns := range slices.Sorted(maps.Keys(byNS)) {
		lrs := byNS[ns]
		slices.SortFunc(lrs, func(x, y *corev1.LimitRange) int { return strings.Compare(x.Name, y.Name) })
		kueue := containerDefaults{limits: corev1.ResourceList{}, requests: corev1.ResourceList{}}
		var bounds limitBounds
		for _, lr := range lrs {
			items, err := readLimitRange(lr)
			if err != nil {
				return nil, err
			}
			if err := bounds.read(lr); err != nil {
				return nil, err
			}
			if len(items) == 0 {
				continue
			}
			// The LimitRanger plugin merges one LimitRange's items, a
			// later item's value overriding an earlier one's.
			d := containerDefaults{limits: corev1.ResourceList{}, requests: corev1.ResourceList{}}
			for _, it := range items {
				maps.Copy(d.limits, it.limits)
				maps.Copy(d.requests, it.requests)
				fillMissing(kueue.limits, it.limits)
				fillMissing(kueue.requests, it.requests)
			}
			if a.limits == nil {
				a.limits, a.kueueLimits = map[string][]containerDefaults{}, map[string]containerDefaults{}
			}
			a.limits[ns] = append(a.limits[ns], d)
			a.kueueLimits[ns] = kueue
		}
		if bounds.any() {
			if a.kueueBounds == nil {
				a.kueueBounds = map[string]limitBounds{}
			}
			a.kueueBounds[ns] = bounds
		}
	}
	for _, rc := range runtimeClasses {
		if rc == nil {
			return nil, errNil("RuntimeClass")
		}
		obj := objName("RuntimeClass", "", rc.Name)
		switch {
		case rc.Name == "":
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		case a.classes[rc.Name] != nil:
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		if rc.Overhead != nil {
			if _, err := ResourceList(obj, "overhead.podFixed", rc.Overhead.PodFixed); err != nil {
				return nil, err
			}
		}
		if a.classes == nil {
			a.classes = map[string]*nodev1.RuntimeClass{}
		}
		a.classes[rc.Name] = rc
	}
	return a, nil
}

// readLimitRange reads the Container items of lr, in spec.limits order,
// defaulted as the API server stores them, checking what validation
// refuses.
func readLimitRange(lr *corev1.LimitRange) ([]containerDefaults, error) {
	obj := objName("LimitRange", lr.Namespace, lr.Name)
	var out []containerDefaults
	for i, it := range lr.Spec.Limits {
		f := "spec.limits[" + itoa(i) + "]"
		switch it.Type {
		case corev1.LimitTypePod, corev1.LimitTypePersistentVolumeClaim:
			continue
		case corev1.LimitTypeContainer:
		default:
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".type", "%q is not Pod, Container or PersistentVolumeClaim", it.Type)
		}
		for _, fl := range []struct {
			name string
			rl   corev1.ResourceList
		}{{"max", it.Max}, {"min", it.Min}, {"default", it.Default}, {"defaultRequest", it.DefaultRequest}} {
			if _, err := ResourceList(obj, f+"."+fl.name, fl.rl); err != nil {
				return nil, err
			}
		}
		// Keys as written (a quantity of 0 is a default of 0), values
		// as the API server's defaulting fills them in.
		def, req := maps.Clone(it.Default), maps.Clone(it.DefaultRequest)
		if def == nil {
			def = corev1.ResourceList{}
		}
		if req == nil {
			req = corev1.ResourceList{}
		}
		fillMissing(def, it.Max)
		fillMissing(req, def)
		fillMissing(req, it.Min)
		for _, r := range sortedNames(req) {
			q, d := req[r], def[r]
			if _, ok := def[r]; ok && q.Cmp(d) > 0 {
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".defaultRequest["+string(r)+"]", "%s is above the default %s (the API server refuses it)", q.String(), d.String())
			}
		}
		for _, r := range sortedNames(def) {
			d, m := def[r], it.Max[r]
			if _, ok := it.Max[r]; ok && d.Cmp(m) > 0 {
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".default["+string(r)+"]", "%s is above the max %s (the API server refuses it)", d.String(), m.String())
			}
		}
		out = append(out, containerDefaults{limits: def, requests: req})
	}
	return out, nil
}

// fillMissing sets in dst each resource of src that dst lacks.
func fillMissing(dst, src corev1.ResourceList) {
	for r, q := range src {
		if _, ok := dst[r]; !ok {
			dst[r] = q.DeepCopy()
		}
	}
}

// runtimeClass returns the RuntimeClass spec names, nil when it names none
// or one a is without.
func (a *Admission) runtimeClass(spec *corev1.PodSpec) *nodev1.RuntimeClass {
	if a == nil || spec.RuntimeClassName == nil {
		return nil
	}
	return a.classes[*spec.RuntimeClassName]
}
