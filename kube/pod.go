package kube

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/placement"
)

// ErrUnsupported marks a field that changes where a pod may run but that
// this adapter does not model yet (e.g. required inter-pod affinity).
// Converting such an object fails rather than decide without the
// constraint.
var ErrUnsupported = errors.New("kube: unsupported field")

func itoa(i int) string { return strconv.Itoa(i) }

// errNil is the error of a converter handed a nil object of kind.
func errNil(kind string) error {
	return placement.Errorf(placement.ErrInvalid, kind, "metadata", "is nil")
}

func podObj(namespace, name string) string {
	return fmt.Sprintf("pod %q", placement.Key{Namespace: namespace, Name: name}.String())
}

// ConvertPod converts a core/v1 Pod into a [placement.Pod]:
//
//   - requests from [PodRequests] (containers, init containers and
//     sidecars, pod-level resources, overhead), and the non-zero requests
//     an upstream node score reads from [PodScoreRequests];
//
//   - priority and preemption policy from spec.priorityClassName through
//     pcs (see [PriorityClasses.Resolve]; pcs may be nil), with
//     spec.preemptionPolicy taking precedence when set;
//
//   - spec.schedulerName, default-scheduler when empty (the API server's
//     default);
//
//   - spec.nodeSelector, spec.tolerations, spec.nodeName,
//     spec.schedulingGroup.podGroupName (KEP-4671) and spec.resourceClaims;
//
//   - metadata.creationTimestamp as the time the pod was first queued, and
//     status.startTime.
//
//   - spec.affinity's pod affinity and anti-affinity, required and
//     preferred, for a pod in a PodGroup: placement evaluates them among
//     the group's members (see [placement.Pod].Affinity).
//
// Preferred node affinity is ignored, since it never makes a placement
// infeasible. Required node affinity and topology spread constraints are
// not part of [placement.Pod]: read them with [RequiredNodeAffinity],
// [TopologySpread] ([Cluster.TopologySpreadFilter] enforces
// DoNotSchedule) and [SoftTopologySpread] ([Cluster.TopologySpreadScorer]
// scores ScheduleAnyway).
//
// Errors (a [*placement.FieldError]): an empty name; a bad quantity (see
// [PodRequests]); a toleration with an unknown operator, an Exists
// operator with a value, or an empty key without Exists; a resource claim
// entry with no or both sources; an unknown priority class; and
// [ErrUnsupported] for required pod affinity or anti-affinity on a pending
// pod outside any PodGroup (a bound one's inter-pod terms are not read), and
// for terms that select pods of other namespaces, and for a required
// affinity term without a labelSelector (it can never hold; such terms of
// anti-affinity and preferences are dropped, as they select no pod).
func ConvertPod(p *corev1.Pod, pcs *PriorityClasses) (placement.Pod, error) {
	if p == nil {
		return placement.Pod{}, errNil("Pod")
	}
	obj := podObj(p.Namespace, p.Name)
	if p.Name == "" {
		return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	req, err := PodRequests(obj, &p.Spec)
	if err != nil {
		return placement.Pod{}, err
	}
	scoreReq, err := PodScoreRequests(obj, &p.Spec)
	if err != nil {
		return placement.Pod{}, err
	}
	prio, policy, err := pcs.Resolve(obj, "spec.priorityClassName", p.Spec.PriorityClassName, p.Spec.Priority)
	if err != nil {
		return placement.Pod{}, err
	}
	if pp := p.Spec.PreemptionPolicy; pp != nil {
		if *pp != corev1.PreemptLowerPriority && *pp != corev1.PreemptNever {
			return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, "spec.preemptionPolicy", "%q is not PreemptLowerPriority or Never", *pp)
		}
		policy = placement.PreemptionPolicy(*pp)
	}
	out := placement.Pod{
		Namespace:        p.Namespace,
		Name:             p.Name,
		UID:              string(p.UID),
		Labels:           maps.Clone(p.Labels),
		Requests:         req,
		ScoreRequests:    scoreReq,
		Priority:         prio,
		PreemptionPolicy: policy,
		SchedulerName:    cmp.Or(p.Spec.SchedulerName, corev1.DefaultSchedulerName),
		NodeSelector:     maps.Clone(p.Spec.NodeSelector),
		NodeName:         p.Spec.NodeName,
		QueuedAt:         p.CreationTimestamp.Time,
	}
	if p.Status.StartTime != nil {
		out.StartTime = p.Status.StartTime.Time
	}
	if sg := p.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		if *sg.PodGroupName == "" {
			return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, "spec.schedulingGroup.podGroupName", "must not be empty when set")
		}
		if errs := validation.IsDNS1123Subdomain(*sg.PodGroupName); len(errs) > 0 {
			return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, "spec.schedulingGroup.podGroupName", "%q: %s", *sg.PodGroupName, errs[0])
		}
		out.SchedulingGroup = *sg.PodGroupName
	}
	if out.Affinity, err = convertAffinity(obj, p, out.SchedulingGroup != ""); err != nil {
		return placement.Pod{}, err
	}
	for i, t := range p.Spec.Tolerations {
		tol, err := convertToleration(obj, "spec.tolerations["+itoa(i)+"]", t)
		if err != nil {
			return placement.Pod{}, err
		}
		out.Tolerations = append(out.Tolerations, tol)
	}
	for i, c := range p.Spec.ResourceClaims {
		f := "spec.resourceClaims[" + itoa(i) + "]"
		if c.Name == "" {
			return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
		}
		rc := placement.PodResourceClaim{Name: c.Name}
		if c.ResourceClaimName != nil {
			rc.ResourceClaimName = *c.ResourceClaimName
		}
		if c.ResourceClaimTemplateName != nil {
			rc.ResourceClaimTemplateName = *c.ResourceClaimTemplateName
		}
		if (rc.ResourceClaimName == "") == (rc.ResourceClaimTemplateName == "") {
			return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, f, "exactly one of resourceClaimName and resourceClaimTemplateName must be set")
		}
		out.ResourceClaims = append(out.ResourceClaims, rc)
	}
	return out, nil
}

