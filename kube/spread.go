package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/gangsched/gangsched/placement"
)

// SpreadConstraint is one spec.topologySpreadConstraints entry, compiled
// as kube-scheduler's PodTopologySpread plugin reads it (pkg/scheduler/
// framework/plugins/podtopologyspread, v1.37): a DoNotSchedule one for its
// filter ([TopologySpread]), a ScheduleAnyway one for its score
// ([SoftTopologySpread]).
type SpreadConstraint struct {
	// MaxSkew is the largest allowed difference between the matching pods
	// of the node's domain (with the pod) and of the emptiest domain; the
	// score adds maxSkew-1 to each node's count.
	MaxSkew int32
	// TopologyKey is the node label whose values are the domains.
	TopologyKey string
	// Selector is labelSelector with matchLabelKeys merged in (each key
	// the pod carries, as `key in (pod's value)`); a missing labelSelector
	// selects nothing, and so does an empty one when counting pods
	// (upstream's countPodsMatchSelector), though the pod still matches
	// it itself.
	Selector labels.Selector
	// MinDomains: with fewer eligible domains, the emptiest counts 0; 1
	// when unset. The score does not read it.
	MinDomains int32
	// HonorAffinity is nodeAffinityPolicy Honor (the default): only nodes
	// that match the pod's nodeSelector and required node affinity count.
	HonorAffinity bool
	// HonorTaints is nodeTaintsPolicy Honor (default Ignore): only nodes
	// whose NoSchedule and NoExecute taints the pod tolerates count.
	HonorTaints bool
}

// TopologySpread compiles the DoNotSchedule topology spread constraints of
// pod p, in order. Every entry is validated, ScheduleAnyway ones too.
// Errors (a [*placement.FieldError] naming the field): maxSkew below 1, an
// empty topologyKey, minDomains below 1, an unknown whenUnsatisfiable,
// nodeAffinityPolicy or nodeTaintsPolicy, or a labelSelector that does not
// compile.
func TopologySpread(p *corev1.Pod) ([]SpreadConstraint, error) {
	return spreadConstraints(p, corev1.DoNotSchedule)
}

// SoftTopologySpread compiles the ScheduleAnyway topology spread
// constraints of pod p, in order, which upstream's PodTopologySpread score
// reads; validation and errors are [TopologySpread]'s.
func SoftTopologySpread(p *corev1.Pod) ([]SpreadConstraint, error) {
	return spreadConstraints(p, corev1.ScheduleAnyway)
}

// spreadConstraints validates every constraint of p and compiles those
// whose whenUnsatisfiable is action.
func spreadConstraints(p *corev1.Pod, action corev1.UnsatisfiableConstraintAction) ([]SpreadConstraint, error) {
	if p == nil {
		return nil, errNil("Pod")
	}
	obj := podObj(p.Namespace, p.Name)
	var out []SpreadConstraint
	for i, c := range p.Spec.TopologySpreadConstraints {
		f := fmt.Sprintf("spec.topologySpreadConstraints[%d]", i)
		switch c.WhenUnsatisfiable {
		case corev1.ScheduleAnyway, corev1.DoNotSchedule:
		default:
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".whenUnsatisfiable", "unknown value %q (want DoNotSchedule or ScheduleAnyway)", c.WhenUnsatisfiable)
		}
		sc := SpreadConstraint{MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, MinDomains: 1, HonorAffinity: true}
		switch {
		case c.MaxSkew < 1:
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".maxSkew", "%d is below 1", c.MaxSkew)
		case c.TopologyKey == "":
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".topologyKey", "must not be empty")
		case c.MinDomains != nil && *c.MinDomains < 1:
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".minDomains", "%d is below 1", *c.MinDomains)
		}
		if c.MinDomains != nil {
			sc.MinDomains = *c.MinDomains
		}
		if pol := c.NodeAffinityPolicy; pol != nil {
			switch *pol {
			case corev1.NodeInclusionPolicyHonor:
			case corev1.NodeInclusionPolicyIgnore:
				sc.HonorAffinity = false
			default:
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".nodeAffinityPolicy", "unknown value %q (want Honor or Ignore)", *pol)
			}
		}
		if pol := c.NodeTaintsPolicy; pol != nil {
			switch *pol {
			case corev1.NodeInclusionPolicyHonor:
				sc.HonorTaints = true
			case corev1.NodeInclusionPolicyIgnore:
			default:
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".nodeTaintsPolicy", "unknown value %q (want Honor or Ignore)", *pol)
			}
		}
		sc.Selector = labels.Nothing()
		if c.LabelSelector != nil {
			sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
			if err != nil {
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".labelSelector", "%v", err)
			}
			for _, k := range c.MatchLabelKeys {
				if v, ok := p.Labels[k]; ok {
					r, err := labels.NewRequirement(k, selection.In, []string{v})
					if err != nil {
						return nil, placement.Errorf(placement.ErrInvalid, obj, f+".matchLabelKeys", "%v", err)
					}
					sel = sel.Add(*r)
				}
			}
			sc.Selector = sel
		}
		if c.WhenUnsatisfiable == action {
			out = append(out, sc)
		}
	}
	return out, nil
}

