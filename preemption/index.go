package preemption

import (
	"maps"
	"math"
	"slices"
	"sync/atomic"

	"github.com/gangsched/gangsched/placement"
)

// Index is an [Input] prepared for repeated searches: a host that calls
// [Find] every scheduling cycle, with PodGroups and budgets that change
// less often than its snapshots, builds one Index and calls
// [Index.Find] instead. The input is validated once, and the join of a
// snapshot's PodGroups ([placement.Snapshot.BoundGroups]) with their specs
// in Input.PodGroups is kept for the snapshot's base — the snapshot
// [placement.NewSnapshot] returned, shared by every snapshot derived from
// it with [placement.Snapshot.Apply] — so that only the groups a derived
// snapshot changed are looked up again.
//
// An Index is safe for concurrent use. Its answers never depend on what it
// has cached: [Index.Find] returns what Find returns with the same input.
// It keeps one join, of the base most recently searched (about 100 bytes
// per PodGroup, plus the keys, nodes and request rows of the groups a
// search has read as victims), which keeps that base alive until another
// base replaces it, and the per-node scratch of the last search (about 8
// bytes per node), which the next search reuses instead of allocating.
type Index struct {
	in   Input
	over []override // in's PodGroups with spec.priority, by priority

	join atomic.Pointer[joined]
	// scratch is a search's per-node scratch, kept for the next search
	// (about 8 bytes per node).
	scratch atomic.Pointer[scratch]
}

// NewIndex validates in and returns its prepared form. The Index holds a
// copy of in.PodGroups and in.Budgets: changing them afterwards does not
// change the Index (build a new one). Cost: O(entries) to copy, as
// [Find]'s validation, plus a sort of the budgets and one of the PodGroups
// that set spec.priority (by it), from which each search takes those
// below its preemptor.
//
// Errors (a [*placement.FieldError], wrapping [placement.ErrInvalid] or
// [placement.ErrDuplicate]): those of an invalid input in [Find] — an
// empty PodGroup or budget name, an unknown spec.disruptionMode, a
// negative status.disruptionsAllowed, an invalid budget selector, a
// duplicate budget — reported in the same order.
func NewIndex(in Input) (*Index, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	x := &Index{in: Input{PodGroups: maps.Clone(in.PodGroups), Budgets: slices.Clone(in.Budgets)}}
	x.over = x.in.overrides(math.MaxInt32 + 1)
	for i := range x.in.Budgets {
		b := &x.in.Budgets[i]
		b.Selector.MatchLabels = maps.Clone(b.Selector.MatchLabels)
		b.Selector.MatchExpressions = slices.Clone(b.Selector.MatchExpressions)
		for k := range b.Selector.MatchExpressions {
			r := &b.Selector.MatchExpressions[k]
			r.Values = slices.Clone(r.Values)
		}
	}
	return x, nil
}

// Find is [Find](s, g, in, opts) for the input in the Index was built
// from: the same plan, or the same error save those of an invalid input,
// which [NewIndex] reports instead.
//
// Cost: as Find's, without the pass that validates the input or the one
// over PodGroups for their spec.priority. When Find's candidates come from
// its pass over the snapshot's PodGroups (many pods below the preemptor),
// that pass makes
// one lookup in PodGroups only per PodGroup whose summary is not the one
// the Index joined last — every group the first time a base is searched,
// after that the groups a derived snapshot changed. The joined groups in
// disruptionMode PodGroup are read in eviction order from a list sorted
// once, beside a heap of the other candidates, and the pods of those a
// search reads are read once per base. When most groups miss, the Index
// joins s's groups anew for the next call: one more pass over them, a
// lookup each and a sort, O(groups log groups).
func (x *Index) Find(s *placement.Snapshot, g *placement.Group, opts placement.Options) (Plan, error) {
	return find(s, g, &x.in, x, opts, 0)
}