func convertToleration(obj, f string, t corev1.Toleration) (placement.Toleration, error) {
	switch t.Operator {
	case corev1.TolerationOpExists:
		if t.Value != "" {
			return placement.Toleration{}, placement.Errorf(placement.ErrInvalid, obj, f+".value", "must be empty when operator is Exists")
		}
	case corev1.TolerationOpEqual, "":
		if t.Key == "" {
			return placement.Toleration{}, placement.Errorf(placement.ErrInvalid, obj, f+".operator", "must be Exists when key is empty")
		}
	default:
		return placement.Toleration{}, placement.Errorf(placement.ErrInvalid, obj, f+".operator", "%q is not Exists or Equal", t.Operator)
	}
	switch t.Effect {
	case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
	default:
		return placement.Toleration{}, placement.Errorf(placement.ErrInvalid, obj, f+".effect", "%q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
	}
	return placement.Toleration{
		Key:      t.Key,
		Operator: placement.TolerationOperator(t.Operator),
		Value:    t.Value,
		Effect:   placement.TaintEffect(t.Effect),
	}, nil
}

// convertAffinity converts spec.affinity's pod affinity and anti-affinity.
// placement evaluates them among the members of the pod's PodGroup, so
// terms must select pods of the pod's own namespace; a pod without a group
// may carry only preferred terms (dropped: they never make a node
// infeasible and there are no group members to score against).
func convertAffinity(obj string, p *corev1.Pod, grouped bool) (*placement.Affinity, error) {
	a := p.Spec.Affinity
	if a == nil || (a.PodAffinity == nil && a.PodAntiAffinity == nil) {
		return nil, nil
	}
	var out placement.Affinity
	conv := func(f string, anti bool, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) (*placement.PodAffinity, error) {
		// A bound pod's place is given: its terms are not read, as no
		// ungrouped pod's are (they would only be checked against the pods
		// placed in the run).
		if len(required) > 0 && !grouped && p.Spec.NodeName == "" {
			return nil, placement.Errorf(ErrUnsupported, obj, f+".requiredDuringSchedulingIgnoredDuringExecution", "required inter-pod terms are supported only among the members of a PodGroup (set spec.schedulingGroup)")
		}
		if !grouped {
			return nil, nil
		}
		pa := &placement.PodAffinity{}
		for i, t := range required {
			if t.LabelSelector == nil && anti {
				continue // selects no pod, so it keeps the pod from none
			}
			term, err := convertTerm(obj, f+".requiredDuringSchedulingIgnoredDuringExecution["+itoa(i)+"]", p, t)
			if err != nil {
				return nil, err
			}
			pa.Required = append(pa.Required, term)
		}
		for i, w := range preferred {
			if w.PodAffinityTerm.LabelSelector == nil {
				continue // selects no pod, so it never adds to a score
			}
			term, err := convertTerm(obj, f+".preferredDuringSchedulingIgnoredDuringExecution["+itoa(i)+"].podAffinityTerm", p, w.PodAffinityTerm)
			if err != nil {
				return nil, err
			}
			pa.Preferred = append(pa.Preferred, placement.WeightedPodAffinityTerm{Weight: w.Weight, Term: term})
		}
		if len(pa.Required)+len(pa.Preferred) == 0 {
			return nil, nil
		}
		return pa, nil
	}
	var err error
	if pa := a.PodAffinity; pa != nil {
		if out.PodAffinity, err = conv("spec.affinity.podAffinity", false, pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return nil, err
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		if out.PodAntiAffinity, err = conv("spec.affinity.podAntiAffinity", true, pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return nil, err
		}
	}
	if out.PodAffinity == nil && out.PodAntiAffinity == nil {
		return nil, nil
	}
	return &out, nil
}

// convertTerm converts one PodAffinityTerm. matchLabelKeys and
// mismatchLabelKeys (KEP-3633) become In and NotIn requirements on the
// pod's own label values, as the API server merges them.
func convertTerm(obj, f string, p *corev1.Pod, t corev1.PodAffinityTerm) (placement.PodAffinityTerm, error) {
	if t.NamespaceSelector != nil {
		return placement.PodAffinityTerm{}, placement.Errorf(ErrUnsupported, obj, f+".namespaceSelector", "terms are evaluated among the PodGroup's members, all in namespace %q", p.Namespace)
	}
	for i, ns := range t.Namespaces {
		if ns != p.Namespace {
			return placement.PodAffinityTerm{}, placement.Errorf(ErrUnsupported, obj, f+".namespaces["+itoa(i)+"]", "%q: terms are evaluated among the PodGroup's members, all in namespace %q", ns, p.Namespace)
		}
	}
	if t.LabelSelector == nil {
		return placement.PodAffinityTerm{}, placement.Errorf(ErrUnsupported, obj, f+".labelSelector", "a required affinity term without a labelSelector selects no pod and can never hold")
	}
	sel, err := LabelSelector(obj, f+".labelSelector", t.LabelSelector)
	if err != nil {
		return placement.PodAffinityTerm{}, err
	}
	for _, k := range t.MatchLabelKeys {
		if v, ok := p.Labels[k]; ok {
			sel.MatchExpressions = append(sel.MatchExpressions, placement.SelectorRequirement{Key: k, Operator: placement.SelectorOpIn, Values: []string{v}})
		}
	}
	for _, k := range t.MismatchLabelKeys {
		if v, ok := p.Labels[k]; ok {
			sel.MatchExpressions = append(sel.MatchExpressions, placement.SelectorRequirement{Key: k, Operator: placement.SelectorOpNotIn, Values: []string{v}})
		}
	}
	if t.TopologyKey == "" {
		return placement.PodAffinityTerm{}, placement.Errorf(placement.ErrInvalid, obj, f+".topologyKey", "must not be empty")
	}
	return placement.PodAffinityTerm{LabelSelector: sel, TopologyKey: t.TopologyKey}, nil
}

// LabelSelector converts a metav1.LabelSelector (non-nil) and validates it
// (see [placement.LabelSelector.Validate]); obj and field name it in
// errors.
func LabelSelector(obj, field string, s *metav1.LabelSelector) (placement.LabelSelector, error) {
	if s == nil {
		return placement.LabelSelector{}, placement.Errorf(placement.ErrInvalid, obj, field, "is nil")
	}
	out := placement.LabelSelector{MatchLabels: maps.Clone(s.MatchLabels)}
	for _, r := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, placement.SelectorRequirement{
			Key: r.Key, Operator: placement.SelectorOperator(r.Operator), Values: slices.Clone(r.Values),
		})
	}
	if err := out.Validate(obj, field); err != nil {
		return placement.LabelSelector{}, err
	}
	return out, nil
}
