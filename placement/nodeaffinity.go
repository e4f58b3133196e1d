package placement

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/gangsched/gangsched/internal/arith"
)

// NodeSelectorOperator is core/v1 NodeSelectorOperator.
type NodeSelectorOperator string

// Node selector operators (core/v1). Gt and Lt compare a label's value as
// an integer with the requirement's single value; a label that is not an
// integer matches neither.
const (
	NodeSelectorOpIn           NodeSelectorOperator = "In"
	NodeSelectorOpNotIn        NodeSelectorOperator = "NotIn"
	NodeSelectorOpExists       NodeSelectorOperator = "Exists"
	NodeSelectorOpDoesNotExist NodeSelectorOperator = "DoesNotExist"
	NodeSelectorOpGt           NodeSelectorOperator = "Gt"
	NodeSelectorOpLt           NodeSelectorOperator = "Lt"
)

// NodeFieldName is the one field a [NodeSelectorTerm]'s MatchFields may
// name (core/v1 validation): the node's name.
const NodeFieldName = "metadata.name"

// NodeSelectorRequirement is core/v1 NodeSelectorRequirement: Key, an
// operator and its values.
type NodeSelectorRequirement struct {
	Key      string
	Operator NodeSelectorOperator
	Values   []string
}

// NodeSelectorTerm is core/v1 NodeSelectorTerm: every requirement must
// hold, MatchExpressions on the node's labels and MatchFields on its
// fields ([NodeFieldName] only). A term with no requirement matches no
// node, as upstream.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement
	MatchFields      []NodeSelectorRequirement
}

// PreferredSchedulingTerm is core/v1 PreferredSchedulingTerm: Weight
// (1..100) counts for each node that matches Preference.
type PreferredSchedulingTerm struct {
	Weight     int32
	Preference NodeSelectorTerm
}

// NodeAffinity is core/v1 NodeAffinity, the node part of a pod's
// spec.affinity. Required holds when any of its terms does
// (requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms; none
// means no requirement), and is a built-in filter of the solver beside
// spec.nodeSelector, for members and pod set templates alike. Preferred
// (preferredDuringSchedulingIgnoredDuringExecution) ranks placements:
// among the placements of one rank that fit, the one whose nodes score highest by [NodeAffinity.Score],
// summed over every node of the placement a pending pod could go to and
// over the pending pods, wins before the placement score, as Kueue's
// TASRespectNodeAffinityPreferred ranks topology domains by their summed
// affinity scores before BestFit (KEP-2724). Inside a placement, the
// preferred terms do not choose the node (kube-scheduler's NodeAffinity
// score does; it is not part of [NodeScoring]).
type NodeAffinity struct {
	Required  []NodeSelectorTerm
	Preferred []PreferredSchedulingTerm
}

// Matches reports whether node n satisfies a's required terms: true when
// there are none (or a is nil).
func (a *NodeAffinity) Matches(n *Node) bool {
	if a == nil || len(a.Required) == 0 {
		return true
	}
	for i := range a.Required {
		if a.Required[i].matches(n) {
			return true
		}
	}
	return false
}

// Score returns the sum of the weights of a's preferred terms that node n
// matches (upstream's NodeAffinity score before normalisation); 0 for a
// nil a.
func (a *NodeAffinity) Score(n *Node) int64 {
	if a == nil {
		return 0
	}
	var s int64
	for i := range a.Preferred {
		if a.Preferred[i].Preference.matches(n) {
			s += int64(a.Preferred[i].Weight)
		}
	}
	return s
}

func (t *NodeSelectorTerm) matches(n *Node) bool {
	if len(t.MatchExpressions)+len(t.MatchFields) == 0 {
		return false
	}
	for i := range t.MatchExpressions {
		r := &t.MatchExpressions[i]
		v, ok := n.Labels[r.Key]
		if !r.holds(v, ok) {
			return false
		}
	}
	for i := range t.MatchFields {
		if !t.MatchFields[i].holds(n.Name, true) {
			return false
		}
	}
	return true
}

