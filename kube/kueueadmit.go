package kube

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// KueueOptions configure [AdmitKueueWorkloads].
type KueueOptions struct {
	// Plan tunes the plans of pending Workloads (Balanced: Kueue's
	// TASBalancedPlacement).
	Plan topology.PlanOptions
	// Now is the lastTransitionTime of the conditions written.
	Now time.Time
}

// KueueAction says what admission did with a Workload.
type KueueAction string

// The actions of [KueueOutcome].
const (
	// KueueAdmitted: a pending Workload was planned and admitted.
	KueueAdmitted KueueAction = "Admitted"
	// KueueKept: an admitted Workload keeps its assignment unchanged.
	KueueKept KueueAction = "Kept"
	// KueueResized: an admitted Workload whose pod set counts changed
	// grew or shrank in place (elastic workloads).
	KueueResized KueueAction = "Resized"
	// KueueGrowWaits: an admitted Workload cannot be resized in place: its
	// growth does not fit yet, or its admitted pods already break the
	// set's required level or slices (nodes relabelled since), so no
	// resize keeps them. It keeps its old assignment.
	KueueGrowWaits KueueAction = "GrowWaits"
	// KueueRepaired: pods on failed nodes found replacements in their
	// domains.
	KueueRepaired KueueAction = "Repaired"
	// KueueEvicted: pods on failed nodes found none; the Workload was
	// evicted whole, then queued again and did not fit.
	KueueEvicted KueueAction = "Evicted"
	// KueueReadmitted: evicted whole, then admitted elsewhere.
	KueueReadmitted KueueAction = "Readmitted"
	// KueuePending: a pending Workload does not fit.
	KueuePending KueueAction = "Pending"
)

// KueueOutcome is what [AdmitKueueWorkloads] did with one Workload.
type KueueOutcome struct {
	Workload placement.Key
	Action   KueueAction
	// Message is the reason: why it waits, why it was evicted, how it
	// was repaired or resized.
	Message string
	// PodSets are the pod sets' pods per node after admission, in the
	// Workload's pod set order; empty when it holds no quota.
	PodSets [][]placement.PodSetAssignment
}

