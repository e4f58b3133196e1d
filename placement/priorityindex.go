package placement

import (
	"cmp"
	"iter"
	"slices"
)

// comparePriorityPod orders pods by spec.priority, then namespace/name.
func comparePriorityPod(a, b *Pod) int {
	if c := cmp.Compare(a.Priority, b.Priority); c != 0 {
		return c
	}
	return a.Key().Compare(b.Key())
}

func lessPriorityPod(a, b *Pod) bool { return comparePriorityPod(a, b) < 0 }

// byPriority returns the base pods by (priority, key), built on first use.
func (b *base) byPriority() []int32 {
	b.prioOnce.Do(func() {
		b.byPrio = make([]int32, len(b.pods))
		for i := range b.byPrio {
			b.byPrio[i] = int32(i)
		}
		slices.SortFunc(b.byPrio, func(x, y int32) int { return comparePriorityPod(&b.pods[x], &b.pods[y]) })
	})
	return b.byPrio
}

// indexesPriority reports whether addedPrio holds every added pod: true
// for NewSnapshot's snapshots and those Apply derives from them.
func (s *Snapshot) indexesPriority() bool { return s.added == nil || s.addedPrio != nil }

// PodsBelowPriority yields every bound pod whose spec.priority is below
// prio, by priority, then namespace/name. A preemptor's candidate victims
// are among them (and among the pods of groups whose PodGroup overrides
// their priority): a search for victims reads these instead of every bound
// pod.
//
// Cost: the first call for any snapshot of one NewSnapshot sorts its pods
// by priority, O(pods log pods), shared after that; each call then costs
// O(log pods + bound pods below prio + pods bound by NewSnapshot, below
// prio, that Apply removed), whatever the number of pods at or above prio. Snapshots
// that Apply derived are indexed incrementally (O(log) per pod bound).
func (s *Snapshot) PodsBelowPriority(prio int32) iter.Seq[*Pod] {
	return func(yield func(*Pod) bool) {
		if !s.indexesPriority() {
			// Not indexed (a view of the hierarchy search): filter and sort.
			var all []*Pod
			for p := range s.Pods() {
				if p.Priority < prio {
					all = append(all, p)
				}
			}
			slices.SortFunc(all, comparePriorityPod)
			for _, p := range all {
				if !yield(p) {
					return
				}
			}
			return
		}
		byPrio := s.b.byPriority()
		end, _ := slices.BinarySearchFunc(byPrio, prio, func(i int32, prio int32) int {
			if s.b.pods[i].Priority < prio {
				return -1
			}
			return 1
		})
		var extra []*Pod
		if s.addedPrio != nil {
			s.addedPrio.Ascend(func(p *Pod) bool {
				if p.Priority >= prio {
					return false
				}
				extra = append(extra, p)
				return true
			})
		}
		s.mergeBase(byPrio[:end], extra, lessPriorityPod, yield)
	}
}

// mergeBase yields the pods NewSnapshot bound at base (indexes into b.pods,
// in less order) that Apply has not removed, merged with extra (pods Apply
// added, in the same order), until yield says stop.
func (s *Snapshot) mergeBase(base []int32, extra []*Pod, less func(a, b *Pod) bool, yield func(*Pod) bool) {
	j := 0
	for _, i := range base {
		if s.isRemoved(i) {
			continue
		}
		p := &s.b.pods[i]
		for ; j < len(extra) && less(extra[j], p); j++ {
			if !yield(extra[j]) {
				return
			}
		}
		if !yield(p) {
			return
		}
	}
	for ; j < len(extra); j++ {
		if !yield(extra[j]) {
			return
		}
	}
}
