package placement

import (
	"fmt"
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
	// SubGroups partition the members (e.g. a leader and its workers, the
	// replicated jobs of a JobSet): each has its own minimum and may have
	// its own required topology key, which must hold together with the
	// group's placement. A member belongs to the first sub-group whose
	// selector matches its labels, or to none.
	SubGroups []SubGroup

	prep *prepared // set on Solve's private copy only
}

// prepared is what Solve compiled of a group for its hooks.
type prepared struct {
	b         *base
	req       []int64 // member i's vector at [i*R, (i+1)*R)
	bound     int
	untracked bool
}

// RequestVector returns member i's (g.Members[i]) requests as a vector
// indexed like s.Resources(), with 1 for [ResourcePods]; requests for
// resources s does not track are left out. Inside a [Solve] — in a hook —
// it costs nothing: the solver compiled every member once, and the slice
// must not be modified. Elsewhere it reads the member's map and allocates.
func (g *Group) RequestVector(s *Snapshot, i int) []int64 {
	R := len(s.b.res)
	if g.prep != nil && g.prep.b == s.b && g.prep.req != nil {
		return g.prep.req[i*R : (i+1)*R : (i+1)*R]
	}
	v := make([]int64, R)
	v[s.b.podsR] = 1
	for r, q := range g.Members[i].Requests {
		if j, ok := s.b.resIdx[r]; ok && j != s.b.podsR {
			v[j] = q
		}
	}
	return v
}

// RequestsUntracked reports whether some member requests a positive
// quantity of a resource s does not track: such a member fits on no node.
// Inside a [Solve] it costs nothing.
func (g *Group) RequestsUntracked(s *Snapshot) bool {
	if g.prep != nil && g.prep.b == s.b && g.prep.req != nil {
		return g.prep.untracked
	}
	for i := range g.Members {
		for r, q := range g.Members[i].Requests {
			if _, ok := s.b.resIdx[r]; !ok && q > 0 {
				return true
			}
		}
	}
	return false
}

// BoundCount returns the number of g's members bound in s. Inside a
// [Solve] it costs nothing.
func (g *Group) BoundCount(s *Snapshot) int {
	if g.prep != nil && g.prep.b == s.b {
		return g.prep.bound
	}
	return len(s.GroupMembers(g.Key()))
}

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
	// bound members to share one domain of this node label.
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
// in key order.
func (g *Group) validate(s *Snapshot, bound []*Pod) error {
	if g.Name == "" {
		return Errorf(ErrInvalid, groupObj(g), "metadata.name", "must not be empty")
	}
	switch g.Policy {
	case PolicyGang, "", PolicyBasic:
	default:
		return Errorf(ErrInvalid, groupObj(g), "spec.schedulingPolicy", "unknown policy %q (want Gang or Basic)", g.Policy)
	}
	if len(g.Members) == 0 {
		return Errorf(ErrInvalid, groupObj(g), "members", "no pending members to place")
	}
	if g.IsGang() {
		total := len(bound) + len(g.Members)
		if g.MinCount < 1 || int(g.MinCount) > total {
			return Errorf(ErrInvalid, groupObj(g), "spec.schedulingPolicy.gang.minCount", "%d is outside 1..%d (bound %d + pending %d)", g.MinCount, total, len(bound), len(g.Members))
		}
	}
	names := make([]string, len(g.Members))
	ok := true
	for i := range g.Members {
		p := &g.Members[i]
		names[i] = p.Name
		ok = ok && p.Name != "" && p.Namespace == g.Namespace && p.SchedulingGroup == g.Name && p.NodeName == "" && p.Affinity == nil
	}
	// Sorting names that arrive in order (they usually do) is linear.
	slices.Sort(names)
	for i := 1; i < len(names); i++ {
		ok = ok && names[i] != names[i-1]
	}
	for _, b := range bound {
		_, dup := slices.BinarySearch(names, b.Name)
		ok = ok && !dup
	}
	// A member bound elsewhere (as another group's pod, say) would be moved
	// by binding it.
	for _, n := range names {
		if !ok {
			break
		}
		_, isBound := s.Pod(Key{g.Namespace, n})
		ok = !isBound
	}
	if ok {
		return nil
	}
	order := make([]*Pod, len(g.Members))
	for i := range g.Members {
		order[i] = &g.Members[i]
	}
	slices.SortFunc(order, func(a, b *Pod) int { return a.Key().Compare(b.Key()) })
	for i := 1; i < len(order); i++ {
		if k := order[i].Key(); k == order[i-1].Key() {
			return Errorf(ErrDuplicate, podObj(k), "metadata.name", "listed twice among the members of %s", groupObj(g))
		}
	}
	for _, p := range order {
		k := p.Key()
		if err := checkPod(p); err != nil {
			return err
		}
		if err := validateAffinity(p); err != nil {
			return err
		}
		if p.Namespace != g.Namespace || p.SchedulingGroup != g.Name {
			return Errorf(ErrInvalid, podObj(k), "spec.schedulingGroup.podGroupName", "is %q in namespace %q, not a member of %s", p.SchedulingGroup, p.Namespace, groupObj(g))
		}
		if p.NodeName != "" {
			return Errorf(ErrInvalid, podObj(k), "spec.nodeName", "is %q: members passed to Solve must be pending", p.NodeName)
		}
		if _, isBound := s.Pod(k); isBound {
			return Errorf(ErrDuplicate, podObj(k), "metadata.name", "is already bound in the snapshot")
		}
	}
	return nil
}

