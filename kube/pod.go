package kube

import (
	"errors"
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// ErrUnsupported marks a field that changes where a pod may run but that
// this adapter does not model yet (e.g. required inter-pod affinity).
// Converting such an object fails rather than decide without the
// constraint.
var ErrUnsupported = errors.New("kube: unsupported field")

func itoa(i int) string { return strconv.Itoa(i) }

func podObj(namespace, name string) string {
	return fmt.Sprintf("pod %q", placement.Key{Namespace: namespace, Name: name}.String())
}

// ConvertPod converts a core/v1 Pod into a [placement.Pod]:
//
//   - requests from [PodRequests] (containers, init containers and
//     sidecars, pod-level resources, overhead);
//   - priority and preemption policy from spec.priorityClassName through
//     pcs (see [PriorityClasses.Resolve]; pcs may be nil), with
//     spec.preemptionPolicy taking precedence when set;
//   - spec.nodeSelector, spec.tolerations, spec.nodeName,
//     spec.schedulingGroup.podGroupName (KEP-4671) and spec.resourceClaims;
//   - metadata.creationTimestamp as the time the pod was first queued, and
//     status.startTime.
//
// Scoring-only fields (preferred affinities, ScheduleAnyway spread
// constraints) are ignored, since they never make a placement infeasible.
// Required node affinity is not part of [placement.Pod]: read it with
// [RequiredNodeAffinity].
//
// Errors (a [*placement.FieldError]): an empty name; a bad quantity (see
// [PodRequests]); a toleration with an unknown operator, an Exists
// operator with a value, or an empty key without Exists; a resource claim
// entry with no or both sources; an unknown priority class; and
// [ErrUnsupported] for required pod affinity or anti-affinity and for
// DoNotSchedule topology spread constraints.
func ConvertPod(p *corev1.Pod, pcs *PriorityClasses) (placement.Pod, error) {
	obj := podObj(p.Namespace, p.Name)
	if p.Name == "" {
		return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	if err := checkUnsupported(obj, &p.Spec); err != nil {
		return placement.Pod{}, err
	}
	req, err := PodRequests(obj, &p.Spec)
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
		Priority:         prio,
		PreemptionPolicy: policy,
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
		out.SchedulingGroup = *sg.PodGroupName
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

// checkUnsupported rejects the hard constraints that placement.Pod cannot
// express.
func checkUnsupported(obj string, spec *corev1.PodSpec) error {
	if a := spec.Affinity; a != nil {
		if a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return placement.Errorf(ErrUnsupported, obj, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution", "required inter-pod affinity is not supported")
		}
		if a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return placement.Errorf(ErrUnsupported, obj, "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution", "required inter-pod anti-affinity is not supported")
		}
	}
	for i, c := range spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.ScheduleAnyway {
			return placement.Errorf(ErrUnsupported, obj, "spec.topologySpreadConstraints["+itoa(i)+"].whenUnsatisfiable", "%q topology spread constraints are not supported (ScheduleAnyway is ignored)", c.WhenUnsatisfiable)
		}
	}
	return nil
}
