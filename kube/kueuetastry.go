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
// topology failure, and the preemptions issued when it was worded.
type tasKept struct {
	msg         string
	preemptions int
}

// keptTASMessage returns the message pending Workload w keeps after a
// failed try with msg, without queues (with them, kueueasidereason.go
// keeps every reason of a Workload retried unprompted): Kueue sets a
// Workload aside as inadmissible after a failed try and tries it again
// only when a Workload frees room (one finished, deleted, evicted or
// preempted: QueueAssociatedInadmissibleWorkloadsAfter), not when others
// are admitted, so its QuotaReserved message keeps the reason of that
// try. gangsim plans a pending Workload again in every pass; where its
// last message was a topology failure worded as Kueue's (written in this
// run, or read with the Workload: the input's QuotaReserved False, reason
// Pending, so that a run on its own output keeps it) and no Workload was
// preempted since, that message is kept. Other messages are left as they
// are.
func (a *admitter) keptTASMessage(w *KueueWorkload, msg string) string {
	if !a.opts.KueueWords || a.opts.Queues != nil {
		return msg
	}
	k, ok := a.tasKept[w.Key()]
	if !ok {
		if m := pendingMessage(w); kueueTASMessage(m) {
			k, ok = tasKept{msg: m}, true
		}
	}
	if a.tasKept == nil {
		a.tasKept = map[placement.Key]tasKept{}
	}
	switch {
	case ok && k.preemptions == a.preemptions:
		a.tasKept[w.Key()] = k
		return k.msg
	case kueueTASMessage(msg):
		a.tasKept[w.Key()] = tasKept{msg: msg, preemptions: a.preemptions}
	default:
		delete(a.tasKept, w.Key())
	}
	return msg
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
// Kueue's ([kueueNotFitReason], [kueueNoDomainReason]).
func kueueTASMessage(msg string) bool {
	return strings.HasPrefix(msg, "couldn't assign flavors to pod set ") &&
		(strings.Contains(msg, `: topology "`) || strings.Contains(msg, ": TAS Balanced Placement: ") ||
			strings.Contains(msg, ": "+kueueNoDomainReason))
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
	if len(tried) < 2 || !a.opts.KueueWords || !slices.ContainsFunc(tried[:len(tried)-1], kueueTASMessage) {
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

// keptNow returns the message w keeps from an earlier try in this run
// ([admitter.keptTASMessage]) while nothing was preempted since: a new
// try's message would be dropped for it, so it need not be worded.
func (a *admitter) keptNow(w *KueueWorkload) (string, bool) {
	if !a.opts.KueueWords || a.opts.Queues != nil {
		return "", false
	}
	k, ok := a.tasKept[w.Key()]
	if !ok || k.preemptions != a.preemptions {
		return "", false
	}
	return k.msg, true
}
