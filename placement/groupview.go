package placement

import (
	"fmt"
	"iter"
	"slices"
)

// GroupView is the read-only view of a [Group] that [Solve] hands its
// hooks (generators, scorers, placement filters, NewReserverFuncs). Its
// fields are the group's, as Solve validated it (a pod set's template is
// named after its set, in the group's namespace); its methods answer as
// [Group]'s methods would, but read what Solve compiled of the members
// once — their request vectors, classes of identical pods, the bound
// count — so that a hook pays nothing to read them.
//
// A hook must not modify the group through the view. Solve hands each
// call a fresh shallow copy of its own copy of the group, so a hook that
// reassigns a field reaches neither the caller's group nor the solver; the
// view's methods still answer from what Solve compiled. A view kept after
// the hook returns keeps answering the same: nothing it reads is reused by
// later solves.
//
// A host that calls a hook itself (a test, a wrapper) passes
// GroupView{Group: g}: without compiled state, its methods compute their
// answers from g, exactly as g's own methods do.
type GroupView struct {
	*Group
	prep *prepared // nil outside a Solve
}

// prepared is what Solve compiled of a group for its hooks.
type prepared struct {
	b         *base
	req       []int64 // class c's vector at [c*R, (c+1)*R)
	rowClass  []int32 // per row (member i at i, pod set k at len(Members)+k), its class
	starts    []int   // pod set k's first pending index; len(PodSets)+1 entries
	classRow  []int   // per class of identical pods, a row of it
	classPods []int   // per class, its pods
	bound     int
	untracked bool
	// oneReq and onePods hold req and classPods when the members are one
	// class (prepareMembers, classTables) and R ≤ 8, sparing their
	// allocations.
	oneReq  [8]int64
	onePods [1]int
	// oneStarts holds starts for a group of one pod set (Solve).
	oneStarts [2]int
}

// compiled reports whether the view carries what a Solve on s compiled.
func (v GroupView) compiled(s *Snapshot) bool { return v.prep != nil && v.prep.b == s.b }

// NumPending returns [Group.NumPending].
func (v GroupView) NumPending() int {
	if v.prep != nil && v.prep.starts != nil {
		return v.prep.starts[len(v.PodSets)]
	}
	n := len(v.Members)
	for i := range v.PodSets {
		n += int(max(v.PodSets[i].Count, 0))
	}
	return n
}

// PodSetStart returns [Group.PodSetStart].
func (v GroupView) PodSetStart(k int) int {
	_ = v.PodSets[k]
	if v.prep != nil && v.prep.starts != nil {
		return v.prep.starts[k]
	}
	start := len(v.Members)
	for j := range k {
		start += int(max(v.PodSets[j].Count, 0))
	}
	return start
}

// podSetOf returns the pod set that pending index i (≥ len(Members))
// falls in, or -1.
func (v GroupView) podSetOf(i int) int {
	if v.prep != nil && v.prep.starts != nil {
		k, found := slices.BinarySearch(v.prep.starts, i)
		if !found {
			k--
		}
		return min(k, len(v.PodSets)-1)
	}
	start := len(v.Members)
	for k := range v.PodSets {
		start += int(max(v.PodSets[k].Count, 0))
		if i < start {
			return k
		}
	}
	return -1
}

// PendingKey returns [Group.PendingKey].
func (v GroupView) PendingKey(i int) Key {
	if i >= 0 && i < len(v.Members) {
		return v.Members[i].Key()
	}
	if i < 0 || i >= v.NumPending() {
		return Key{}
	}
	return Key{v.Namespace, v.PodSets[v.podSetOf(i)].Name}
}

