package topology

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// ReplacePodSet finds replacement nodes for the pods of set r.PodSet that
// ran on failed nodes, with the set's topology request req, after the
// idea of Kueue's node hot swap (TASFailedNodeReplacement, with
// TASReplaceNodeOnNodeTaints for tainted nodes); with
// opts.KueueReplacement (the Kueue profiles) it gives Kueue v0.17's
// answers. r.Existing are the set's pods per node before the failure
// (Node names the node; NodeID is ignored). r.Failed names the failed
// nodes: gone from s (deleted), or still in s but out of use (tainted so
// that the set's pods were evicted, or not ready). r.Keep must be empty:
// the levels the replacements keep come from req.
//
// A gone node and a tainted one are one case, as in Kueue: the failed
// nodes' pods are lost, every other pod stays where it is, and the set
// grows from its survivors back to its Count in g (normally the pods of
// Existing; another count resizes it in the same step), never onto a
// failed node. A set with no survivors is planned as new.
//
// gangsched's own answer (opts.KueueReplacement unset) is
// [Tree.ResizePodSet]'s growth, which keeps every slice the lost pods
// leave incomplete in its domain. So the replacements
//   - stay inside the domain of req's Required level that holds the
//     survivors;
//   - first complete every slice the lost pods leave incomplete, inside
//     that slice's domain at every layer, innermost first (the domain is
//     the one of the slice's surviving pods: a gone node's labels are not
//     needed);
//   - then form whole slices for the slices lost whole, each in one domain
//     of its layer anywhere inside the required domain, chosen as a new
//     set's would be (with a Preferred level, as near the survivors as
//     they fit).
//
// Kueue's answer (opts.KueueReplacement, when the count is that of
// Existing and some pods survive; findReplacementAssignment and
// requiredReplacementDomain in pkg/cache/scheduler/tas_flavor_snapshot.go)
// plans the lost pods as one new request of their count with req,
// confined to one required replacement domain: when the lost count is
// not a multiple of the outermost slice size, the domain of the
// incomplete slice (of the innermost layer whose size does not divide
// the lost count), the slices becoming the innermost layer whose size
// divides it, or none; otherwise, with a Required level, the survivors'
// domain of that level; otherwise nowhere in particular (a Preferred
// set's lost pods go where a new set of their count would). So a slice
// lost whole beside an incomplete one must fit in the incomplete one's
// domain, or the set is evicted, and the lost pods of a set of slices
// alone that make no whole slice are never replaced (Kueue's request
// then names no level). Where several domains could hold the incomplete
// slice (only survivors not in whole slices allow it), Kueue takes one
// in Go map order and ReplacePodSet the first by path. A gone node's
// domains are not needed by either: Kueue's Workload records its
// assignment at the hostname level only when the topology's lowest level
// is the hostname (KEP-2724, "Topology assignment representation"), the
// only topology in which Kueue replaces nodes, so a gone node's rack is
// unknown.
//
// When the replacements do not fit, or no node is left at a level of
// req (the failed node was the last to carry it), the set cannot be
// repaired: Repairable is false, Reason says why, and the host evicts the
// workload whole (Kueue's NodeFailures eviction); its Decisions then
// hold one decision that did not schedule. Kueue replaces one failed
// node at a time and evicts a workload when a second node fails before
// the first is replaced; ReplacePodSet replaces every failed node of r
// at once (the kube adapter passes one, and evicts on two), under
// KueueReplacement as one request of all their pods.
//
// The result's Assignments are the survivors plus Replacements (less the
// pods a smaller count removes), in node order; when not repairable, just
// Existing. Decisions holds the growth's (or Kueue's request's) decision.
//
// The snapshot must hold the survivors and no more: the set's reservation
// of them ([placement.Change].Reserve), or without one their pods bound. A
// host whose reservation still holds the failed nodes' pods replaces it
// first, in one Apply that releases the set and reserves the survivors
// (see the example); after a repair it reserves Assignments the same way.
//
// A failed node must be known: in s (tainted or not ready; it then takes
// no replacement, whether or not the set ran there), or gone from s and
// one of the set's nodes in Existing. A gone node that is neither is an
// error, not ignored: no pod of the set is lost with it, so a name there
// is a typo or another set's node.
//
// Errors are ResizePodSet's for req and the survivors (its fields are
// named resize.*), or a [*placement.FieldError]: g has no set r.PodSet
// (repair.podSet, wrapping ErrNotFound); req is for another set
// (request.podSet); r.Keep is not empty; a failed node's name is empty or listed twice (repair.failed[i]);
// a failed node neither in s nor in Existing (repair.failed[i], wrapping
// ErrNotFound); an entry of Existing names a node that is neither in s
// nor failed (repair.existing[i].node); the snapshot's reservation of the
// set is not the survivors: it still holds pods of failed nodes, or
// differs otherwise (repair.existing); the survivors are neither reserved
// nor bound (resize.existing).
//
// Cost: ResizePodSet's, plus O(E + F + R) for E entries of Existing, F
// failed nodes and R entries of the set's reservation in s.
func (t *Tree) ReplacePodSet(s *placement.Snapshot, g *placement.Group, req PodSetRequest, r placement.Repair, opts PlanOptions) (placement.Repaired, error) {
	if err := t.checkBuilt(); err != nil {
		return placement.Repaired{}, err
	}
	if err := checkPlanArgs(s, g, opts); err != nil {
		return placement.Repaired{}, err
	}
	obj := fmt.Sprintf("pod set %q of PodGroup %q", r.PodSet, g.Key().String())
	// Checked here, not left to ResizePodSet, so that the error names
	// this call's fields (repair.podSet), not the resize it makes.
	if !slices.ContainsFunc(g.PodSets, func(ps placement.PodSet) bool { return ps.Name == r.PodSet }) {
		return placement.Repaired{}, placement.Errorf(placement.ErrNotFound, fmt.Sprintf("PodGroup %q", g.Key().String()), "repair.podSet", "the group has no pod set %q", r.PodSet)
	}
	if req.PodSet != r.PodSet {
		return placement.Repaired{}, placement.Errorf(placement.ErrInvalid, obj, "request.podSet", "%q is not the repaired set %q", req.PodSet, r.PodSet)
	}
	if len(r.Keep) > 0 {
		return placement.Repaired{}, placement.Errorf(placement.ErrInvalid, obj, "repair.keep",
			"%v: the levels a replacement keeps come from the set's topology request", r.Keep)
	}
	// failed maps each failed node to whether it is known: in s, or
	// one of the set's nodes in Existing.
	failed := make(map[string]bool, len(r.Failed))
	var inSnapshot []placement.NodeID // failed nodes still in s
	for i, name := range r.Failed {
		if _, dup := failed[name]; name == "" || dup {
			return placement.Repaired{}, placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("repair.failed[%d]", i), "%q is empty or listed twice", name)
		}
		id, ok := s.NodeID(name)
		failed[name] = ok
		if ok {
			inSnapshot = append(inSnapshot, id)
		}
	}
	var survivors []placement.PodSetAssignment
	var lost, kept int64
	var from []string // the failed nodes that held pods, in Existing's order
	for i, a := range r.Existing {
		if _, ok := failed[a.Node]; ok {
			failed[a.Node] = true
			lost += int64(a.Count)
			from = append(from, a.Node)
			continue
		}
		id, ok := s.NodeID(a.Node)
		if !ok {
			return placement.Repaired{}, placement.Errorf(placement.ErrNotFound, obj, fmt.Sprintf("repair.existing[%d].node", i),
				"%q is not in the snapshot and not listed in repair.failed", a.Node)
		}
		a.NodeID = id
		survivors, kept = append(survivors, a), kept+int64(a.Count)
	}
	for i, name := range r.Failed {
		if !failed[name] {
			// A typo, or a node of another set: either way no pod of
			// this set is lost with it, which the caller did not mean.
			return placement.Repaired{}, placement.Errorf(placement.ErrNotFound, obj, fmt.Sprintf("repair.failed[%d]", i),
				"%q is neither in the snapshot nor one of the set's nodes in repair.existing", name)
		}
	}
	slices.SortFunc(survivors, func(a, b placement.PodSetAssignment) int { return int(a.NodeID) - int(b.NodeID) })
	if u, ok := s.PodSetUsage(g.Key(), r.PodSet); ok {
		if err := reservesSurvivors(obj, u.Nodes, survivors, failed); err != nil {
			return placement.Repaired{}, err
		}
	}
	if len(inSnapshot) > 0 {
		// A failed node still in s may pass every filter (a node not
		// ready, a taint the pods tolerate): it takes no replacement.
		opts.Filters = append(slices.Clip(opts.Filters), placement.FilterFunc(func(_ *placement.Pod, n placement.NodeInfo) placement.Rejection {
			if slices.Contains(inSnapshot, n.ID()) {
				return placement.Rejection{Reason: "node failed", Unresolvable: true}
			}
			return placement.Rejection{}
		}))
	}
	var kr *kueueReplacement
	if opts.KueueReplacement && len(survivors) > 0 && lost > 0 && countOf(g, r.PodSet) == lost+kept {
		k := t.kueueReplacementFor(req, survivors, lost)
		kr = &k
	}
	rs, err := t.resize(s, g, req, placement.Resize{PodSet: r.PodSet, Existing: survivors}, opts, kr)
	if errors.Is(err, ErrNoDomain) {
		// Every node of a level is gone: the set cannot be placed
		// again, and the host evicts it as for any failed repair.
		var fe *placement.FieldError
		msg := err.Error()
		if errors.As(err, &fe) {
			msg = "no domain at the topology level " + fe.Detail
		}
		return unrepairable(g, r, lost, from, placement.Unresolvable, msg), nil
	}
	if err != nil {
		return placement.Repaired{}, err
	}
	if rs.Decision.Status != placement.Scheduled {
		msg := rs.Decision.Message
		if kr != nil && kr.dom >= 0 && kr.fail == "" {
			msg = fmt.Sprintf("confined to %s, Kueue's replacement domain: %s", t.doms[kr.dom].path, msg)
		}
		out := unrepairable(g, r, lost, from, rs.Decision.Status, msg)
		out.Decisions[0] = rs.Decision
		return out, nil
	}
	out := placement.Repaired{Decisions: []placement.Decision{rs.Decision}}
	out.Repairable, out.Assignments = true, rs.Assignments
	if rs.Removed == nil {
		out.Replacements = slices.Clone(rs.Decision.PodSetAssignments)
		slices.SortFunc(out.Replacements, func(a, b placement.PodSetAssignment) int { return int(a.NodeID) - int(b.NodeID) })
	}
	return out, nil
}

