package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// PodSetNodeAffinity converts the node affinity of a pod template's spec
// (spec.affinity.nodeAffinity: required nodeSelectorTerms and preferred
// terms with their weights) into [placement.NodeAffinity], for the
// Template of a [placement.PodSet] — a Kueue PodSet's or a Job's pod
// template — which honours it without a caller Filter. It returns nil
// when the spec has none. obj names the template's owner in errors.
//
// Errors (a [*placement.FieldError]): an empty required term list, and
// whatever [placement.NodeAffinity.Validate] refuses (unknown operators,
// values that do not suit the operator, matchFields keys other than
// metadata.name, weights outside 1..100), named by the field under
// spec.affinity.nodeAffinity.
func PodSetNodeAffinity(obj string, spec *corev1.PodSpec) (*placement.NodeAffinity, error) {
	if spec == nil || spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		return nil, nil
	}
	na := spec.Affinity.NodeAffinity
	const field = "spec.affinity.nodeAffinity"
	out := &placement.NodeAffinity{}
	if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		if len(r.NodeSelectorTerms) == 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field+".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", "must have at least one term")
		}
		for _, t := range r.NodeSelectorTerms {
			out.Required = append(out.Required, nodeSelectorTerm(t))
		}
	}
	for _, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		out.Preferred = append(out.Preferred, placement.PreferredSchedulingTerm{Weight: t.Weight, Preference: nodeSelectorTerm(t.Preference)})
	}
	if len(out.Required)+len(out.Preferred) == 0 {
		return nil, nil
	}
	if err := out.Validate(obj, field); err != nil {
		return nil, err
	}
	return out, nil
}

func nodeSelectorTerm(t corev1.NodeSelectorTerm) placement.NodeSelectorTerm {
	reqs := func(rs []corev1.NodeSelectorRequirement) []placement.NodeSelectorRequirement {
		var out []placement.NodeSelectorRequirement
		for _, r := range rs {
			out = append(out, placement.NodeSelectorRequirement{Key: r.Key, Operator: placement.NodeSelectorOperator(r.Operator), Values: append([]string(nil), r.Values...)})
		}
		return out
	}
	return placement.NodeSelectorTerm{MatchExpressions: reqs(t.MatchExpressions), MatchFields: reqs(t.MatchFields)}
}