// AdmitKueueWorkloads admits Kueue Workloads over s as Kueue's
// topology-aware scheduling does, committing each admitted pod set as usage
// per node ([placement.Change].Reserve, no pods), and writes each
// Workload's status back into its object. Workloads are queued by
// spec.priority (higher first), then creationTimestamp, then namespace and
// name.
//
// First the Workloads that hold quota, in queue order: their pods per node
// are reserved as status.admission assigns them. A pod set whose count no
// longer matches its admitted count is resized in place
// ([topology.Tree.ResizePodSet] with the set's request and opts.Plan: a
// growth inside the domain of its required level that first completes
// the slices its pods leave incomplete and then adds whole slices, so
// every slice stays in one domain of its level, and with a preferred
// level as near the existing pods as it fits; a shrink that keeps whole
// slices at every layer, emptying the least filled domains first and
// re-picking among its pods when a lost node left a slice incomplete;
// if the growth does not fit, or the admitted pods already break the
// required level or slices, it keeps its pods and waits). Pods on a
// node that is gone, or tainted NoExecute without a toleration, are
// replaced: on tainted nodes by [placement.SolveRepair] inside the same
// domains of every level down to the required and slice levels (so
// inside the failed pod's slice domain at every layer; a slice layer at
// the hostname level has the failed host as its domain, so such a set
// cannot be repaired and is evicted); on gone
// nodes, whose labels are unknown, as a growth of the surviving pods
// (completing the slices the lost pods leave incomplete, in their slice
// domains; one that shrinks too, to fewer pods than its survivors, when
// they cannot keep whole slices, is planned again as new, as Kueue does
// an elastic set whose assignment names a gone node; admitted pods that
// break the request cannot be repaired). A Workload that cannot be
// repaired is
// evicted whole (Evicted True, reason NodeFailures; QuotaReserved False)
// and queued again. Then the pending Workloads, in queue order, are
// planned with [topology.Tree.PlanPodSets]; those that fit are admitted
// (status.admission with a topologyAssignment per pod set, at the hostname
// level, in rank order; QuotaReserved and Admitted True) and the others
// get QuotaReserved False, reason Pending, with the plan's reason. The
// pending ones are tried until none more fits, so that each reason is the
// one of the final state and a second run over the written objects
// changes nothing.
//
// tree must be built on s (or a snapshot s derives from) with levels whose
// lowest is kubernetes.io/hostname. Errors are the plan's or solver's for
// bad requests, each a [*placement.FieldError]; s and the objects are then
// left as they were only in part, and must be discarded.
func AdmitKueueWorkloads(s *placement.Snapshot, tree *topology.Tree, ws []*KueueWorkload, opts KueueOptions) (*placement.Snapshot, []KueueOutcome, error) {
	a := &admitter{s: s, tree: tree, opts: opts, host: map[string]placement.NodeID{}}
	for id := range placement.NodeID(s.NumNodes()) {
		if h, ok := s.Node(id).Labels[corev1.LabelHostname]; ok {
			a.host[h] = id
		}
	}
	queue := slices.Clone(ws)
	slices.SortStableFunc(queue, func(x, y *KueueWorkload) int {
		return cmp.Or(cmp.Compare(y.Priority, x.Priority), x.Created.Compare(y.Created), x.Key().Compare(y.Key()))
	})
	out := make([]KueueOutcome, len(queue))
	var pending []int
	for i, w := range queue {
		out[i].Workload = w.Key()
		if !w.Admitted {
			pending = append(pending, i)
			continue
		}
		requeue, err := a.running(w, &out[i])
		if err != nil {
			return nil, nil, err
		}
		if requeue {
			pending = append(pending, i)
		}
	}
	slices.Sort(pending)
	for more := true; more; {
		more = false
		for _, i := range pending {
			if o := &out[i]; o.Action == KueueAdmitted || o.Action == KueueReadmitted {
				continue
			}
			admitted, err := a.pending(queue[i], &out[i])
			if err != nil {
				return nil, nil, err
			}
			more = more || admitted
		}
	}
	return a.s, out, nil
}

// admitter carries the snapshot as reservations change it.
type admitter struct {
	s    *placement.Snapshot
	tree *topology.Tree
	opts KueueOptions
	host map[string]placement.NodeID // kubernetes.io/hostname value → node
}

// hostOf is the hostname label value of node id (its name without one).
func (a *admitter) hostOf(id placement.NodeID) string {
	n := a.s.Node(id)
	if h, ok := n.Labels[corev1.LabelHostname]; ok {
		return h
	}
	return n.Name
}

