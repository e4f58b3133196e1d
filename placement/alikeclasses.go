package placement

import "slices"

// Classes of members alike under affinity. prepareMembers merges members
// of equal requests and node filters into one class without looking at
// their labels or terms; once the terms are compiled, splitUnalike keeps
// in one class only members that the terms cannot tell apart either — the
// same classes of terms owned, selected by the same classes. A gang of
// identical members with terms is then one class, as it is without terms:
// the answer's sums are summed once per class, hooks read one request
// vector, and the greedy passes find its runs (alikeEnd) without comparing
// member to member. The search still tries each member of such a class
// (see dfs.twins), so decisions are those of a class a member
// (TestProp_AlikeClassesAreMembersApart).

// classesApart gives every member of a group with affinity terms a class
// of its own, as before splitUnalike, so that tests can compare the two.
// (Affinity without terms leaves the cons empty: its members are batched
// as a group without affinity is, in classes of equal requests.)
var classesApart bool

// splitUnalike refines prepareMembers' classes so that each is a run, in
// member order, of members alike under the compiled cons (termsAlike):
// when every class already is one (identical members, the rule), it
// changes nothing; otherwise each run of alike members of one class
// becomes a class, ids in member order as prepareMembers gives them. A
// group with pod sets has no cons: a row is a member.
func (sv *solver) splitUnalike() {
	apart := classesApart && !sv.cons.empty()
	if !apart && sv.classes == 1 && sv.cons.pendingAlike {
		return // one class, every pair of members termsAlike: one run
	}
	same := func(k int) bool { // member k is of member k-1's class
		return !apart && sv.class[sv.members[k].row] == sv.class[sv.members[k-1].row]
	}
	runs := !apart
	last := int32(-1) // the highest class met so far
	for k, m := range sv.members {
		c := sv.class[m.row]
		switch {
		case k > 0 && same(k):
			runs = sv.termsAlike(k-1, k)
		case c <= last: // the class came before, in another run
			runs = false
		}
		if !runs {
			break
		}
		last = c
	}
	if runs {
		return
	}
	class := make([]int32, len(sv.class))
	reqs := make([]int64, 0, len(sv.members)*sv.R)
	var classRow, classPods []int
	for k, m := range sv.members {
		if k == 0 || !same(k) || !sv.termsAlike(k-1, k) {
			classRow, classPods = append(classRow, int(m.row)), append(classPods, 0)
			reqs = append(reqs, sv.req(m.row)...)
		}
		class[m.row] = int32(len(classRow) - 1)
		classPods[len(classPods)-1]++
	}
	sv.class, sv.reqs, sv.classes = class, reqs, len(classRow)
	sv.prep.req, sv.prep.rowClass, sv.prep.classRow, sv.prep.classPods = reqs, class, classRow, classPods
}

// termsAlike reports whether the cons cannot tell members i and j apart:
// they own terms of the same classes and the same classes select them.
func (sv *solver) termsAlike(i, j int) bool {
	c, ci, cj := sv.cons, sv.bound+i, sv.bound+j
	if c.pendingAlike || c.own[ci] == c.own[cj] && slices.Equal(c.matchers(ci), c.matchers(cj)) {
		return true // one run's terms: the rule
	}
	if !slices.Equal(c.matchers(ci), c.matchers(cj)) || len(c.owned(ci)) != len(c.owned(cj)) {
		return false
	}
	for x, ti := range c.owned(ci) {
		if c.terms[ti].cls != c.terms[c.owned(cj)[x]].cls {
			return false
		}
	}
	return true
}