// counts reports whether bound or placed pod q counts for constraint c of
// a pod in namespace ns: same namespace, and matched by a selector that
// is not empty (upstream's countPodsMatchSelector counts nothing for an
// empty selector).
func (c *SpreadConstraint) counts(ns string, q *placement.Pod) bool {
	return q.Namespace == ns && !c.Selector.Empty() && c.Selector.Matches(labels.Set(q.Labels))
}

// SpreadFilter enforces the DoNotSchedule topology spread constraints of
// pending pods as kube-scheduler's PodTopologySpread filter does: a node
// passes when, for each constraint, it carries the key and the matching
// pods of its domain, with the pod, exceed those of the emptiest eligible
// domain (0 when fewer than minDomains domains are eligible) by at most
// maxSkew. Eligible nodes carry every key of the pod's constraints and
// pass its node inclusion policies; matching pods are the snapshot's pods
// of the pod's namespace that the selector matches on eligible nodes —
// bound ones, and the members placed so far in the solve. Preemption's
// what-ifs solve on a snapshot without the victims, so they count as
// removed.
type SpreadFilter struct {
	// Constraints are each pending pod's, by pod key.
	Constraints map[placement.Key][]SpreadConstraint
	// NodeAffinity holds the pods' required node affinity, which the
	// Honor node affinity policy reads; nil means none.
	NodeAffinity AffinityFilter
}

// Reserver returns the filter's per-solve hook for [placement.Options]
// Reservers; it never fails. Each member's counts cost O(nodes + pods)
// once per solve, and each check O(domains + members placed so far).
func (f *SpreadFilter) Reserver(s *placement.Snapshot, _ placement.GroupView) (placement.Reserver, error) {
	return &spreadReserver{f: f, s: s, states: map[placement.Key][]spreadState{}}, nil
}

// Needed reports whether any of pods has a constraint, so that a host adds
// the Reserver (which places members one by one) only where it matters.
func (f *SpreadFilter) Needed(pods []*placement.Pod) bool {
	for _, p := range pods {
		if len(f.Constraints[p.Key()]) > 0 {
			return true
		}
	}
	return false
}

// TopologySpreadFilter compiles the DoNotSchedule topology spread
// constraints of the cluster's pending pods (see [TopologySpread]); nil
// when none has one. Errors are located at the pod's place in the input.
func (c *Cluster) TopologySpreadFilter() (*SpreadFilter, error) {
	var f *SpreadFilter
	for i := range c.Pending {
		k := c.Pending[i].Key()
		p, ok := c.Pod(k)
		if !ok {
			continue
		}
		cs, err := TopologySpread(p)
		if err != nil {
			return nil, c.Locate(err)
		}
		if len(cs) == 0 {
			continue
		}
		if f == nil {
			f = &SpreadFilter{Constraints: map[placement.Key][]SpreadConstraint{}, NodeAffinity: c.NodeAffinity}
		}
		f.Constraints[k] = cs
	}
	return f, nil
}

type spreadReserver struct {
	f        *SpreadFilter
	s        *placement.Snapshot
	states   map[placement.Key][]spreadState // per pod with constraints, per constraint
	reserved []placed                        // members placed so far, in order
}

type placed struct {
	pod  *placement.Pod
	node placement.NodeID
}

