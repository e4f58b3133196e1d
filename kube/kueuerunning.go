package kube

import (
	"errors"
	"fmt"
	"slices"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// setKind is what Kueue does with one pod set of an admitted Workload,
// read once by [admitter.classify] from the set's failed nodes, count and
// assignment.
type setKind int

const (
	// keepSet: no pod lost and the admitted count: nothing to do.
	keepSet setKind = iota
	// noLevelSet: the set names a level the Topology lacks, so Kueue can
	// neither replace nor resize it.
	noLevelSet
	// staleRepairSet: pods lost on failed nodes beside pods on a node
	// Kueue's topology snapshot leaves out; Kueue's replacement refuses
	// such a "stale" assignment.
	staleRepairSet
	// repairSet: pods lost on failed nodes are replaced in their domains,
	// the set resized in the same step when its count changed.
	repairSet
	// planAnewSet: a resize of a set with pods on a node Kueue's topology
	// snapshot leaves out: Kueue plans the elastic set anew for its whole
	// count.
	planAnewSet
	// resizeSet: a resize in place.
	resizeSet
)

// classify says what Kueue does with pod set k of admitted Workload w
// whose pods h holds. For noLevelSet, node is the missing level's words;
// for staleRepairSet and planAnewSet, the node Kueue's topology snapshot
// leaves out, worded by [admitter.outOfTAS].
func (a *admitter) classify(w *KueueWorkload, h *held, k int) (kind setKind, node string) {
	failed := len(h.failed[k]) > 0
	if !failed && w.Group.PodSets[k].Count == w.AdmittedCount[k] {
		return keepSet, ""
	}
	if a.tree == nil {
		// Read without a tree ([admitter.admittedView]): no set of w has
		// pods, and this one, admitted with none and no flavor, waits to
		// grow ([admitter.growthQuota]).
		return resizeSet, ""
	}
	if msg := missingLevel(a.tree, w.Requests[k]); msg != "" {
		return noLevelSet, msg
	}
	out := a.outOfTAS(h.survivors[k])
	switch {
	case failed && out != "":
		return staleRepairSet, out
	case failed:
		return repairSet, ""
	case out != "" && !sharesGroup(w, k):
		// A set sharing a PodSetGroup stays resized in place: planned
		// anew alone it could leave its group's domain.
		return planAnewSet, out
	}
	return resizeSet, ""
}

// setChange is the answer for one pod set that is not kept.
type setChange struct {
	// fits says the set has its new pods: pods, with replaced the pods
	// that replace those of failed nodes.
	fits           bool
	pods, replaced []placement.PodSetAssignment
	// message is the decision's words: how it grew or shrank when it
	// fits, why not otherwise.
	message string
	// evict is why the Workload is evicted whole when the set lost pods
	// and does not fit; asNew says it is evicted to be planned again as
	// new, even under [KueueOptions].WaitForReplacement.
	evict string
	asNew bool
}

// change decides pod set k of w of kind (not keepSet), with classify's
// node. Errors are the solver's for bad requests.
func (a *admitter) change(w *KueueWorkload, h *held, k int, kind setKind, node string) (setChange, error) {
	set := &w.Group.PodSets[k]
	switch kind {
	case noLevelSet:
		return unrepairable(set.Name, h.words[k], node), nil
	case staleRepairSet:
		return unrepairable(set.Name, h.words[k], fmt.Sprintf("its pods on %s are on a node Kueue's topology snapshot leaves out", node)), nil
	case repairSet:
		return a.repair(w, h, k)
	}
	var rs placement.Resized
	var err error
	if kind == planAnewSet {
		rs, err = a.planAnew(w, k)
	} else {
		rs, err = a.tree.ResizePodSet(a.s, w.Group, w.Requests[k], placement.Resize{PodSet: set.Name, Existing: h.survivors[k]}, a.planOptions(a.tree))
	}
	if why, ok := cannotResize(err); ok {
		return setChange{message: why}, nil
	}
	if err != nil {
		return setChange{}, err
	}
	return setChange{fits: rs.Decision.Status == placement.Scheduled, pods: rs.Assignments, message: rs.Decision.Message}, nil
}

// repair replaces the pods pod set k of w lost on its failed nodes
// ([topology.Tree.ReplacePodSet]), resizing the set in the same step.
func (a *admitter) repair(w *KueueWorkload, h *held, k int) (setChange, error) {
	set := &w.Group.PodSets[k]
	rep, err := a.tree.ReplacePodSet(a.s, w.Group, w.Requests[k], placement.Repair{PodSet: set.Name, Existing: h.all[k], Failed: h.failed[k]}, a.planOptions(a.tree))
	if errors.Is(err, topology.ErrShrinkBreaksSlices) {
		// Kueue plans an elastic set whose assignment names a
		// gone node as new; evicted, it is planned so.
		return setChange{asNew: true, evict: fmt.Sprintf("pod set %q lost pods on failed node(s) %s and shrinks to %d pods, which its pods left cannot keep in whole slices: it is planned again as new", set.Name, hostList(h.words[k]), set.Count)}, nil
	}
	if why, ok := cannotResize(err); ok {
		return unrepairable(set.Name, h.words[k], why), nil
	}
	if err != nil {
		return setChange{}, err
	}
	d := rep.Decisions[0]
	if !rep.Repairable {
		// ReplacePodSet's reason names the failed nodes only;
		// h.words also says why each failed.
		return setChange{message: d.Message, evict: fmt.Sprintf("pod set %q: %s of failed node(s) %s cannot be replaced in their domains: %s; the workload must be evicted whole",
			set.Name, lostPods(h.all[k], h.failed[k]), hostList(h.words[k]), d.Message)}, nil
	}
	return setChange{fits: true, pods: rep.Assignments, replaced: rep.Replacements, message: d.Message}, nil
}

// cannotResize words a resize's or replacement's error that is the
// cluster's state, not a bad request: the admitted pods break the set's
// request (its nodes were relabelled since, so no resize in place keeps
// it), or every node of a level is gone. ok is false for other errors.
func cannotResize(err error) (why string, ok bool) {
	if fe := (*placement.FieldError)(nil); errors.As(err, &fe) && fe.Field == "resize.existing" {
		return "status.admission: " + fe.Detail, true
	}
	if errors.Is(err, topology.ErrNoDomain) {
		return noDomainWords(err), true
	}
	return "", false
}

// running resizes and repairs the pod sets of an admitted Workload whose
// surviving pods h holds, each as [admitter.classify] reads it; it
// reports whether the Workload was evicted and must queue again.
func (a *admitter) running(w *KueueWorkload, h *held, o *KueueOutcome) (requeue bool, err error) {
	if a.aboveHostWaits(w, h, o) {
		return false, nil
	}
	o.Action = KueueKept
	o.PodSets = make([][]placement.PodSetAssignment, len(w.Group.PodSets))
	changed := make([]bool, len(w.Group.PodSets))
	var reasons []string
	waits := false                      // a set waits to be resized
	grown := map[flavorResource]int64{} // the quota sets grown take, less what sets shrunk give back
	nodes, words := failedNodes(w, h)
	w.Obj.Status.UnhealthyNodes = nil // a node replaced, or healthy again, is dropped
	if len(nodes) > 1 {
		return true, a.evict(w, o, fmt.Sprintf("%d of its nodes failed: %s; Kueue replaces one failed node at a time (status.unhealthyNodes) and evicts a workload whose second node fails before the first is replaced",
			len(nodes), hostList(words)), nodeFailuresWords(nodes))
	}
	for k := range w.Group.PodSets {
		set := &w.Group.PodSets[k]
		o.PodSets[k] = h.survivors[k]
		kind, node := a.classify(w, h, k)
		if kind == keepSet {
			continue
		}
		var growth map[flavorResource]int64
		var c setChange
		if kind == resizeSet || kind == planAnewSet || kind == repairSet {
			var why string
			if growth, why = a.growthQuota(w, k); why == "" && growth == nil {
				growth = a.shrinkQuota(w, k) // released once it shrinks
			} else if why != "" {
				c.message = why
				if kind == repairSet { // it grows in the same step as its repair, or neither
					c = unrepairable(set.Name, h.words[k], fmt.Sprintf("it grows from %d to %d pods in the same step: %s", w.AdmittedCount[k], set.Count, why))
				}
			}
		}
		if c.message == "" {
			if c, err = a.change(w, h, k, kind, node); err != nil {
				return false, err
			}
		}
		failed := len(h.failed[k]) > 0
		if !c.fits && failed {
			a.addUsage(string(w.Obj.Status.Admission.ClusterQueue), grown, -1) // the sets grown are given back
		}
		if !c.fits && failed && (c.asNew || !a.opts.WaitForReplacement) {
			words := noReplacementWords(nodes[0])
			if c.asNew {
				// Re-planned as new (an elastic shrink beside lost pods):
				// what Kueue writes then was not run; gangsim's words stay.
				words = ""
			}
			return true, a.evict(w, o, c.evict, words)
		}
		if !c.fits && failed {
			return false, a.awaitReplacement(w, h, o, changed, nodes[0], fmt.Sprintf("pod set %q waits for a replacement of its %s on failed node %s: %s",
				set.Name, lostPods(h.all[k], h.failed[k]), words[0], c.message))
		}
		if !c.fits {
			waits = true
			verb := "grow"
			if set.Count < w.AdmittedCount[k] {
				verb = "shrink"
			}
			reasons = append(reasons, fmt.Sprintf("pod set %q waits to %s from %d to %d pods: %s", set.Name, verb, w.AdmittedCount[k], set.Count, c.message))
			continue
		}
		if o.PodSets[k], err = a.replace(w, set.Name, c.pods); err != nil {
			return false, err
		}
		changed[k] = true
		a.addUsage(string(w.Obj.Status.Admission.ClusterQueue), growth, 1)
		for fr, v := range growth {
			grown[fr] = usageSum(grown[fr], v)
		}
		if failed {
			o.Action = KueueRepaired
			what := fmt.Sprintf("replaced on %s", hostList(nodeCounts(c.replaced)))
			if len(c.replaced) == 0 {
				what = "not replaced (the set keeps no more pods than survived)"
			}
			reasons = append(reasons, fmt.Sprintf("pod set %q: pods of failed node(s) %s %s", set.Name, hostList(h.words[k]), what))
		} else if o.Action != KueueRepaired {
			o.Action = KueueResized
		}
		if n := w.AdmittedCount[k]; kind == planAnewSet {
			reasons = append(reasons, fmt.Sprintf("pod set %q is planned anew for %d pods (its admitted %d pods are not kept: %s is on a node Kueue's topology snapshot leaves out)",
				set.Name, set.Count, n, node))
		} else if set.Count > n {
			reasons = append(reasons, fmt.Sprintf("pod set %q grows from %d to %d pods: %s", set.Name, n, set.Count, c.message))
		} else if set.Count < n {
			reasons = append(reasons, c.message)
		}
	}
	for _, z := range w.Zero {
		if z.AdmittedCount > 0 {
			// Its pods were never held: shrinking to 0 releases them.
			reasons = append(reasons, fmt.Sprintf("pod set %q shrinks from %d to 0 pods", z.Name, z.AdmittedCount))
			if o.Action == KueueKept {
				o.Action = KueueResized
			}
		}
	}
	if waits {
		// The sets repaired or resized beside it are in the message.
		o.Action = KueueGrowWaits
	}
	reasons = append(reasons, a.keptLeaderWords(w, o.PodSets))
	o.Message = kueueWords(w, joinReasons(reasons))
	writeChangedSets(w, o.PodSets, changed, a.hostOf)
	a.liftAssignments(w)
	return false, nil
}

// failedNodes lists the failed nodes of w's pod sets once each, in the
// order Kueue's node controller records them in status.unhealthyNodes:
// those recorded there already first, then the others as [admitter.hold]
// found them (set by set, in node order, gone nodes last — Kueue's order
// for nodes failing together is its reconciles', which the objects do not
// fix). A recorded node that is no longer failed is left out, as Kueue
// drops a node that is healthy again. words says why each failed.
func failedNodes(w *KueueWorkload, h *held) (nodes, words []string) {
	why := map[string]string{}
	var found []string
	for k := range h.failed {
		for i, n := range h.failed[k] {
			if _, seen := why[n]; !seen {
				why[n] = h.words[k][i]
				found = append(found, n)
			}
		}
	}
	for _, u := range w.Obj.Status.UnhealthyNodes {
		if _, failed := why[u.Name]; failed && !slices.Contains(nodes, u.Name) {
			nodes = append(nodes, u.Name)
		}
	}
	for _, n := range found {
		if !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	for _, n := range nodes {
		words = append(words, why[n])
	}
	return nodes, words
}

// awaitReplacement leaves admitted Workload w as it was admitted while
// its failed node waits for a replacement, as Kueue with
// TASFailedNodeReplacementFailFast off keeps the Workload admitted,
// retries the replacement and changes nothing else meanwhile: every set
// keeps its surviving pods (a set changed earlier in this pass gets them
// back), the admission is not rewritten, and status.unhealthyNodes names
// node.
func (a *admitter) awaitReplacement(w *KueueWorkload, h *held, o *KueueOutcome, changed []bool, node, reason string) error {
	for k, c := range changed {
		if c {
			if _, err := a.replace(w, w.Group.PodSets[k].Name, h.survivors[k]); err != nil {
				return err
			}
		}
	}
	o.Action, o.Message, o.PodSets = KueueReplacementWaits, kueueWords(w, reason), slices.Clone(h.survivors)
	w.Obj.Status.UnhealthyNodes = []kueue.UnhealthyNode{{Name: node}}
	return nil
}

// unrepairable is the change of a pod set whose pods on the failed nodes
// words (each "b1-r1-h2 (gone)") cannot be replaced, for reason why: it
// does not fit, and evicts its Workload (should it have lost pods).
func unrepairable(set string, words []string, why string) setChange {
	return setChange{message: why, evict: fmt.Sprintf("pod set %q: pods of failed node(s) %s cannot be replaced: %s; the workload must be evicted whole", set, hostList(words), why)}
}

// planAnew plans pod set k of admitted Workload w for its whole count as
// a pending set would be planned, as Kueue plans an elastic set whose
// assignment is stale (v0.17 handleElasticWorkload falls back to a fresh
// placement). The set's admitted pods stay held while it is planned —
// Kueue's snapshot still counts the old Workload slice's usage until the
// new slice replaces it — so the new pods fit beside them; the caller
// then replaces them. The Resized holds the set's pods in rank order.
func (a *admitter) planAnew(w *KueueWorkload, k int) (placement.Resized, error) {
	set := w.Group.PodSets[k]
	g := *w.Group
	g.PodSets, g.MinCount = []placement.PodSet{set}, set.Count
	p, err := a.tree.PlanPodSets(a.s, &g, []topology.PodSetRequest{w.Requests[k]}, a.planOptions(a.tree))
	if err != nil || p.Decision.Status != placement.Scheduled {
		return placement.Resized{Decision: p.Decision}, err
	}
	var pods []placement.PodSetAssignment
	for _, r := range p.PodSets[0].Ranks {
		pods = append(pods, placement.PodSetAssignment{PodSet: set.Name, Node: r.Node, NodeID: r.NodeID, Count: r.Count})
	}
	return placement.Resized{Assignments: pods, Decision: p.Decision}, nil
}

// sharesGroup reports whether pod set k of w is in a PodSetGroup with
// another of w's sets: planned anew alone, it could leave the group's
// domain.
func sharesGroup(w *KueueWorkload, k int) bool {
	g := w.Requests[k].Group
	return g != "" && slices.ContainsFunc(w.Requests, func(r topology.PodSetRequest) bool {
		return r.Group == g && r.PodSet != w.Requests[k].PodSet
	})
}

// outOfTAS words the first node of pods that Kueue's topology snapshot
// leaves out although it has not failed — cordoned, or not ready for less
// than [KueueNodeFailureDelay] — as "b3-r1-h1 (cordoned)"; "" when none.
func (a *admitter) outOfTAS(pods []placement.PodSetAssignment) string {
	for _, p := range pods {
		if nr, ok := a.opts.NotReady[p.Node]; ok {
			_, why := nr.FailedAt(a.opts.Now)
			return p.Node + " (" + why + ")"
		}
		if a.s.Node(p.NodeID).Unschedulable {
			return p.Node + " (cordoned)"
		}
	}
	return ""
}

// lostPods words how many of a set's pods ran on the failed nodes, e.g.
// "1 pod" or "3 pods".
func lostPods(all []placement.PodSetAssignment, failed []string) string {
	var n int32
	for _, p := range all {
		if slices.Contains(failed, p.Node) {
			n += p.Count
		}
	}
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

// nodeCounts words pods per node as "b3-r1-h2×2".
func nodeCounts(ps []placement.PodSetAssignment) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%s×%d", p.Node, p.Count)
	}
	return out
}
