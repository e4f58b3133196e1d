package preemption

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// Outcome says what a [Plan] asks of the caller.
type Outcome int

// Outcomes of [Find].
const (
	// Fits: the group fits without preemption; Plan.Decision is the
	// solver's Scheduled decision on the snapshot as given.
	Fits Outcome = iota
	// Preempt: evict Plan.Victims; the group then fits as Plan.Decision
	// says, on Plan.After.
	Preempt
	// CannotHelp: even with every lower-priority candidate removed the
	// group does not fit, so nothing is evicted (never evict in vain).
	// Plan.Decision is the best the solver could do with all of them
	// removed and Plan.MostFreeable says what could be had, and where.
	CannotHelp
	// NotAllowed: a member of the group has preemptionPolicy Never;
	// Plan.Decision is the solver's decision on the snapshot as given.
	NotAllowed
)

// String returns the outcome's name, e.g. "CannotHelp", or "Outcome(n)"
// for a value outside the constants.
func (o Outcome) String() string {
	switch o {
	case Fits:
		return "Fits"
	case Preempt:
		return "Preempt"
	case CannotHelp:
		return "CannotHelp"
	case NotAllowed:
		return "NotAllowed"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Freeable is, for one resource, the most a single node could offer the
// group if every candidate victim left: the explanation of a [CannotHelp]
// plan ("at most nvidia.com/gpu 2 on node n1, a member requests 8").
type Freeable struct {
	// Resource is the resource, one the group's members request (or
	// "pods" when some node limits the pod count).
	Resource placement.ResourceName
	// Node is the node offering the most, ties by node name, among the
	// nodes of the placement where the most members fit.
	Node string
	// Free is the node's free quantity now (negative when overcommitted).
	Free int64
	// Freed is what the candidate victims on the node request.
	Freed int64
	// Request is the largest request for Resource among the members.
	Request int64
}

// Plan is the result of [Find].
type Plan struct {
	// Outcome says whether to evict.
	Outcome Outcome
	// Victims are the victims to evict when Outcome is Preempt, most
	// important first ([VictimOrder]); empty otherwise.
	Victims []Victim
	// Decision is the preemptor group's decision. For Preempt it is
	// Scheduled and [placement.Verify] accepts it on After (see [Find]):
	// nominate each member to the node of its assignment. For the other
	// outcomes see [Outcome].
	Decision placement.Decision
	// After is the snapshot with the victims removed (the snapshot given,
	// when nothing is evicted).
	After *placement.Snapshot
	// MostFreeable explains a CannotHelp plan, one entry per resource the
	// members request, in resource name order.
	MostFreeable []Freeable
	// Candidates is the number of candidate victims (pods and whole
	// PodGroups of lower priority) the search considered.
	Candidates int
	// Solves is the number of [placement.Solve] calls spent, the first one
	// included: O(log k) per placement searched for a prefix of k
	// candidates (often one), plus one per victim that passes the
	// member-slot check of the last pass (see [Find]); and one more, on
	// the snapshot as given, when there is no candidate (the first solve
	// does not explain a failure that preemption might still cure).
	Solves int
	// Message is a one-line explanation a person can act on.
	Message string
}

// EvictedPods returns the pods of every victim, sorted by namespace/name.
func (p *Plan) EvictedPods() []placement.Key {
	var out []placement.Key
	for i := range p.Victims {
		out = append(out, p.Victims[i].Pods...)
	}
	slices.SortFunc(out, placement.Key.Compare)
	return out
}

// Find decides whether and whom group g may preempt on s (workload-aware
// preemption, KEP-5710; DESIGN.md invariant 7). It solves g with opts —
// the options g is scheduled with — and:
//
//   - if g fits, returns [Fits];
//   - if a member has preemptionPolicy Never, returns [NotAllowed];
//   - if removing every candidate still leaves g unplaced, returns
//     [CannotHelp] and evicts nothing;
//   - otherwise returns [Preempt] with victims whose removal lets g fit.
//
// Candidates are the bound pods and disruptionMode-PodGroup groups (whole)
// of priority strictly below the preemptor's: the PodGroup's priority
// override in in.PodGroups, or else its lowest member priority. A PodGroup's
// priority overrides its pods' own, for victims as for the preemptor. The
// group's own bound members are never candidates.
//
// Search: candidates are taken in eviction order — those that keep every
// disruption budget first, then the others, each part least important first
// ([VictimOrder]). A necessary condition, counted incrementally as
// candidates are taken off — per node, free room over the smallest member
// request, summed ("member slots") — gives the shortest prefix that could
// possibly fit; the shortest prefix that does fit is found from there with
// O(log k) solves (exponential, then binary search; on a packed cluster
// usually one). Reprieve then gives candidates back, most important first
// (so budget-breaking ones before the others): first with a capacity check
// of each member on its chosen node, O(pods of the candidate), then, for
// each remaining victim whose return still leaves enough member slots, with
// a full solve. The result is minimal in that order: giving back any single
// victim makes the solver fail.
//
// With a generator in opts (a topology constraint), each placement it
// yields on the snapshot with every candidate removed is searched on its
// own, with the candidates that have a pod on its nodes, and the least
// disruptive victim set wins: fewer victims beyond a budget, then the lower
// ranking of the most important victim, the next, and so on (a prefix beats
// a longer set), then the lower placement rank, then the placement name.
// Ranks only break ties: a preferred placement never justifies more
// evictions (and a topology generator also uses ranks to let the solver
// stop early, which says nothing about disruption). Victims never come
// from two placements beyond what a whole PodGroup spans. Without budgets,
// a placement whose member-slot prefix already ends in a victim more
// important than the best set's most important one cannot win and is not
// solved.
//
// The final decision is a [placement.Solve] on the snapshot without the
// victims, restricted to the chosen placement — or, should the solver pack
// differently once pods are given back, the assignment found before, which
// still fits. Verify accepts it on Plan.After (opts.Filters included): it
// is checked with [placement.Verify] unless it is Solve's own decision on
// Plan.After and opts has no Filters, which Solve guarantees (that every
// decision Solve makes verifies, and every plan Find makes, are property
// tests of the placement and preemption packages); the check would cost
// about as much as the solve.
//
// Cost, without a generator: one pass over the snapshot's PodGroups
// ([placement.Snapshot.BoundGroups]: one lookup in in.PodGroups each; the
// pods of groups in disruptionMode Pod and of no group one by one), a pass
// over in.PodGroups to validate it unless those lookups found every entry
// (and whenever the group fits or may not preempt), and a
// heap of the candidates, O(log) per candidate the search reads in
// eviction order; one pass over the nodes for the slot count; O(pods of
// the prefix) for the slot count and the capacity reprieve, O(k log k)
// snapshot changes and O(log k) solves for a prefix of k candidates, plus
// a solve per victim that passes the slot check in the last pass. With a
// generator, add one snapshot without every candidate (Apply, about a
// microsecond per pod) and the same per placement searched. A host that
// searches every cycle with the same input saves the validation, the
// lookups and the heap of whole groups with an [Index] ([Index.Find]).
//
// Every snapshot a hook sees derives from s with Apply. Find is pure and
// deterministic: the plan depends only on the contents of s, g and in.
//
// Errors (a [*placement.FieldError]; nothing is decided): a nil s or g; a
// group with pod sets (Group.PodSets: preemption weighs each pod); an
// invalid input (an empty PodGroup or budget name, an unknown
// disruptionMode, a negative disruptionsAllowed, an invalid budget
// selector, a duplicate budget); a member with an unknown preemptionPolicy;
// any error of [placement.Solve] (an invalid group, a generator error); or
// a verification failure of the final decision (wrapping
// [placement.ErrViolation]), which means a bug or a caller hook that is
// not a pure function.
func Find(s *placement.Snapshot, g *placement.Group, in Input, opts placement.Options) (Plan, error) {
	return find(s, g, &in, nil, opts)
}

// find is [Find] on in, or [Index.Find] when x is set (then in is x's
// input, validated).
func find(s *placement.Snapshot, g *placement.Group, in *Input, x *Index, opts placement.Options) (Plan, error) {
	switch {
	case s == nil:
		return Plan{}, placement.Errorf(placement.ErrInvalid, "Find", "snapshot", "must not be nil")
	case g == nil:
		return Plan{}, placement.Errorf(placement.ErrInvalid, "Find", "group", "must not be nil")
	case len(g.PodSets) > 0:
		return Plan{}, placement.Errorf(placement.ErrInvalid, fmt.Sprintf("PodGroup %q", g.Key().String()), "podSets", "preemption needs the pods as members")
	}
	f := &finder{s: s, g: g, in: in, x: x, opts: opts}
	// in.PodGroups is checked last, when the search has not read every
	// entry already (specTally); errors come in validate's order.
	if x == nil {
		if err := in.validateBudgets(); err != nil {
			return Plan{}, f.firstError(err)
		}
	}
	for i := range g.Members {
		switch p := &g.Members[i]; p.PreemptionPolicy {
		case "", placement.PreemptLowerPriority, placement.PreemptNever:
		default:
			return Plan{}, f.firstError(placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", p.Key().String()), "spec.preemptionPolicy", "unknown policy %q (want PreemptLowerPriority or Never)", p.PreemptionPolicy))
		}
	}
	never := -1 // a member with preemptionPolicy Never
	for i := range g.Members {
		if g.Members[i].PreemptionPolicy == placement.PreemptNever {
			never = i
			break
		}
	}
	// A failure is shown only when nothing may be evicted; otherwise the
	// first solve need not explain it.
	d, err := f.solve(s, opts, never < 0)
	if err != nil {
		return Plan{}, f.firstError(err)
	}
	if d.Status != placement.Scheduled && never < 0 {
		return f.preempt(d)
	}
	if err := f.firstError(nil); err != nil {
		return Plan{}, err
	}
	if d.Status == placement.Scheduled {
		return Plan{Outcome: Fits, Decision: d, After: s, Solves: f.solves, Message: "fits without preemption: " + d.Message}, nil
	}
	return Plan{Outcome: NotAllowed, Decision: d, After: s, Solves: f.solves,
		Message: fmt.Sprintf("preemption not allowed: member %s has preemptionPolicy Never; %s", g.Members[never].Key(), d.Message)}, nil
}

// firstError returns the error validate would report first: one of
// in.PodGroups, else err. An Index's input is valid.
func (f *finder) firstError(err error) error {
	if f.x != nil {
		return err
	}
	return f.in.firstError(err)
}

// preempt searches for victims, d being the failed first solve.
func (f *finder) preempt(d placement.Decision) (Plan, error) {
	defer f.release()
	s, g, in, opts := f.s, f.g, f.in, f.opts
	var tally specTally
	t := &tally
	if f.x != nil {
		t = nil // validated by NewIndex
	}
	f.prio = in.preemptorPriority(g, t)
	f.q = collect(s, g, f.joiner(t), f.prio, len(in.Budgets) > 0)
	if t != nil && !tally.covers(in) {
		if err := in.validatePodGroups(); err != nil {
			return Plan{}, err
		}
	}
	f.index()
	f.q.f = f
	f.need = d.Required - d.Bound
	// The search runs even when d is Unresolvable: that status speaks for
	// the first member that waits only, and another member of a basic
	// group, or a gang whose minCount is below its size, may still fit.
	if f.q.len() == 0 {
		d, err := f.solve(s, opts, false) // the failure, explained
		if err != nil {
			return Plan{}, err
		}
		return f.cannotHelp(d), nil
	}
	var best *result
	var err error
	if opts.Generator == nil {
		var r result
		if kmin, ok := f.prefixBound(f.q, nil, nil); ok {
			r, err = f.search(opts, f.q, nil, kmin)
		} else {
			r, err = f.vain(f.q.all(), opts)
		}
		if err != nil {
			return Plan{}, err
		}
		if !r.ok {
			return f.cannotHelp(r.last), nil
		}
		best = &r
	} else {
		best, d, err = f.searchPlacements()
		if err != nil {
			return Plan{}, err
		}
		if best == nil {
			return f.cannotHelp(d), nil
		}
	}
	return f.plan(best)
}

type finder struct {
	s       *placement.Snapshot
	g       *placement.Group
	in      *Input
	x       *Index // nil for a plain Find
	opts    placement.Options
	prio    int32
	q       *queue // the candidates, in eviction order
	res     []placement.ResourceName
	resIdx  map[placement.ResourceName]int
	podsR   int
	need    int     // pending members that must be placed
	missing bool    // a member requests a resource no node has
	least   []int64 // per resource, the smallest member request
	// memberReq holds R values per member, like res: its requests, the
	// pod count included.
	memberReq []int64
	scratch   *slots
	sc        *scratch // nil until the search needs it
	solves    int
}

// scratch is per-node scratch of one search, O(nodes): an [Index] keeps
// one between calls, so that a search neither allocates nor clears it.
// Between uses every entry of its per-node slices is zero.
type scratch struct {
	sl  *slots  // the member-slot count; sl.at is the per-node slice
	pos []int32 // per node, 1 + an offset in reprieveFixed's slab
}

// nodeScratch returns the search's scratch for n nodes, taken from the
// Index when it holds one of that size (a search at a time: another
// concurrent search makes its own).
func (f *finder) nodeScratch(n int) *scratch {
	if f.sc == nil && f.x != nil {
		if sc := f.x.scratch.Swap(nil); sc != nil && len(sc.pos) == n {
			f.sc = sc
		}
	}
	if f.sc == nil {
		f.sc = &scratch{sl: &slots{at: make([]int32, n)}, pos: make([]int32, n)}
	}
	return f.sc
}

// release gives the scratch back to the Index, cleared: O(nodes the
// search touched).
func (f *finder) release() {
	sc := f.sc
	if sc == nil || f.x == nil {
		return
	}
	sl := sc.sl
	for _, u := range sl.out {
		u.removed = false
	}
	for _, id := range sl.ids {
		sl.at[id] = 0
	}
	clear(sl.out) // let the units go
	*sl = slots{at: sl.at, ids: sl.ids[:0], rows: sl.rows[:0], out: sl.out[:0]}
	f.x.scratch.Store(sc)
}

func (f *finder) index() {
	f.res = f.s.Resources()
	f.resIdx = make(map[placement.ResourceName]int, len(f.res))
	for i, r := range f.res {
		f.resIdx[r] = i
	}
	f.podsR = f.resIdx[placement.ResourcePods]
	R := len(f.res)
	f.memberReq = make([]int64, len(f.g.Members)*R)
	for i := range f.g.Members {
		row, req := f.memberReq[i*R:(i+1)*R], f.g.Members[i].Requests
		// A lookup per tracked resource costs less than a range over the
		// member's map; the map is ranged only when it names another.
		found := 0
		for r, name := range f.res {
			if q, ok := req[name]; ok {
				row[r] += q
				found++
			}
		}
		if found < len(req) {
			for name, q := range req {
				if _, ok := f.resIdx[name]; !ok && q > 0 {
					f.missing = true // a resource no node has: the search never runs
				}
			}
		}
		row[f.podsR]++
	}
}

// solve solves the group on s with opts; brief, when the caller reads
// only whether the decision is Scheduled (placement.Options.StatusOnly).
func (f *finder) solve(s *placement.Snapshot, opts placement.Options, brief bool) (placement.Decision, error) {
	f.solves++
	opts.StatusOnly = opts.StatusOnly || brief
	return placement.Solve(s, f.g, opts)
}

// result is the victim set found for one placement.
type result struct {
	ok      bool
	victims []*unit // eviction order
	snap    *placement.Snapshot
	d       placement.Decision
	last    placement.Decision // with every candidate removed, when !ok
	name    string             // placement name
	rank    int                // placement rank
	// solved is set when d is placement.Solve's own decision on snap
	// (not one carried over from a snapshot with other pods or objects).
	solved bool
}

func podKeys(units []*unit) []placement.Key {
	n := 0
	for _, u := range units {
		n += len(u.v.Pods)
	}
	out := make([]placement.Key, 0, n)
	for _, u := range units {
		out = append(out, u.v.Pods...)
	}
	return out
}

// prefixBound returns the length of the shortest prefix of units whose
// removal leaves enough member slots in the placement, or false when even
// all of units do not. The placement is every node when inP is nil, else
// the nodes marked in inP, which nodes lists (nil: scan inP). No shorter
// prefix can let the group fit, and any victim set that does contains a
// unit at least as late in eviction order as the prefix's last.
func (f *finder) prefixBound(units *queue, nodes []placement.NodeID, inP []bool) (int, bool) {
	sl := f.newSlots(f.s, nodes, inP)
	k := 0
	for k < units.len() && !sl.enough() {
		sl.shift(units.upto(k + 1)[k], 1)
		k++
	}
	return k, sl.enough()
}

// vain returns the result of a placement where removing every one of
// units does not make room: the decision with all of them removed.
func (f *finder) vain(units []*unit, opts placement.Options) (result, error) {
	snap, err := f.without(units)
	if err != nil {
		return result{}, err
	}
	d, err := f.solve(snap, opts, false)
	return result{last: d}, err
}

// search finds the victims among units (in eviction order) that let the
// group fit with opts, starting from the prefix of length kmin (see
// prefixBound). inP, when set, marks the nodes of the placement opts is
// restricted to.
func (f *finder) search(opts placement.Options, units *queue, inP []bool, kmin int) (result, error) {
	var r result
	kmin = max(kmin, 1)
	lo, loSnap := 0, f.s
	hi, hiSnap := -1, (*placement.Snapshot)(nil)
	var hiDec placement.Decision
	for k, step := kmin, 1; ; k, step = min(k+step, units.len()), 2*step {
		snap, err := loSnap.Apply(placement.Change{Remove: podKeys(units.upto(k)[lo:k])})
		if err != nil {
			return r, err
		}
		d, err := f.solve(snap, opts, k < units.len()) // shown when all are removed
		if err != nil {
			return r, err
		}
		if d.Status == placement.Scheduled {
			hi, hiSnap, hiDec = k, snap, d
			break
		}
		lo, loSnap, r.last = k, snap, d
		if k == units.len() {
			return r, nil // never evict in vain
		}
	}
	for hi-lo > 1 && hi > kmin {
		mid := lo + (hi-lo)/2
		snap, err := loSnap.Apply(placement.Change{Remove: podKeys(units.upto(mid)[lo:mid])})
		if err != nil {
			return r, err
		}
		d, err := f.solve(snap, opts, true)
		if err != nil {
			return r, err
		}
		if d.Status == placement.Scheduled {
			hi, hiSnap, hiDec = mid, snap, d
		} else {
			lo, loSnap = mid, snap
		}
	}
	prefix := units.upto(hi)[:hi:hi]
	victims := f.reprieveFixed(hiSnap, hiDec, prefix)
	snap, dec, solved := hiSnap, hiDec, true
	if len(victims) < len(prefix) {
		var err error
		if snap, err = f.s.Apply(placement.Change{Remove: podKeys(victims)}); err != nil {
			return r, err
		}
		if dec, err = f.solve(snap, opts, true); err != nil {
			return r, err
		}
		if dec.Status != placement.Scheduled {
			// The solver packs differently with the pods given back; the
			// assignment found before still holds unless a caller filter
			// objects to a pod given back.
			dec, solved = hiDec, false
			if placement.Verify(snap, f.g, dec, opts.Filters...) != nil {
				victims, snap, solved = prefix, hiSnap, true
			}
		}
	}
	victims, snap, dec, changed, err := f.minimize(snap, dec, victims, opts, inP)
	if err != nil {
		return r, err
	}
	return result{ok: true, victims: victims, snap: snap, d: dec, solved: solved && !changed}, nil
}

// reprieveFixed gives back the units of prefix, most important first, whose
// pods fit beside the members on the nodes d assigned them to. It returns
// the units still evicted, in eviction order. Cost: O(assignments +
// pods of prefix) × resources.
func (f *finder) reprieveFixed(snap *placement.Snapshot, d placement.Decision, prefix []*unit) []*unit {
	R := len(f.res)
	// Per assigned node, R values of room then R of the members' demand,
	// in one slab (at most one pair per assignment, so it never grows);
	// pos[node] is 1 + the offset of its pair, 0 for a node not assigned.
	pos := f.nodeScratch(f.s.NumNodes()).pos
	var assigned []placement.NodeID
	defer func() {
		for _, id := range assigned {
			pos[id] = 0
		}
	}()
	at := func(id placement.NodeID) (int, bool) { o := int(pos[id]) - 1; return o, o >= 0 }
	slab := make([]int64, 0, 2*R*len(d.Assignments))
	// The member of each assignment: found by walking the members along
	// the assignments, which usually follow them, else by name.
	i := 0
	var byKey map[placement.Key]int
	for _, a := range d.Assignments {
		for byKey == nil && i < len(f.g.Members) && (f.g.Members[i].Name != a.Pod.Name || f.g.Members[i].Namespace != a.Pod.Namespace) {
			i++
		}
		if i == len(f.g.Members) && byKey == nil {
			byKey = make(map[placement.Key]int, len(f.g.Members))
			for m := range f.g.Members {
				byKey[f.g.Members[m].Key()] = m
			}
		}
		if byKey != nil {
			i = byKey[a.Pod]
		}
		o, ok := at(a.NodeID)
		if !ok {
			o = len(slab)
			slab = snap.AppendFree(slab, a.NodeID)
			slab = slab[:o+2*R]
			pos[a.NodeID] = int32(o + 1)
			assigned = append(assigned, a.NodeID)
		}
		demand := slab[o+R : o+2*R]
		for r, q := range f.memberReq[i*R : (i+1)*R] {
			demand[r] += q
		}
	}
	shift := func(u *unit, sign int64) {
		req := u.rows(f)
		for j, id := range u.nodeIDs(f.s) {
			o, ok := at(id)
			if !ok {
				continue
			}
			for r, q := range req[j*R : (j+1)*R] {
				slab[o+r] -= sign * q
			}
		}
	}
	fits := func(u *unit) bool {
		for _, id := range u.nodeIDs(f.s) {
			if o, ok := at(id); ok {
				avail, demand := slab[o:o+R], slab[o+R:o+2*R]
				for r := range R {
					if demand[r] > 0 && avail[r] < demand[r] {
						return false
					}
				}
			}
		}
		return true
	}
	keep := make([]bool, len(prefix))
	for i := len(prefix) - 1; i >= 0; i-- {
		u := prefix[i]
		shift(u, 1)
		if fits(u) {
			continue // given back
		}
		shift(u, -1)
		keep[i] = true
	}
	var out []*unit
	for i, u := range prefix {
		if keep[i] {
			out = append(out, u)
		}
	}
	return out
}

// minimize tries to give back each victim, most important first, with a
// full solve — but only when enough member slots remain after its return
// (see [slots]), which a packed cluster rarely has. It returns the victims
// left, the snapshot without them and the decision there, and whether it
// gave any back (the decision then comes from a snapshot with the same
// contents, not the one returned).
func (f *finder) minimize(snap *placement.Snapshot, d placement.Decision, victims []*unit, opts placement.Options, inP []bool) ([]*unit, *placement.Snapshot, placement.Decision, bool, error) {
	sl := f.slotsWithout(snap, victims, inP)
	keep := make([]bool, len(victims))
	cur, changed := snap, false
	for i := len(victims) - 1; i >= 0; i-- {
		u := victims[i]
		sl.shift(u, -1)
		if sl.enough() {
			bind := make([]placement.Pod, len(u.pods))
			for j, p := range u.pods {
				bind[j] = *p
			}
			trial, err := cur.Apply(placement.Change{Bind: bind})
			if err != nil {
				return nil, nil, d, false, err
			}
			td, err := f.solve(trial, opts, true)
			if err != nil {
				return nil, nil, d, false, err
			}
			if td.Status == placement.Scheduled {
				cur, d, changed = trial, td, true
				continue
			}
		}
		sl.shift(u, 1)
		keep[i] = true
	}
	if !changed {
		return victims, snap, d, false, nil
	}
	var out []*unit
	for i, u := range victims {
		if keep[i] {
			out = append(out, u)
		}
	}
	// The same contents as cur, without re-bound copies of pods.
	clean, err := f.s.Apply(placement.Change{Remove: podKeys(out)})
	return out, clean, d, true, err
}

// slots bounds from above how many pending members the nodes of a
// placement can take: a node holds at most min over resources of
// free/least, where least is the smallest request of any member for that
// resource (the pod count included). Fewer slots than members still needed
// proves that the group cannot fit, without a solve; keeping the count as
// candidates come and go costs O(resources) per pod. Only the nodes of
// the pods shifted keep a row of their own: counting reads the others once.
type slots struct {
	f     *finder
	s     *placement.Snapshot // the snapshot counted
	inP   []bool              // nil: every node
	least []int64             // per resource; 0 = not a limit
	at    []int32             // per node, 1 + the offset of its row in rows; 0: none
	ids   []placement.NodeID  // the nodes with a row, to reset at
	rows  []int64             // free row of the nodes in at, from their offset
	total int64
	need  int64
	// out lists the units shift removed since newSlots (stale entries
	// included: a unit's removed flag says); onS is set when newSlots read
	// the caller's snapshot, every node.
	out []*unit
	onS bool
}

// slotsWithout returns the slots of snap, which is the caller's snapshot
// without victims: from the scratch state of the last prefixBound when it
// counted every node of the caller's snapshot (the units it removed
// swapped for victims, O(pods of both)), else counted anew, O(nodes).
func (f *finder) slotsWithout(snap *placement.Snapshot, victims []*unit, inP []bool) *slots {
	sl := f.scratch
	if inP != nil || sl == nil || !sl.onS {
		return f.newSlots(snap, nil, inP)
	}
	for _, u := range victims {
		u.keep = true
	}
	for _, u := range sl.out {
		if u.removed && !u.keep {
			sl.shift(u, -1)
		}
	}
	for _, u := range victims {
		if !u.removed {
			sl.shift(u, 1)
		}
		u.keep = false
	}
	return sl
}

func (f *finder) newSlots(s *placement.Snapshot, nodes []placement.NodeID, inP []bool) *slots {
	R, N := len(f.res), s.NumNodes()
	if f.least == nil {
		f.least = make([]int64, R)
		for r := range f.res {
			f.least[r] = math.MaxInt64
			for i := range f.g.Members {
				q := f.memberReq[i*R+r] // the member's request for f.res[r]
				if r == f.podsR {
					q = 1
				}
				f.least[r] = min(f.least[r], q)
			}
		}
		f.scratch = f.nodeScratch(N).sl
		f.scratch.f, f.scratch.least = f, f.least
	}
	// One slots at a time: the scratch is reused.
	sl := f.scratch
	for _, u := range sl.out {
		u.removed = false
	}
	sl.out, sl.onS = sl.out[:0], s == f.s && nodes == nil && inP == nil
	sl.s, sl.inP, sl.total, sl.need = s, inP, 0, int64(f.need)
	for _, id := range sl.ids {
		sl.at[id] = 0
	}
	sl.ids = sl.ids[:0]
	sl.rows = sl.rows[:0]
	if f.missing {
		sl.need = math.MaxInt64 // a member requests what no node has
	}
	row := make([]int64, 0, R)
	init := func(id int) {
		row = s.AppendFree(row[:0], placement.NodeID(id))
		sl.total += sl.count(row)
	}
	switch {
	case nodes != nil:
		for _, id := range nodes {
			if id >= 0 && int(id) < N {
				init(int(id))
			}
		}
	case inP == nil:
		// Every node: one row per class of identical nodes. The product
		// wraps as the per-node sum would.
		for free, n := range s.FreeRows() {
			sl.total += sl.count(free) * int64(n)
		}
	default:
		for id := range N {
			if inP == nil || inP[id] {
				init(id)
			}
		}
	}
	return sl
}

// row returns node id's free row, made its own on first use.
func (sl *slots) row(id placement.NodeID) []int64 {
	R := len(sl.least)
	o := int(sl.at[id]) - 1
	if o < 0 {
		o = len(sl.rows)
		sl.rows = sl.s.AppendFree(sl.rows, id)
		sl.at[id] = int32(o + 1)
		sl.ids = append(sl.ids, id)
	}
	return sl.rows[o : o+R]
}

// count returns the slots of a node with the given free row.
func (sl *slots) count(row []int64) int64 {
	c := sl.need
	for r, q := range sl.least {
		if q > 0 {
			free := row[r]
			if free < q {
				return 0 // most nodes of a packed cluster: no division
			}
			c = min(c, free/q)
		}
	}
	return c
}

// shift frees u's room (sign 1, u removed) or takes it back (sign -1).
func (sl *slots) shift(u *unit, sign int64) {
	if u.removed = sign > 0; u.removed {
		sl.out = append(sl.out, u)
	}
	R := len(sl.least)
	req := u.rows(sl.f)
	for j, id := range u.nodeIDs(sl.f.s) {
		if sl.inP != nil && !sl.inP[id] {
			continue
		}
		free := sl.row(id)
		before := sl.count(free)
		for r, q := range req[j*R : (j+1)*R] {
			free[r] += sign * q
		}
		sl.total += sl.count(free) - before
	}
}

func (sl *slots) enough() bool { return sl.total >= sl.need }

// without returns the snapshot with every pod of units removed, derived
// from s with Apply so that hooks keyed to s (a topology tree) accept it.
func (f *finder) without(units []*unit) (*placement.Snapshot, error) {
	return f.s.Apply(placement.Change{Remove: podKeys(units)})
}

// searchPlacements searches each placement of opts.Generator on the
// snapshot with every candidate removed. It returns nil and the decision
// there when no placement can be freed.
func (f *finder) searchPlacements() (*result, placement.Decision, error) {
	s0, err := f.without(f.q.all())
	if err != nil {
		return nil, placement.Decision{}, err
	}
	d0, err := f.solve(s0, f.opts, false)
	if err != nil || d0.Status != placement.Scheduled {
		return nil, d0, err // never evict in vain
	}
	places, err := f.opts.Generator.Generate(s0, f.g)
	if err != nil {
		return nil, d0, err
	}
	// Candidates per placement, in eviction order: one pass over the
	// candidates' pods through a node → placements index.
	N := f.s.NumNodes()
	onNode := make([][]int32, N)
	for i := range places {
		for _, id := range places[i].Nodes {
			if id >= 0 && int(id) < N {
				onNode[id] = append(onNode[id], int32(i))
			}
		}
	}
	perPlace := make([][]*unit, len(places))
	seen := make([]int, len(places)) // last unit index + 1 added to each placement
	for ui, u := range f.q.all() {
		for _, id := range u.nodeIDs(f.s) {
			for _, pi := range onNode[id] {
				if seen[pi] != ui+1 {
					seen[pi] = ui + 1
					perPlace[pi] = append(perPlace[pi], u)
				}
			}
		}
	}
	inP := make([]bool, N)
	mark := func(p *placement.Placement, on bool) {
		for _, id := range p.Nodes {
			if id >= 0 && int(id) < N {
				inP[id] = on
			}
		}
	}
	type cand struct {
		i     int
		kmin  int
		bound *unit // nil when slots suffice without removing anything
	}
	var cands []cand
	for i := range places {
		if len(perPlace[i]) == 0 {
			continue
		}
		mark(&places[i], true)
		k, ok := f.prefixBound(listOf(perPlace[i]), places[i].Nodes, inP)
		mark(&places[i], false)
		if ok {
			c := cand{i: i, kmin: k}
			if k > 0 {
				c.bound = perPlace[i][k-1]
			}
			cands = append(cands, c)
		}
	}
	// Most promising first (no bound, then the least important bound), so
	// that pruning bites early.
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.bound == nil || b.bound == nil {
			return cmp.Compare(boolInt(a.bound != nil), boolInt(b.bound != nil))
		}
		return VictimOrder(&b.bound.v, &a.bound.v)
	})
	// Without budgets eviction order is the ranking, and a placement whose
	// bound is more important than the best set's most important victim
	// cannot win: it is skipped without a solve.
	prune := len(f.in.Budgets) == 0
	last := d0 // Scheduled: replaced by a placement's failure below
	var best *result
	var bestTop *unit // nil with best set: no victims, nothing beats it
	for _, c := range cands {
		if prune && best != nil && c.bound != nil && (bestTop == nil || VictimOrder(&c.bound.v, &bestTop.v) < 0) {
			break // every later candidate's bound is at least as important
		}
		p, units := places[c.i], perPlace[c.i]
		opts := f.opts
		opts.Generator = placement.PlacementGeneratorFunc(func(*placement.Snapshot, *placement.Group) ([]placement.Placement, error) {
			return []placement.Placement{p}, nil
		})
		mark(&p, true)
		r, err := f.search(opts, listOf(units), inP, c.kmin)
		mark(&p, false)
		if err != nil {
			return nil, d0, err
		}
		if !r.ok {
			last = r.last
			continue
		}
		r.name, r.rank = p.Name, p.Rank
		if best == nil || lessDisruptive(&r, best) {
			best, bestTop = &r, nil
			if len(r.victims) > 0 {
				bestTop = ranked(r.victims)[0]
			}
		}
	}
	if best != nil {
		return best, d0, nil
	}
	return nil, last, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lessDisruptive reports whether a's victims disrupt less than b's: fewer
// beyond a budget, then lower in [VictimOrder] compared most important
// first, a prefix before a longer set; then the lower placement rank, then
// the placement name.
func lessDisruptive(a, b *result) bool {
	over := func(r *result) (n int) {
		for _, u := range r.victims {
			if u.overBudget {
				n++
			}
		}
		return n
	}
	if oa, ob := over(a), over(b); oa != ob {
		return oa < ob
	}
	ra, rb := ranked(a.victims), ranked(b.victims)
	for i := range min(len(ra), len(rb)) {
		if c := VictimOrder(&ra[i].v, &rb[i].v); c != 0 {
			return c > 0
		}
	}
	if len(ra) != len(rb) {
		return len(ra) < len(rb)
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.name < b.name
}

// ranked returns units sorted most important first.
func ranked(units []*unit) []*unit {
	out := slices.Clone(units)
	slices.SortFunc(out, func(a, b *unit) int { return VictimOrder(&a.v, &b.v) })
	return out
}

func (f *finder) plan(r *result) (Plan, error) {
	// What Verify would check of a decision Solve made on r.snap itself,
	// with no caller filter that could answer differently the second
	// time, Solve guarantees (placement's property tests verify every
	// decision it makes; preemption's, every plan): Verify would cost
	// more than the search's last solve.
	if !r.solved || len(f.opts.Filters) > 0 {
		if err := placement.Verify(r.snap, f.g, r.d, f.opts.Filters...); err != nil {
			return Plan{}, err
		}
	}
	if len(r.victims) == 0 { // the placement fits as it is
		return Plan{Outcome: Fits, Decision: r.d, After: r.snap, Candidates: f.q.len(), Solves: f.solves, Message: "fits without preemption: " + r.d.Message}, nil
	}
	victims := ranked(r.victims)
	left := newAllowance(f.in.Budgets)
	out := make([]Victim, len(victims))
	pods, over := 0, 0
	for i := len(victims) - 1; i >= 0; i-- {
		out[i] = victims[i].v
		out[i].Pods = slices.Clone(out[i].Pods)
		out[i].ExceedsBudgets = left.take(victims[i].pods, true)
		pods += len(out[i].Pods)
		if len(out[i].ExceedsBudgets) > 0 {
			over++
		}
	}
	msg := fmt.Sprintf("evict %d pods in %d victims of priority at most %d (preemptor %d)", pods, len(out), out[0].Priority, f.prio)
	if over > 0 {
		msg += fmt.Sprintf(", %d beyond a disruption budget", over)
	}
	return Plan{
		Outcome: Preempt, Victims: out, Decision: r.d, After: r.snap,
		Candidates: f.q.len(), Solves: f.solves, Message: msg + "; then " + r.d.Message,
	}, nil
}

// cannotHelp explains, from d (the decision with the candidates removed),
// why preemption cannot place the group.
func (f *finder) cannotHelp(d placement.Decision) Plan {
	pl := Plan{Outcome: CannotHelp, Decision: d, After: f.s, Candidates: f.q.len(), Solves: f.solves}
	var b strings.Builder
	if f.q.len() == 0 {
		fmt.Fprintf(&b, "preemption cannot help: no pod of priority below %d is in the way; %s", f.prio, d.Message)
	} else {
		fmt.Fprintf(&b, "preemption cannot help: even with every candidate victim of priority below %d removed (%d in all), %s", f.prio, f.q.len(), d.Message)
	}
	pl.MostFreeable = f.freeable(d.Placement.Nodes)
	for _, fr := range pl.MostFreeable {
		fmt.Fprintf(&b, "; at most %s %d on node %s (%d free + %d from lower-priority pods), a member requests %d",
			fr.Resource, fr.Free+fr.Freed, fr.Node, fr.Free, fr.Freed, fr.Request)
	}
	pl.Message = b.String()
	return pl
}

// freeable finds, per resource the members request, the node of nodes
// (every node when empty) where the most could be had with every candidate
// gone.
func (f *finder) freeable(nodes []placement.NodeID) []Freeable {
	R, N := len(f.res), f.s.NumNodes()
	freed := make([]int64, N*R)
	for _, u := range f.q.all() {
		req := u.rows(f)
		for j, id := range u.nodeIDs(f.s) {
			for r, q := range req[j*R : (j+1)*R] {
				freed[int(id)*R+r] += q
			}
		}
	}
	if len(nodes) == 0 {
		nodes = make([]placement.NodeID, N)
		for i := range nodes {
			nodes[i] = placement.NodeID(i)
		}
	}
	var out []Freeable
	for r, name := range f.res {
		var request int64
		for i := range f.g.Members {
			request = max(request, f.g.Members[i].Requests[name])
		}
		if r == f.podsR {
			request = 1
		} else if request == 0 {
			continue
		}
		var best *Freeable
		var bestTotal int64
		for _, id := range nodes {
			if id < 0 || int(id) >= N || (r == f.podsR && f.s.Allocatable(id, name) == math.MaxInt64) {
				continue
			}
			fr := Freeable{Resource: name, Node: f.s.Node(id).Name, Free: f.s.Free(id, name), Freed: freed[int(id)*R+r], Request: request}
			if total := fr.Free + fr.Freed; best == nil || total > bestTotal {
				best, bestTotal = &fr, total
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	return out
}
