package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Admission checks, as Kueue v0.17 runs them (its workload controller's
// reconcileSyncAdmissionChecks, SyncAdmittedCondition and
// reconcileCheckBasedEviction): a Workload whose ClusterQueue has checks
// for its flavors holds quota (QuotaReserved True) but is Admitted only
// once every check is Ready; a Retry check evicts it, a Rejected one
// deactivates it. gangsim runs no check controller: it reads the states
// the input gives and writes a new check Pending.

// KueueCheckRule is one rule of a ClusterQueue's
// spec.admissionChecksStrategy.admissionChecks: the AdmissionCheck named
// runs for a Workload holding quota in one of OnFlavors, or for every
// Workload when OnFlavors is empty.
type KueueCheckRule struct {
	Name      string
	OnFlavors []string
}

// ConvertAdmissionCheck reads an AdmissionCheck: whether it is active
// (its status condition Active is True, which only its controller sets:
// one never reconciled is inactive, and Kueue leaves a ClusterQueue
// naming it inactive).
//
// Errors: nil, or an empty spec.controllerName (ErrInvalid naming the
// object and field), which Kueue's API refuses.
func ConvertAdmissionCheck(ac *kueue.AdmissionCheck) (bool, error) {
	if ac == nil {
		return false, errNil("Kueue AdmissionCheck")
	}
	if ac.Spec.ControllerName == "" {
		return false, placement.Errorf(placement.ErrInvalid, fmt.Sprintf("Kueue AdmissionCheck %q", ac.Name), "spec.controllerName", "must be set")
	}
	return apimeta.IsStatusConditionTrue(ac.Status.Conditions, kueue.AdmissionCheckActive), nil
}

// convertCheckRules reads spec.admissionChecksStrategy of ClusterQueue
// obj. Errors (ErrInvalid or ErrDuplicate, naming the field): a rule
// without a name, a name given twice, an empty flavor name.
func convertCheckRules(obj string, s *kueue.AdmissionChecksStrategy) ([]KueueCheckRule, error) {
	if s == nil {
		return nil, nil
	}
	var out []KueueCheckRule
	seen := map[string]string{}
	for i, r := range s.AdmissionChecks {
		f := fmt.Sprintf("spec.admissionChecksStrategy.admissionChecks[%d]", i)
		if r.Name == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".name", "must be set")
		}
		if prev, dup := seen[string(r.Name)]; dup {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, f+".name", "%q is also %s", r.Name, prev)
		}
		seen[string(r.Name)] = f + ".name"
		rule := KueueCheckRule{Name: string(r.Name)}
		for j, fl := range r.OnFlavors {
			if fl == "" {
				return nil, placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s.onFlavors[%d]", f, j), "empty flavor name")
			}
			rule.OnFlavors = append(rule.OnFlavors, string(fl))
		}
		out = append(out, rule)
	}
	return out, nil
}

