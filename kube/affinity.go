package kube

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// NodeAffinity is a pod's spec.affinity.nodeAffinity.
// requiredDuringSchedulingIgnoredDuringExecution, compiled: a node matches
// when it matches any term; a term matches when every expression and field
// requirement in it holds (core/v1 NodeSelector semantics, as
// k8s.io/component-helpers nodeaffinity evaluates them).
type NodeAffinity struct {
	terms []nodeTerm
}

type nodeTerm struct {
	reqs []nodeReq
}

type nodeReq struct {
	field  bool // matchFields: the key is metadata.name
	key    string
	op     corev1.NodeSelectorOperator
	values []string
	num    int64 // for Gt and Lt
}

// RequiredNodeAffinity compiles a pod's required node affinity; it returns
// nil when the pod has none. Errors (a [*placement.FieldError]): no terms;
// an unknown operator; In/NotIn without values; Exists/DoesNotExist with
// values; Gt/Lt without exactly one integer value; a matchFields key other
// than metadata.name (core/v1 validation).
func RequiredNodeAffinity(p *corev1.Pod) (*NodeAffinity, error) {
	if p == nil {
		return nil, errNil("Pod")
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil, nil
	}
	obj := podObj(p.Namespace, p.Name)
	base := "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return nil, placement.Errorf(placement.ErrInvalid, obj, base, "must have at least one term")
	}
	na := &NodeAffinity{}
	for i, t := range terms {
		var nt nodeTerm
		for j, e := range t.MatchExpressions {
			r, err := compileReq(obj, base+"["+itoa(i)+"].matchExpressions["+itoa(j)+"]", e, false)
			if err != nil {
				return nil, err
			}
			nt.reqs = append(nt.reqs, r)
		}
		for j, e := range t.MatchFields {
			r, err := compileReq(obj, base+"["+itoa(i)+"].matchFields["+itoa(j)+"]", e, true)
			if err != nil {
				return nil, err
			}
			nt.reqs = append(nt.reqs, r)
		}
		na.terms = append(na.terms, nt)
	}
	return na, nil
}

func compileReq(obj, f string, e corev1.NodeSelectorRequirement, field bool) (nodeReq, error) {
	r := nodeReq{field: field, key: e.Key, op: e.Operator, values: slices.Clone(e.Values)}
	if e.Key == "" {
		return r, placement.Errorf(placement.ErrInvalid, obj, f+".key", "must not be empty")
	}
	if field && e.Key != "metadata.name" {
		return r, placement.Errorf(placement.ErrInvalid, obj, f+".key", "%q: matchFields supports only metadata.name", e.Key)
	}
	switch e.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(e.Values) == 0 {
			return r, placement.Errorf(placement.ErrInvalid, obj, f+".values", "must be non-empty for operator %s", e.Operator)
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if field {
			return r, placement.Errorf(placement.ErrInvalid, obj, f+".operator", "matchFields supports only In and NotIn")
		}
		if len(e.Values) != 0 {
			return r, placement.Errorf(placement.ErrInvalid, obj, f+".values", "must be empty for operator %s", e.Operator)
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if field {
			return r, placement.Errorf(placement.ErrInvalid, obj, f+".operator", "matchFields supports only In and NotIn")
		}
		if len(e.Values) != 1 {
			return r, placement.Errorf(placement.ErrInvalid, obj, f+".values", "must have exactly one value for operator %s", e.Operator)
		}
		n, err := strconv.ParseInt(e.Values[0], 10, 64)
		if err != nil {
			return r, placement.Errorf(placement.ErrInvalid, obj, f+".values[0]", "%q is not an integer", e.Values[0])
		}
		r.num = n
	default:
		return r, placement.Errorf(placement.ErrInvalid, obj, f+".operator", "%q is not In, NotIn, Exists, DoesNotExist, Gt or Lt", e.Operator)
	}
	return r, nil
}

// Matches reports whether node n satisfies the affinity. A nil affinity
// matches every node.
func (a *NodeAffinity) Matches(n *placement.Node) bool {
	if a == nil {
		return true
	}
	for _, t := range a.terms {
		if t.matches(n) {
			return true
		}
	}
	return false
}

func (t nodeTerm) matches(n *placement.Node) bool {
	if len(t.reqs) == 0 {
		return false // an empty term selects no node
	}
	for _, r := range t.reqs {
		var v string
		var ok bool
		if r.field {
			v, ok = n.Name, true
		} else {
			v, ok = n.Labels[r.key]
		}
		if !r.holds(v, ok) {
			return false
		}
	}
	return true
}

func (r nodeReq) holds(v string, ok bool) bool {
	switch r.op {
	case corev1.NodeSelectorOpIn:
		return ok && slices.Contains(r.values, v)
	case corev1.NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.values, v)
	case corev1.NodeSelectorOpExists:
		return ok
	case corev1.NodeSelectorOpDoesNotExist:
		return !ok
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !ok {
			return false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		if r.op == corev1.NodeSelectorOpGt {
			return n > r.num
		}
		return n < r.num
	}
	return false
}

// AffinityFilter is a [placement.Filter] that enforces required node
// affinity for the pods that have one, keyed by namespace/name. Pods not in
// the map pass. Its rejection is unresolvable: removing pods never makes a
// node match (kube-scheduler's NodeAffinity plugin says the same).
type AffinityFilter map[placement.Key]*NodeAffinity

var _ placement.Filter = AffinityFilter(nil)

// Filter implements [placement.Filter].
func (f AffinityFilter) Filter(pod *placement.Pod, node placement.NodeInfo) placement.Rejection {
	a, ok := f[pod.Key()]
	if !ok || a.Matches(node.Node()) {
		return placement.Rejection{}
	}
	return placement.Rejection{Reason: "node(s) didn't match Pod's node affinity", Unresolvable: true}
}
