package kube

import (
	"cmp"

	"github.com/gangsched/gangsched/placement"
)

// fairCandidate is a head in a fair-sharing tournament: its entry's index
// among the cycle's entries and its index in the queue, its ClusterQueue and the quota its
// assignment takes, and, by cohort, the share of the node just below
// that cohort on the head's path, with the head admitted.
type fairCandidate struct {
	at, i  int
	cq     *KueueClusterQueue
	usage  map[flavorResource]int64
	shares map[string]fairShare
}

// fairUsage is the quota entry e's assignment takes, as Kueue's
// assignmentUsage: its plan's flavors when it fits (and, fitting at
// smaller counts, was nominated no victims for its whole), else those it
// would preempt in (nil when it fits no flavor: Kueue's NoFit, which the
// cycle skips wherever it comes).
func fairUsage(e cycleEntry) map[flavorResource]int64 {
	if ch := e.ps.adm.choice; ch != nil && e.ps.plan.Decision.Status == placement.Scheduled && len(e.victims) == 0 {
		return ch.usage
	}
	return e.vch.usage
}

// nextFair returns the index, among entries, of the head Kueue's fair
// sharing takes next from those not done, at the usage now; false when
// all are done.
//
// Within a cohort tree it is the winner of Kueue's tournament: at each
// cohort, from the root down, the children (each cohort's own winner, each
// ClusterQueue's head) are compared with their candidate admitted, by
// [admitter.fairLess]. Across trees, and for heads of ClusterQueues
// without a cohort (or routed nowhere), Kueue takes a ClusterQueue in Go
// map order; gangsim takes the tree winners and lone heads by priority,
// creation, then namespace/name, so that runs repeat.
func (a *admitter) nextFair(entries []cycleEntry, done []bool) (int, bool) {
	q := a.opts.Queues
	t := a.quota()
	byRoot := map[string][]fairCandidate{}
	var tops []int
	for i, e := range entries {
		if done[i] {
			continue
		}
		cq, why := a.route(a.queue[e.i])
		if why != "" || cq.Cohort == "" || t.inCycle(quotaNode{cq: cq}) {
			tops = append(tops, i)
			continue
		}
		c := fairCandidate{at: i, i: e.i, cq: cq, usage: fairUsage(e), shares: map[string]fairShare{}}
		// The shares with the head admitted: its usage added to its
		// ClusterQueue for the walk up, then taken off again.
		undo := a.withAdded(cq.Name, c.usage)
		n, root := quotaNode{cq: cq}, cq.Cohort
		for p := cq.Cohort; p != ""; p = q.parentOf(quotaNode{cohort: p}) {
			c.shares[p] = t.share(n)
			n, root = quotaNode{cohort: p}, p
		}
		undo()
		byRoot[root] = append(byRoot[root], c)
	}
	for root, cands := range byRoot { // each root's winner: any order, tops is sorted below
		tops = append(tops, a.tournament(t, root, cands).at)
	}
	best, found := -1, false
	for _, i := range tops {
		if !found || a.queueLess(entries[i].i, entries[best].i) {
			best, found = i, true
		}
	}
	return best, found
}

// queueLess orders pending Workloads a.queue[x] and a.queue[y] by
// priority (higher first), creation (earlier first), then
// namespace/name.
func (a *admitter) queueLess(x, y int) bool {
	wx, wy := a.queue[x], a.queue[y]
	return cmp.Or(cmp.Compare(wy.Priority, wx.Priority), wx.Created.Compare(wy.Created), wx.Key().Compare(wy.Key())) < 0
}

// tournament is the winner among cands, heads of ClusterQueues under
// cohort: each child cohort's winner and each child ClusterQueue's head,
// the least by [admitter.fairLess] at this cohort.
func (a *admitter) tournament(t quotaTree, cohort string, cands []fairCandidate) fairCandidate {
	var best fairCandidate
	found := false
	for _, n := range t.children(cohort) {
		var c fairCandidate
		ok := false
		if n.cq != nil {
			for _, x := range cands {
				if x.cq == n.cq {
					c, ok = x, true
				}
			}
		} else {
			var under []fairCandidate
			for _, x := range cands {
				if _, in := x.shares[n.cohort]; in {
					under = append(under, x)
				}
			}
			if len(under) > 0 {
				c, ok = a.tournament(t, n.cohort, under), true
			}
		}
		if ok && (!found || a.fairLess(c, best, cohort)) {
			best, found = c, true
		}
	}
	return best
}

// fairLess is Kueue's order of two candidates at cohort: the one whose
// node below cohort, with it admitted, borrows none of the
// flavor-resources it asks for first (the FairSharingPrioritizeNonBorrowing
// gate, on in v0.17); then the lower share ([compareShares]); then the
// higher priority (PrioritySortingWithinCohort, on); then the earlier
// creation; then, where Kueue keeps the first it met in an order it does
// not fix, namespace/name.
func (a *admitter) fairLess(x, y fairCandidate, cohort string) bool {
	sx, sy := x.shares[cohort], y.shares[cohort]
	if bx, by := sx.borrowsAny(x.usage), sy.borrowsAny(y.usage); bx != by {
		return by
	}
	if c := compareShares(sx, sy); c != 0 {
		return c < 0
	}
	return a.queueLess(x.i, y.i)
}