// checkStates validates status.admissionChecks of Workload obj: each
// with a name given once, a state of Kueue's four, and podSetUpdates
// that name a pod set of w and whose tolerations, annotations,
// nodeSelector and labels are valid, as Kueue v0.17's Workload webhook
// requires them, in that order (its second pass plans with the
// nodeSelector and tolerations: kueuesecondpass.go; the labels and
// annotations go on the pods, which gangsim does not write). Errors name
// the field (ErrInvalid, ErrDuplicate or ErrNotFound).
func checkStates(obj string, w *kueue.Workload) error {
	seen := map[kueue.AdmissionCheckReference]bool{}
	for i, c := range w.Status.AdmissionChecks {
		f := fmt.Sprintf("status.admissionChecks[%d]", i)
		if c.Name == "" {
			return placement.Errorf(placement.ErrInvalid, obj, f+".name", "must be set")
		}
		if seen[c.Name] {
			return placement.Errorf(placement.ErrDuplicate, obj, f+".name", "check %q is listed twice", c.Name)
		}
		seen[c.Name] = true
		switch c.State {
		case kueue.CheckStatePending, kueue.CheckStateReady, kueue.CheckStateRetry, kueue.CheckStateRejected:
		default:
			return placement.Errorf(placement.ErrInvalid, obj, f+".state", "%q is not Pending, Ready, Retry or Rejected", c.State)
		}
		for j, u := range c.PodSetUpdates {
			uf := fmt.Sprintf("%s.podSetUpdates[%d]", f, j)
			if !slices.ContainsFunc(w.Spec.PodSets, func(ps kueue.PodSet) bool { return ps.Name == u.Name }) {
				return placement.Errorf(placement.ErrNotFound, obj, uf+".name", "%q is not a pod set of the Workload", u.Name)
			}
			for k, t := range u.Tolerations {
				if _, err := convertToleration(obj, fmt.Sprintf("%s.tolerations[%d]", uf, k), t); err != nil {
					return err
				}
			}
			if err := checkAnnotations(obj, uf+".annotations", u.Annotations); err != nil {
				return err
			}
			if err := checkLabels(obj, uf+".nodeSelector", u.NodeSelector); err != nil {
				return err
			}
			if err := checkLabels(obj, uf+".labels", u.Labels); err != nil {
				return err
			}
		}
	}
	return nil
}

// checksInactive words why cq's admission checks leave it inactive, as
// Kueue's ClusterQueue cache does: checks missing from the input, checks
// not Active ("" when none).
func (q *KueueQueues) checksInactive(cq *KueueClusterQueue) []string {
	var missing, inactive, why []string
	for _, r := range cq.Checks {
		active, ok := q.AdmissionChecks[r.Name]
		switch {
		case !ok:
			missing = append(missing, r.Name)
		case !active:
			inactive = append(inactive, r.Name)
		}
	}
	if len(missing) > 0 {
		why = append(why, "it names missing AdmissionCheck(s) "+strings.Join(missing, ", "))
	}
	if len(inactive) > 0 {
		why = append(why, "it names AdmissionCheck(s) without an Active condition True: "+strings.Join(inactive, ", "))
	}
	return why
}

// checksFor are the names of cq's checks that run for Workload w, by the
// flavors its status.admission holds quota in, sorted: as Kueue's
// AdmissionChecksForWorkload, every check when everyAll (each rule
// covers all of cq's flavors: [rulesOnAllFlavors]), else those whose
// onFlavors name a flavor of w's.
func checksFor(cq *KueueClusterQueue, everyAll bool, w *kueue.Workload) []string {
	held := map[string]bool{}
	if adm := w.Status.Admission; adm != nil {
		for _, psa := range adm.PodSetAssignments {
			for _, f := range psa.Flavors {
				held[string(f)] = true
			}
		}
	}
	var out []string
	for _, r := range cq.Checks {
		if everyAll || len(r.OnFlavors) == 0 && len(held) > 0 || slices.ContainsFunc(r.OnFlavors, func(f string) bool { return held[f] }) {
			out = append(out, r.Name)
		}
	}
	slices.Sort(out)
	return out
}

// rulesOnAllFlavors reports whether every check rule of cq covers all of
// its flavors: it names none, or exactly them. It depends on cq alone:
// [KueueQueues.indexed] keeps it per ClusterQueue.
func rulesOnAllFlavors(cq *KueueClusterQueue) bool {
	all := map[string]bool{}
	for _, g := range cq.Groups {
		for _, f := range g.Flavors {
			all[f.Flavor] = true
		}
	}
	for _, r := range cq.Checks {
		on := map[string]bool{}
		for _, f := range r.OnFlavors {
			on[f] = true
		}
		if len(on) > 0 && !maps.Equal(on, all) {
			return false
		}
	}
	return true
}