// holds evaluates the requirement on value v, present when ok.
func (r *NodeSelectorRequirement) holds(v string, ok bool) bool {
	switch r.Operator {
	case NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case NodeSelectorOpExists:
		return ok
	case NodeSelectorOpDoesNotExist:
		return !ok
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// Validate checks a as the API server's validation of core/v1 NodeAffinity
// does: a known operator; In and NotIn with values, Exists and
// DoesNotExist without, Gt and Lt with exactly one integer value; a
// non-empty key; MatchFields on [NodeFieldName] with In or NotIn only;
// preferred weights in 1..100. object and field name a in the error (a
// [*FieldError] wrapping [ErrInvalid]). A nil a is valid.
func (a *NodeAffinity) Validate(object, field string) error {
	if a == nil {
		return nil
	}
	req := field + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	for i := range a.Required {
		if err := a.Required[i].validate(object, fmt.Sprintf("%s[%d]", req, i)); err != nil {
			return err
		}
	}
	pref := field + ".preferredDuringSchedulingIgnoredDuringExecution"
	for i := range a.Preferred {
		f := fmt.Sprintf("%s[%d]", pref, i)
		if w := a.Preferred[i].Weight; w < 1 || w > 100 {
			return Errorf(ErrInvalid, object, f+".weight", "%d is outside 1..100", w)
		}
		if err := a.Preferred[i].Preference.validate(object, f+".preference"); err != nil {
			return err
		}
	}
	return nil
}

func (t *NodeSelectorTerm) validate(object, field string) error {
	for i := range t.MatchExpressions {
		if err := t.MatchExpressions[i].validate(object, fmt.Sprintf("%s.matchExpressions[%d]", field, i), false); err != nil {
			return err
		}
	}
	for i := range t.MatchFields {
		if err := t.MatchFields[i].validate(object, fmt.Sprintf("%s.matchFields[%d]", field, i), true); err != nil {
			return err
		}
	}
	return nil
}

func (r *NodeSelectorRequirement) validate(object, f string, field bool) error {
	if r.Key == "" {
		return Errorf(ErrInvalid, object, f+".key", "must not be empty")
	}
	if field && r.Key != NodeFieldName {
		return Errorf(ErrInvalid, object, f+".key", "%q: matchFields supports only %s", r.Key, NodeFieldName)
	}
	switch r.Operator {
	case NodeSelectorOpIn, NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return Errorf(ErrInvalid, object, f+".values", "must be non-empty for operator %s", r.Operator)
		}
		return nil
	case NodeSelectorOpExists, NodeSelectorOpDoesNotExist, NodeSelectorOpGt, NodeSelectorOpLt:
	default:
		return Errorf(ErrInvalid, object, f+".operator", "unknown operator %q (want In, NotIn, Exists, DoesNotExist, Gt or Lt)", r.Operator)
	}
	if field {
		return Errorf(ErrInvalid, object, f+".operator", "%s: matchFields supports only In and NotIn", r.Operator)
	}
	if r.Operator == NodeSelectorOpExists || r.Operator == NodeSelectorOpDoesNotExist {
		if len(r.Values) > 0 {
			return Errorf(ErrInvalid, object, f+".values", "must be empty for operator %s", r.Operator)
		}
		return nil
	}
	if len(r.Values) != 1 {
		return Errorf(ErrInvalid, object, f+".values", "must have exactly one value for operator %s", r.Operator)
	}
	if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
		return Errorf(ErrInvalid, object, f+".values[0]", "%q is not an integer", r.Values[0])
	}
	return nil
}

// readsLabels reports whether p's built-in static filters read node labels
// or names (a nodeSelector or required node affinity): then nodes alike in
// allocatable, taints and usage may still differ for p.
func readsLabels(p *Pod) bool {
	return len(p.NodeSelector) > 0 || (p.NodeAffinity != nil && len(p.NodeAffinity.Required) > 0)
}

// affinityKeys adds to keys the label keys p's required node affinity
// reads, and reports whether it reads a node's name (matchFields).
func affinityKeys(p *Pod, keys map[string]bool) (byName bool) {
	if p.NodeAffinity == nil {
		return false
	}
	for i := range p.NodeAffinity.Required {
		t := &p.NodeAffinity.Required[i]
		for j := range t.MatchExpressions {
			keys[t.MatchExpressions[j].Key] = true
		}
		byName = byName || len(t.MatchFields) > 0
	}
	return byName
}

// equalNodeAffinity reports whether a and b hold the same terms.
func equalNodeAffinity(a, b *NodeAffinity) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return slices.EqualFunc(a.Required, b.Required, equalTerm) &&
		slices.EqualFunc(a.Preferred, b.Preferred, func(x, y PreferredSchedulingTerm) bool {
			return x.Weight == y.Weight && equalTerm(x.Preference, y.Preference)
		})
}

func equalTerm(x, y NodeSelectorTerm) bool {
	eq := func(a, b NodeSelectorRequirement) bool {
		return a.Key == b.Key && a.Operator == b.Operator && slices.Equal(a.Values, b.Values)
	}
	return slices.EqualFunc(x.MatchExpressions, y.MatchExpressions, eq) && slices.EqualFunc(x.MatchFields, y.MatchFields, eq)
}

// preferringPod is a pending pod with preferred node affinity and how many
// pending pods it stands for (a pod set's count, or members alike in every
// static filter input and in their terms).
type preferringPod struct {
	pod   *Pod
	count int64
}

// maxPreferring bounds the distinct preferring pods kept apart: past it,
// each further member counts on its own, which only costs time.
const maxPreferring = 64

// placementAffinity is the preferred node affinity of placement p: over
// every node of p and every pending pod with preferred terms that may go
// there by the built-in static filters, the pod's [NodeAffinity.Score] —
// Kueue's domain affinity score (KEP-2724, TASRespectNodeAffinityPreferred),
// with a pod set's score counted once per pod so that a set and its pods
// listed as members rank placements alike. O(nodes of p × preferring
// pods); 0 at no cost when no pending pod has preferred terms.
func (sv *solver) placementAffinity(p *Placement) int64 {
	if !sv.preferringDone {
		sv.preferringDone = true
		add := func(pod *Pod, count int64) {
			if pod.NodeAffinity == nil || len(pod.NodeAffinity.Preferred) == 0 {
				return
			}
			if len(sv.preferring) < maxPreferring {
				for i := range sv.preferring {
					if q := sv.preferring[i].pod; equalNodeAffinity(q.NodeAffinity, pod.NodeAffinity) &&
						maps.Equal(q.NodeSelector, pod.NodeSelector) && slices.Equal(q.Tolerations, pod.Tolerations) {
						sv.preferring[i].count += count
						return
					}
				}
			}
			sv.preferring = append(sv.preferring, preferringPod{pod, count})
		}
		for i := 0; i < len(sv.g.Members) && !sv.noNodeAffinity; i++ {
			add(&sv.g.Members[i], 1)
		}
		for i := range sv.g.PodSets {
			add(&sv.g.PodSets[i].Template, int64(sv.g.PodSets[i].Count))
		}
	}
	if len(sv.preferring) == 0 {
		return 0
	}
	var sum int64
	for _, id := range p.Nodes {
		n := &sv.s.b.nodes[id]
		for _, pp := range sv.preferring {
			if staticOK(pp.pod, n) {
				sum = arith.SatAdd(sum, arith.MulSat(pp.pod.NodeAffinity.Score(n), pp.count))
			}
		}
	}
	return sum
}
