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
	"github.com/gangsched/gangsched/topology"
)

// Kueue's second scheduling pass for delayed topology requests (v0.17
// pkg/workload NeedsSecondPass, the scheduler's entries holding quota):
// with a ProvisioningRequest check on a topology flavor, Kueue reserves a
// Workload's quota without a topology (delayedTopologyRequest Pending)
// and plans the topology only once every admission check is Ready, in
// the flavor the Workload holds, its quota not charged again, with the
// Ready checks' podSetUpdates (nodeSelector, tolerations) applied to the
// pods planned. Planned, the sets get their topologyAssignment and
// delayedTopologyRequest Ready and the Workload is Admitted; not planned,
// it keeps its quota, not Admitted (Kueue's SyncAdmittedCondition leaves
// the condition of a Workload never Admitted as it is: none on a fresh
// one), and Kueue tries again with backoff.

// reasonDelayedTopology is the reason of the Admitted condition Kueue's
// SyncAdmittedCondition writes on an Admitted Workload whose checks are
// all Ready and a set's topology is delayed ([syncAdmitted]).
const reasonDelayedTopology = "PendingDelayedTopologyRequests"

// needsSecondPass reports whether held Workload w is one Kueue plans in a
// second pass: it holds quota, is neither finished nor evicted nor
// Admitted, has admission checks, all Ready, and a set whose topology
// Kueue delayed.
func (w *KueueWorkload) needsSecondPass() bool {
	st := &w.Obj.Status
	if !w.Admitted || !slices.Contains(w.delayed, true) || len(st.AdmissionChecks) == 0 {
		return false
	}
	for _, t := range []string{kueue.WorkloadFinished, kueue.WorkloadEvicted, kueue.WorkloadAdmitted} {
		if apimeta.IsStatusConditionTrue(st.Conditions, t) {
			return false
		}
	}
	return !slices.ContainsFunc(st.AdmissionChecks, func(c kueue.AdmissionCheckState) bool { return c.State != kueue.CheckStateReady })
}

// secondPass plans the delayed sets of w (a view from
// [admitter.admittedView], its other sets' pods held in h) over a.tree,
// the tree of the flavor it holds, as Kueue's second pass does, and
// writes the result; see the comment at the top of this file. Errors:
// the solver's for bad requests, and [ErrUnsupported] for a Workload of
// a ClusterQueue with a MultiKueue check, whose topology Kueue leaves to
// the worker cluster, or one whose flavor names no Topology of the
// input.
func (a *admitter) secondPass(w *KueueWorkload, h *held, o *KueueOutcome) error {
	if name := a.multiKueueCheck(w); name != "" {
		return placement.Errorf(ErrUnsupported, kueueWorkloadObj(w.Obj.Namespace, w.Obj.Name), "status.admission.podSetAssignments",
			"a delayedTopologyRequest Pending with every admission check Ready in a ClusterQueue with the MultiKueue check %q: Kueue leaves such a topology to the worker cluster, which gangsim does not model", name)
	}
	if a.tree == nil {
		return placement.Errorf(ErrUnsupported, kueueWorkloadObj(w.Obj.Namespace, w.Obj.Name), "status.admission.podSetAssignments",
			"a delayedTopologyRequest Pending with every admission check Ready: no Topology to plan it over (its flavor names none the input has)")
	}
	g := *w.Group
	g.PodSets, g.MinCount = nil, 0
	var requests []topology.PodSetRequest
	var names, conflicts []string
	for k, set := range w.Group.PodSets {
		if !w.delayed[k] {
			continue
		}
		tmpl, why := a.withPodSetUpdates(w, set)
		if why != "" {
			conflicts = append(conflicts, why)
		}
		set.Template = tmpl
		g.PodSets, g.MinCount = append(g.PodSets, set), g.MinCount+set.Count
		requests = append(requests, w.Requests[k])
		names = append(names, fmt.Sprintf("%q", set.Name))
	}
	quoted := strings.Join(names, ", ")
	o.PodSets = slices.Clone(h.survivors)
	if len(conflicts) > 0 {
		a.secondPassWaits(w, o, quoted, strings.Join(conflicts, "; "))
		return nil
	}
	p, err := a.plan(a.tree, w, &g, requests, w.allRequests())
	if err != nil {
		return err
	}
	if as := p.KueueAssumed; as != nil {
		a.secondPassWaits(w, o, quoted, kueueWords(w, as.Why))
		return nil
	}
	if p.Decision.Status != placement.Scheduled {
		a.secondPassWaits(w, o, quoted, kueueWords(w, p.Decision.Message))
		return nil
	}
	changed := make([]bool, len(w.Group.PodSets))
	for _, ps := range p.PodSets {
		k := w.setIndex(ps.Name)
		var pods []placement.PodSetAssignment
		for _, r := range ps.Ranks {
			pods = append(pods, placement.PodSetAssignment{PodSet: ps.Name, Node: r.Node, NodeID: r.NodeID, Count: r.Count})
		}
		if err := a.reserve(w, ps.Name, pods); err != nil {
			return err
		}
		o.PodSets[k], changed[k] = pods, true
	}
	writeChangedSets(w, o.PodSets, changed, a.hostOf)
	ready := kueue.DelayedTopologyRequestStateReady
	for i := range w.Obj.Status.Admission.PodSetAssignments {
		psa := &w.Obj.Status.Admission.PodSetAssignments[i]
		if k := w.setIndex(string(psa.Name)); k >= 0 && changed[k] {
			psa.DelayedTopologyRequest = &ready
		}
	}
	a.liftAssignments(w)
	setCondition(w.Obj, kueue.WorkloadAdmitted, metav1.ConditionTrue, kueueReasonAdmitted, "The workload is admitted", a.opts.Now)
	o.Action, o.Message = KueueAdmitted, "its admission checks are all Ready and Kueue's second pass planned the delayed topology of pod set(s) "+quoted
	return nil
}

