package preemption

import (
	"cmp"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// override is a PodGroup whose spec.priority replaces its pods' own: its
// candidates come from its members whatever their priorities.
type override struct {
	k     placement.Key
	pp    int32 // spec.priority
	whole bool  // disruptionMode PodGroup
}

func compareOverride(a, b override) int {
	if c := cmp.Compare(a.pp, b.pp); c != 0 {
		return c
	}
	return a.k.Compare(b.k)
}

// overrides lists in's PodGroups whose spec.priority is below below, by
// priority then key: O(entries + listed × log listed).
func (in *Input) overrides(below int64) []override {
	var out []override
	for k, spec := range in.PodGroups {
		if spec.Priority != nil && int64(*spec.Priority) < below {
			out = append(out, override{k: k, pp: *spec.Priority, whole: spec.DisruptionMode == DisruptionModePodGroup})
		}
	}
	slices.SortFunc(out, compareOverride)
	return out
}

// overridesBelow returns the PodGroups whose spec.priority is below prio,
// by priority then key: a prefix of the Index's list, or else read from
// the input in one pass.
func (f *finder) overridesBelow(prio int32) []override {
	if f.x == nil {
		return f.in.overrides(int64(prio))
	}
	n, _ := slices.BinarySearchFunc(f.x.over, prio, func(e override, prio int32) int {
		if e.pp < prio {
			return -1
		}
		return 1
	})
	return f.x.over[:n]
}

// belowLimit is how many pods below the preemptor's priority (and groups
// with a lower spec.priority) collectBelow reads before it gives way to
// collect: past it most bound pods are candidates, and collect's pass
// over every group (which an Index makes cheap on a snapshot's base) costs
// no more.
func belowLimit(s *placement.Snapshot) int { return s.NumPods()/8 + 64 }

// collectBelow returns what [collect] returns, the candidate victims of
// priority below prio in eviction order, reading only the bound pods whose
// own priority is below prio ([placement.Snapshot.PodsBelowPriority]) and
// the members of the groups in over, those whose spec.priority is below
// prio: a candidate is one of them, since a group without a priority
// override is a whole candidate only when its highest member is below
// prio. It returns false, having read at most limit pods and groups, when
// there are more; the caller then runs collect.
//
// Cost: O(log pods + pods below prio, each a lookup in in.PodGroups),
// plus O(log pods + members) for each group in over and each group in
// disruptionMode PodGroup with a pod below prio; the bound groups whose
// pods are all at or above prio, and have no lower override, cost nothing.
func collectBelow(s *placement.Snapshot, g *placement.Group, in *Input, over []override, prio int32, budgets bool, limit int) (*queue, bool) {
	if len(over) > limit {
		return nil, false
	}
	q := &queue{s: s}
	gk := g.Key()
	read := len(over)
	var whole map[placement.Key]bool // groups in disruptionMode PodGroup read
	for p := range s.PodsBelowPriority(prio) {
		if read++; read > limit {
			return nil, false
		}
		if p.SchedulingGroup == "" {
			q.add(p.Priority, 1, false, nil, p)
			continue
		}
		k := placement.Key{Namespace: p.Namespace, Name: p.SchedulingGroup}
		if k == gk {
			continue
		}
		spec := in.spec(k, nil)
		switch {
		case spec.Priority != nil:
			// A candidate by its group's priority, read from over below.
		case spec.DisruptionMode == DisruptionModePodGroup:
			if whole[k] {
				continue
			}
			if whole == nil {
				whole = map[placement.Key]bool{}
			}
			whole[k] = true
			if bg, ok := s.BoundGroup(k); ok && bg.MaxPriority < prio {
				q.add(bg.MaxPriority, bg.Pods, true, bg, nil)
			}
		default:
			q.add(p.Priority, 1, true, nil, p)
		}
	}
	for _, o := range over {
		if o.k == gk {
			continue
		}
		if o.whole {
			if bg, ok := s.BoundGroup(o.k); ok {
				q.add(o.pp, bg.Pods, true, bg, nil)
			}
			continue
		}
		for _, p := range s.GroupMembers(o.k) {
			q.add(o.pp, 1, true, nil, p)
		}
	}
	q.heapify()
	q.total = len(q.heap)
	if budgets {
		q.left = newAllowance(in.Budgets)
	}
	return q, true
}