// running reserves an admitted Workload's pods, resizing and repairing its
// pod sets; it reports whether the Workload was evicted and must queue
// again.
func (a *admitter) running(w *KueueWorkload, o *KueueOutcome) (requeue bool, err error) {
	o.Action = KueueKept
	o.PodSets = make([][]placement.PodSetAssignment, len(w.Group.PodSets))
	changed := make([]bool, len(w.Group.PodSets))
	var reasons []string
	for k := range w.Group.PodSets {
		set := &w.Group.PodSets[k]
		var existing []placement.PodSetAssignment
		var tainted, gone []string
		for _, p := range w.Assigned[k] {
			id, ok := a.host[p.Node]
			if !ok {
				gone = append(gone, p.Node)
				continue
			}
			p.Node, p.NodeID = a.s.Node(id).Name, id
			existing = append(existing, p)
			if noExecute(&set.Template, a.s.Node(id)) {
				tainted = append(tainted, p.Node)
			}
		}
		slices.SortFunc(existing, func(x, y placement.PodSetAssignment) int { return int(x.NodeID) - int(y.NodeID) })
		if err := a.reserve(w, set.Name, existing); err != nil {
			return false, err
		}
		cur := existing
		if len(tainted) > 0 {
			rep, err := placement.SolveRepair(a.s, w.Group, placement.Repair{PodSet: set.Name, Existing: cur, Failed: tainted, Keep: a.keep(w.Requests[k])}, placement.Options{})
			if err != nil {
				return false, err
			}
			if !rep.Repairable {
				return true, a.evict(w, o, rep.Reason)
			}
			if cur, err = a.replace(w, set.Name, rep.Assignments); err != nil {
				return false, err
			}
			changed[k] = true
			o.Action = KueueRepaired
			reasons = append(reasons, fmt.Sprintf("pod set %q: %d pods moved off tainted node(s) %s", set.Name, moved(existing, rep.Assignments), hostList(tainted)))
		}
		if len(gone) > 0 || set.Count != w.AdmittedCount[k] {
			rs, err := a.tree.ResizePodSet(a.s, w.Group, w.Requests[k], placement.Resize{PodSet: set.Name, Existing: cur}, a.opts.Plan)
			if len(gone) > 0 && errors.Is(err, topology.ErrShrinkBreaksSlices) {
				// Kueue plans an elastic set whose assignment names a
				// gone node as new; evicted, it is planned so below.
				return true, a.evict(w, o, fmt.Sprintf("pod set %q lost pods on gone node(s) %s and shrinks to %d pods, which its pods left cannot keep in whole slices: it is planned again as new", set.Name, hostList(gone), set.Count))
			}
			if fe := (*placement.FieldError)(nil); errors.As(err, &fe) && fe.Field == "resize.existing" {
				// The admitted pods themselves break the set's request
				// (its nodes were relabelled since): no resize in place
				// keeps it, so the set is treated as one that does not fit.
				rs, err = placement.Resized{Decision: placement.Decision{Status: placement.Unschedulable, Message: "status.admission: " + fe.Detail}}, nil
			}
			if err != nil {
				return false, err
			}
			switch {
			case rs.Decision.Status != placement.Scheduled && len(gone) > 0:
				return true, a.evict(w, o, fmt.Sprintf("pod set %q lost pods on gone node(s) %s and cannot replace them in their domain: %s", set.Name, hostList(gone), rs.Decision.Message))
			case rs.Decision.Status != placement.Scheduled:
				if o.Action == KueueKept {
					o.Action = KueueGrowWaits
				}
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
				if len(gone) > 0 {
					o.Action = KueueRepaired
					what := "replaced"
					if len(rs.Decision.PodSetAssignments) == 0 {
						what = "not replaced (the set keeps no more pods than survived)"
					}
					reasons = append(reasons, fmt.Sprintf("pod set %q: pods of gone node(s) %s %s", set.Name, hostList(gone), what))
				} else if o.Action != KueueRepaired {
					o.Action = KueueResized
				}
				if n := w.AdmittedCount[k]; set.Count > n {
					reasons = append(reasons, fmt.Sprintf("pod set %q grows from %d to %d pods: %s", set.Name, n, set.Count, rs.Decision.Message))
				} else if set.Count < n {
					reasons = append(reasons, rs.Decision.Message)
				}
			}
		}
		o.PodSets[k] = cur
	}
	o.Message = kueueWords(w, joinReasons(reasons))
	writeChangedSets(w, o.PodSets, changed, a.hostOf)
	return false, nil
}

// keep is the levels a repaired pod must share with the pod it replaces:
// every tree level down to the narrowest of the set's required level and
// slice levels; none for a set without either.
func (a *admitter) keep(r topology.PodSetRequest) []string {
	keys := a.tree.Keys()
	deepest := -1
	if l, ok := a.tree.Level(r.Required); ok {
		deepest = l
	}
	for _, sl := range r.Slices {
		if l, ok := a.tree.Level(sl.Key); ok {
			deepest = max(deepest, l)
		}
	}
	return keys[:deepest+1]
}

// reserve adds a set's pods as a reservation.
func (a *admitter) reserve(w *KueueWorkload, set string, pods []placement.PodSetAssignment) error {
	if len(pods) == 0 {
		return nil
	}
	k := slices.IndexFunc(w.Group.PodSets, func(p placement.PodSet) bool { return p.Name == set })
	next, err := a.s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: w.Key(), PodSet: set, Requests: w.Group.PodSets[k].Template.Requests, Nodes: pods}}})
	if err != nil {
		return err
	}
	a.s = next
	return nil
}

