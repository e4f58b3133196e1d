package preemption

import (
	"fmt"
	"math"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// This file is preemption for a KEP-6012 hierarchy: the tree is the
// preemptor, decided with placement.SolveHierarchy, and one victim set is
// chosen for all of it. It reads the rest of the package through its
// exported API only.

// CompositeSpec is the part of a CompositePodGroup that preemption reads
// of a victim's hierarchy.
type CompositeSpec struct {
	// Parent names the parent CompositePodGroup in the same namespace;
	// empty for a root.
	Parent string
	// All is disruptionMode All: the subtree may be evicted only whole.
	All bool
}

// HierarchyInput is [Input] plus the hierarchies of the bound pods'
// PodGroups.
type HierarchyInput struct {
	Input
	// Parents maps a PodGroup to the name of its parent CompositePodGroup
	// (spec.parentCompositePodGroupName, same namespace); a PodGroup
	// absent or mapped to "" has none.
	Parents map[placement.Key]string
	// Composites maps a CompositePodGroup's namespace/name to its spec.
	Composites map[placement.Key]CompositeSpec
}

// HierarchyPlan is the result of [FindHierarchy].
type HierarchyPlan struct {
	// Outcome says whether to evict (see [Outcome]).
	Outcome Outcome
	// Victims are the victims to evict when Outcome is Preempt, most
	// important first ([VictimOrder]). A victim evicted whole at a
	// CompositePodGroup with disruptionMode All has PodGroup set to that
	// CompositePodGroup's key, Whole set, and the pods of every PodGroup
	// below it. ExceedsBudgets is filled in as [Plan]'s: the budgets a
	// victim goes beyond once the victims ranked below it are counted.
	Victims []Victim
	// Decision is the tree's decision on After: Scheduled for Fits and
	// Preempt; for CannotHelp, the decision with every candidate removed.
	Decision placement.HierarchyDecision
	// After is the snapshot with the victims removed (the snapshot given
	// when nothing is evicted).
	After *placement.Snapshot
	// Cost is the disruption of Victims; zero unless Outcome is Preempt.
	Cost Cost
	// Candidates is the number of candidate victims considered; Solves
	// the number of placement.SolveHierarchy calls spent.
	Candidates, Solves int
	// Proven is set, for Preempt, when the victim set was chosen by the
	// exact search (at most [MaxExactHierarchyUnits] candidates, and the
	// cheapest fitting set found within [MaxExactHierarchySolves]
	// solves): no set of lower Cost lets the tree fit, as far as
	// SolveHierarchy tells.
	Proven bool
	// Message is a one-line explanation.
	Message string
}

// MaxExactHierarchyUnits is the most candidates [FindHierarchy] searches
// exactly, every subset in Cost order (2^14 subsets costed and heaped:
// under a millisecond besides the solves); above it, or when the search runs out of
// [MaxExactHierarchySolves], it evicts every candidate and gives victims
// back, most important first, while the tree still fits.
const MaxExactHierarchyUnits = 14

// MaxExactHierarchySolves is the most SolveHierarchy calls the exact
// search of [FindHierarchy] makes, cheapest subset first, before it gives
// up (the plan is then not proven): as many as the every-subset search of
// 8 candidates could make, so that a search over more candidates costs no
// more solves than that one did.
const MaxExactHierarchySolves = 255

// hunit is a candidate victim of FindHierarchy.
type hunit struct {
	v    Victim
	pods []*placement.Pod
	prio []int32 // per pod, its priority in preemption
}

// FindHierarchy decides whether and whom a KEP-6012 tree may preempt on
// s (issue 19, item 2): the preemptor is the whole tree, at priority (its
// root's), and victims are chosen once for it, as upstream preempts for a
// hierarchy at its root. A candidate is a unit of lower priority than the
// tree: a bound pod; a whole PodGroup whose disruptionMode is PodGroup;
// or, when a PodGroup lies below CompositePodGroups with disruptionMode
// All, the subtree of the highest of them, whole (every bound pod of
// every PodGroup below it; its priority the highest of theirs). The
// tree's own bound members are never candidates. It returns:
//
//   - [Fits] when the tree is Scheduled on s as it is;
//   - [NotAllowed] when a pending member has preemptionPolicy Never;
//   - [CannotHelp] when it is not Scheduled even with every candidate
//     removed (never evict in vain);
//   - [Preempt] with the victim set of least [Cost] that lets it fit, by
//     an exact search over subsets in Cost order up to
//     [MaxExactHierarchyUnits] candidates and [MaxExactHierarchySolves]
//     solves (a cheaper set is a subset's or another's: the one found is
//     minimal, no victim can be spared), passing over without a solve
//     every set that cannot free room for as many pods as the tree needs
//     at the least (summed over nodes, each pod taking the least any
//     pending pod of the tree requests of each resource); above that,
//     every candidate removed, then each given back, most important first
//     ([VictimOrder]), while the tree still fits, so that every victim
//     kept was needed when it was tried.
//
// opts and hopts are passed to every SolveHierarchy, but hopts.Buffers:
// the plan keeps decisions of several solves. It is pure and
// deterministic. Errors (a [*placement.FieldError]): an invalid in.Input,
// as [NewIndex] reports it; those of SolveHierarchy; and of Snapshot.Apply
// removing the candidates.
func FindHierarchy(s *placement.Snapshot, root *placement.HierarchyNode, priority int32, in HierarchyInput, opts placement.Options, hopts placement.HierarchyOptions) (HierarchyPlan, error) {
	if _, err := NewIndex(in.Input); err != nil {
		return HierarchyPlan{}, err
	}
	plan := HierarchyPlan{After: s}
	hopts.Buffers = nil
	solve := func(snap *placement.Snapshot) (placement.HierarchyDecision, error) {
		plan.Solves++
		return placement.SolveHierarchyWith(snap, root, opts, hopts)
	}
	d, err := solve(s)
	if err != nil {
		return HierarchyPlan{}, err
	}
	plan.Decision = d
	if d.Status == placement.Scheduled {
		plan.Outcome, plan.Message = Fits, "the tree fits without preemption"
		return plan, nil
	}
	own := map[placement.Key]bool{}
	never := ""
	walkLeaves(root, func(g *placement.Group) {
		own[g.Key()] = true
		for i := range g.Members {
			if g.Members[i].PreemptionPolicy == placement.PreemptNever && never == "" {
				never = g.Members[i].Key().String()
			}
		}
		for i := range g.PodSets {
			if g.PodSets[i].Template.PreemptionPolicy == placement.PreemptNever && never == "" {
				never = g.Key().String() + "/" + g.PodSets[i].Name
			}
		}
	})
	if never != "" {
		plan.Outcome, plan.Message = NotAllowed, fmt.Sprintf("preemption not allowed: pod %s has preemptionPolicy Never", never)
		return plan, nil
	}
	units := hierarchyUnits(s, priority, &in, own)
	plan.Candidates = len(units)
	without := func(set []*hunit) (*placement.Snapshot, error) {
		var ch placement.Change
		for _, u := range set {
			ch.Remove = append(ch.Remove, u.v.Pods...)
		}
		return s.Apply(ch)
	}
	all, err := without(units)
	if err != nil {
		return HierarchyPlan{}, err
	}
	if d, err = solve(all); err != nil {
		return HierarchyPlan{}, err
	}
	if d.Status != placement.Scheduled {
		// Worded as Find's, so that a tree's conditions read as a
		// PodGroup's.
		plan.Outcome, plan.Decision = CannotHelp, d
		if len(units) == 0 {
			plan.Message = fmt.Sprintf("preemption cannot help: no pod of priority below %d is in the way", priority)
		} else {
			plan.Message = fmt.Sprintf("preemption cannot help: even with every candidate victim of priority below %d removed (%d in all), %s", priority, len(units), firstClause(d.Message))
		}
		plan.Message += reservedNote(s)
		return plan, nil
	}
	var capa *hcapacity
	if len(units) <= MaxExactHierarchyUnits {
		capa = newHCapacity(s, root, units)
	}
	best, after, d, proven, err := chooseVictims(units, in.Budgets, capa, all, d, without, solve)
	if err != nil {
		return HierarchyPlan{}, err
	}
	plan.Outcome, plan.After, plan.Decision, plan.Proven = Preempt, after, d, proven
	var over int
	plan.Victims, over = hierarchyVictims(best, in.Budgets)
	plan.Cost = hierarchyCost(best, in.Budgets)
	// Worded as Find's, so that a tree's conditions read as a PodGroup's.
	plan.Message = fmt.Sprintf("evict %d pods in %d victims of priority at most %d (preemptor %d)", plan.Cost.Pods, len(best), plan.Cost.MaxPriority, priority)
	if over > 0 {
		plan.Message += fmt.Sprintf(", %d beyond a disruption budget", over)
	}
	plan.Message += "; then " + d.Message
	return plan, nil
}

// hierarchyVictims returns set's victims, most important first
// ([VictimOrder]), each with ExceedsBudgets as Find fills it in: the
// victims are counted against budgets from the least important up, so a
// victim exceeds a budget when the ones ranked below it have used up what
// it allows. It also returns how many victims exceed some budget.
func hierarchyVictims(set []*hunit, budgets []DisruptionBudget) ([]Victim, int) {
	ranked := slices.Clone(set)
	slices.SortFunc(ranked, func(a, b *hunit) int { return VictimOrder(&a.v, &b.v) })
	left := newAllowance(budgets)
	out := make([]Victim, len(ranked))
	over := 0
	for i := len(ranked) - 1; i >= 0; i-- {
		out[i] = ranked[i].v
		out[i].ExceedsBudgets = left.take(ranked[i].pods, true)
		if len(out[i].ExceedsBudgets) > 0 {
			over++
		}
	}
	return out, over
}

// chooseVictims picks the victim set among units (all removed: the
// snapshot all, where the tree fits as d): exactly in Cost order for few
// units (proven when a fitting set turns up within the solve budget;
// capa, when not nil, skips sets that cannot free enough), else by giving
// back the most important first.
func chooseVictims(units []*hunit, budgets []DisruptionBudget, capa *hcapacity, all *placement.Snapshot, d placement.HierarchyDecision,
	without func([]*hunit) (*placement.Snapshot, error), solve func(*placement.Snapshot) (placement.HierarchyDecision, error),
) (set []*hunit, after *placement.Snapshot, ad placement.HierarchyDecision, proven bool, err error) {
	// fits solves the tree with set removed.
	fits := func(set []*hunit) (*placement.Snapshot, placement.HierarchyDecision, bool, error) {
		snap, err := without(set)
		if err != nil {
			return nil, placement.HierarchyDecision{}, false, err
		}
		sd, err := solve(snap)
		return snap, sd, err == nil && sd.Status == placement.Scheduled, err
	}
	if len(units) <= MaxExactHierarchyUnits {
		set, snap, sd, err := exactVictims(units, budgets, capa, fits)
		if err != nil || set != nil {
			return set, snap, sd, set != nil, err
		}
	}
	kept := slices.Clone(units)
	after = all
	// units are in VictimOrder: give back the most important first.
	for i := 0; i < len(kept); {
		try := slices.Delete(slices.Clone(kept), i, i+1)
		snap, sd, ok, err := fits(try)
		if err != nil {
			return nil, nil, placement.HierarchyDecision{}, false, err
		}
		if ok {
			kept, after, d = try, snap, sd
			continue
		}
		i++
	}
	return kept, after, d, false, nil
}

// hierarchyUnits returns the candidate victims on s of a preemptor of
// priority, in VictimOrder: the units of bound pods outside the groups
// own, each unit's priority below priority.
func hierarchyUnits(s *placement.Snapshot, priority int32, in *HierarchyInput, own map[placement.Key]bool) []*hunit {
	byKey := map[placement.Key]*hunit{}
	var order []placement.Key
	for p := range s.Pods() {
		gk, grouped := p.GroupKey()
		if grouped && own[gk] {
			continue
		}
		prio := p.Priority
		unit := placement.Key{}
		whole := false
		if grouped {
			spec := in.PodGroups[gk]
			if spec.Priority != nil {
				prio = *spec.Priority
			}
			if top, ok := in.highestAll(gk); ok {
				unit, whole = top, true
			} else if spec.DisruptionMode == DisruptionModePodGroup {
				unit, whole = gk, true
			}
		}
		uk := unit
		if !whole {
			uk = p.Key()
		}
		u, ok := byKey[uk]
		if !ok {
			u = &hunit{v: Victim{Whole: whole, Priority: math.MinInt32}}
			if whole {
				u.v.PodGroup = unit
			} else if grouped {
				u.v.PodGroup = gk
			}
			byKey[uk] = u
			order = append(order, uk)
		}
		u.pods = append(u.pods, p)
		u.prio = append(u.prio, prio)
		u.v.Pods = append(u.v.Pods, p.Key())
		u.v.Priority = max(u.v.Priority, prio)
		if !p.StartTime.IsZero() && (u.v.StartTime.IsZero() || p.StartTime.Before(u.v.StartTime)) {
			u.v.StartTime = p.StartTime
		}
	}
	var out []*hunit
	for _, k := range order {
		if u := byKey[k]; u.v.Priority < priority {
			slices.SortFunc(u.v.Pods, placement.Key.Compare)
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b *hunit) int { return VictimOrder(&a.v, &b.v) })
	return out
}

// highestAll returns the highest CompositePodGroup above PodGroup gk with
// disruptionMode All, if any. The walk stops at a missing parent or after
// placement.MaxHierarchyDepth levels (a cycle).
func (in *HierarchyInput) highestAll(gk placement.Key) (placement.Key, bool) {
	var top placement.Key
	found := false
	name := in.Parents[gk]
	for depth := 0; name != "" && depth < placement.MaxHierarchyDepth; depth++ {
		k := placement.Key{Namespace: gk.Namespace, Name: name}
		c, ok := in.Composites[k]
		if !ok {
			break
		}
		if c.All {
			top, found = k, true
		}
		name = c.Parent
	}
	return top, found
}

// hierarchyCost is the [Cost] of evicting set, as the type defines it:
// each pod at its priority in preemption, but a whole unit's pods at the
// unit's priority.
func hierarchyCost(set []*hunit, budgets []DisruptionBudget) Cost {
	if len(set) == 0 {
		return Cost{}
	}
	var c Cost
	c.MaxPriority = math.MinInt32
	guarded := make([]int64, len(budgets))
	for _, u := range set {
		for i, p := range u.pods {
			prio := u.prio[i]
			if u.v.Whole {
				prio = u.v.Priority
			}
			c.Pods++
			c.PrioritySum += int64(prio) + 1<<31
			for b := range budgets {
				if budgets[b].Namespace == p.Namespace && budgets[b].Selector.Matches(p.Labels) {
					guarded[b]++
				}
			}
		}
		c.MaxPriority = max(c.MaxPriority, u.v.Priority)
	}
	for b, n := range guarded {
		c.BudgetViolations += max(n-int64(budgets[b].DisruptionsAllowed), 0)
	}
	for _, u := range set {
		if u.v.Priority == c.MaxPriority && !u.v.StartTime.IsZero() && (c.Start.IsZero() || u.v.StartTime.Before(c.Start)) {
			c.Start = u.v.StartTime
		}
	}
	return c
}

func walkLeaves(n *placement.HierarchyNode, f func(*placement.Group)) {
	if n == nil {
		return
	}
	if n.Group != nil {
		f(n.Group)
	}
	for _, c := range n.Children {
		walkLeaves(c, f)
	}
}