// syncChecks writes the checks that run for w (holding quota in cq) to
// status.admissionChecks, sorted by name, as Kueue's workload controller
// does: a check already listed keeps its state, a new one is Pending at
// now, one that no longer runs goes. It returns the names of those not
// Ready.
func (q *KueueQueues) syncChecks(w *kueue.Workload, cq *KueueClusterQueue, now metav1.Time) []string {
	names := checksFor(cq, q.idx.onAllFlavors[cq], w)
	var next []kueue.AdmissionCheckState
	var notReady []string
	for _, n := range names {
		i := slices.IndexFunc(w.Status.AdmissionChecks, func(c kueue.AdmissionCheckState) bool { return string(c.Name) == n })
		c := kueue.AdmissionCheckState{Name: kueue.AdmissionCheckReference(n), State: kueue.CheckStatePending, LastTransitionTime: now}
		if i >= 0 {
			c = w.Status.AdmissionChecks[i]
		}
		if c.State != kueue.CheckStateReady {
			notReady = append(notReady, n)
		}
		next = append(next, c)
	}
	w.Status.AdmissionChecks = next
	return notReady
}

// unreservedChecks syncs the checks of a Workload that ends the run
// without quota (pending, evicted, deactivated; not finished) whose
// LocalQueue names an existing ClusterQueue, active or not, as Kueue's
// workload controller syncs every Workload with a ClusterQueue: with no
// admission to read flavors from, every check runs when each rule covers
// all of the queue's flavors, and none otherwise, so the list is then
// cleared ([checksFor]).
func (a *admitter) unreservedChecks(w *KueueWorkload) {
	q, obj := a.opts.Queues, w.Obj
	if q == nil || w.finished() || apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadQuotaReserved) {
		return
	}
	cq := q.ClusterQueues[q.LocalQueues[placement.Key{Namespace: obj.Namespace, Name: string(obj.Spec.QueueName)}]]
	if cq == nil || len(cq.Checks) == 0 && len(obj.Status.AdmissionChecks) == 0 {
		return
	}
	q.syncChecks(obj, cq, metav1.NewTime(a.opts.Now))
}

// checksAwaited words the checks a Workload waits for.
func checksAwaited(names []string) string {
	return "quota reserved, waiting for admission check(s) " + strings.Join(names, ", ") + " to be Ready"
}

// afterReservation syncs the checks of Workload w, which holds quota in
// ClusterQueue cq (nil without queues), and settles its Admitted
// condition. fresh says its quota was reserved in this call. A Workload
// Admitted already (and not fresh) keeps it, as Kueue's workload
// controller syncs the condition only for one not Admitted (an added
// check evicts, it does not un-admit); any other gets Kueue's
// [syncAdmitted]. It returns the checks awaited (nil when it is
// Admitted or awaits none).
func (a *admitter) afterReservation(w *KueueWorkload, cq *KueueClusterQueue, fresh bool) []string {
	obj := w.Obj
	var notReady []string
	switch {
	case cq != nil && (len(cq.Checks) > 0 || len(obj.Status.AdmissionChecks) > 0):
		notReady = a.opts.Queues.syncChecks(obj, cq, metav1.NewTime(a.opts.Now))
	case !fresh:
		return nil // no checks: nothing to sync, its condition as read
	}
	if apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadAdmitted) && !fresh {
		return nil
	}
	syncAdmitted(obj, a.opts.Now)
	if apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadAdmitted) {
		return nil
	}
	return notReady
}

