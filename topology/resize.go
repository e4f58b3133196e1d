package topology

import (
	"fmt"
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
// A shrink of an unsliced set takes pods from the least filled domains
// of the tree's levels first (SolveResize with the tree's keys as
// Levels). A sliced set's shrink keeps whole slices: every domain of the
// tree, widest level first, first gives up the pods it cannot keep in
// whole slices of every layer inside it (a slice a lost node left
// incomplete), then whole slices of its layer go, from the domain that
// can keep the fewest pods first (then the one holding the fewest; ties
// to the last by path, as the unsliced shrink breaks them), level by
// level down to the nodes. Existing pods that are whole slices (as a plan
// leaves them) and a shrink by whole outer slices so lose whole slices
// only, the least filled first, at every layer; pods that are not are
// re-picked among the existing ones, never moved. M must be a multiple of
// the outermost slice size, as for a plan; when the existing pods hold
// fewer than M pods in whole slices, the shrink is an error. The same
// count keeps the pods.
//
// Upstream: Kueue (v0.17 to its main branch of 2026-08, ElasticJobsViaWorkloadSlicesWithTAS)
// refuses an elastic set with a Required or Preferred level (a set with
// slices alone is taken), places a growth's delta as a new set beside
// the previous assignment (TAS's handleScaleUp), and shrinks by truncating the previous
// assignment (utiltas.TruncateAssignment): it keeps the first M pods of
// the assignment's domain list, in that list's order, and cuts the rest,
// whole slices or not, with no look at which domains are least filled
// and no check of podSetSliceSize; it re-plans the whole set as new only
// when the previous assignment names a domain the topology no longer
// has. gangsched differs on purpose: its shrink empties the least filled
// domains first (fewer domains stay partly used, which keeps room for
// the next set whole), keeps every slice whole at every layer, and
// refuses a count that is not a multiple of the slice size, which Kueue
// would truncate into an incomplete slice.
//
// Errors are SolveResize's and PlanPodSets' for the set and req, or a
// [*placement.FieldError]: req names another set than r (or the members);
// r.Levels is neither empty nor the tree's keys for a sliced set; M is not
// a multiple of the outermost slice size; the existing pods are not in
// one domain of the Required level; a shrink of a sliced set whose
// existing pods hold fewer than M pods in whole slices (wrapping
// [ErrShrinkBreaksSlices]).
//
// Memory: the answer is allocated for the caller to keep, and
// opts.Buffers is ignored, unless r.Buffers is set (see
// [placement.ResizeBuffers]): the caller then takes the answer as valid
// until its next call with either buffer, and the delta is planned with
// opts.Buffers as PlanPodSets plans (its PodSetAssignments carved from
// them when set), the set after the resize written into r.Buffers.
//
// Cost: a growth costs PlanPodSets of the delta plus O(N) to hold the
// existing pods (with a Preferred level, up to one search per level
// above it); a shrink O(E·L·log E) for E nodes of the existing pods and L
// levels.
func (t *Tree) ResizePodSet(s *placement.Snapshot, g *placement.Group, req PodSetRequest, r placement.Resize, opts PlanOptions) (placement.Resized, error) {
	return t.resize(s, g, req, r, opts, nil)
}

// resize is ResizePodSet; with kr, a growth plans kr's request of the
// delta alone, inside kr's domain, instead of growing beside the existing
// pods (Kueue's node hot swap, [Tree.ReplacePodSet]).
func (t *Tree) resize(s *placement.Snapshot, g *placement.Group, req PodSetRequest, r placement.Resize, opts PlanOptions, kr *kueueReplacement) (placement.Resized, error) {
	if err := t.checkBuilt(); err != nil {
		return placement.Resized{}, err
	}
	if err := checkPlanArgs(s, g, opts); err != nil {
		return placement.Resized{}, err
	}
	if !slices.ContainsFunc(g.PodSets, func(ps placement.PodSet) bool { return ps.Name == r.PodSet }) {
		return placement.Resized{}, placement.Errorf(placement.ErrNotFound, fmt.Sprintf("PodGroup %q", g.Key().String()), "resize.podSet", "the group has no pod set %q", r.PodSet)
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
		if kr != nil {
			return t.planReplacement(s, delta, kr, opts)
		}
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
		opts := opts
		if r.Buffers == nil {
			// The caller keeps the resize's answer past the next plan
			// with opts.Buffers: the delta's plan must not be theirs.
			opts.Buffers = nil
		}
		p, err := t.planLocked(s, delta, []PodSetRequest{req}, opts, f)
		return p.Decision, err
	}
	if cr.sliced() {
		r.Shrink = func(existing []placement.PodSetAssignment, n int64) ([]placement.PodSetAssignment, error) {
			return t.shrinkSliced(&cr, existing, n)
		}
	}
	return placement.SolveResize(s, g, r, placement.Options{})
}

// ErrShrinkBreaksSlices marks the [*placement.FieldError] of a sliced
// set's shrink that cannot leave whole slices: its existing pods (some
// lost with a node) hold fewer pods in whole slices than the count to
// keep. It wraps [placement.ErrInvalid]. A host that lost the set's pods with a
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
