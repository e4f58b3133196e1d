package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// A pending Workload that Kueue v0.17 assumes and cannot admit: a sliced
// pod set whose reclaimable pods leave it with pods but fewer than one
// slice ([KueueWorkload.noSlice]), or a pod set of count 0 (or all of
// whose pods are reclaimable) in a topology flavor. Kueue's flavor
// assigner charges the set's pods (totalRequestsFromPodSets: count less
// reclaimable; none for a set of count 0) and its TAS assigns count/size =
// 0 slices, or none to a set of no pods, which "fits"; the scheduler then
// assumes the Workload in its cache (pkg/scheduler admit, assumeWorkload:
// its quota, and its other sets' pods on their nodes, counted at once)
// and patches its admission asynchronously. The Workload CRD refuses an
// admission whose topologyAssignment has no slices
// ("topologyAssignment.slices: Required value"), so the patch fails: the
// Workload is dropped from the cache and requeued, with no condition
// written (requeueAndUpdate writes Pending only for Workloads never
// nominated or skipped), and is its ClusterQueue's head again. Every
// Workload tried meanwhile sees its quota: the heads after it in its
// cycle (the snapshot's usage), and in the next cycles, which start
// while the patch is in flight, its queue's next Workloads and the other
// heads of its cohort. Seen on the real Kueue (harness logs): it is
// assumed and refused every cycle, and the Workloads after it wait for
// its quota (brk4's finding 03; kueue-oracle/preemption/r8–r16). With
// TASBalancedPlacement on, Kueue's scheduler panics on such a set
// instead (an integer division by zero in balanceThresholdValue), which
// gangsim does not reproduce: it answers as without the gate.
//
// gangsim models the steady state: once such a Workload fits (its other
// sets planned, its quota within what its ClusterQueue may take, after
// any preemption it issues first, as Kueue's), it holds its quota and
// its other sets' nodes for the rest of the admission (the nodes are
// released once it is over: no pod of it runs), is never admitted, is
// no preemption candidate (in Kueue it is one only while assumed, in the
// cycles its patch is in flight: not compared), and its status is left
// as it was.

// unwritable says why Kueue cannot write the admission of pending
// Workload w as plan ps gives it, "" when it can: a sliced set placing no
// slice ([KueueWorkload.noSlice]), or a set of count 0 in a topology flavor
// (not a PodSetGroup's phantom leader, which Kueue writes with one pod:
// kueuephantom.go; one asking for a level, slices or no constraint, or any in a
// ClusterQueue of topology flavors alone, or without queues, where every
// set is planned over the Topology), whose topologyAssignment Kueue's TAS
// writes without slices. preferred says that set prefers a level, where
// Kueue's balanced placement would plan it (and panics).
func (a *admitter) unwritable(w *KueueWorkload, ps plannedSets) (string, bool) {
	if w.noSlice != "" {
		return w.noSlice, w.noSlicePreferred
	}
	for _, z := range w.Zero {
		r := z.Request
		explicit := r.Required != "" || r.Preferred != "" || r.Unconstrained || len(r.Slices) > 0
		if q := a.opts.Queues; q != nil && !explicit && (ps.adm.cq == nil || !q.tasOnly(ps.adm.cq)) {
			continue // a flavor without a Topology: no topologyAssignment
		}
		return fmt.Sprintf("pod set %q of no pods places no slice", z.Name), r.Preferred != ""
	}
	return "", false
}