// PendingIndexes returns [Group.PendingIndexes].
func (v GroupView) PendingIndexes(a []Assignment) []int {
	out := make([]int, len(a))
	var byKey map[Key]int
	n := v.NumPending()
	for j := range a {
		i := a[j].Member
		if j > 0 && i == a[j-1].Member && a[j].Pod == a[j-1].Pod {
			out[j] = out[j-1] // a pod set's entries come in a row
			continue
		}
		if i >= 0 && i < n && v.PendingKey(i) == a[j].Pod {
			out[j] = i
			continue
		}
		if byKey == nil {
			byKey = make(map[Key]int, len(v.Members)+len(v.PodSets))
			for k := range v.Members {
				byKey[v.Members[k].Key()] = k
			}
			start := len(v.Members)
			for k := range v.PodSets {
				if _, dup := byKey[Key{v.Namespace, v.PodSets[k].Name}]; !dup && v.PodSets[k].Count > 0 {
					byKey[Key{v.Namespace, v.PodSets[k].Name}] = start
				}
				start += int(max(v.PodSets[k].Count, 0))
			}
		}
		var ok bool
		if out[j], ok = byKey[a[j].Pod]; !ok {
			out[j] = -1
		}
	}
	return out
}

// RequestVector returns what [Group.RequestVector] does. Inside a [Solve]
// on s it costs nothing: the vector is the one the solver compiled, and
// must not be modified.
func (v GroupView) RequestVector(s *Snapshot, i int) []int64 {
	R := len(s.b.res)
	row, p := i, (*Pod)(nil)
	if i >= 0 && i < len(v.Members) {
		p = &v.Members[i]
	} else if k := v.podSetOf(i); i >= 0 && i < v.NumPending() && k >= 0 {
		row, p = len(v.Members)+k, &v.PodSets[k].Template
	} else {
		panic(fmt.Sprintf("placement: pending index %d out of range [0:%d]", i, v.NumPending()))
	}
	if v.compiled(s) && v.prep.req != nil {
		c := int(v.prep.rowClass[row])
		return v.prep.req[c*R : (c+1)*R : (c+1)*R]
	}
	return s.b.requestRow(p)
}

// requestRow returns p's requests indexed like the snapshot's resources,
// with 1 for the pod count; requests of untracked resources are left out.
func (b *base) requestRow(p *Pod) []int64 {
	v := make([]int64, len(b.res))
	v[b.podsR] = 1
	for r, q := range p.Requests {
		if j, ok := b.resIdx[r]; ok && j != b.podsR {
			v[j] = q
		}
	}
	return v
}

// RequestCounts yields what [Group.RequestCounts] does. Inside a [Solve]
// on s it costs O(classes of identical pods): the solver found them once.
func (v GroupView) RequestCounts(s *Snapshot) iter.Seq2[[]int64, int] {
	return func(yield func([]int64, int) bool) {
		if v.compiled(s) && v.prep.classRow != nil {
			R := len(s.b.res)
			for c, pods := range v.prep.classPods {
				if !yield(v.prep.req[c*R:(c+1)*R:(c+1)*R], pods) {
					return
				}
			}
			return
		}
		for i := range v.Members {
			if !yield(v.RequestVector(s, i), 1) {
				return
			}
		}
		for k := range v.PodSets {
			if v.PodSets[k].Count <= 0 {
				continue // an invalid set stands for no pod
			}
			if !yield(v.RequestVector(s, v.PodSetStart(k)), int(v.PodSets[k].Count)) {
				return
			}
		}
	}
}

// RequestsUntracked returns [Group.RequestsUntracked]. Inside a [Solve] on
// s it costs nothing.
func (v GroupView) RequestsUntracked(s *Snapshot) bool {
	if v.compiled(s) && v.prep.req != nil {
		return v.prep.untracked
	}
	untracked := func(p *Pod) bool {
		for r, q := range p.Requests {
			if _, ok := s.b.resIdx[r]; !ok && q > 0 {
				return true
			}
		}
		return false
	}
	for i := range v.Members {
		if untracked(&v.Members[i]) {
			return true
		}
	}
	for i := range v.PodSets {
		if untracked(&v.PodSets[i].Template) {
			return true
		}
	}
	return false
}

// BoundCount returns [Group.BoundCount]. Inside a [Solve] on s it costs
// nothing.
func (v GroupView) BoundCount(s *Snapshot) int {
	if v.compiled(s) {
		return v.prep.bound
	}
	return len(s.GroupMembers(v.Key()))
}
