package kube

import "strings"

// quotaDetails gives each Workload left pending for its quota or its
// queue, with a message in Kueue v0.17's words ([KueueOptions].KueueWords),
// gangsim's own reason on the final state as its Detail, where that says
// what Kueue's does not: which namespace and which ClusterQueue's
// selector, where a maximum capacity comes from (a nominal quota, or what
// a cohort may lend), and what is short now where Kueue's message keeps
// the numbers of the attempt that set the Workload aside
// (kueueasidereason.go). A detail the message already holds is left out,
// and so is one already given (a topology failure's).
func (a *admitter) quotaDetails(out []KueueOutcome) {
	q := a.opts.Queues
	if q == nil || !q.idx.kueueWords {
		return
	}
	// gangsim's own words, then Kueue's again.
	q.idx.kueueWords = false
	defer func() { q.idx.kueueWords = true }()
	for i := range out {
		o := &out[i]
		if o.Action != KueuePending || o.Held || o.Detail != "" || !kueueQuotaWords(o.Message) {
			continue
		}
		w := a.queue[i]
		cq, why := q.route(w) // not the admitter's cache, which holds Kueue's words
		if why == "" {
			_, why = q.assignFlavors(cq, w, a.quota(), map[[2]int]int{})
		}
		if why != "" && !strings.Contains(o.Message, why) {
			o.Detail = why
		}
	}
}

// kueueQuotaWords reports whether msg holds a reason of quota, queue or
// flavor in Kueue's words (a flavor without the requested level is not
// named the level).
func kueueQuotaWords(msg string) bool {
	return strings.Contains(msg, "quota for ") || strings.Contains(msg, namespaceMismatchWords) || strings.Contains(msg, "does not contain the requested level")
}