// syncAdmitted writes obj's Admitted condition as Kueue v0.17's
// SyncAdmittedCondition (pkg/workload) does, which changes it only when it
// disagrees with the Workload's state: Admitted is due when quota is
// reserved, every listed check is Ready and no set's topology is delayed
// (delayedTopologyRequest Pending without a topologyAssignment). Due and
// not True, it becomes True; True and not due, False with Kueue's reason
// for what is missing; otherwise it is left as it is — absent on a
// Workload never Admitted (a fresh reservation awaiting its checks, or its
// second pass, gets none: recorded on the real Kueue in
// kueue-oracle/preemption/fp1 and fp6).
func syncAdmitted(obj *kueue.Workload, now time.Time) {
	reserved := apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadQuotaReserved)
	ready := !slices.ContainsFunc(obj.Status.AdmissionChecks, func(c kueue.AdmissionCheckState) bool { return c.State != kueue.CheckStateReady })
	due := reserved && ready && delayedSets(obj) == ""
	if due == apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadAdmitted) {
		return
	}
	switch {
	case due:
		setCondition(obj, kueue.WorkloadAdmitted, metav1.ConditionTrue, kueueReasonAdmitted, "The workload is admitted", now)
	case !reserved && !ready:
		setCondition(obj, kueue.WorkloadAdmitted, metav1.ConditionFalse, "NoReservationUnsatisfiedChecks", "The workload has no reservation and not all checks ready", now)
	case !reserved:
		setCondition(obj, kueue.WorkloadAdmitted, metav1.ConditionFalse, kueueReasonNoReservation, "The workload has no reservation", now)
	case !ready:
		setCondition(obj, kueue.WorkloadAdmitted, metav1.ConditionFalse, "UnsatisfiedChecks", "The workload has not all checks ready", now)
	default:
		setCondition(obj, kueue.WorkloadAdmitted, metav1.ConditionFalse, reasonDelayedTopology, "There are pending delayed topology requests", now)
	}
}

// heldChecks settles a held Workload's Admitted condition after its
// repair or resize ([admitter.afterReservation]) and its outcome: Kept
// becomes AwaitingChecks while checks are awaited, Admitted when the
// checks that were awaited are now all Ready, and DelayedTopologyWaits
// (not Admitted) when a set's topology is still delayed and no check is
// left to bring the second pass.
func (a *admitter) heldChecks(w *KueueWorkload, o *KueueOutcome) {
	if a.opts.Queues == nil || w.Obj.Status.Admission == nil {
		return
	}
	cq := a.opts.Queues.ClusterQueues[string(w.Obj.Status.Admission.ClusterQueue)]
	wasAdmitted := apimeta.IsStatusConditionTrue(w.Obj.Status.Conditions, kueue.WorkloadAdmitted)
	awaited := a.afterReservation(w, cq, false)
	if names := delayedSets(w.Obj); names != "" && len(w.Obj.Status.AdmissionChecks) == 0 {
		// Its ClusterQueue runs no check now: Kueue's second pass wants
		// one (needsSecondPassForDelayedAssignment) and its
		// SyncAdmittedCondition keeps it not Admitted while a topology is
		// pending, so it holds its quota with no pods, for good.
		o.Action, o.Message = KueueDelayedTopologyWaits, joinReasons([]string{o.Message, "pod set(s) " + names +
			" hold quota with their topology delayed (delayedTopologyRequest Pending), but the ClusterQueue runs no admission check now: Kueue runs the second pass only for a Workload with checks, so it keeps its quota and its pods do not start"})
		return
	}
	switch {
	case len(awaited) > 0 && o.Action == KueueKept:
		o.Action, o.Message = KueueAwaitingChecks, checksAwaited(awaited)
	case len(awaited) > 0:
		o.Message = joinReasons([]string{o.Message, checksAwaited(awaited)})
	case !wasAdmitted && o.Action == KueueKept && apimeta.IsStatusConditionTrue(w.Obj.Status.Conditions, kueue.WorkloadAdmitted):
		o.Action, o.Message = KueueAdmitted, "its admission checks are all Ready"
	}
}

