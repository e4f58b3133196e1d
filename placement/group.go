package placement

import (
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Policy is a PodGroup's scheduling policy (scheduling.k8s.io/v1alpha2
// PodGroup spec.schedulingPolicy: either gang or basic).
type Policy string

// Scheduling policies.
const (
	// PolicyGang is all-or-nothing: a decision places members only when
	// bound plus newly placed members reach MinCount (KEP-4671 gang
	// scheduling).
	PolicyGang Policy = "Gang"
	// PolicyBasic has no barrier: each member that fits is placed. With a
	// topology constraint all members still share one domain.
	PolicyBasic Policy = "Basic"
)

// Group is the input of [Solve]: a PodGroup's identity and policy and its
// pending members. Its bound members are read from the snapshot (pods whose
// SchedulingGroup names it).
type Group struct {
	// Namespace and Name identify the PodGroup.
	Namespace string
	Name      string
	// Policy is gang or basic; empty means gang.
	Policy Policy
	// MinCount is spec.schedulingPolicy.gang.minCount: for a gang, the
	// number of members (bound ones included) that must run together, in
	// 1..bound+pending. Ignored for basic groups.
	MinCount int32
	// Members are the pending members to place: pods of Namespace whose
	// SchedulingGroup is Name and whose NodeName is empty. Order does not
	// matter; the solver sorts them with [MemberOrder].
	Members []Pod
	// PodSets are more pending members, given as counts of identical pods
	// rather than one by one (see [PodSet]); Members, PodSets or both may
	// hold the group's pending pods. Order does not matter; at most
	// [MaxPodSets].
	PodSets []PodSet
	// SubGroups partition the members (e.g. a leader and its workers, the
	// replicated jobs of a JobSet): each has its own minimum and may have
	// its own required topology key, which must hold together with the
	// group's placement. A member belongs to the first sub-group whose
	// selector matches its labels, or to none.
	SubGroups []SubGroup
	// TopologyLevels are the keys of the topology tree the group is placed
	// with, widest first (topology.Tree.Keys), read for SubGroups only. A
	// sub-group's TopologyKey that is one of them names the tree's
	// domains: nodes share one when they agree on every level from the
	// widest down to the key, so rack r1 of block b1 and rack r1 of block
	// b2 are two domains, as the tree (and a group-level constraint on the
	// key) counts them, and a node lacking a wider level's label is in no
	// domain of the key. A key outside TopologyLevels (or with none given)
	// compares that label's value alone, as pod affinity's topologyKey
	// does upstream.
	TopologyLevels []string
}

// MaxPending is the largest number of pending pods a [Group] may stand
// for (its Members plus every PodSet's Count): the solver keeps a few words
// per pending pod.
const MaxPending = 1 << 20

// MaxPodSets is the most pod sets a [Group] may have (Kueue allows 8 per
// Workload).
const MaxPodSets = 1 << 10

// PodSet is Count identical pending pods of a PodGroup given once, as a
// template and a count — how Kueue's PodSet (kueue.x-k8s.io/v1beta1
// Workload spec.podSets: name, count, template) and a Workload's PodGroup
// template with its minCount (KEP-4671) describe pods that do not exist
// yet. [Solve] reads the template once whatever the count, and answers for
// the set with node counts ([Decision.PodSetAssignments], what Kueue's
// TopologyAssignment records) instead of one assignment per pod.
//
// The set's pods are decided exactly as the same pods listed as members
// would be if each were named Name: they take their place in
// [MemberOrder] by the template's priority and QueuedAt, then by the set's
// name. Without caller Filters, a fitting set costs little more than the
// nodes it lands on; with them, each pod placed costs a filter call per
// node, but the pods after the first that fits nowhere cost nothing.
//
// A group with pod sets takes no affinity terms (in Members, templates or
// its bound members), no SubGroups and no Options.Reservers, since those
// need each pod by name; so a set has no minimum of its own (Kueue's
// podSets[].minCount): the group's MinCount counts pods across its sets
// and members.
//
// To commit a decision, create and bind Count pods per entry of
// Decision.PodSetAssignments (their names are the caller's; they become
// bound members of the group, which count toward MinCount), and solve any
// that wait again with the set's Count reduced by those bound — or, where
// no pod exists yet (a batch system admitting a workload), reserve the
// set's usage per node with [Change].Reserve ([PodSetUsageOf] builds it),
// at a cost per node touched rather than per pod.
type PodSet struct {
	// Name identifies the set in decisions and errors, and is the name its
	// pods sort by and that hooks see them under (pods of the group's
	// namespace named Name; Assignment.Pod is the same for every pod of
	// the set). It must be unique among the group's pod sets, and no
	// member or pod bound in the snapshot may have it in the group's
	// namespace.
	Name string
	// Count is how many pods the set stands for, 1..[MaxPending].
	Count int32
	// Template gives every pod of the set its requests, priority, labels,
	// nodeSelector, tolerations and QueuedAt. Its Namespace, Name, UID,
	// SchedulingGroup and NodeName are ignored; Affinity (pod affinity)
	// and ResourceClaims must be empty. Its NodeAffinity is honoured as a
	// member's is: required terms filter nodes, preferred ones rank
	// placements (see [NodeAffinity]) — no caller Filter is needed.
	Template Pod
}

// NumPending returns how many pending pods g stands for: len(g.Members)
// plus every PodSet's Count. Pending pods are numbered 0..NumPending()-1:
// the members in g.Members order, then each set's pods in g.PodSets order;
// [Group.RequestVector], [Group.PendingKey] and Assignment.Member use
// these indexes.
func (g *Group) NumPending() int { return GroupView{Group: g}.NumPending() }

// PodSetStart returns the pending index (see [Group.NumPending]) of the
// first pod of g.PodSets[k]; the set's pods follow it. It panics, as an
// index expression would, when k is out of range.
func (g *Group) PodSetStart(k int) int { return GroupView{Group: g}.PodSetStart(k) }

// PendingKey returns pending pod i's key (see [Group.NumPending]): the
// member's, or for a pod of a set, the group's namespace and the set's
// name. It returns the zero Key for an index out of range.
func (g *Group) PendingKey(i int) Key { return GroupView{Group: g}.PendingKey(i) }

// PendingIndexes returns, for each assignment of a, the pending index (see
// [Group.NumPending]) of the pod it places, or -1 when it names no pending
// pod of g: its Member when that pod has its key (as in the assignments
// handed to hooks), else the member with its key, or the first pod of the
// pod set it names (a set's pods are identical). Scorers use it to read
// each assignment's requests with [GroupView.RequestVector]. Cost:
// O(len(a)), plus O(members) when some assignment's Member is stale (as in
// a Decision's, where Member is 0).
func (g *Group) PendingIndexes(a []Assignment) []int { return GroupView{Group: g}.PendingIndexes(a) }

// RequestVector returns pending pod i's requests (g.Members[i], or a pod
// set's template; see [Group.NumPending]) as a fresh vector indexed like
// s.Resources(), with 1 for [ResourcePods]; requests for resources s does
// not track are left out. It reads the pod's map and allocates; a hook
// reads the solver's compiled vector for free with
// [GroupView.RequestVector]. It panics, as an index expression would, when
// i is out of range.
func (g *Group) RequestVector(s *Snapshot, i int) []int64 {
	return GroupView{Group: g}.RequestVector(s, i)
}

// RequestCounts yields request vectors (as [Group.RequestVector] gives
// them) with how many pending pods have each, covering every pending pod
// once; the same vector may come more than once. Summaries over the pods
// (totals, smallest, largest) read it instead of every pod. It reads every
// member's map and each pod set's once; [GroupView.RequestCounts] costs
// O(classes of identical pods).
func (g *Group) RequestCounts(s *Snapshot) iter.Seq2[[]int64, int] {
	return GroupView{Group: g}.RequestCounts(s)
}

// RequestsUntracked reports whether some member requests a positive
// quantity of a resource s does not track: such a member fits on no node.
func (g *Group) RequestsUntracked(s *Snapshot) bool {
	return GroupView{Group: g}.RequestsUntracked(s)
}

// BoundCount returns the number of g's members bound in s.
func (g *Group) BoundCount(s *Snapshot) int { return GroupView{Group: g}.BoundCount(s) }

// SubGroup is a set of a PodGroup's members with its own gang minimum and
// topology constraint (the multi-level hierarchies planned upstream for
// v1.37: LeaderWorkerSet, JobSet).
type SubGroup struct {
	// Name identifies the sub-group in decisions and errors.
	Name string
	// Selector picks the sub-group's members by pod labels.
	Selector LabelSelector
	// MinCount is how many of the sub-group's members (bound included) a
	// Scheduled decision must reach; 0 means no minimum.
	MinCount int32
	// TopologyKey, when set, requires all of the sub-group's placed and
	// bound members to share one domain of this node label (a domain of
	// the tree when the key is one of the group's TopologyLevels).
	TopologyKey string
}

// Key returns the PodGroup's key.
func (g *Group) Key() Key { return Key{g.Namespace, g.Name} }

// IsGang reports whether the group has the gang policy.
func (g *Group) IsGang() bool { return g.Policy == PolicyGang || g.Policy == "" }

func groupObj(g *Group) string { return fmt.Sprintf("PodGroup %q", g.Key().String()) }

// validate checks the group's own fields and its members' identities;
// Solve checks the members' requests as it compiles them. The error
// reported never depends on the order of g.Members: members are examined
// in key order. What it learns of a valid group's members on the way
// spares Solve further passes over them. ascending says the caller found
// the members' names ascending already (a hierarchy's leafRows, in the
// same pass that reads their requests), which proves them distinct
// without comparing them again.
func (g *Group) validate(s *Snapshot, bound []*Pod, ascending bool) (checked, error) {
	if g.Name == "" {
		return checked{}, Errorf(ErrInvalid, groupObj(g), "metadata.name", "must not be empty")
	}
	switch g.Policy {
	case PolicyGang, "", PolicyBasic:
	default:
		return checked{}, Errorf(ErrInvalid, groupObj(g), "spec.schedulingPolicy", "unknown policy %q (want Gang or Basic)", g.Policy)
	}
	if len(g.Members) == 0 && len(g.PodSets) == 0 {
		return checked{}, Errorf(ErrInvalid, groupObj(g), "members", "no pending members to place")
	}
	if len(g.Members) > MaxPending {
		return checked{}, Errorf(ErrInvalid, groupObj(g), "members", "%d pending members, more than %d", len(g.Members), MaxPending)
	}
	if err := g.validatePodSets(s, bound); err != nil {
		return checked{}, err
	}
	if g.IsGang() {
		total := len(bound) + g.NumPending()
		if g.MinCount < 1 || int(g.MinCount) > total {
			return checked{}, Errorf(ErrInvalid, groupObj(g), "spec.schedulingPolicy.gang.minCount", "%d is outside 1..%d (bound %d + pending %d)", g.MinCount, total, len(bound), g.NumPending())
		}
	}
	// One pass checks the usual case, valid members in member order; a
	// member bound already — as one of the group's bound members, or as
	// another group's pod — would be moved by binding it. The members
	// share the group's namespace: its hash is computed once.
	// Members of one template share their terms by pointer: each
	// distinct one is validated once, and any error sends the group down
	// the slow path, which reports the first in key order.
	ok, increasing, uniform, noAffinity, noNodeAffinity, noNodeFilters := true, true, true, true, true, true
	checkBound := s.nPods > 0
	var nsh uint64
	if checkBound {
		nsh = nsHash(g.Namespace)
	}
	var aff *Affinity
	var nodeAff *NodeAffinity
	for i := range g.Members {
		p := &g.Members[i]
		ok = ok && p.Name != "" && p.Namespace == g.Namespace && p.SchedulingGroup == g.Name && p.NodeName == "" &&
			!(checkBound && s.bound(Key{g.Namespace, p.Name}, nsh))
		if p.Affinity != nil && ok {
			noAffinity = false
			if p.Affinity != aff {
				ok, aff = validateAffinity(p) == nil, p.Affinity
			}
		}
		noNodeAffinity = noNodeAffinity && p.NodeAffinity == nil
		noNodeFilters = noNodeFilters && len(p.NodeSelector)+len(p.Tolerations) == 0
		if p.NodeAffinity != nil && ok && p.NodeAffinity != nodeAff {
			ok, nodeAff = p.NodeAffinity.Validate(podObj(p.Key()), "spec.affinity.nodeAffinity") == nil, p.NodeAffinity
		}
		if i > 0 {
			q := &g.Members[i-1]
			increasing = increasing && (ascending || q.Name < p.Name)
			uniform = uniform && q.Priority == p.Priority && q.QueuedAt == p.QueuedAt
		}
	}
	// Names usually arrive in increasing order, which proves them
	// distinct in n-1 comparisons; otherwise a sorted copy finds a repeat.
	if !increasing {
		names := make([]string, len(g.Members))
		for i := range g.Members {
			names[i] = g.Members[i].Name
		}
		slices.Sort(names)
		for i := 1; i < len(names); i++ {
			ok = ok && names[i] != names[i-1]
		}
	}
	if ok {
		return checked{inOrder: increasing && uniform, noAffinity: noAffinity, noNodeAffinity: noNodeAffinity, noNodeFilters: noNodeFilters && noNodeAffinity}, nil
	}
	order := make([]*Pod, len(g.Members))
	for i := range g.Members {
		order[i] = &g.Members[i]
	}
	slices.SortFunc(order, func(a, b *Pod) int { return a.Key().Compare(b.Key()) })
	for i := 1; i < len(order); i++ {
		if k := order[i].Key(); k == order[i-1].Key() {
			return checked{}, Errorf(ErrDuplicate, podObj(k), "metadata.name", "listed twice among the members of %s", groupObj(g))
		}
	}
	var valid *Affinity // the last terms checked: members of one template share them
	for _, p := range order {
		k := p.Key()
		if err := checkPod(p); err != nil {
			return checked{}, err
		}
		if p.Affinity != valid {
			if err := validateAffinity(p); err != nil {
				return checked{}, err
			}
			valid = p.Affinity
		}
		if p.NodeAffinity != nil {
			if err := p.NodeAffinity.Validate(podObj(k), "spec.affinity.nodeAffinity"); err != nil {
				return checked{}, err
			}
		}
		if p.Namespace != g.Namespace || p.SchedulingGroup != g.Name {
			return checked{}, Errorf(ErrInvalid, podObj(k), "spec.schedulingGroup.podGroupName", "is %q in namespace %q, not a member of %s", p.SchedulingGroup, p.Namespace, groupObj(g))
		}
		if p.NodeName != "" {
			return checked{}, Errorf(ErrInvalid, podObj(k), "spec.nodeName", "is %q: members passed to Solve must be pending", p.NodeName)
		}
		if _, isBound := s.Pod(k); isBound {
			return checked{}, Errorf(ErrDuplicate, podObj(k), "metadata.name", "is already bound in the snapshot")
		}
	}
	return checked{}, nil
}

// checked is what validate found of a valid group's members when they
// passed its one-pass check (the usual case); zero when it took the slow
// path.
type checked struct {
	inOrder    bool // names increasing, one priority and queue time: member order
	noAffinity bool // no member has affinity terms
	// noNodeAffinity: no member has node affinity, so none has preferred
	// terms (placementAffinity skips reading every member again).
	noNodeAffinity bool
	// noNodeFilters: no member has a node selector, tolerations or node
	// affinity, so any two pick nodes alike but for their requests
	// (prepareMembers' sameClass compares no more).
	noNodeFilters bool
}

// validatePodSets checks the pod sets in name order, so that the error
// reported never depends on the order of g.PodSets. bound are the group's
// bound members.
func (g *Group) validatePodSets(s *Snapshot, bound []*Pod) error {
	if len(g.PodSets) == 0 {
		return nil
	}
	if len(g.PodSets) > MaxPodSets {
		return Errorf(ErrInvalid, groupObj(g), "podSets", "%d pod sets, more than %d", len(g.PodSets), MaxPodSets)
	}
	order := make([]*PodSet, len(g.PodSets))
	for i := range g.PodSets {
		order[i] = &g.PodSets[i]
	}
	slices.SortFunc(order, func(a, b *PodSet) int { return strings.Compare(a.Name, b.Name) })
	members := make(map[string]bool, len(g.Members))
	for i := range g.Members {
		members[g.Members[i].Name] = true
	}
	total := int64(len(g.Members))
	for i, ps := range order {
		obj := func() string { return fmt.Sprintf("pod set %q of %s", ps.Name, groupObj(g)) } // for an error only
		switch {
		case ps.Name == "":
			return Errorf(ErrInvalid, obj(), "name", "must not be empty")
		case i+1 < len(order) && ps.Name == order[i+1].Name:
			// Before the set's own checks: which of two sets of one name
			// sorts first depends on the order of g.PodSets.
			return Errorf(ErrDuplicate, obj(), "name", "listed twice")
		case members[ps.Name]:
			return Errorf(ErrDuplicate, obj(), "name", "is also the name of a member")
		case ps.Count < 1 || ps.Count > MaxPending:
			return Errorf(ErrInvalid, obj(), "count", "%d is outside 1..%d", ps.Count, MaxPending)
		case ps.Template.Affinity != nil:
			return Errorf(ErrInvalid, obj(), "template.spec.affinity", "pod sets take no affinity terms: list such pods as members")
		case len(ps.Template.ResourceClaims) > 0:
			return Errorf(ErrInvalid, obj(), "template.spec.resourceClaims", "pod sets take no resource claims: list such pods as members")
		}
		if p, isBound := s.Pod(Key{g.Namespace, ps.Name}); isBound {
			return Errorf(ErrDuplicate, obj(), "name", "is the name of pod %s, bound to node %q", p.Key(), p.NodeName)
		}
		if err := checkList(obj, "template.requests", ps.Template.Requests, true); err != nil {
			return err
		}
		if err := checkScoreRequests(obj, "template.scoreRequests", ps.Template.ScoreRequests); err != nil {
			return err
		}
		if err := checkTolerations(obj, "template.spec.tolerations", ps.Template.Tolerations); err != nil {
			return err
		}
		if ps.Template.NodeAffinity != nil { // obj is worded only for a set with terms
			if err := ps.Template.NodeAffinity.Validate(obj(), "template.spec.affinity.nodeAffinity"); err != nil {
				return err
			}
		}
		if total += int64(ps.Count); total > MaxPending {
			return Errorf(ErrInvalid, groupObj(g), "podSets", "members and pod sets stand for more than %d pending pods", MaxPending)
		}
	}
	if len(g.SubGroups) > 0 {
		return Errorf(ErrInvalid, groupObj(g), "subGroups", "cannot be combined with pod sets: list the pods as members")
	}
	// The member named is the first in key order that has terms, whatever
	// the order of g.Members.
	var first *Pod
	for i := range g.Members {
		if p := &g.Members[i]; p.Affinity != nil && (first == nil || p.Key().Compare(first.Key()) < 0) {
			first = p
		}
	}
	if first != nil {
		return Errorf(ErrInvalid, podObj(first.Key()), "spec.affinity", "affinity terms cannot be combined with the pod sets of %s: list the pods as members", groupObj(g))
	}
	// A bound member's terms would have to hold against the sets' pods
	// too, which Solve checks only between listed members.
	for _, p := range bound {
		if p.Affinity != nil && (first == nil || p.Key().Compare(first.Key()) < 0) {
			first = p
		}
	}
	if first != nil {
		return Errorf(ErrInvalid, podObj(first.Key()), "spec.affinity", "a bound member's affinity terms cannot be combined with the pod sets of %s: list the pending pods as members", groupObj(g))
	}
	return nil
}
