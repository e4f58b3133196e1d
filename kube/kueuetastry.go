package kube

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Which try a pending Workload's message tells, under the Kueue profiles:
// Kueue's, where its topology failure is worded as Kueue's
// (kueuetaswords.go), and gangsim's own reasons kept beside as the
// outcome's Detail.

// tasDetail is gangsim's own reason behind each of Kueue's topology
// messages that msg, w's final message, holds, and those of the flavors
// tried before that Kueue's message leaves out ([admitter.lastTry]),
// "; " between them; "" when there are none.
func (a *admitter) tasDetail(w *KueueWorkload, msg string) string {
	out := slices.Clone(a.tasDropped[w.Key()])
	own := a.tasDetails[w.Key()]
	var held []string
	for m := range own {
		if strings.Contains(msg, m) {
			held = append(held, m)
		}
	}
	slices.Sort(held)
	for _, m := range held {
		// A message without the excluded nodes is held in one with them:
		// the longer one is the message.
		if slices.ContainsFunc(held, func(o string) bool { return o != m && strings.Contains(o, m) }) {
			continue
		}
		if d := own[m]; !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return strings.Join(out, "; ")
}

// tasKept is a pending Workload's message worded as Kueue words a
// topology failure, with gangsim's detail, and the preemptions issued
// when it was worded.
type tasKept struct {
	msg, detail string
	preemptions int
}

// keptTASMessage returns the message (and detail) pending Workload w
// keeps after a failed try with msg and detail: Kueue sets a Workload
// aside as inadmissible after a failed try and tries it again only when
// a Workload frees room (one finished, deleted, evicted or preempted:
// QueueAssociatedInadmissibleWorkloadsAfter), not when others are
// admitted, so its QuotaReserved message keeps the reason of that try.
// gangsim plans a pending Workload again in every pass; where its last
// message was a topology failure worded as Kueue's (written in this run,
// or read with the Workload: the input's QuotaReserved False, reason
// Pending) and no Workload was preempted since, that message is kept,
// and its detail when written in this run (gangsim's newer one for a
// message read). Other messages are left as they are, and so are those
// of a Workload of a StrictFIFO ClusterQueue, which Kueue tries again
// every cycle (RequeueIfNotPresent, immediate).
func (a *admitter) keptTASMessage(w *KueueWorkload, msg, detail string) (string, string) {
	if a.triedEveryCycle(w) {
		return msg, detail
	}
	k, ok := a.tasKept[w.Key()]
	if !ok && a.opts.Plan.KueueNotFit {
		if m := pendingMessage(w); kueueTASMessage(m) {
			k, ok = tasKept{msg: m, detail: detail}, true
		}
	}
	if ok && k.preemptions == a.preemptions {
		if a.tasKept == nil {
			a.tasKept = map[placement.Key]tasKept{}
		}
		a.tasKept[w.Key()] = k
		return k.msg, k.detail
	}
	if detail == "" {
		delete(a.tasKept, w.Key())
		return msg, detail
	}
	if a.tasKept == nil {
		a.tasKept = map[placement.Key]tasKept{}
	}
	a.tasKept[w.Key()] = tasKept{msg: msg, detail: detail, preemptions: a.preemptions}
	return msg, detail
}

// pendingMessage is the message of w's QuotaReserved condition when it is
// False for reason Pending (as the input gave it, before this run writes
// one), else "".
func pendingMessage(w *KueueWorkload) string {
	for _, c := range w.Obj.Status.Conditions {
		if c.Type == kueue.WorkloadQuotaReserved && c.Status == metav1.ConditionFalse && c.Reason == kueueReasonPending {
			return c.Message
		}
	}
	return ""
}

// kueueTASMessage reports whether msg is a topology failure worded as
// Kueue's ([kueueNotFitReason]).
func kueueTASMessage(msg string) bool {
	return strings.HasPrefix(msg, "couldn't assign flavors to pod set ") &&
		(strings.Contains(msg, `: topology "`) || strings.Contains(msg, ": "+kueueBalancedNotFit))
}

// lastTry joins the reasons of w's tries in flavors tried one after
// another (planQueued) into its message. Kueue starts each scheduling
// attempt from the flavor after the last one tried and writes that
// attempt's message, so once the last flavor was tried its message is
// the last try's alone; gangsim tries them all at once and lists every
// reason. Under the Kueue profiles, where a try before the last failed
// on topology (worded as Kueue's), the message is the last try's alone
// and the earlier reasons go to the Workload's detail (gangsim's own for
// a topology failure); otherwise every reason is listed, "; " between
// them.
func (a *admitter) lastTry(w *KueueWorkload, tried []string) string {
	if len(tried) < 2 || !a.opts.Plan.KueueNotFit || !slices.ContainsFunc(tried[:len(tried)-1], kueueTASMessage) {
		return joinReasons(tried)
	}
	var dropped []string
	for _, m := range tried[:len(tried)-1] {
		d := m
		if own, ok := a.tasDetails[w.Key()][m]; ok {
			d = own
		}
		if d != "" && !slices.Contains(dropped, d) {
			dropped = append(dropped, d)
		}
	}
	if a.tasDropped == nil {
		a.tasDropped = map[placement.Key][]string{}
	}
	a.tasDropped[w.Key()] = dropped
	return tried[len(tried)-1]
}

// triedEveryCycle reports whether w's ClusterQueue is StrictFIFO, whose
// head Kueue tries again every cycle.
func (a *admitter) triedEveryCycle(w *KueueWorkload) bool {
	if a.opts.Queues == nil {
		return false
	}
	cq, why := a.route(w)
	return why == "" && cq.StrictFIFO
}

// keptNow returns the message w keeps from an earlier try in this run
// ([admitter.keptTASMessage]) while nothing was preempted since: a new
// try's message would be dropped for it, so it need not be worded.
func (a *admitter) keptNow(w *KueueWorkload) (string, bool) {
	k, ok := a.tasKept[w.Key()]
	if !ok || k.preemptions != a.preemptions || a.triedEveryCycle(w) {
		return "", false
	}
	return k.msg, true
}
