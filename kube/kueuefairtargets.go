package kube

// fairTargets orders the ClusterQueues a fair-sharing preemption takes
// victims from, as Kueue's TargetClusterQueueOrdering: from the root of
// the preemptor's cohort tree down, at each cohort the child of the
// highest share with candidates left, a cohort winning ties against a
// ClusterQueue. Each call to next must be followed by a pop from, or the
// pruning of, the ClusterQueue it returns. The shares are read from t's
// usage as it stands at each call.
type fairTargets struct {
	t   quotaTree
	pre *KueueClusterQueue
	// path are the cohorts above the preemptor, up to the root.
	path map[string]bool
	root string
	// byCQ are each ClusterQueue's candidates, in order.
	byCQ   map[*KueueClusterQueue][]*preemptCand
	order  func(x, y *preemptCand) int
	pruned map[quotaNode]bool
}

// newFairTargets orders the ClusterQueues of cands (sorted by order) for
// a preemptor of ClusterQueue pre.
func newFairTargets(t quotaTree, pre *KueueClusterQueue, cands []*preemptCand, order func(x, y *preemptCand) int) *fairTargets {
	f := &fairTargets{t: t, pre: pre, path: map[string]bool{}, byCQ: map[*KueueClusterQueue][]*preemptCand{}, order: order, pruned: map[quotaNode]bool{}}
	for c := pre.Cohort; c != ""; c = t.q.parentOf(quotaNode{cohort: c}) {
		f.path[c], f.root = true, c
	}
	for _, c := range cands {
		f.byCQ[c.cq] = append(f.byCQ[c.cq], c)
	}
	return f
}

// has reports whether cq has candidates left.
func (f *fairTargets) has(cq *KueueClusterQueue) bool { return len(f.byCQ[cq]) > 0 }

// pop takes cq's next candidate.
func (f *fairTargets) pop(cq *KueueClusterQueue) *preemptCand {
	c := f.byCQ[cq][0]
	f.byCQ[cq] = f.byCQ[cq][1:]
	return c
}

// next is the ClusterQueue to take a victim from next; false when none is
// left. Without a cohort only the preemptor's own ClusterQueue is one.
func (f *fairTargets) next() (*KueueClusterQueue, bool) {
	if f.root == "" {
		return f.pre, f.has(f.pre)
	}
	for !f.pruned[quotaNode{cohort: f.root}] {
		if cq := f.nextUnder(f.root); cq != nil {
			return cq, true
		}
	}
	return nil, false
}

// nextUnder picks among cohort's children, pruning those that can give
// nothing: a ClusterQueue without candidates, or, but for the
// preemptor's, one that borrows nothing; a cohort off the preemptor's path
// that borrows nothing; cohort itself once every child is pruned. nil
// when this call only pruned. Among equal ClusterQueues the one whose
// first candidate comes first in order wins; among equal cohorts the last
// by name, as Kueue's >= keeps the last it meets (in an order it does not
// fix).
func (f *fairTargets) nextUnder(cohort string) *KueueClusterQueue {
	var cq *KueueClusterQueue
	var cqShare, coShare fairShare
	co := ""
	for _, n := range f.t.children(cohort) {
		if f.pruned[n] {
			continue
		}
		// A ClusterQueue without candidates is pruned whatever its share:
		// measuring it first cost the most of a search.
		if n.cq != nil && !f.has(n.cq) {
			f.pruned[n] = true
			continue
		}
		s := f.t.share(n)
		borrows := len(s.borrowed) > 0
		if n.cq != nil {
			switch {
			case !borrows && n.cq != f.pre:
				f.pruned[n] = true
			case cq == nil || compareShares(s, cqShare) > 0:
				cq, cqShare = n.cq, s
			case compareShares(s, cqShare) == 0 && f.order(f.byCQ[n.cq][0], f.byCQ[cq][0]) < 0:
				cq = n.cq
			}
			continue
		}
		switch {
		case !borrows && !f.path[n.cohort]:
			f.pruned[n] = true
		case co == "" || compareShares(s, coShare) >= 0:
			co, coShare = n.cohort, s
		}
	}
	switch {
	case co == "" && cq == nil:
		f.pruned[quotaNode{cohort: cohort}] = true
		return nil
	case co != "" && (cq == nil || compareShares(coShare, cqShare) >= 0):
		return f.nextUnder(co)
	}
	return cq
}

// shares are the shares Kueue's strategies compare for a victim of
// target: those of the nodes just below the lowest cohort holding both
// target and the preemptor's ClusterQueue (each ClusterQueue itself when
// that cohort is its own), the preemptor's side first.
func (f *fairTargets) shares(target *KueueClusterQueue) (pre, tgt fairShare) {
	lca := target.Cohort
	for lca != "" && !f.path[lca] {
		lca = f.t.q.parentOf(quotaNode{cohort: lca})
	}
	below := func(cq *KueueClusterQueue) quotaNode {
		n := quotaNode{cq: cq}
		for p := cq.Cohort; p != "" && p != lca; p = f.t.q.parentOf(quotaNode{cohort: p}) {
			n = quotaNode{cohort: p}
		}
		return n
	}
	return f.t.share(below(f.pre)), f.t.share(below(target))
}
