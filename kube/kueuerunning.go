package kube

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// running resizes and repairs the pod sets of an admitted Workload whose
// surviving pods h holds; it reports whether the Workload was evicted and
// must queue again.
func (a *admitter) running(w *KueueWorkload, h *held, o *KueueOutcome) (requeue bool, err error) {
	o.Action = KueueKept
	o.PodSets = make([][]placement.PodSetAssignment, len(w.Group.PodSets))
	changed := make([]bool, len(w.Group.PodSets))
	var reasons []string
	waits := false // a set waits to be resized
	for k := range w.Group.PodSets {
		set := &w.Group.PodSets[k]
		cur := h.survivors[k]
		failed := len(h.failed[k]) > 0
		if !failed && set.Count == w.AdmittedCount[k] {
			o.PodSets[k] = cur
			continue
		}
		var rs placement.Resized
		var rep placement.Repaired
		out := a.outOfTAS(cur) // a node of cur that Kueue's topology snapshot leaves out
		stale := ""            // out, when it makes a resize plan the set anew
		if !failed && !sharesGroup(w, k) {
			stale = out
		}
		cannot := func(why string) placement.Repaired { return unrepairable(set.Name, h.words[k], why) }
		if msg := missingLevel(a.tree, w.Requests[k]); msg != "" {
			// The Topology lacks a level the set names: Kueue can
			// neither replace nor resize it.
			rs = placement.Resized{Decision: placement.Decision{Status: placement.Unresolvable, Message: msg}}
			rep = cannot(msg)
		} else if failed && out != "" {
			// Kueue's replacement refuses an assignment naming a node
			// its topology snapshot leaves out ("stale"), and the
			// Workload is evicted.
			rs = placement.Resized{Decision: placement.Decision{Status: placement.Unresolvable}}
			rep = cannot(fmt.Sprintf("its pods on %s are on a node Kueue's topology snapshot leaves out", out))
		} else if failed {
			rep, err = a.tree.ReplacePodSet(a.s, w.Group, w.Requests[k], placement.Repair{PodSet: set.Name, Existing: h.all[k], Failed: h.failed[k]}, a.opts.Plan)
			if err == nil {
				rs = placement.Resized{Assignments: rep.Assignments, Decision: rep.Decisions[0]}
			}
			if err == nil && !rep.Repairable {
				// ReplacePodSet's reason names the failed nodes only;
				// h.words also says why each failed.
				rep.Reason = fmt.Sprintf("pod set %q: %s of failed node(s) %s cannot be replaced in their domains: %s; the workload must be evicted whole",
					set.Name, lostPods(h.all[k], h.failed[k]), hostList(h.words[k]), rs.Decision.Message)
			}
		} else if stale != "" {
			// Kueue resizes an elastic set in place only while every
			// node of its assignment is in its topology snapshot;
			// otherwise it plans the set anew, growing or shrinking.
			rs, err = a.planAnew(w, k)
		} else {
			rs, err = a.tree.ResizePodSet(a.s, w.Group, w.Requests[k], placement.Resize{PodSet: set.Name, Existing: cur}, a.opts.Plan)
		}
		if failed && errors.Is(err, topology.ErrShrinkBreaksSlices) {
			// Kueue plans an elastic set whose assignment names a
			// gone node as new; evicted, it is planned so below.
			return true, a.evict(w, o, fmt.Sprintf("pod set %q lost pods on failed node(s) %s and shrinks to %d pods, which its pods left cannot keep in whole slices: it is planned again as new", set.Name, hostList(h.words[k]), set.Count))
		}
		if fe := (*placement.FieldError)(nil); errors.As(err, &fe) && fe.Field == "resize.existing" {
			// The admitted pods themselves break the set's request
			// (its nodes were relabelled since): no resize in place
			// keeps it, so the set is treated as one that does not fit.
			rs, err = placement.Resized{Decision: placement.Decision{Status: placement.Unschedulable, Message: "status.admission: " + fe.Detail}}, nil
			rep = cannot(rs.Decision.Message)
		}
		if errors.Is(err, topology.ErrNoDomain) {
			// Every node of a level is gone: nothing holds its pods now.
			msg := noDomainWords(err)
			rs, err = placement.Resized{Decision: placement.Decision{Status: placement.Unresolvable, Message: msg}}, nil
			rep = cannot(msg)
		}
		if err != nil {
			return false, err
		}
		switch {
		case rs.Decision.Status != placement.Scheduled && failed:
			return true, a.evict(w, o, rep.Reason)
		case rs.Decision.Status != placement.Scheduled:
			waits = true
			verb := "grow"
			if set.Count < w.AdmittedCount[k] {
				verb = "shrink"
			}
			reasons = append(reasons, fmt.Sprintf("pod set %q waits to %s from %d to %d pods: %s", set.Name, verb, w.AdmittedCount[k], set.Count, rs.Decision.Message))
		default:
			if cur, err = a.replace(w, set.Name, rs.Assignments); err != nil {
				return false, err
			}
			changed[k] = true
			if failed {
				o.Action = KueueRepaired
				what := fmt.Sprintf("replaced on %s", hostList(nodeCounts(rep.Replacements)))
				if len(rep.Replacements) == 0 {
					what = "not replaced (the set keeps no more pods than survived)"
				}
				reasons = append(reasons, fmt.Sprintf("pod set %q: pods of failed node(s) %s %s", set.Name, hostList(h.words[k]), what))
			} else if o.Action != KueueRepaired {
				o.Action = KueueResized
			}
			if stale != "" {
				reasons = append(reasons, fmt.Sprintf("pod set %q is planned anew for %d pods (its admitted %d pods are not kept: %s is on a node Kueue's topology snapshot leaves out)",
					set.Name, set.Count, w.AdmittedCount[k], stale))
			} else if n := w.AdmittedCount[k]; set.Count > n {
				reasons = append(reasons, fmt.Sprintf("pod set %q grows from %d to %d pods: %s", set.Name, n, set.Count, rs.Decision.Message))
			} else if set.Count < n {
				reasons = append(reasons, rs.Decision.Message)
			}
		}
		o.PodSets[k] = cur
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
	o.Message = kueueWords(w, joinReasons(reasons))
	writeChangedSets(w, o.PodSets, changed, a.hostOf)
	return false, nil
}

// unrepairable is the Repaired of a pod set whose pods on the failed nodes
// words (each "b1-r1-h2 (gone)") cannot be replaced, for reason why.
func unrepairable(set string, words []string, why string) placement.Repaired {
	return placement.Repaired{Reason: fmt.Sprintf("pod set %q: pods of failed node(s) %s cannot be replaced: %s; the workload must be evicted whole", set, hostList(words), why)}
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
	p, err := a.tree.PlanPodSets(a.s, &g, []topology.PodSetRequest{w.Requests[k]}, a.opts.Plan)
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