// spreadState is one constraint of one pod over the snapshot: which nodes
// are eligible, and the bound matching pods per domain.
type spreadState struct {
	c        *SpreadConstraint
	eligible []bool
	counts   map[string]int // every eligible domain, 0 included
}

func (r *spreadReserver) state(p *placement.Pod) []spreadState {
	k := p.Key()
	if st, ok := r.states[k]; ok {
		return st
	}
	cs := r.f.Constraints[k]
	st := make([]spreadState, len(cs))
	na := r.f.NodeAffinity[k]
	for i := range cs {
		c := &cs[i]
		st[i] = spreadState{c: c, eligible: make([]bool, r.s.NumNodes()), counts: map[string]int{}}
		for id := range r.s.NumNodes() {
			n := r.s.Node(placement.NodeID(id))
			ok := true
			for _, o := range cs { // a node must carry every constraint's key
				_, has := n.Labels[o.TopologyKey]
				ok = ok && has
			}
			if c.HonorAffinity {
				ok = ok && selectorMatches(p.NodeSelector, n.Labels) && (na == nil || na.Matches(n))
			}
			if c.HonorTaints {
				ok = ok && taintsTolerated(p, n)
			}
			if !ok {
				continue
			}
			st[i].eligible[id] = true
			v := n.Labels[c.TopologyKey]
			st[i].counts[v] += 0
			for q := range r.s.PodsOn(placement.NodeID(id)) {
				if c.counts(p.Namespace, q) {
					st[i].counts[v]++
				}
			}
		}
	}
	r.states[k] = st
	return st
}

// Filter applies the pod's constraints to the node.
func (r *spreadReserver) Filter(p *placement.Pod, ni placement.NodeInfo) placement.Rejection {
	return r.check(p, ni.ID())
}

// check applies the pod's constraints to node id, with the members
// reserved so far.
func (r *spreadReserver) check(p *placement.Pod, id placement.NodeID) placement.Rejection {
	if len(r.f.Constraints[p.Key()]) == 0 {
		return placement.Rejection{}
	}
	n := r.s.Node(id)
	for _, st := range r.state(p) {
		c := st.c
		v, ok := n.Labels[c.TopologyKey]
		if !ok {
			return placement.Rejection{Reason: "node(s) didn't match pod topology spread constraints (missing required label)", Unresolvable: true}
		}
		counts := make(map[string]int, len(st.counts))
		for d, k := range st.counts {
			counts[d] = k
		}
		for _, m := range r.reserved {
			if st.eligible[m.node] && c.counts(p.Namespace, m.pod) {
				counts[r.s.Node(m.node).Labels[c.TopologyKey]]++
			}
		}
		least := 0
		if len(counts) >= int(c.MinDomains) {
			first := true
			for _, k := range counts {
				if first || k < least {
					least, first = k, false
				}
			}
		}
		self := 0
		if c.Selector.Matches(labels.Set(p.Labels)) {
			self = 1
		}
		if counts[v]+self-least > int(c.MaxSkew) {
			return placement.Rejection{Reason: "node(s) didn't match pod topology spread constraints"}
		}
	}
	return placement.Rejection{}
}

// Reserve counts a placed member.
func (r *spreadReserver) Reserve(p *placement.Pod, ni placement.NodeInfo) {
	r.reserved = append(r.reserved, placed{p, ni.ID()})
}

// Unreserve takes back the member placed last.
func (r *spreadReserver) Unreserve(*placement.Pod, placement.NodeInfo) {
	r.reserved = r.reserved[:len(r.reserved)-1]
}

func selectorMatches(sel, nodeLabels map[string]string) bool {
	for k, v := range sel {
		if lv, ok := nodeLabels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

// taintsTolerated mirrors the Honor taints policy: every NoSchedule and
// NoExecute taint of n is tolerated by p.
func taintsTolerated(p *placement.Pod, n *placement.Node) bool {
	for _, t := range n.Taints {
		if t.Effect == placement.TaintEffectPreferNoSchedule {
			continue
		}
		ok := false
		for _, tol := range p.Tolerations {
			ok = ok || tol.Tolerates(t)
		}
		if !ok {
			return false
		}
	}
	return true
}
