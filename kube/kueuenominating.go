package kube

import (
	"maps"
	"slices"
	"strings"
)

// nominationCache keeps, for the nominations of one scheduling cycle
// ([admitter.admitInCycles]), what the preemption searches of its heads
// read of the cycle's starting state. Every head that does not fit is
// searched on that state (each search puts back what it takes out), and
// in a wide cohort each search read every ClusterQueue again: taking all
// of its candidates' quota out to choose flavors, and finding the
// ClusterQueues over their nominal quota. With about as many heads as
// ClusterQueues, and cycles growing with them, the run grew with the cube
// of the ClusterQueues. What is kept here is read only while the usage is
// the cycle's starting one, and dropped when the nominations end.
type nominationCache struct {
	// gone is the quota tree with the quota of the candidates of (their
	// queue indexes) taken out, as [admitter.without] takes it.
	gone   *quotaTree
	goneOf []int
	// lastOf are the candidates of the last search that did not find
	// gone kept for its own.
	lastOf []int
	// epoch and held are [admitter.usageEpoch] and
	// [admitter.withoutHeld] when gone and lastOf were kept.
	epoch, held int
	// collected are the ClusterQueues [quotaTree.collect] finds, with no
	// ClusterQueue left out, by cohort, cohort skipped and resources.
	collected map[string][]*KueueClusterQueue
}

// fresh drops what n keeps when the usage changed since it was kept
// (the heads' searches put back what they take out, so this is a safeguard).
func (n *nominationCache) fresh(a *admitter) {
	if n.epoch != a.usageEpoch || n.held != a.withoutHeld {
		n.gone, n.goneOf, n.lastOf = nil, nil, nil
		clear(n.collected)
		n.epoch, n.held = a.usageEpoch, a.withoutHeld
	}
}

// goneTree is the quota tree, during a cycle's nominations, with the
// quota the candidates all hold taken out, for a flavor choice as if they
// were gone: a copy of the usage, kept for the heads with the same
// candidates. ok is false outside the nominations, and the first time
// a search's candidates are seen.
func (a *admitter) goneTree(all []*preemptCand) (t quotaTree, ok bool) {
	n := a.nominating
	if n == nil {
		return quotaTree{}, false
	}
	n.fresh(a)
	same := func(of []int) bool {
		return slices.EqualFunc(of, all, func(i int, c *preemptCand) bool { return i == c.i })
	}
	if n.gone != nil && same(n.goneOf) {
		return *n.gone, true
	}
	// The copy is made for candidates seen a second time: heads whose
	// candidates differ (other priorities) take them out in place, which
	// costs less than a copy of every ClusterQueue's usage.
	if !same(n.lastOf) {
		n.lastOf = n.lastOf[:0]
		for _, c := range all {
			n.lastOf = append(n.lastOf, c.i)
		}
		return quotaTree{}, false
	}
	used := make(quotaUsage, len(a.used))
	for name, u := range a.used {
		used[name] = maps.Clone(u)
	}
	// The cohort sums as they are (their paths are found again, on the
	// copies), moved as [admitter.without] moves them.
	sums := &cohortSums{t: a.sums.t, sum: make(map[cohortFR]*wideSum, len(a.sums.sum)), paths: map[cqFR][]sumStep{}}
	for k, w := range a.sums.sum {
		c := *w
		sums.sum[k] = &c
	}
	for _, h := range heldBy(all) {
		takeOut(used, sums, h.k, h.g)
	}
	t = quotaTree{q: a.opts.Queues, used: used, sums: sums}
	n.gone, n.goneOf = &t, nil
	for _, c := range all {
		n.goneOf = append(n.goneOf, c.i)
	}
	return t, true
}

// collectOver is [quotaTree.collect] of t, a.quota(), calling add for the
// ClusterQueues but self it finds, in its order; during a cycle's
// nominations the ClusterQueues found are kept by cohort, cohort skipped
// and resources.
func (a *admitter) collectOver(t quotaTree, cohort, skip string, self *KueueClusterQueue, need map[flavorResource]bool, add func(*KueueClusterQueue)) {
	n := a.nominating
	if n == nil {
		t.collect(cohort, skip, self, need, add)
		return
	}
	n.fresh(a)
	var key strings.Builder
	key.WriteString(cohort + "\x00" + skip)
	frs := make([]string, 0, len(need))
	for fr := range need { // read as withinNominal reads it: every key
		frs = append(frs, fr.Flavor()+"\x01"+string(fr.Resource()))
	}
	slices.Sort(frs)
	for _, f := range frs {
		key.WriteString("\x00" + f)
	}
	found, ok := n.collected[key.String()]
	if !ok {
		t.collect(cohort, skip, nil, need, func(cq *KueueClusterQueue) { found = append(found, cq) })
		n.collected[key.String()] = found
	}
	for _, cq := range found {
		if cq != self {
			add(cq)
		}
	}
}
