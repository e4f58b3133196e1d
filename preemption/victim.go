package preemption

import (
	"cmp"
	"slices"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// Victim is one unit of eviction: a single pod, or a whole PodGroup whose
// disruptionMode is PodGroup (every bound member, on every node).
type Victim struct {
	// PodGroup is the PodGroup the victim belongs to: the group evicted
	// when Whole, the pod's group otherwise; zero for a pod outside any
	// group.
	PodGroup placement.Key
	// Whole is set when the victim is the whole PodGroup.
	Whole bool
	// Pods are the pods to evict, sorted by namespace/name.
	Pods []placement.Key
	// Priority is the victim's priority in preemption: the PodGroup's
	// spec.priority when set, else the pod's spec.priority; for a whole
	// group the highest over its members.
	Priority int32
	// StartTime is the pod's status.startTime; for a whole group the
	// earliest over its members. Zero means not started.
	StartTime time.Time
	// ExceedsBudgets lists, sorted, the disruption budgets that evicting
	// this victim goes beyond, given the victims of the same plan that
	// rank below it (those are counted against the budgets first). Empty
	// when every budget holds.
	ExceedsBudgets []placement.Key
}

func (v *Victim) grouped() bool { return v.PodGroup.Name != "" }

// key is the unique name of the victim: its group when whole, its pod
// otherwise (none for a Victim without pods, which Find never returns but
// a caller may sort).
func (v *Victim) key() placement.Key {
	if v.Whole || len(v.Pods) == 0 {
		return v.PodGroup
	}
	return v.Pods[0]
}

// VictimOrder ranks victims, most important first (scenario P9, after
// kube-scheduler's MoreImportantPod extended to PodGroups): higher priority
// first; at equal priority a victim belonging to a PodGroup before a pod
// outside any group; then the larger victim (more pods); then the one that
// started earlier (a victim that has not started counts as the latest);
// then a whole group before a pod; then the greater namespace/name, so that
// otherwise equal pods are evicted in name order. It returns a negative
// number when a is the more important; it is a total order over distinct
// victims.
//
// Preemption evicts the least important victims it can and gives back the
// most important ones first.
func VictimOrder(a, b *Victim) int {
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	if a.grouped() != b.grouped() {
		if a.grouped() {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(len(b.Pods), len(a.Pods)); c != 0 {
		return c
	}
	if c := compareStart(a.StartTime, b.StartTime); c != 0 {
		return c
	}
	if a.Whole != b.Whole {
		if a.Whole {
			return -1
		}
		return 1
	}
	return b.key().Compare(a.key())
}

// compareStart orders start times earliest first, zero (not started) last.
func compareStart(a, b time.Time) int {
	switch {
	case a.IsZero() && b.IsZero():
		return 0
	case a.IsZero():
		return 1
	case b.IsZero():
		return -1
	}
	return a.Compare(b)
}

// unit is a candidate victim with what the search needs.
type unit struct {
	v     Victim
	pods  []*placement.Pod
	nodes []placement.NodeID // node of pods[i]; nil until nodeIDs resolves it
	// overBudget is set when evicting the unit, after every less important
	// candidate, would go beyond a budget; such units are evicted last and
	// given back first.
	overBudget bool
}

// nodeIDs returns the nodes of u's pods. They are resolved on first use:
// the search looks at the nodes of few candidates, and a lookup by node
// name for every bound pod would cost more than the rest of collect.
func (u *unit) nodeIDs(s *placement.Snapshot) []placement.NodeID {
	if u.nodes == nil {
		u.nodes = make([]placement.NodeID, len(u.pods))
		for i, p := range u.pods {
			u.nodes[i], _ = s.NodeOf(p)
		}
	}
	return u.nodes
}

// collect returns the candidate victims of priority below prio, in
// eviction order: units within every budget before the others, each part
// least important first. Pods of the preemptor group itself are never
// candidates.
func collect(s *placement.Snapshot, g *placement.Group, in *Input, prio int32) []*unit {
	// Single-pod units are carved from chunks: a cluster may hold 10^5
	// pods, and three allocations each would dominate.
	const chunk = 512
	var units []*unit
	var slab []unit
	var keys []placement.Key
	var pods []*placement.Pod
	whole := make(map[placement.Key]*unit, min(len(in.PodGroups), s.NumPods()))
	// Members of a group are usually adjacent in name order: remember the
	// last group looked up.
	var lastKey placement.Key
	var lastSpec PodGroupSpec
	var lastUnit *unit
	for p := range s.Pods() {
		gk, grouped := p.GroupKey()
		if grouped && gk == g.Key() {
			continue
		}
		pp := p.Priority
		if grouped {
			if gk != lastKey {
				lastKey, lastSpec, lastUnit = gk, in.spec(gk), whole[gk]
			}
			if lastSpec.Priority != nil {
				pp = *lastSpec.Priority
			}
			if lastSpec.DisruptionMode == DisruptionModePodGroup {
				u := lastUnit
				if u == nil {
					u = &unit{v: Victim{PodGroup: gk, Whole: true, Priority: pp, StartTime: p.StartTime, Pods: make([]placement.Key, 0, 8)}, pods: make([]*placement.Pod, 0, 8)}
					whole[gk], lastUnit = u, u
				}
				u.v.Priority = max(u.v.Priority, pp)
				if compareStart(p.StartTime, u.v.StartTime) < 0 {
					u.v.StartTime = p.StartTime
				}
				u.v.Pods = append(u.v.Pods, p.Key())
				u.pods = append(u.pods, p)
				continue
			}
		}
		if pp >= prio {
			continue
		}
		if len(slab) == cap(slab) {
			slab = make([]unit, 0, chunk)
			keys, pods = make([]placement.Key, 0, chunk), make([]*placement.Pod, 0, chunk)
		}
		i := len(keys)
		keys, pods = append(keys, p.Key()), append(pods, p)
		slab = append(slab, unit{v: Victim{Pods: keys[i : i+1 : i+1], Priority: pp, StartTime: p.StartTime}, pods: pods[i : i+1 : i+1]})
		u := &slab[len(slab)-1]
		if grouped {
			u.v.PodGroup = gk
		}
		units = append(units, u)
	}
	for _, u := range whole { // sorted below
		if u.v.Priority < prio {
			units = append(units, u)
		}
	}
	// least important first
	slices.SortFunc(units, func(a, b *unit) int { return VictimOrder(&b.v, &a.v) })
	if len(in.Budgets) > 0 {
		left := newAllowance(in.Budgets)
		for _, u := range units {
			u.overBudget = len(left.take(u.pods, false)) > 0
		}
		slices.SortStableFunc(units, func(a, b *unit) int {
			if a.overBudget == b.overBudget {
				return 0
			}
			if a.overBudget {
				return 1
			}
			return -1
		})
	}
	return units
}

// allowance counts the disruptions each budget still allows.
type allowance struct {
	budgets []*DisruptionBudget
	byNS    map[string][]int // namespace -> indexes into budgets
	left    []int64
	need    []int64 // scratch, per budget
}

func newAllowance(bs []DisruptionBudget) *allowance {
	a := &allowance{budgets: sortedBudgets(bs), byNS: map[string][]int{}}
	a.left = make([]int64, len(a.budgets))
	a.need = make([]int64, len(a.budgets))
	for i, b := range a.budgets {
		a.left[i] = int64(b.DisruptionsAllowed)
		a.byNS[b.Namespace] = append(a.byNS[b.Namespace], i)
	}
	return a
}

// take counts the eviction of pods against the budgets and returns the
// budgets it goes beyond, sorted. With force unset, a unit that goes beyond
// some budget takes nothing (the allowance stays for more important
// units); with force set it is counted anyway, as a plan's victims are.
// Cost: O(pods × budgets of their namespace).
func (a *allowance) take(pods []*placement.Pod, force bool) []placement.Key {
	var hit []int
	for _, p := range pods {
		for _, i := range a.byNS[p.Namespace] {
			if a.budgets[i].matches(p) {
				if a.need[i] == 0 {
					hit = append(hit, i)
				}
				a.need[i]++
			}
		}
	}
	slices.Sort(hit)
	var over []placement.Key
	for _, i := range hit {
		if a.need[i] > a.left[i] {
			over = append(over, a.budgets[i].Key())
		}
	}
	for _, i := range hit {
		if len(over) == 0 || force {
			a.left[i] -= a.need[i]
		}
		a.need[i] = 0
	}
	return over
}