// reservesSurvivors checks that a set's reservation, reserved (in node
// order), is its survivors (sorted by node), as ReplacePodSet needs it:
// the growth that replaces the lost pods is a resize from the survivors.
// A reservation that still holds the pods of failed nodes is the host's
// state right after a failure, so its error says how to mend it.
func reservesSurvivors(obj string, reserved, survivors []placement.PodSetAssignment, failed map[string]bool) error {
	var onFailed []string
	i := 0
	for _, a := range reserved {
		if _, ok := failed[a.Node]; ok {
			onFailed = append(onFailed, strconv.Quote(a.Node))
			continue
		}
		if i == len(survivors) || survivors[i].NodeID != a.NodeID || survivors[i].Count != a.Count {
			i = -1
			break
		}
		i++
	}
	switch {
	case i != len(survivors):
		return placement.Errorf(placement.ErrInvalid, obj, "repair.existing",
			"its entries on nodes that did not fail (the survivors) differ from the snapshot's reservation of the set: the snapshot must reserve the survivors alone, or hold them bound without a reservation")
	case len(onFailed) > 0:
		return placement.Errorf(placement.ErrInvalid, obj, "repair.existing",
			"the snapshot's reservation of the set still holds its pods on failed node(s) %s: reserve the survivors alone first (Snapshot.Apply of a Change that releases the set and reserves its entries on the nodes that did not fail)",
			strings.Join(onFailed, ", "))
	}
	return nil
}

// unrepairable is ReplacePodSet's answer for a set whose lost pods find no
// replacement: the set as it was, a decision of status st with message
// msg, and the reason.
func unrepairable(g *placement.Group, r placement.Repair, lost int64, from []string, st placement.Status, msg string) placement.Repaired {
	return placement.Repaired{
		Assignments: slices.Clone(r.Existing),
		Reason: fmt.Sprintf("%s of failed node(s) %s cannot be replaced in their domains: %s; the workload must be evicted whole",
			plural(lost, "pod"), strings.Join(from, ", "), msg),
		Decisions: []placement.Decision{{Group: g.Key(), Status: st, Message: msg}},
	}
}

// countOf returns the count of g's pod set name, or -1.
func countOf(g *placement.Group, name string) int64 {
	for _, ps := range g.PodSets {
		if ps.Name == name {
			return int64(ps.Count)
		}
	}
	return -1
}
