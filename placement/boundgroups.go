package placement

import (
	"iter"
	"slices"
	"time"
)

// BoundGroup summarises the bound members of one PodGroup in a snapshot:
// what a victim search (workload-aware preemption, KEP-5710) ranks a whole
// group by, without reading every bound pod.
type BoundGroup struct {
	// Key is the PodGroup: the members' namespace and
	// spec.schedulingGroup.podGroupName.
	Key Key
	// Pods is the number of bound members, at least 1.
	Pods int
	// MaxPriority is the highest spec.priority among the bound members.
	MaxPriority int32
	// EarliestStart is the earliest status.startTime among the bound
	// members that have started; zero when none has.
	EarliestStart time.Time

	b      *base // with lo, hi: the members are b.byGroup()[lo:hi]; nil
	lo, hi int32 // for a summary of changed members
}

// boundIndex is the base pods grouped for [Snapshot.BoundGroups] and
// [Snapshot.UngroupedPods], built on first use.
type boundIndex struct {
	groups    []BoundGroup // key order
	ungrouped []int32      // base pods without a group, by key
}

func (b *base) boundIdx() *boundIndex {
	b.boundOnce.Do(func() {
		x := &boundIndex{}
		grouped := b.byGroup()
		for lo := 0; lo < len(grouped); {
			p := &b.pods[grouped[lo]]
			g := BoundGroup{Key: Key{p.Namespace, p.SchedulingGroup}, MaxPriority: p.Priority, b: b, lo: int32(lo)}
			hi := lo
			for ; hi < len(grouped); hi++ {
				q := &b.pods[grouped[hi]]
				if q.SchedulingGroup != p.SchedulingGroup || q.Namespace != p.Namespace {
					break
				}
				g.add(q)
			}
			g.hi = int32(hi)
			x.groups = append(x.groups, g)
			lo = hi
		}
		for i := range b.pods {
			if b.pods[i].SchedulingGroup == "" {
				x.ungrouped = append(x.ungrouped, int32(i))
			}
		}
		slices.SortFunc(x.ungrouped, b.cmpKey)
		b.bound = x
	})
	return b.bound
}

func (g *BoundGroup) add(p *Pod) {
	g.Pods++
	g.MaxPriority = max(g.MaxPriority, p.Priority)
	if !p.StartTime.IsZero() && (g.EarliestStart.IsZero() || p.StartTime.Compare(g.EarliestStart) < 0) {
		g.EarliestStart = p.StartTime
	}
}

// BoundGroups yields a summary of every PodGroup with bound pods, in key
// order. The summaries are shared and must not be modified.
//
// Cost: the summaries of the pods NewSnapshot was given are built on the
// first call for any snapshot of that NewSnapshot (O(pods) after the
// group order of [Snapshot.GroupMembers]) and shared; each call then costs
// O(groups), plus O(changes × log + members of the groups changed) on a
// snapshot derived with [Snapshot.Apply].
func (s *Snapshot) BoundGroups() iter.Seq[*BoundGroup] {
	return func(yield func(*BoundGroup) bool) {
		groups := s.b.boundIdx().groups
		changed := s.changedGroups()
		j := 0
		for i := range groups {
			g, replaced := &groups[i], false
			for ; j < len(changed) && changed[j].Key.Compare(g.Key) <= 0; j++ {
				replaced = changed[j].Key == g.Key
				if changed[j].Pods > 0 && !yield(&changed[j]) {
					return
				}
			}
			if !replaced && !yield(g) {
				return
			}
		}
		for ; j < len(changed); j++ {
			if changed[j].Pods > 0 && !yield(&changed[j]) {
				return
			}
		}
	}
}

// BoundMembers returns the bound members of g, a summary from
// s.BoundGroups(), sorted by name: [Snapshot.GroupMembers] of g.Key, found
// without a search when g's members are those NewSnapshot was given.
func (s *Snapshot) BoundMembers(g *BoundGroup) []*Pod {
	if g.b != s.b || s.removed != nil || s.addedGroup != nil {
		return s.GroupMembers(g.Key)
	}
	grouped := s.b.byGroup()[g.lo:g.hi]
	out := make([]*Pod, len(grouped))
	for i, j := range grouped {
		out[i] = &s.b.pods[j]
	}
	return out
}

// BoundGroup returns the summary of PodGroup k that [Snapshot.BoundGroups]
// yields, or false when k has no bound member. Cost: that of
// [Snapshot.GroupMembers], O(log pods + members).
func (s *Snapshot) BoundGroup(k Key) (*BoundGroup, bool) {
	members := s.GroupMembers(k)
	if len(members) == 0 {
		return nil, false
	}
	g := &BoundGroup{Key: k, MaxPriority: members[0].Priority}
	for _, p := range members {
		g.add(p)
	}
	return g, true
}

// changedGroups returns, in key order, the summaries now of the groups
// whose members Apply removed or added since NewSnapshot (Pods 0 for a
// group left without bound members).
func (s *Snapshot) changedGroups() []BoundGroup {
	var keys []Key
	if s.removed != nil {
		s.removed.Ascend(func(i int32) bool {
			if p := &s.b.pods[i]; p.SchedulingGroup != "" {
				keys = append(keys, Key{p.Namespace, p.SchedulingGroup})
			}
			return true
		})
	}
	if s.addedGroup != nil {
		s.addedGroup.Ascend(func(p *Pod) bool {
			keys = append(keys, Key{p.Namespace, p.SchedulingGroup})
			return true
		})
	}
	if len(keys) == 0 {
		return nil
	}
	slices.SortFunc(keys, Key.Compare)
	keys = slices.Compact(keys)
	out := make([]BoundGroup, len(keys))
	for i, k := range keys {
		out[i].Key = k
		for j, p := range s.GroupMembers(k) {
			if j == 0 {
				out[i].MaxPriority = p.Priority
			}
			out[i].add(p)
		}
	}
	return out
}

// UngroupedPods yields every bound pod without a PodGroup
// (spec.schedulingGroup unset), in namespace/name order.
//
// Cost: as [Snapshot.BoundGroups], O(pods yielded + changes × log).
func (s *Snapshot) UngroupedPods() iter.Seq[*Pod] {
	return func(yield func(*Pod) bool) {
		var extra []*Pod
		if s.added != nil {
			s.added.Ascend(func(e keyedPod) bool {
				if e.p.SchedulingGroup == "" {
					extra = append(extra, e.p)
				}
				return true
			})
		}
		s.mergeBase(s.b.boundIdx().ungrouped, extra, lessPod, yield)
	}
}