// stick settles pending Workload w, which fits as plan ps says but has a
// set Kueue cannot write ([admitter.unwritable]: why, preferred): its quota and its
// planned sets' nodes are taken for the rest of the admission, it waits, and
// nothing is written on it. It reports true, as an admission does, since
// the room it took changes what the Workloads after it see.
//
// refused says what Kueue's Workload API refuses in the admission
// ([topology.KueueAssumed].Refused), "" for a topologyAssignment without
// slices.
func (a *admitter) stick(w *KueueWorkload, ps plannedSets, o *KueueOutcome, why string, preferred bool, refused string) (bool, []int, error) {
	if refused == "" {
		refused = "whose topologyAssignment has no slices"
	}
	if len(ps.group.PodSets) > 0 {
		next, us, err := a.withPlan(ps)
		if err != nil {
			return false, nil, err
		}
		// Its sets' reservations, which emptying releases: the emptied
		// snapshot carries over ([admitter.moveTo]).
		a.moveTo(next, placement.Change{Reserve: us})
	}
	held := ""
	if ch := ps.adm.choice; ch != nil {
		a.addUsage(ps.adm.clusterQueue, ch.usage, 1)
		held = usageWords(ch.usage)
		o.HeldQuota = kueueAmounts(ch.usage)
	}
	if a.stuck == nil {
		a.stuck = map[placement.Key]bool{}
	}
	a.stuck[w.Key()] = true
	o.Held = true
	msg := why + ": Kueue assumes it"
	if preferred && a.opts.Plan.KueueBalanced {
		// Not reproduced: gangsim answers as Kueue without the gate.
		msg = why + ": Kueue v0.17 with TASBalancedPlacement panics on it (an integer division by zero in balanceThresholdValue) and its controller dies; without the gate Kueue assumes it"
	}
	if held != "" {
		msg += " (" + held + ")"
	}
	msg += " and its Workload API refuses the admission, " + refused + ", every scheduling cycle; " + heldWords(held != "", a.holdsNodes(w))
	// Kueue writes no condition on it from then on: one an earlier try
	// wrote (a preemption it issued, a wait for quota) stays.
	if c := apimeta.FindStatusCondition(w.Obj.Status.Conditions, kueue.WorkloadQuotaReserved); c != nil && c.Status == metav1.ConditionFalse {
		msg += "; its QuotaReserved condition stays as an earlier try wrote it: " + c.Message
	} else {
		msg += "; no QuotaReserved condition is written"
	}
	if o.Action == KueueEvicted || o.Action == KueuePreempted {
		o.Message = joinReasons([]string{a.evictedFor[w.Key()], "queued again: " + msg})
	} else {
		o.Action, o.Message = KueuePending, joinReasons([]string{a.evictedFor[w.Key()], msg})
	}
	return true, nil, nil
}

// holdsNodes reports whether any set of w holds a reservation on nodes.
func (a *admitter) holdsNodes(w *KueueWorkload) bool {
	for _, set := range w.Group.PodSets {
		if _, ok := a.s.PodSetUsage(w.Key(), set.Name); ok {
			return true
		}
	}
	return false
}

// heldWords says what the Workloads tried after a held one see taken:
// its quota, its planned sets' nodes (which block a Workload of any
// cohort, as Kueue's TAS usage is shared by every ClusterQueue of the
// flavor), both, or neither.
func heldWords(quota, nodes bool) string {
	switch {
	case quota && nodes:
		return "the Workloads tried after it see its quota and its pods' nodes held"
	case quota:
		return "the Workloads tried after it see its quota held"
	case nodes:
		return "the Workloads tried after it see its pods' nodes held"
	}
	return "it holds no quota and no node"
}

// isStuck reports whether w was settled by [admitter.stick] in this run.
func (a *admitter) isStuck(w *KueueWorkload) bool { return a.stuck[w.Key()] }

// usageWords words quota usage u: "cpu 3 in flavor tas, memory 1Gi in
// flavor tas", flavors and resources by name.
func usageWords(u map[flavorResource]int64) string {
	var out []string
	for _, x := range amountsOf(u) {
		out = append(out, amountWords(x.fr, x.v))
	}
	return strings.Join(out, ", ")
}

// amountWords words v of flavor-resource fr: "cpu 3 in flavor tas".
func amountWords(fr flavorResource, v int64) string {
	return fmt.Sprintf("%s %s in flavor %s", fr.Resource(), quantityString(fr.Resource(), v), fr.Flavor())
}

// releaseStuck takes the node reservations of the Workloads [admitter.stick]
// settled out of the snapshot once admission is over: they count for
// Kueue's decisions, made by then, and no pod of theirs ever runs. Each
// is kept in its outcome (out, in a.queue's order) as HeldNodes, so that
// a report can still say what Kueue's assumption holds.
func (a *admitter) releaseStuck(out []KueueOutcome) error {
	for i, w := range a.queue {
		if !a.isStuck(w) {
			continue
		}
		for _, set := range w.Group.PodSets {
			if u, ok := a.s.PodSetUsage(w.Key(), set.Name); ok {
				// The snapshot's slices and maps are its own: copied.
				u.Requests, u.Nodes = maps.Clone(u.Requests), slices.Clone(u.Nodes)
				out[i].HeldNodes = append(out[i].HeldNodes, u)
			}
			if err := a.release(w, set.Name); err != nil {
				return err
			}
		}
	}
	return nil
}
