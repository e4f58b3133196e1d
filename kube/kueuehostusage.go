package kube

import (
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// Kueue v0.17's TAS counts a Workload on its hosts by what it is charged,
// not by what its pods request (kueue#12005, fixed after v0.17.0): an
// admitted Workload's usage per pod is its status.admission resourceUsage
// over its admitted count (workload.Info.TASUsage, read from
// totalRequestsFromAdmission), and the scheduler re-checks a nominated
// Workload's topology assignment with its charge of the resources in
// topology flavors (ComputeTASNetUsage, TASFlavorSnapshot.Fits). So a
// resource a transformation replaces, or one excluded, is placed by the
// template's requests but never held on the host, and a transformation's
// output in a topology flavor must fit on the hosts. gangsim holds the
// charge on the hosts for Kueue's decisions, and the template's requests
// in the snapshot it returns, which kube-scheduler sees
// ([admitter.restoreRequests]).

// chargeOf is a pod's charge of pod set k of w (Group.PodSets' order):
// its charges entry, else its template's requests.
func (w *KueueWorkload) chargeOf(k int) placement.ResourceList {
	if ch, ok := w.charges[w.Group.PodSets[k].Name]; ok {
		return ch
	}
	return w.Group.PodSets[k].Template.Requests
}

// admittedCharge is what Kueue's TAS cache holds per pod of pod set k of
// admitted Workload w on its hosts: status.admission's resourceUsage of
// the set divided by its admitted count (rounded down, as Kueue's
// ScaledDown), the pods themselves left out (a snapshot counts them); the
// set's charge ([KueueWorkload.chargeOf]) when its admission has no
// resourceUsage (hand-written input, which gangsim also charges to quota by
// its requests) or a count of 0.
func (w *KueueWorkload) admittedCharge(k int) placement.ResourceList {
	name := w.Group.PodSets[k].Name
	if adm := w.Obj.Status.Admission; adm != nil {
		for _, a := range adm.PodSetAssignments {
			if string(a.Name) != name || len(a.ResourceUsage) == 0 {
				continue
			}
			count := w.specCount(name)
			if a.Count != nil {
				count = *a.Count
			}
			if count <= 0 {
				break
			}
			use, _ := admissionUsage("", "", a.ResourceUsage) // checked as the Workload was read
			delete(use, placement.ResourcePods)
			for r, v := range use {
				use[r] = v / int64(count)
			}
			return use
		}
	}
	return w.chargeOf(k)
}

// onHosts is per-pod usage req as a reservation in a.s may hold it: req
// itself when a.s tracks each resource it holds a positive quantity of,
// else a copy without the others. A resource no node has and no pod
// requests places nothing, so dropping it changes no decision.
func (a *admitter) onHosts(req placement.ResourceList) placement.ResourceList {
	if a.tracked == nil {
		// Fixed for a.s and every snapshot Apply derives from it.
		a.tracked = a.s.Resources()
	}
	all := true
	for r, v := range req {
		all = all && (v <= 0 || slices.Contains(a.tracked, r))
	}
	if all {
		return req
	}
	out := placement.ResourceList{}
	for r, v := range req {
		if v <= 0 || slices.Contains(a.tracked, r) {
			out[r] = v
		}
	}
	return out
}

// tasCharge is the per-pod charge of pod set k of w in flavor choice ch
// that Kueue's scheduler re-checks on the hosts: the resources ch puts in
// a topology flavor; nil when w is charged its requests, whose check the
// plan made.
func (a *admitter) tasCharge(w *KueueWorkload, k int, ch *flavorChoice) placement.ResourceList {
	if w.charges == nil || ch == nil || k < 0 || k >= len(ch.flavors) {
		return nil
	}
	out := placement.ResourceList{}
	for r, v := range w.chargeOf(k) {
		if f, ok := ch.flavors[k][r]; ok && a.opts.Queues.Flavors[f].Topology != "" {
			out[r] = v
		}
	}
	return out
}

// restoreRequests swaps each reservation of a Workload charged other than
// its requests for one of its template's requests, once admission is
// over: the charge counts for Kueue's decisions, made by then, but the
// pods that will run request their template's, and kube-scheduler's
// cycles on the snapshot returned count those.
func (a *admitter) restoreRequests() error {
	var ch placement.Change
	for _, w := range a.queue {
		for k, set := range w.Group.PodSets {
			u, ok := a.s.PodSetUsage(w.Key(), set.Name)
			if !ok || w.isPhantom(set.Name) || maps.Equal(u.Requests, set.Template.Requests) {
				continue
			}
			ch.Release = append(ch.Release, placement.PodSetRef{Group: w.Key(), PodSet: set.Name})
			ch.Reserve = append(ch.Reserve, placement.PodSetUsage{Group: w.Key(), PodSet: set.Name, Requests: w.Group.PodSets[k].Template.Requests, Nodes: u.Nodes})
		}
	}
	if len(ch.Release) == 0 {
		return nil
	}
	next, err := a.s.Apply(ch)
	if err != nil {
		return err
	}
	a.moveTo(next, ch)
	return nil
}