// Status is the outcome of a decision.
type Status int

// Decision statuses.
const (
	// Scheduled: the assignments satisfy the policy and may be committed.
	Scheduled Status = iota
	// Unschedulable: no placement satisfies the policy now; freeing
	// resources (pods leaving, preemption) may help.
	Unschedulable
	// Unresolvable: too few members could run even on an empty cluster,
	// each judged alone (node selectors, taints, allocatable too small, a
	// caller's unresolvable rejection): preemption cannot help. Members
	// that each fit an empty node but not together are Unschedulable;
	// preemption.Find then answers CannotHelp.
	Unresolvable
	// BudgetExhausted: the search stopped at Options.Budget before finding a
	// placement; a larger budget may find one.
	BudgetExhausted
)

// String returns the status's name, e.g. "Unschedulable", or "Status(n)"
// for a value outside the constants.
func (s Status) String() string {
	switch s {
	case Scheduled:
		return "Scheduled"
	case Unschedulable:
		return "Unschedulable"
	case Unresolvable:
		return "Unresolvable"
	case BudgetExhausted:
		return "BudgetExhausted"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Assignment places one pending member on a node.
type Assignment struct {
	Pod    Key
	Node   string
	NodeID NodeID
	// Member is the pod's index in Group.Members in the assignments
	// handed to hooks, so that they can read its compiled requests with
	// [Group.RequestVector]. It is 0 in a Decision, whose content never
	// depends on the order of the input.
	Member int
}

// ReasonCount is how many nodes rejected a member for one reason, as in
// kube-scheduler's FitError ("3 Insufficient cpu").
type ReasonCount struct {
	Reason string
	Nodes  int
}

// Decision is the result of [Solve]: all-or-nothing for a gang.
type Decision struct {
	// Group is the PodGroup decided.
	Group Key
	// Status says whether Assignments may be committed.
	Status Status
	// Placement is the chosen placement when Scheduled (Name "" and every
	// node for a group without constraints), or the placement where the
	// most members fit otherwise. Its Nodes slice is shared with the
	// generator and must not be modified.
	Placement Placement
	// Assignments are the placed members in member order; empty unless
	// Scheduled.
	Assignments []Assignment
	// Waiting are the pending members not placed, in member order.
	Waiting []Key
	// Score is the chosen placement's score.
	Score int64
	// Bound is the number of members already bound (they count toward
	// MinCount and are never moved).
	Bound int
	// Required is how many members (bound included) the decision must
	// reach to count as Scheduled: for a gang, MinCount, but at least one
	// more than are bound (a gang already at its minimum still needs a new
	// member placed); for a basic group, bound+1.
	Required int
	// MostFit is the largest number of members (bound included) placed in
	// any single placement tried. An attempt stops once the requirement is
	// out of reach, so for a failed gang it is a lower bound on what fits.
	MostFit int
	// Reasons count, over the nodes of Placement, why the first waiting
	// member fits on none of them after the members that did fit; sorted by
	// count descending, then reason.
	Reasons []ReasonCount
	// Message is a one-line explanation a person can act on.
	Message string
	// Steps is the number of member-on-node evaluations spent, the unit of
	// Options.Budget.
	Steps int64
	// Truncated is set when the budget ran out after a feasible placement
	// was found: the answer is valid but some placements were not tried.
	Truncated bool
	// Proven is set when the answer needs no larger budget: for a Scheduled
	// decision, no assignment in the chosen placement places more members;
	// otherwise, no assignment in any placement satisfies the group (the
	// search was complete). It is false when the search was cut short and
	// the answer is the heuristic's.
	Proven bool
}

func formatReasons(rc []ReasonCount) string {
	var b strings.Builder
	for i, r := range rc {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", r.Nodes, r.Reason)
	}
	return b.String()
}
