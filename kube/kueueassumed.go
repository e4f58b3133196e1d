package kube

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A pending Workload whose topology plan Kueue v0.17 takes as a fit but
// cannot write ([topology.Plan].KueueAssumed: a PodSetGroup whose
// leader-aware split loses its leader, or every pod, on the way down, or
// a set whose least-free-first fill writes the negative count of a node
// whose running pods exceed its allocatable: kueue-oracle/
// overcommit-unconstrained, -sliced-rack) is
// held as [admitter.stick] holds the others: Kueue's TAS returns the
// assignments it has with no failure reason, the scheduler assumes the
// Workload (its quota, and the TAS usage of the sets it still places)
// and its Workload API refuses the empty topologyAssignment (or the
// count below 1), so it is
// requeued and assumed again, cycle after cycle (the real Kueue:
// kueue-oracle/preemption/r21). Unlike a set placing no slice, whose
// admission stays unwritable however the nodes change, Kueue's next
// search over changed nodes may complete: once anything was admitted or
// preempted after it was held, it is tried again, its hold released
// first, and admitted if it now fits (r22: a Workload of another
// ClusterQueue takes the rack its split was carried into, and the next
// search puts the group on the other rack).

// assumedHold is what such a Workload holds: its ClusterQueue's quota
// usage (none without queues), and a.changes when it was planned: at the
// start of its scheduling cycle, so that a head of another ClusterQueue
// admitted in the same cycle, which its plan did not see, has it tried
// again in the next, as Kueue assumes it again as its ClusterQueue's head
// on the state that admission left (the tester brk8's finding 07).
type assumedHold struct {
	cq    string
	usage map[flavorResource]int64
	at    int
	// lifts are the negative counts its plan writes
	// ([topology.KueueAssumed].Lifts), whose room Kueue's assumption
	// gives back to the Workloads planned while it is held
	// ([admitter.planOptions]).
	lifts []placement.PodSetUsage
}

// noteAssumed records that w was held by [admitter.stick] for plan ps,
// one Kueue assumes and cannot write.
func (a *admitter) noteAssumed(w *KueueWorkload, ps plannedSets) {
	h := assumedHold{cq: ps.adm.clusterQueue, at: a.changes}
	if as := ps.plan.KueueAssumed; as != nil {
		h.lifts = as.Lifts
	}
	if a.cycleStart >= 0 {
		h.at = a.cycleStart
	}
	if ch := ps.adm.choice; ch != nil {
		h.usage = ch.usage
	}
	if a.assumed == nil {
		a.assumed = map[placement.Key]assumedHold{}
	}
	a.assumed[w.Key()] = h
}

// retriable reports whether w is held as Kueue's assumption of a plan it
// cannot write and something was admitted or preempted since.
func (a *admitter) retriable(w *KueueWorkload) bool {
	h, ok := a.assumed[w.Key()]
	return ok && a.changes > h.at
}

// unstick releases what such a Workload w holds, its quota and nodes, so
// that it is planned again; o is its outcome.
func (a *admitter) unstick(w *KueueWorkload, o *KueueOutcome) error {
	h := a.assumed[w.Key()]
	for _, set := range w.Group.PodSets {
		if err := a.release(w, set.Name); err != nil {
			return err
		}
	}
	if h.cq != "" {
		a.addUsage(h.cq, h.usage, -1)
	}
	delete(a.assumed, w.Key())
	delete(a.stuck, w.Key())
	o.Held, o.HeldQuota = false, nil
	return nil
}

// planOptions is a.opts.Plan with the room the assumptions of the held
// Workloads give back where they write a node's negative count
// ([topology.PlanOptions].KueueLift), in key order: Kueue's TAS counts
// their negative usage while it holds them (the real Kueue: kueue-oracle/
// overcommit-rand-43, -65, -73, -80), for plans over tree: with
// KueueHostAppended when gangsim appended its hostname level.
func (a *admitter) planOptions(tree *topology.Tree) topology.PlanOptions {
	o := a.opts.Plan
	o.KueueHostAppended = a.appended[tree]
	var keys []placement.Key
	for k, h := range a.assumed {
		if len(h.lifts) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return o
	}
	slices.SortFunc(keys, placement.Key.Compare)
	o.KueueLift = slices.Clip(o.KueueLift)
	for _, k := range keys {
		o.KueueLift = append(o.KueueLift, a.assumed[k].lifts...)
	}
	return o
}