// failedChecks settles a Workload one of whose checks failed, before any
// admission, and reports what became of it: as Kueue's
// reconcileCheckBasedEviction (skipped when Evicted is True already), a
// Rejected check deactivates it (spec.active false, then evicted with
// reason DeactivatedDueToAdmissionCheck, its quota released: outcome
// Inactive, done), and a Retry check evicts it (reason
// AdmissionCheck, "At least one admission check is false"; requeue: it is
// queued again at once, as Kueue requeues it when the check sets no
// requeueAfterSeconds). Kueue acts so only on a Workload holding quota;
// one holding none is settled so too, as Kueue would once it reserved
// quota. Either way its checks are reset to Pending, as
// Kueue's eviction resets them.
func (a *admitter) failedChecks(w *KueueWorkload, o *KueueOutcome) (done, requeue bool) {
	obj := w.Obj
	if apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadEvicted) {
		return false, false
	}
	rejected, retry := failedCheckStates(obj)
	switch {
	case len(rejected) > 0:
		why := fmt.Sprintf("Admission check(s): %s, were rejected", strings.Join(rejected, ","))
		msg := deactivatedMessage + " due to " + why
		obj.Spec.Active = kptr.To(false)
		// It holds nothing yet: its nodes are held, and the quota in use
		// counted, only after this, and neither counts an inactive one.
		resetChecks(obj, a.opts.Now)
		setCondition(obj, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadDeactivated+"DueTo"+kueue.WorkloadEvictedByAdmissionCheck, msg, a.opts.Now)
		o.Action, o.Message = KueueInactive, "deactivated: "+why
		if w.Admitted {
			setCondition(obj, kueue.WorkloadRequeued, metav1.ConditionFalse, kueue.WorkloadDeactivated, msg, a.opts.Now)
			unreserve(obj, msg, a.opts.Now)
		}
		return true, false
	case retry:
		// As above, nothing held yet: clearing the admission frees it.
		// One holding no quota is evicted as Kueue would once it
		// reserved quota, so that the run ends where Kueue's does when
		// it fits (docs/kueue.md, Not modelled).
		const msg = "At least one admission check is false"
		resetChecks(obj, a.opts.Now)
		setCondition(obj, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByAdmissionCheck, msg, a.opts.Now)
		unreserve(obj, msg, a.opts.Now)
		reason := "evicted (AdmissionCheck): " + msg
		a.evictedFor[w.Key()] = reason
		o.Action, o.Message = KueueEvicted, reason
		return false, true
	}
	return false, false
}

// queuedAt is the time Kueue queues w by (GetQueueOrderTimestamp): its
// creation, or the time an admission check evicted it.
func queuedAt(w *kueue.Workload) time.Time {
	if c := apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadEvicted); c != nil && c.Status == metav1.ConditionTrue && c.Reason == kueue.WorkloadEvictedByAdmissionCheck {
		return c.LastTransitionTime.Time
	}
	return w.CreationTimestamp.Time
}

// retryEvicts reports whether [admitter.failedChecks] will evict w for a
// Retry check: it is active, unfinished and not evicted, and has a check
// in Retry and none Rejected.
func retryEvicts(w *KueueWorkload) bool {
	obj := w.Obj
	if !w.active() || w.finished() || apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadEvicted) {
		return false
	}
	rejected, retry := failedCheckStates(obj)
	return retry && len(rejected) == 0
}

// failedCheckStates are the names of obj's checks in state Rejected, in
// status order, and whether one is in Retry.
func failedCheckStates(obj *kueue.Workload) (rejected []string, retry bool) {
	for _, c := range obj.Status.AdmissionChecks {
		switch c.State {
		case kueue.CheckStateRejected:
			rejected = append(rejected, string(c.Name))
		case kueue.CheckStateRetry:
			retry = true
		}
	}
	return rejected, retry
}

// resetChecks sets every check not Pending to Pending, as Kueue's
// eviction does, counting a Retry in retryCount.
func resetChecks(obj *kueue.Workload, now time.Time) {
	for i := range obj.Status.AdmissionChecks {
		c := &obj.Status.AdmissionChecks[i]
		if c.State == kueue.CheckStatePending {
			continue
		}
		if c.State == kueue.CheckStateRetry {
			c.RetryCount = kptr.To(kptr.Deref(c.RetryCount, 0) + 1)
		} else {
			c.RetryCount = nil
		}
		c.Message = "Reset to Pending after eviction. Previously: " + string(c.State)
		c.State, c.LastTransitionTime = kueue.CheckStatePending, metav1.NewTime(now)
		c.PodSetUpdates = nil
	}
}