// secondPassWaits leaves w holding its quota, not Admitted, after a second
// pass that found no topology for its delayed sets (names, quoted) for
// why. Its Admitted condition stays as it was: Kueue says the failure in
// a SecondPassFailed event alone.
func (a *admitter) secondPassWaits(w *KueueWorkload, o *KueueOutcome, names, why string) {
	o.Action, o.Message = KueueDelayedTopologyWaits, "its admission checks are all Ready, but Kueue's second pass finds no topology for the delayed pod set(s) "+names+": "+why+"; it keeps its quota and Kueue tries again with backoff"
}

// withPodSetUpdates is the template of pod set set of w (with its
// flavor's node labels and tolerations) with the nodeSelector and
// tolerations of the podSetUpdates of w's Ready checks for it added, in
// the order status.admissionChecks lists them, as Kueue's second pass
// plans it. why, when not "", says that an update's nodeSelector gives a
// key another value than the pod set's own nodeSelector or an earlier
// update (Kueue's TAS then refuses the update) or its flavor's node
// labels (no node of the flavor matches): the set cannot be planned.
func (a *admitter) withPodSetUpdates(w *KueueWorkload, set placement.PodSet) (tmpl placement.Pod, why string) {
	tmpl = set.Template
	sel := maps.Clone(tmpl.NodeSelector)
	for _, c := range w.Obj.Status.AdmissionChecks {
		if c.State != kueue.CheckStateReady {
			continue
		}
		for _, u := range c.PodSetUpdates {
			if string(u.Name) != set.Name {
				continue
			}
			for _, key := range slices.Sorted(maps.Keys(u.NodeSelector)) {
				v := u.NodeSelector[key]
				if old, ok := sel[key]; ok && old != v {
					return tmpl, fmt.Sprintf("admission check %s's podSetUpdates give pod set %q nodeSelector %s=%s, where its template, flavor or an earlier update selects %s", c.Name, set.Name, key, v, old)
				}
				if sel == nil {
					sel = map[string]string{}
				}
				sel[key] = v
			}
			for _, t := range u.Tolerations {
				// Validated when read (checkStates).
				tol, _ := convertToleration("", "", t)
				if !slices.Contains(tmpl.Tolerations, tol) {
					tmpl.Tolerations = append(slices.Clip(tmpl.Tolerations), tol)
				}
			}
		}
	}
	tmpl.NodeSelector = sel
	return tmpl, ""
}

// multiKueueCheck names a MultiKueue admission check of the ClusterQueue
// w holds quota in ("" when it has none).
func (a *admitter) multiKueueCheck(w *KueueWorkload) string {
	q := a.opts.Queues
	if q == nil {
		return ""
	}
	cq := q.ClusterQueues[string(w.Obj.Status.Admission.ClusterQueue)]
	if cq == nil {
		return ""
	}
	for _, r := range cq.Checks {
		if q.multiKueue[r.Name] {
			return r.Name
		}
	}
	return ""
}
