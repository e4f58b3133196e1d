package topology

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// ResizePodSet changes an elastic pod set's count without moving any of
// its pods, as [placement.SolveResize] does (its r: the set named by
// r.PodSet, whose Count in g is the new count M, its N pods per node in
// r.Existing), but with the set's topology request req, as Kueue plans a
// grown Workload's delta with its topology-aware scheduling.
//
// A growth plans only the M−N new pods, by [Tree.PlanPodSets]'s algorithm
// with opts, the existing pods held where they are as bound members are:
// inside the domain of req's Required level that holds them all; for a
// sliced set, first the pods that complete every slice the existing pods
// leave incomplete, innermost layer first and inside that slice's domain,
// then whole new slices, so that every slice of every layer, old and new,
// lies in one domain of its level. With a Preferred level, the pods left
// after the completions go inside the domain of that level holding every
// existing pod when they fit there, else inside the narrowest wider
// domain holding them all that fits (searched inside it as a new set is),
// and only when none fits as a new set over the whole cluster, so the
// delta lands as near the existing pods as it can. A set that cannot grow
// so waits (Resized.Decision not Scheduled, with the plan's reason).
//
// A shrink takes pods from the least filled domains of the tree's levels
// first (SolveResize with the tree's keys as Levels): when every domain
// of every slice level holds whole slices of its layer and M and N are
// multiples of the outermost size, each domain gives up a multiple of
// its layer's size, so the slices left are whole. Existing pods that are
// not whole slices (a lost node's pods not yet replaced) shrink so too
// when the pods left are whole slices; else the shrink is an error. The
// same count keeps the pods.
//
// Upstream: Kueue (v0.17 to its main branch of 2026-08, ElasticJobsViaWorkloadSlicesWithTAS)
// refuses an elastic set with a Required or Preferred level, places a
// growth's delta as a new set beside the previous assignment, and shrinks
// by truncating the previous assignment in its domains' order, whole
// slices or not; it re-plans the whole set as new only when the previous
// assignment names a domain the topology no longer has. gangsched keeps
// every slice whole instead, so it refuses the shrink Kueue would truncate.
//
// Errors are SolveResize's and PlanPodSets' for the set and req, or a
// [*placement.FieldError]: req names another set than r (or the members);
// r.Levels is neither empty nor the tree's keys for a sliced set; M is not
// a multiple of the outermost slice size; the existing pods are not in
// one domain of the Required level; a shrink would leave a slice
// incomplete (wrapping [ErrShrinkBreaksSlices]).
//
// Cost: a growth costs PlanPodSets of the delta plus O(N) to hold the
// existing pods (with a Preferred level, up to one search per level
// above it); a shrink SolveResize's.
func (t *Tree) ResizePodSet(s *placement.Snapshot, g *placement.Group, req PodSetRequest, r placement.Resize, opts PlanOptions) (placement.Resized, error) {
	if err := checkPlanArgs(s, g, opts); err != nil {
		return placement.Resized{}, err
	}
	if req.PodSet == "" || req.PodSet != r.PodSet {
		return placement.Resized{}, placement.Errorf(placement.ErrInvalid, fmt.Sprintf("PodGroup %q", g.Key().String()), "request.podSet",
			"%q is not the resized set %q", req.PodSet, r.PodSet)
	}
	cr, err := t.compile(g, req, func() string { return "request" })
	if err != nil {
		return placement.Resized{}, err
	}
	if err := cr.bind(s, g); err != nil {
		return placement.Resized{}, err
	}
	if err := cr.checkCount(0, ""); err != nil {
		return placement.Resized{}, err
	}
	if len(r.Levels) == 0 {
		r.Levels = t.keys
	} else if cr.sliced() && !slices.Equal(r.Levels, t.keys) {
		return placement.Resized{}, placement.Errorf(placement.ErrInvalid, cr.obj(), "resize.levels",
			"%v are not the tree's levels %v: a sliced set shrinks by the tree's domains", r.Levels, t.keys)
	}
	ids := make([]placement.NodeID, 0, len(r.Existing))
	for _, a := range r.Existing {
		id, ok := s.NodeID(a.Node)
		if !ok {
			break // SolveResize names it
		}
		ids = append(ids, id)
	}
	if cr.required && len(ids) == len(r.Existing) {
		if err := t.existingIn(s, &cr, ids); err != nil {
			return placement.Resized{}, err
		}
	}
	r.Grow = func(s *placement.Snapshot, delta *placement.Group, existing []placement.PodSetAssignment) (placement.Decision, error) {
		f := &fixedPods{what: "existing pods"}
		key := placement.Key{Namespace: delta.Namespace, Name: req.PodSet}
		for _, a := range existing {
			for range a.Count {
				f.nodes = append(f.nodes, a.NodeID)
				f.pods = append(f.pods, key)
			}
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		p, err := t.planLocked(s, delta, []PodSetRequest{req}, opts, f)
		return p.Decision, err
	}
	out, err := placement.SolveResize(s, g, r, placement.Options{})
	if err != nil {
		return placement.Resized{}, err
	}
	if len(out.Removed) > 0 && cr.sliced() {
		if err := t.wholeSlices(&cr, out.Assignments); err != nil {
			return placement.Resized{}, err
		}
	}
	return out, nil
}

// ErrShrinkBreaksSlices marks the [*placement.FieldError] of a shrink that
// would leave a slice incomplete (its existing pods are not whole slices,
// and taking the least filled domains first does not leave whole ones).
// It wraps [placement.ErrInvalid]. A host that lost the set's pods with a
// node may re-plan the set as new, as Kueue does a stale assignment.
var ErrShrinkBreaksSlices = fmt.Errorf("%w: a shrink leaves a slice incomplete", placement.ErrInvalid)

// existingIn checks that the existing pods on nodes ids are in one domain
// of r's Required level.
func (t *Tree) existingIn(s *placement.Snapshot, r *request, ids []placement.NodeID) error {
	d := DomainID(-1)
	for _, id := range ids {
		di := t.domainOf(id, r.level)
		if di < 0 {
			return placement.Errorf(placement.ErrInvalid, r.obj(), "resize.existing", "has pods on node %q, which is in no domain of its required level %q", s.Node(id).Name, t.keys[r.level])
		}
		if d >= 0 && di != d {
			return placement.Errorf(placement.ErrInvalid, r.obj(), "resize.existing", "has pods in two domains of its required level %q, %s and %s: the set already breaks its constraint", t.keys[r.level], t.doms[d].path, t.doms[di].path)
		}
		d = di
	}
	return nil
}

// wholeSlices checks that the pods a shrink leaves (per node, NodeIDs
// set) hold whole slices of every layer of r in every domain of its level.
func (t *Tree) wholeSlices(r *request, left []placement.PodSetAssignment) error {
	var kept int64
	for _, a := range left {
		kept += int64(a.Count)
	}
	for _, l := range r.layers {
		in := map[DomainID]int64{}
		for _, a := range left {
			in[t.domainOf(a.NodeID, l.level)] += int64(a.Count)
		}
		for _, d := range slices.Sorted(maps.Keys(in)) {
			n := in[d]
			if n%l.size == 0 {
				continue
			}
			where := "in no domain of " + t.keys[l.level]
			if d >= 0 {
				where = "in " + t.doms[d].path
			}
			return placement.Errorf(ErrShrinkBreaksSlices, r.obj(), "resize.existing",
				"shrunk to %d pods, least filled domains first, they keep %s %s, not whole slices of %d", kept, plural(n, "pod"), where, l.size)
		}
	}
	return nil
}