// release takes a set's reservation out, if it has one.
func (a *admitter) release(w *KueueWorkload, set string) error {
	if _, ok := a.s.PodSetUsage(w.Key(), set); !ok {
		return nil
	}
	next, err := a.s.Apply(placement.Change{Release: []placement.PodSetRef{{Group: w.Key(), PodSet: set}}})
	if err != nil {
		return err
	}
	a.s = next
	return nil
}

// replace swaps a set's reservation for pods and returns them.
func (a *admitter) replace(w *KueueWorkload, set string, pods []placement.PodSetAssignment) ([]placement.PodSetAssignment, error) {
	if err := a.release(w, set); err != nil {
		return nil, err
	}
	return pods, a.reserve(w, set, pods)
}

// evict releases every reservation of w and writes its eviction.
func (a *admitter) evict(w *KueueWorkload, o *KueueOutcome, reason string) error {
	for _, set := range w.Group.PodSets {
		if err := a.release(w, set.Name); err != nil {
			return err
		}
	}
	reason = kueueWords(w, reason)
	o.Action, o.Message, o.PodSets = KueueEvicted, reason, nil
	writeEvicted(w, reason, a.opts.Now)
	return nil
}

// pending plans a Workload that holds no quota and admits it when it
// fits; it reports whether it did.
func (a *admitter) pending(w *KueueWorkload, o *KueueOutcome) (bool, error) {
	p, err := a.tree.PlanPodSets(a.s, w.Group, w.Requests, a.opts.Plan)
	if err != nil {
		return false, err
	}
	if p.Decision.Status != placement.Scheduled {
		msg := kueueWords(w, p.Decision.Message)
		if o.Action != KueueEvicted {
			o.Action, o.Message = KueuePending, msg
		} else {
			o.Message = joinReasons([]string{o.Message, "queued again: " + msg})
		}
		writePending(w, msg, a.opts.Now)
		return false, nil
	}
	us, err := placement.PodSetUsageOf(w.Group, p.Decision)
	if err != nil {
		return false, err
	}
	next, err := a.s.Apply(placement.Change{Reserve: us})
	if err != nil {
		return false, err
	}
	a.s = next
	o.PodSets = make([][]placement.PodSetAssignment, len(w.Group.PodSets))
	for k, set := range w.Group.PodSets {
		i := slices.IndexFunc(p.PodSets, func(ps topology.PodSetPlan) bool { return ps.Name == set.Name })
		for _, r := range p.PodSets[i].Ranks {
			o.PodSets[k] = append(o.PodSets[k], placement.PodSetAssignment{PodSet: set.Name, Node: r.Node, NodeID: r.NodeID, Count: r.Count})
		}
	}
	if o.Action == KueueEvicted {
		o.Action = KueueReadmitted
	} else {
		o.Action, o.Message = KueueAdmitted, ""
	}
	writeAdmitted(w, o.PodSets, a.hostOf, a.opts.Now)
	return true, nil
}

// kueueWords words a plan's or solver's message for a Workload: the
// pod sets are the Workload's, not a PodGroup's.
func kueueWords(w *KueueWorkload, msg string) string {
	return strings.ReplaceAll(msg, fmt.Sprintf(" of PodGroup %q", w.Key().String()), "")
}

// noExecute reports whether node n has a NoExecute taint that the
// template does not tolerate: its pods are evicted.
func noExecute(tmpl *placement.Pod, n *placement.Node) bool {
	for _, t := range n.Taints {
		if t.Effect != placement.TaintEffectNoExecute {
			continue
		}
		if !slices.ContainsFunc(tmpl.Tolerations, func(tol placement.Toleration) bool { return tol.Tolerates(t) }) {
			return true
		}
	}
	return false
}

// moved counts the pods of before on nodes that after no longer uses.
func moved(before, after []placement.PodSetAssignment) int32 {
	var n int32
	for _, b := range before {
		if !slices.ContainsFunc(after, func(x placement.PodSetAssignment) bool { return x.NodeID == b.NodeID }) {
			n += b.Count
		}
	}
	return n
}
