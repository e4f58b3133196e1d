package kube

import (
	"iter"
	"slices"
	"strings"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// keptRoom is what a head that needs preemption and found no victims
// keeps for the rest of its scheduling cycle, as Kueue's scheduler does
// (pkg/scheduler schedule, resourcesToReserve): quota in its ClusterQueue
// and the room its pod sets would take on an empty cluster.
type keptRoom struct {
	cq    string
	quota map[flavorResource]int64
	// sets are the held pod sets, reserved on the nodes under the
	// Workload's own key (it holds nothing else while pending).
	sets []placement.PodSetRef
}

// keepRoom keeps, for the rest of the cycle, what pending Workload w, which
// did not fit and preempted nothing, holds in Kueue: nothing when Kueue's
// flavor assignment is NoFit (more than its ClusterQueue may take, even by
// preempting; or a topology that fails on an empty cluster), when its
// ClusterQueue's reclaimWithinCohort is Any (Kueue's CanAlwaysReclaim),
// or when it found victims that a preemption cycle stops (msg says so).
// Else, in the first flavors (from each resource group's first) whose
// mode is Preempt: per flavor and resource, its request up to the
// ClusterQueue's nominal quota left unused, or, when it borrows, all of it
// (within its borrowingLimit); and its sets in topology flavors where
// they would go with every admitted Workload gone (Kueue's
// WithSimulateEmpty). The room kept is applied to a.used and a.s; undo it with
// [admitter.releaseKept].
func (a *admitter) keepRoom(w *KueueWorkload, msg string) (*keptRoom, error) {
	cq, why := a.route(w)
	if why != "" || cq.Preemption.ReclaimWithinCohort == kueue.PreemptionPolicyAny || strings.Contains(msg, cycleWords) {
		return nil, nil
	}
	for ch := range a.preemptFlavors(cq, w) {
		h, err := a.keepChoice(cq, w, ch)
		if h != nil || err != nil {
			return h, err
		}
	}
	return nil, nil
}

// preemptFlavors are the flavor choices of w in cq, from each resource
// group's first flavor on, where Kueue's flavor assigner would try
// preemption ([admitter.mayPreemptFor]). With no usage, the flavors
// tried are those whose quota could hold w at all: Kueue's NoFit is a
// request above that potential. Under a flavor fungibility other than the
// default, the flavors chosen at the usage now come alone when they hold
// w only by preemption (Kueue keeps room in its assignment's flavors).
func (a *admitter) preemptFlavors(cq *KueueClusterQueue, w *KueueWorkload) iter.Seq[flavorChoice] {
	return func(yield func(flavorChoice) bool) {
		if !cq.Fungibility.isDefault() {
			// The flavors Kueue's assigner chose at the usage now.
			ch, why := a.opts.Queues.assignFlavorsSim(cq, w, a.quota(), map[[2]int]int{}, a.simulator(cq, w))
			switch {
			case why == "" && ch.masked:
				return // Fit to Kueue, which keeps no room for it
			case why == "" && ch.preempt != "" && a.mayPreemptFor(cq, ch):
				yield(ch)
				return
			}
		}
		start := map[[2]int]int{}
		empty := a.opts.Queues.tree(nil)
		for {
			ch, why := a.opts.Queues.assignFlavors(cq, w, empty, start)
			if why != "" {
				return
			}
			if a.mayPreemptFor(cq, ch) && !yield(ch) {
				return
			}
			if !ch.nextAny(cq, start) {
				return
			}
		}
	}
}

// mayPreemptFor reports whether Kueue's flavor assigner would try
// preemption for flavor choice ch of cq rather than call it NoFit: each
// request beyond what cq may take now is within its nominal quota, or may
// be reclaimed from a cohort above it, or it may preempt while borrowing
// ([KueueQueues.noFit]; Kueue's fitsResourceQuota).
func (a *admitter) mayPreemptFor(cq *KueueClusterQueue, ch flavorChoice) bool {
	t := a.quota()
	for fr, v := range ch.usage {
		if _, free := t.room(cq, fr); v <= free {
			continue
		}
		if a.opts.Queues.noFit(cq, fr, v, t) {
			return false
		}
	}
	return true
}

// keepChoice keeps the room of w in flavor choice ch of cq, or returns
// nil when its topology fails even on an empty cluster (Kueue's NoFit).
func (a *admitter) keepChoice(cq *KueueClusterQueue, w *KueueWorkload, ch flavorChoice) (*keptRoom, error) {
	ps, err := a.planEmptied(cq, w, ch)
	if err != nil || ps.plan.Decision.Status != placement.Scheduled {
		return nil, err
	}
	return a.keep(&keptRoom{cq: cq.Name, quota: a.keptQuota(cq, ch)}, ps)
}

// keptQuota is the quota Kueue keeps for flavor choice ch of cq
// (quotaResourcesToReserve): when the choice borrows (some request beyond
// the nominal quota left, in a cohort), each request whole, or up to the
// borrowingLimit beyond the nominal quota; else each up to the nominal
// quota left.
func (a *admitter) keptQuota(cq *KueueClusterQueue, ch flavorChoice) map[flavorResource]int64 {
	borrows := false
	for fr, v := range ch.usage {
		if nominal, _, _ := groupLimits(cq.Groups, fr); cq.Cohort != "" && sum(a.used[cq.Name][fr], v) > nominal {
			borrows = true
		}
	}
	out := map[flavorResource]int64{}
	for fr, v := range ch.usage {
		nominal, limit, _ := groupLimits(cq.Groups, fr)
		used := a.used[cq.Name][fr]
		switch {
		case borrows && limit == nil:
			out[fr] = v
		case borrows:
			out[fr] = max(0, min(v, nominal+*limit-used))
		default:
			out[fr] = max(0, min(v, nominal-used))
		}
	}
	return out
}

// releaseKept gives back room h at the end of its cycle.
func (a *admitter) releaseKept(h *keptRoom) error {
	a.addUsage(h.cq, h.quota, -1)
	if len(h.sets) == 0 {
		return nil
	}
	ch := placement.Change{Release: h.sets}
	next, err := a.s.Apply(ch)
	if err != nil {
		return err
	}
	a.moveTo(next, ch)
	return nil
}

// failedHeight is the borrowing height Kueue orders a head that does not
// fit by ([admitter.heightWith]): with the victims it would preempt gone,
// in the flavors they make room in (Kueue's borrowAfterPreemptions), but
// at the usage now when those flavors hold its quota now (victims for its
// topology alone: Kueue's fitsResourceQuota calls them Fit); with
// none, in the first flavors where it would try preemption, at the usage
// now (FindHeightOfLowestSubtreeThatFits in SimulatePreemption); 0 when
// it fits no flavor at all (Kueue's NoFit, which its cycle skips).
//
// It also returns the victims found and the flavor choice they make room
// in, as Kueue nominates them on the cycle's starting state; with none,
// the flavor choice it would try preemption in (its room under fair
// sharing's order, [fairUsage]).
func (a *admitter) failedHeight(w *KueueWorkload) (int, []*preemptCand, flavorChoice, *preemptSearch, error) {
	cq, why := a.route(w)
	if why != "" {
		return 0, nil, flavorChoice{}, nil, nil
	}
	targets, ch, at, err := a.preemptFor(w)
	if err != nil {
		return 0, nil, flavorChoice{}, nil, err
	}
	search := &preemptSearch{w: w, targets: targets, at: at}
	if len(targets) > 0 {
		var removed []*preemptCand
		for _, t := range targets {
			removed = append(removed, t.cand)
		}
		if a.quotaFits(cq, ch) {
			// Its quota fits now (only its topology needs the victims
			// gone): Kueue's assigner graded the flavors Fit, at the
			// borrowing of the usage now, and simulated no preemption.
			return a.heightWith(cq, ch, a.quota()), removed, ch, search, nil
		}
		_, undo := a.usedWithout(removed)
		h := a.heightWith(cq, ch, a.quota())
		undo()
		return h, removed, ch, search, nil
	}
	for ch := range a.preemptFlavors(cq, w) {
		return a.heightWith(cq, ch, a.quota()), nil, ch, search, nil // the first such choice
	}
	return 0, nil, flavorChoice{}, search, nil
}

// preemptSearch is the targets [admitter.preemptFor] found for w, and w
// at the counts they make room for (w itself for its whole count).
type preemptSearch struct {
	w       *KueueWorkload
	targets []preemptTarget
	at      *KueueWorkload
}

// keepPreemptorRoom keeps, for the rest of its scheduling cycle, the room
// of pending Workload w, which has just preempted: as Kueue's scheduler
// adds a preempting entry's usage to its ClusterQueue before it issues
// the preemptions (pkg/scheduler schedule, cq.AddUsage), so that the later
// heads of the cycle see its room taken, with its victims gone. The room
// is w's plan on the state now, the victims already released; nil when
// that plan does not fit (the victims' room is then left to the others,
// which Kueue, which counts the usage it nominated, does not do).
func (a *admitter) keepPreemptorRoom(w *KueueWorkload) (*keptRoom, error) {
	ps, err := a.nominate(w)
	if err != nil || ps.plan.Decision.Status != placement.Scheduled {
		return nil, err
	}
	h := &keptRoom{cq: ps.adm.clusterQueue, quota: map[flavorResource]int64{}}
	if ch := ps.adm.choice; ch != nil {
		for fr, v := range ch.usage {
			h.quota[fr] = v
		}
	}
	return a.keep(h, ps)
}

// keep takes h's quota and the nodes of plan ps (its pod sets reserved
// without pods, recorded in h.sets so that the room can be given back)
// for the rest of the cycle.
func (a *admitter) keep(h *keptRoom, ps plannedSets) (*keptRoom, error) {
	if ps.group != nil && len(ps.group.PodSets) > 0 {
		next, us, err := a.withPlan(ps)
		if err != nil {
			return nil, err
		}
		a.moveTo(next, placement.Change{Reserve: us})
		for _, u := range us {
			h.sets = append(h.sets, placement.PodSetRef{Group: u.Group, PodSet: u.PodSet})
		}
	}
	a.addUsage(h.cq, h.quota, 1)
	return h, nil
}

// withPlan is the snapshot with the pod sets of plan ps reserved on its
// nodes, and what they reserve; a.s is left as it is.
func (a *admitter) withPlan(ps plannedSets) (*placement.Snapshot, []placement.PodSetUsage, error) {
	us, err := placement.PodSetUsageOf(ps.group, ps.plan.Decision)
	if err != nil {
		return nil, nil, err
	}
	us = ps.w.phantomUsage(us)
	if ps.w != nil && ps.w.charges != nil {
		// Held as charged ([KueueWorkload.chargeOf]).
		us = slices.Clone(us)
		for i := range us {
			if k := ps.w.setIndex(us[i].PodSet); k >= 0 && !ps.w.isPhantom(us[i].PodSet) {
				us[i].Requests = a.onHosts(ps.w.chargeOf(k))
			}
		}
	}
	next, err := a.s.Apply(placement.Change{Reserve: us})
	return next, us, err
}

// planEmptied plans w in flavor choice ch of cq with the pod sets of
// every queue Workload released ([admitter.emptiedNow]); a.s is left as
// it is.
func (a *admitter) planEmptied(cq *KueueClusterQueue, w *KueueWorkload, ch flavorChoice) (plannedSets, error) {
	e, err := a.emptiedNow()
	if err != nil {
		return plannedSets{}, err
	}
	s := a.s
	defer func() { a.s = s }()
	a.s = e
	return a.planChoice(cq, w, ch)
}

// planReleased plans w in flavor choice ch of cq with the pod sets that
// the Workloads ws hold on the nodes released; a.s is left as it is.
func (a *admitter) planReleased(cq *KueueClusterQueue, w *KueueWorkload, ch flavorChoice, ws []*KueueWorkload) (plannedSets, error) {
	var rel []placement.PodSetRef
	for _, v := range ws {
		for _, set := range v.Group.PodSets {
			if _, ok := a.s.PodSetUsage(v.Key(), set.Name); ok {
				rel = append(rel, placement.PodSetRef{Group: v.Key(), PodSet: set.Name})
			}
		}
	}
	s := a.s
	defer func() { a.s = s }()
	if len(rel) > 0 {
		next, err := a.s.Apply(placement.Change{Release: rel})
		if err != nil {
			return plannedSets{}, err
		}
		a.s = next
	}
	return a.planChoice(cq, w, ch)
}