// joined is the join of one snapshot's PodGroup summaries with their
// specs, in the key order BoundGroups yields them. It is never modified
// once stored.
type joined struct {
	e   []joinedGroup
	src []source // src[i] is e[i]'s summary, as a candidate's source
	// gs[i] is e[i].g and meta[i] what collect reads of e[i], apart: the
	// pass over every group then reads 16 bytes a group, never the
	// summaries themselves.
	gs   []*placement.BoundGroup
	meta []joinedMeta
	// sorted lists, least important first, a candidate for each entry
	// in disruptionMode PodGroup (whatever its priority): its src is
	// the entry's index.
	sorted []cand
	// units[i] is filled by the first search that reads e[i] as a whole
	// group.
	units []atomic.Pointer[unitData]
}

// unitData is what a whole group's unit reads of its pods: the same for
// every snapshot whose BoundGroups yields the group's joined summary (its
// members unchanged, on the base's nodes, with the base's resources).
// Made by the first search that reads the group, then shared read-only.
type unitData struct {
	pods  []*placement.Pod
	keys  []placement.Key
	nodes []placement.NodeID
	req   []int64
}

type joinedMeta struct {
	pp    int32 // joinedGroup.pp
	whole bool  // disruptionMode PodGroup
}

type joinedGroup struct {
	g    *placement.BoundGroup
	spec PodGroupSpec // defaulted
	pp   int32        // the group's priority as a whole: override, else MaxPriority
}

// joiner reads the specs of a snapshot's groups in BoundGroups order,
// from the Index's join where a summary is the one joined (the same
// pointer: a summary's key never changes), else from the input.
type joiner struct {
	in   *Input
	t    *specTally // nil: the input is valid
	x    *Index     // nil: nothing cached
	s    *placement.Snapshot
	old  *joined
	next int // first entry of old not passed
	hits int
	miss int
}

func (f *finder) joiner(t *specTally) *joiner {
	j := &joiner{in: f.in, t: t, x: f.x, s: f.s}
	if f.x != nil {
		j.old = f.x.join.Load()
	}
	return j
}

// spec returns the defaulted spec of bg, and the index of its entry in
// j.old (-1: none); calls come in BoundGroups order.
func (j *joiner) spec(bg *placement.BoundGroup) (PodGroupSpec, int) {
	if j.old != nil {
		e := j.old.e
		for ; j.next < len(e); j.next++ {
			if e[j.next].g == bg {
				j.hits++
				j.next++
				return e[j.next-1].spec, j.next - 1
			}
			if e[j.next].g.Key.Compare(bg.Key) >= 0 {
				break // bg is a changed group: not joined
			}
		}
	}
	j.miss++
	return j.in.spec(bg.Key, j.t), -1
}

// done joins the snapshot's groups anew when most were not joined.
func (j *joiner) done() {
	if j.x == nil || j.miss <= j.hits {
		return
	}
	var n int
	for range j.s.BoundGroups() {
		n++
	}
	jo := &joined{e: make([]joinedGroup, 0, n), src: make([]source, 0, n), gs: make([]*placement.BoundGroup, 0, n), meta: make([]joinedMeta, 0, n)}
	for bg := range j.s.BoundGroups() {
		spec := j.in.spec(bg.Key, nil)
		pp := bg.MaxPriority
		if spec.Priority != nil {
			pp = *spec.Priority
		}
		if spec.DisruptionMode == DisruptionModePodGroup {
			jo.sorted = append(jo.sorted, newCand(pp, bg.Pods, true, source{g: bg}, int32(len(jo.e))))
		}
		jo.e = append(jo.e, joinedGroup{g: bg, spec: spec, pp: pp})
		jo.src = append(jo.src, source{g: bg})
		jo.gs = append(jo.gs, bg)
		jo.meta = append(jo.meta, joinedMeta{pp: pp, whole: spec.DisruptionMode == DisruptionModePodGroup})
	}
	jo.units = make([]atomic.Pointer[unitData], len(jo.e))
	q := &queue{src0: jo.src}
	slices.SortFunc(jo.sorted, func(a, b cand) int { return q.order(&b, &a) })
	j.x.join.Store(jo)
}
