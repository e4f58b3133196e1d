package kube

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// AdmitPod returns pod p as the API server's admission leaves it when p is
// created: p itself when nothing changes, else a changed copy (p is not
// modified). Two plugins (Kubernetes v1.37.2, read, not copied):
//
//   - LimitRanger (plugin/pkg/admission/limitranger, mutation): each
//     LimitRange of p's namespace, in name order, gives every container and
//     init container the Container items' default (as limits) and
//     defaultRequest (as requests) for each resource the container lacks;
//     a later item of one LimitRange overrides an earlier one, an earlier
//     LimitRange wins over a later one. A container that has a limit but
//     no request for a resource already has the request (the API server's
//     defaulting copies the limit first), so it gets no default request.
//     Pod-type items and the plugin's min/max validation are not applied.
//   - RuntimeClass (plugin/pkg/admission/runtimeclass): for the
//     RuntimeClass p names, its overhead.podFixed becomes spec.overhead,
//     and its scheduling.nodeSelector and tolerations are merged into p's.
//     A RuntimeClass that the Admission lacks adds nothing (the API server
//     would refuse the pod; a set of manifests often leaves it out). The
//     tolerations are added unless p has an equal one; the plugin also
//     drops a toleration another covers, which tolerates no more taints.
//
// The result is a fixed point: admitting it again returns it unchanged.
//
// Errors (a [*placement.FieldError] naming the pod), as the RuntimeClass
// plugin refuses the pod: a spec.overhead other than the RuntimeClass's
// overhead.podFixed, or set when the RuntimeClass has none; a
// spec.nodeSelector value other than the RuntimeClass's for one key.
func (a *Admission) AdmitPod(p *corev1.Pod) (*corev1.Pod, error) {
	if a == nil || p == nil {
		return p, nil
	}
	out := p
	mutable := func() *corev1.Pod {
		if out == p {
			out = p.DeepCopy()
		}
		return out
	}
	obj := podObj(p.Namespace, p.Name)
	if rc := a.runtimeClass(&p.Spec); rc != nil {
		name := "RuntimeClass " + rc.Name
		switch {
		case rc.Overhead == nil && p.Spec.Overhead != nil:
			return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.overhead", "is set, but %s has no overhead (the RuntimeClass admission plugin refuses the pod)", name)
		case rc.Overhead != nil && len(p.Spec.Overhead) > 0 && !equalResources(p.Spec.Overhead, rc.Overhead.PodFixed):
			return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.overhead", "differs from %s's overhead.podFixed (the RuntimeClass admission plugin refuses the pod)", name)
		case rc.Overhead != nil && len(p.Spec.Overhead) == 0 && len(rc.Overhead.PodFixed) > 0:
			mutable().Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
		}
		if s := rc.Scheduling; s != nil {
			for _, k := range slices.Sorted(maps.Keys(s.NodeSelector)) {
				v, ok := p.Spec.NodeSelector[k]
				switch {
				case ok && v != s.NodeSelector[k]:
					return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.nodeSelector["+k+"]", "%q conflicts with %s's scheduling.nodeSelector %q (the RuntimeClass admission plugin refuses the pod)", v, name, s.NodeSelector[k])
				case !ok:
					m := mutable()
					if m.Spec.NodeSelector == nil {
						m.Spec.NodeSelector = map[string]string{}
					}
					m.Spec.NodeSelector[k] = s.NodeSelector[k]
				}
			}
			for _, t := range s.Tolerations {
				if !slices.ContainsFunc(p.Spec.Tolerations, func(u corev1.Toleration) bool { return equalToleration(t, u) }) {
					m := mutable()
					m.Spec.Tolerations = append(m.Spec.Tolerations, *t.DeepCopy())
				}
			}
		}
	}
	for _, d := range a.limits[p.Namespace] {
		lims, reqs := d.limits, d.requests
		for _, cs := range []func(*corev1.Pod) []corev1.Container{
			func(q *corev1.Pod) []corev1.Container { return q.Spec.Containers },
			func(q *corev1.Pod) []corev1.Container { return q.Spec.InitContainers },
		} {
			for i := range cs(out) {
				orig := &cs(p)[i].Resources
				cur := &cs(out)[i].Resources
				for _, r := range sortedNames(lims) {
					if _, ok := cur.Limits[r]; !ok {
						cur = &cs(mutable())[i].Resources
						if cur.Limits == nil {
							cur.Limits = corev1.ResourceList{}
						}
						cur.Limits[r] = lims[r].DeepCopy()
					}
				}
				for _, r := range sortedNames(reqs) {
					_, limited := orig.Limits[r]
					if _, ok := cur.Requests[r]; !ok && !limited {
						cur = &cs(mutable())[i].Resources
						if cur.Requests == nil {
							cur.Requests = corev1.ResourceList{}
						}
						cur.Requests[r] = reqs[r].DeepCopy()
					}
				}
			}
		}
	}
	return out, nil
}

// equalResources reports whether a and b name the same resources with equal
// quantities (apimachinery's semantic equality).
func equalResources(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for r, q := range a {
		if o, ok := b[r]; !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

// equalToleration reports whether two tolerations are equal field by field.
func equalToleration(a, b corev1.Toleration) bool {
	if (a.TolerationSeconds == nil) != (b.TolerationSeconds == nil) || (a.TolerationSeconds != nil && *a.TolerationSeconds != *b.TolerationSeconds) {
		return false
	}
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect
}

// admitCreated admits the pods one Job's controller creates, which share
// one spec ([jobPods]): the first is admitted and every pod takes its
// spec, so that the Job's template is never written and a Job of many
// pods costs one copy.
func (c *Cluster) admitCreated(pods []*corev1.Pod) error {
	if len(pods) == 0 {
		return nil
	}
	p, err := c.admission.AdmitPod(pods[0])
	if err != nil || p == pods[0] {
		return err
	}
	for _, q := range pods {
		q.Spec = p.Spec
	}
	return nil
}
