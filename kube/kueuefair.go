package kube

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// This file orders a scheduling cycle's heads as Kueue v0.17 does with
// fair sharing on (pkg/scheduler fair_sharing_iterator.go,
// pkg/cache/scheduler fair_sharing.go). Each next head is chosen anew on
// the usage now, which the heads taken before it in the cycle changed:
// within a cohort tree, a tournament from the root down, at each cohort
// the child whose dominant resource share would be lowest with its
// candidate admitted winning.

// fairShare is a node's dominant resource share (Kueue's DRS): how much
// beyond its subtree quota it uses, relative to what its parent could
// lend it, divided by its weight.
type fairShare struct {
	// weight is the node's spec.fairSharing.weight.
	weight float64
	// ratio is the unweighted share: over the resources (flavors
	// summed), the largest of 1000 × the amount used beyond the node's
	// subtree quota ÷ what its parent could lend of that resource with
	// nothing in use (0 when it borrows nothing, or the parent could
	// lend none of what it borrows).
	ratio float64
	// borrowed are the flavor-resources the node uses beyond its subtree
	// quota.
	borrowed []flavorResource
}

// weighted is the share divided by the weight: 0 when nothing is
// borrowed, +Inf for weight 0.
func (s fairShare) weighted() float64 {
	switch {
	case s.ratio == 0:
		return 0
	case s.weight == 0:
		return math.Inf(1)
	}
	return s.ratio / s.weight
}

// zeroWeightBorrows reports a node of weight 0 with a share above 0: it
// loses to every node that is not one too.
func (s fairShare) zeroWeightBorrows() bool { return s.weight == 0 && s.ratio != 0 }

// borrowsAny reports whether the node borrows a flavor-resource u asks
// for (Kueue's IsBorrowingOn).
func (s fairShare) borrowsAny(u map[flavorResource]int64) bool {
	return slices.ContainsFunc(s.borrowed, func(fr flavorResource) bool { return u[fr] > 0 })
}

// compareShares orders two shares, lower first, as Kueue's CompareDRS:
// nodes of weight 0 that borrow after all others, among themselves by
// the unweighted share; the others by the weighted share.
func compareShares(a, b fairShare) int {
	az, bz := a.zeroWeightBorrows(), b.zeroWeightBorrows()
	switch {
	case az && bz:
		return cmp.Compare(a.ratio, b.ratio)
	case az:
		return 1
	case bz:
		return -1
	}
	return cmp.Compare(a.weighted(), b.weighted())
}

// fairWeightOf is node n's weight; an implicit cohort's is 1.
func (t quotaTree) fairWeightOf(n quotaNode) float64 {
	if n.cq != nil {
		return weightOf(n.cq.FairWeight)
	}
	if c := t.q.Cohorts[n.cohort]; c != nil {
		return weightOf(c.FairWeight)
	}
	return 1
}

// flavorResources are the flavor-resources node n has quota entries for,
// 0 included: a ClusterQueue's, or a cohort's own and its subtree's
// (Kueue's SubtreeQuota keys), sorted; the caller must not change them.
// They are kept in the queues' index ([quotaIndex]): the shares of a
// fair-sharing cycle read them at every node of every walk, and walking
// the subtree each time made those cycles a hundred times slower than
// classical ones.
func (t quotaTree) flavorResources(n quotaNode) []flavorResource {
	m := t.q.idx
	if frs, ok := m.frs[n]; ok {
		return frs
	}
	if m.frs == nil {
		m.frs = map[quotaNode][]flavorResource{}
	}
	frs := t.flavorResourcesOf(n)
	m.frs[n] = frs
	return frs
}

// flavorResourcesOf is [quotaTree.flavorResources], walked.
func (t quotaTree) flavorResourcesOf(n quotaNode) []flavorResource {
	set := map[flavorResource]bool{}
	var walk func(n quotaNode)
	walk = func(n quotaNode) {
		var groups []KueueResourceGroup
		if n.cq != nil {
			groups = n.cq.Groups
		} else if c := t.q.Cohorts[n.cohort]; c != nil {
			groups = c.Groups
		}
		for _, g := range groups {
			for _, fq := range g.Flavors {
				for _, r := range g.Covered {
					set[frOf(fq.Flavor, r)] = true
				}
			}
		}
		if n.cq == nil {
			for _, c := range t.children(n.cohort) {
				walk(c)
			}
		}
	}
	walk(n)
	return slices.SortedFunc(maps.Keys(set), compareFlavorResources)
}

// compareFlavorResources orders flavor-resources by flavor, then resource.
func compareFlavorResources(a, b flavorResource) int {
	return cmp.Or(cmp.Compare(a.Flavor(), b.Flavor()), cmp.Compare(a.Resource(), b.Resource()))
}

// share is node n's dominant resource share at the usage t holds; the
// zero share (n's weight, nothing borrowed) for a root, which has no
// parent to borrow from. n must not be under a cycle of cohorts.
func (t quotaTree) share(n quotaNode) fairShare {
	s := fairShare{weight: t.fairWeightOf(n)}
	parent := t.q.parentOf(n)
	if parent == "" {
		return s
	}
	borrowed := map[placement.ResourceName]int64{}
	for _, fr := range t.flavorResources(n) {
		if over := t.usageOf(n, fr) - t.subtreeOf(n, fr); over > 0 {
			borrowed[fr.Resource()] = sum(borrowed[fr.Resource()], over)
			s.borrowed = append(s.borrowed, fr)
		}
	}
	if len(borrowed) == 0 {
		return s
	}
	lendable := t.lendable(parent)
	for r, b := range borrowed {
		if l := lendable[r]; l > 0 {
			s.ratio = max(s.ratio, float64(b)*1000/float64(l))
		}
	}
	return s
}

// lendable is, per resource, what cohort could lend a child with nothing
// in use: its potential summed over every flavor of its whole tree
// (Kueue's calculateLendable). The specs alone fix it, so it is kept in
// the queues' index; the caller must not change it.
func (t quotaTree) lendable(cohort string) map[placement.ResourceName]int64 {
	m := t.q.idx
	if l, ok := m.lendable[cohort]; ok {
		return l
	}
	root := cohort
	for p := cohort; p != ""; p = t.q.parentOf(quotaNode{cohort: p}) {
		root = p
	}
	l := map[placement.ResourceName]int64{}
	for _, fr := range t.flavorResources(quotaNode{cohort: root}) {
		l[fr.Resource()] = sum(l[fr.Resource()], t.potentialOf(quotaNode{cohort: cohort}, fr))
	}
	if m.lendable == nil {
		m.lendable = map[string]map[placement.ResourceName]int64{}
	}
	m.lendable[cohort] = l
	return l
}
