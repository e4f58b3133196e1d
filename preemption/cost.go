package preemption

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Cost is the disruption of a victim set, compared lexicographically in
// the order of its fields (see [Cost.Compare]): the order in which
// kube-scheduler ranks preemption candidates (pickOneNodeForPreemption in
// pkg/scheduler/framework/preemption, v1.37), applied to whole victim sets
// of the cluster instead of one node's, as KEP-5710's workload-aware
// preemption does. A whole disruptionMode-PodGroup victim counts as its
// pods, each at the group's priority.
//
// Ties by name: of victim sets of equal Cost, [Find] evicts the one whose
// victims' names, each sorted list compared element by element (a list
// before its extensions, so [a] before [a b] before [b]), come first. A
// victim's name is its namespace/name: the group's for a whole
// disruptionMode-PodGroup group, else the pod's; a pod comes before a
// whole group of the same name. When the same set is the cheapest in two
// placements (a whole group with pods in both), the placement with the
// lower Placement.Rank wins, then the lower placement name (for a group
// that needs one more member and no generator, each node is a placement
// named after it). A proven plan ([Plan.Proven]) follows the rule
// exactly; an unproven one may keep another set of the same cost.
type Cost struct {
	// BudgetViolations counts evictions beyond the disruption budgets: per
	// budget, the victim pods it guards beyond its disruptionsAllowed,
	// summed over the budgets. For pods guarded by one budget each it is
	// upstream's number of victims that violate a PodDisruptionBudget.
	BudgetViolations int64
	// MaxPriority is the highest priority among the victims.
	MaxPriority int32
	// PrioritySum is the sum over the victim pods of their priority plus
	// 2^31, so that every pod adds a non-negative amount (upstream offsets
	// the sum by MaxInt32+1 for the same reason).
	PrioritySum int64
	// Pods is the number of victim pods.
	Pods int
	// Start is the earliest start time among the victims of priority
	// MaxPriority; the later, the cheaper (upstream prefers to stop the
	// most recently started work). Zero means none of them has started,
	// which counts as the latest.
	Start time.Time
}

// Compare returns a negative number when c is cheaper than o, 0 when they
// are equal, a positive number otherwise: fewer budget violations, then a
// lower highest priority, then a smaller priority sum, then fewer pods,
// then a later Start. Find breaks ties between victim sets of equal cost
// by name (see [Cost]).
func (c Cost) Compare(o Cost) int {
	if x := cmp.Compare(c.BudgetViolations, o.BudgetViolations); x != 0 {
		return x
	}
	if x := cmp.Compare(c.MaxPriority, o.MaxPriority); x != 0 {
		return x
	}
	if x := cmp.Compare(c.PrioritySum, o.PrioritySum); x != 0 {
		return x
	}
	if x := cmp.Compare(c.Pods, o.Pods); x != 0 {
		return x
	}
	return -compareStart(c.Start, o.Start) // later start is cheaper
}

// String formats the cost as its fields, e.g. "budget violations 0, max
// priority 10, priority sum 2147483658, pods 1, start 2026-01-01T00:00:01Z".
func (c Cost) String() string {
	start := "not started"
	if !c.Start.IsZero() {
		start = c.Start.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("budget violations %d, max priority %d, priority sum %d, pods %d, start %s",
		c.BudgetViolations, c.MaxPriority, c.PrioritySum, c.Pods, start)
}

// budgetHit is how many pods of a unit one budget guards.
type budgetHit struct {
	b int32 // index into costing.budgets
	n int32
}

// costing computes the [Cost] of victim sets: the budgets in key order,
// with the disruptions each allows.
type costing struct {
	a *allowance
}

func newCosting(bs []DisruptionBudget) *costing { return &costing{a: newAllowance(bs)} }

// hits returns the budgets that guard u's pods, computed once per unit.
func (c *costing) hits(u *unit) []budgetHit {
	if u.hitsDone {
		return u.hits
	}
	u.hitsDone = true
	for _, p := range u.pods {
		for _, i := range c.a.byNS[p.Namespace] {
			if c.a.budgets[i].matches(p) {
				k := slices.IndexFunc(u.hits, func(h budgetHit) bool { return h.b == int32(i) })
				if k < 0 {
					u.hits = append(u.hits, budgetHit{b: int32(i)})
					k = len(u.hits) - 1
				}
				u.hits[k].n++
			}
		}
	}
	return u.hits
}

// of returns the cost of evicting units. O(units + budget hits).
func (c *costing) of(units []*unit) Cost {
	s := newSetCost(c)
	for _, u := range units {
		s.add(u)
	}
	return s.k
}

// bound orders the areas of a search (see [finder.searchAreas]): the
// cheapest cost of one unit among its candidates — no victim set of the
// area costs less — then that unit's eviction position, then the
// placement's rank and name.
type bound struct {
	cost  Cost
	pos   int
	rank  int
	place string
}

func (a *bound) compare(b *bound) int {
	if x := a.cost.Compare(b.cost); x != 0 {
		return x
	}
	if x := cmp.Compare(a.pos, b.pos); x != 0 {
		return x
	}
	if x := cmp.Compare(a.rank, b.rank); x != 0 {
		return x
	}
	return cmp.Compare(a.place, b.place)
}
