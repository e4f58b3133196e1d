package preemption

import (
	"fmt"
	"slices"

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
	// members request, in resource name order, whether or not the members
	// lack it (Message names only those they lack).
	MostFreeable []Freeable
	// Candidates is the number of candidate victims (pods and whole
	// PodGroups of lower priority) the search considered.
	Candidates int
	// Solves is the number of [placement.Solve] calls spent, the first one
	// included: in the exact search, one per victim set that passes the
	// cost and member-slot bounds (in its ties pass, too); in the
	// heuristic, O(log k) per placement searched for a prefix of k
	// candidates (often one), plus
	// one per victim that passes the member-slot check of the last pass
	// (see [Find]); and one more, on the snapshot as given, when there is
	// no candidate (the first solve does not explain a failure that
	// preemption might still cure).
	Solves int
	// Cost is the disruption of Victims (see [Cost]); zero unless
	// Outcome is Preempt.
	Cost Cost
	// Proven is set, for Preempt, when Victims are the cheapest set by
	// [Cost] that lets the group fit, ties broken as [Cost] says: every
	// placement's candidates were searched exactly (at most
	// [MaxExactUnits] of them, within the budget and [MaxExactSolves]) and
	// every solve that failed was proven (placement.Decision.Proven); for
	// CannotHelp, when the solver proved that the group does not fit even
	// with every candidate removed. Limit says why it is false.
	Proven bool
	// Limit says why a Preempt or CannotHelp plan is not proven (the
	// first reason the search met); NoLimit when it is, and for Fits and
	// NotAllowed.
	Limit Limit
	// Steps is what the exact search spent of Options.Budget, in solver
	// steps: one per branch and undecided unit, and the steps of each of
	// its solves. 0 when it did not run; it may pass the budget by the
	// last solve's steps.
	Steps int64
	// Message is a one-line explanation a person can act on. For
	// CannotHelp and NotAllowed it is the verdict alone, "preemption
	// cannot help: <reason>" or "preemption not allowed: <reason>": a
	// caller shows it after the decision on the snapshot as given (as
	// gang.Result.Message does), so it does not repeat that decision.
	Message string

	victimNodes [][]placement.NodeID // per victim, its pods' nodes (see MakesRoomFor)
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
// Search: the victims are the cheapest set by [Cost] among the sets the
// search compares; of equal ones, the first by name (see [Cost]). Each
// placement — every node at once without a generator; each
// node on its own for a group that needs one more member placed
// (upstream's per-node preemption of a pod); each placement the generator
// yields on the snapshot with every candidate removed otherwise — is
// searched with the candidates that have a pod on its nodes, cheapest
// lower bound first (the cost of its cheapest single candidate, then that
// candidate's eviction position, then the placement's rank and name),
// until no placement left can beat the best set:
//
//   - With at most [MaxExactUnits] candidates, exactly: a branch-and-bound
//     over their subsets, pruned by cost, by a necessary room condition
//     (per node, free room over the smallest member request, summed:
//     "member slots") and by the cheapest one-victim extension, with a
//     solve only for sets that pass. The whole search spends at most
//     opts.Budget steps (0: [placement.DefaultBudget]), solver steps
//     included; when it runs out, the heuristic takes over.
//   - With more, by the heuristic: candidates are taken in eviction order
//     — those that keep every disruption budget first, then the others,
//     each part least important first ([VictimOrder]); member slots,
//     counted incrementally, give the shortest prefix that could fit; the
//     shortest prefix that does fit is found from there with O(log k)
//     solves (exponential, then binary search; on a packed cluster usually
//     one). Reprieve then gives candidates back, most important first:
//     first with a capacity check of each member on its chosen node,
//     O(pods of the candidate), then, for each remaining victim whose
//     return still leaves enough member slots, with a full solve. Giving
//     back any single victim of the result makes the solver fail.
//
// When the exact search met a set or a bound of the best's cost, a ties
// pass searches again, in name order, every placement whose bound is no
// dearer, least first name first (see [Cost]): it solves only sets of the
// best's cost whose names come before the best's, and stops at the first
// that fits. [Plan.Proven] says whether every placement was searched
// exactly (ties pass included); [Plan.Limit], why not.
// Victims never come from two placements beyond what a whole PodGroup
// spans.
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
// Finding the candidates costs, while they are few: O(log pods + pods
// whose own priority is below the preemptor's)
// ([placement.Snapshot.PodsBelowPriority]: one lookup in in.PodGroups
// each) plus O(log pods + members) per PodGroup whose spec.priority is
// below it and per disruptionMode-PodGroup group with a pod below it —
// nothing for the bound groups that cannot be victims; and, for Find, a
// pass over in.PodGroups for those spec.priority entries (an [Index] keeps
// them sorted). Once these pods and groups pass an eighth of the bound
// pods (plus 64), most are candidates and the candidates come from one
// pass over the snapshot's PodGroups instead
// ([placement.Snapshot.BoundGroups]: one lookup in in.PodGroups each; the
// pods of groups in disruptionMode Pod and of no group one by one), which
// with an Index costs little on a snapshot's base.
//
// Complexity of the heuristic, without a generator: finding the
// candidates (above), a pass over in.PodGroups to validate it unless the
// lookups found every entry (and whenever the group fits or may not
// preempt), and a
// heap of the candidates, O(log) per candidate the search reads in
// eviction order; one pass over the nodes for the slot count; O(pods of
// the prefix) for the slot count and the capacity reprieve, O(k log k)
// snapshot changes and O(log k) solves for a prefix of k candidates, plus
// a solve per victim that passes the slot check in the last pass. With a
// generator, add one snapshot without every candidate (Apply, about a
// microsecond per pod) and the same per placement searched. A host that
// searches every cycle with the same input saves the validation, the
// lookups and the heap of whole groups with an [Index] ([Index.Find]).
// The exact search adds at most opts.Budget steps (see above); a group
// that needs one more member adds, per node with candidates, their list
// and its lower bound.
//
// Every snapshot a hook sees derives from s with Apply. Find is pure and
// deterministic: the plan depends only on the contents of s, g and in.
//
// Groups given as pod sets (Group.PodSets) are searched as the same pods
// listed; their templates count for the preemptor's priority and
// preemptionPolicy.
//
// Errors (a [*placement.FieldError]; nothing is decided): a nil s or g; an
// invalid input (an empty PodGroup or budget name, an unknown
// disruptionMode, a negative disruptionsAllowed, an invalid budget
// selector, a duplicate budget); a member or pod set template with an
// unknown preemptionPolicy;
// any error of [placement.Solve] (an invalid group, a generator error); or
// a verification failure of the final decision (wrapping
// [placement.ErrViolation]), which means a bug or a caller hook that is
// not a pure function.
func Find(s *placement.Snapshot, g *placement.Group, in Input, opts placement.Options) (Plan, error) {
	return find(s, g, &in, nil, opts, 0)
}

// find is [Find] on in, or [Index.Find] when x is set (then in is x's
// input, validated). below is collectBelow's limit: 0 for belowLimit; a
// negative limit takes the candidates from collect's pass over every group
// alone, so that tests can hold the two paths to the same plans.
func find(s *placement.Snapshot, g *placement.Group, in *Input, x *Index, opts placement.Options, below int) (Plan, error) {
	switch {
	case s == nil:
		return Plan{}, placement.Errorf(placement.ErrInvalid, "Find", "snapshot", "must not be nil")
	case g == nil:
		return Plan{}, placement.Errorf(placement.ErrInvalid, "Find", "group", "must not be nil")
	}
	f := &finder{s: s, g: g, in: in, x: x, opts: opts, below: below}
	// in.PodGroups is checked last, when the search has not read every
	// entry already (specTally); errors come in validate's order.
	if x == nil {
		if err := in.validateBudgets(); err != nil {
			return Plan{}, f.firstError(err)
		}
	}
	f.pending = make([]*placement.Pod, 0, len(g.Members)+len(g.PodSets))
	for i := range g.Members {
		f.pending = append(f.pending, &g.Members[i])
	}
	for k := range g.PodSets {
		f.pending = append(f.pending, &g.PodSets[k].Template)
	}
	never := "" // a pending pod with preemptionPolicy Never
	for i, p := range f.pending {
		switch p.PreemptionPolicy {
		case "", placement.PreemptLowerPriority:
		case placement.PreemptNever:
			if never == "" {
				never = f.pendingName(i)
			}
		default:
			obj, field := fmt.Sprintf("pod %q", p.Key().String()), "spec.preemptionPolicy"
			if k := i - len(g.Members); k >= 0 {
				obj, field = fmt.Sprintf("PodGroup %q", g.Key().String()), fmt.Sprintf("podSets[%d].template.spec.preemptionPolicy", k)
			}
			return Plan{}, f.firstError(placement.Errorf(placement.ErrInvalid, obj, field, "unknown policy %q (want PreemptLowerPriority or Never)", p.PreemptionPolicy))
		}
	}
	// A failure is shown only when nothing may be evicted; otherwise the
	// first solve need not explain it.
	d, err := f.solve(s, opts, never == "")
	if err != nil {
		return Plan{}, f.firstError(err)
	}
	if d.Status != placement.Scheduled && never == "" {
		return f.preempt(d)
	}
	if err := f.firstError(nil); err != nil {
		return Plan{}, err
	}
	if d.Status == placement.Scheduled {
		return Plan{Outcome: Fits, Decision: d, After: s, Solves: f.solves, Message: "fits without preemption: " + d.Message}, nil
	}
	return Plan{Outcome: NotAllowed, Decision: d, After: s, Solves: f.solves,
		Message: fmt.Sprintf("preemption not allowed: %s has preemptionPolicy Never", never)}, nil
}

// pendingName names f.pending[i] in messages: "member ns/name", or "pod
// set ns/name" for a pod set's template.
func (f *finder) pendingName(i int) string {
	if k := i - len(f.g.Members); k >= 0 {
		return "pod set " + f.pendingKey(i).String()
	}
	return "member " + f.pendingKey(i).String()
}

// pendingKey is f.pending[i]'s key: a member's, or for a pod set the
// group's namespace and the set's name (as Assignment.Pod names it).
func (f *finder) pendingKey(i int) placement.Key {
	if k := i - len(f.g.Members); k >= 0 {
		return placement.Key{Namespace: f.g.Namespace, Name: f.g.PodSets[k].Name}
	}
	return f.g.Members[i].Key()
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
	q, ok := (*queue)(nil), false
	if limit := f.below; limit >= 0 {
		if limit == 0 {
			limit = belowLimit(s)
		}
		q, ok = collectBelow(s, g, in, f.overridesBelow(f.prio), f.prio, len(in.Budgets) > 0, limit)
	}
	if !ok {
		q = collect(s, g, f.joiner(t), f.prio, len(in.Budgets) > 0)
	}
	f.q = q
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
	f.cost = newCosting(in.Budgets)
	if f.left = opts.Budget; f.left <= 0 {
		f.left = placement.DefaultBudget
	}
	f.budget = f.left
	var last placement.Decision // a failure to explain, with a generator
	var err error
	switch {
	case opts.Generator != nil:
		last, err = f.searchPlacements()
	case f.need == 1:
		_, err = f.searchNodes()
	case f.q.len() <= MaxExactUnits:
		err = f.exactSearch(f.q.all(), nil, nil, opts, 0, "", false)
		if err == nil && f.mayTie() {
			err = f.exactSearch(f.q.all(), nil, nil, opts, 0, "", true)
		}
	default:
		f.heuristic = true
		f.limitBy(LimitUnits)
	}
	if err != nil {
		return Plan{}, err
	}
	if opts.Generator == nil && f.best == nil && (f.heuristic || f.cut) {
		f.heuristic = true
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
		f.offer(r)
	}
	if f.best == nil {
		if opts.Generator != nil {
			return f.cannotHelp(last), nil
		}
		r, err := f.vain(f.q.all(), opts) // the failure, explained
		if err != nil {
			return Plan{}, err
		}
		return f.cannotHelp(r.last), nil
	}
	return f.plan(&f.best.r)
}

type finder struct {
	s       *placement.Snapshot
	g       *placement.Group
	in      *Input
	x       *Index // nil for a plain Find
	opts    placement.Options
	below   int // collectBelow's limit (see find)
	prio    int32
	q       *queue // the candidates, in eviction order
	res     []placement.ResourceName
	resIdx  map[placement.ResourceName]int
	podsR   int
	need    int     // pending members that must be placed
	missing bool    // a member requests a resource no node has
	least   []int64 // per resource, the smallest member request
	// pending are the group's members, then its pod sets' templates;
	// memberReq holds R values per entry, like res: its requests, the pod
	// count included.
	pending   []*placement.Pod
	memberReq []int64
	scratch   *slots
	sc        *scratch // nil until the search needs it
	solves    int

	cost   *costing
	best   *found // the cheapest victim set found so far
	left   int64  // the exact search's budget left, in solver steps
	budget int64  // the exact search's budget at the start
	// cut is set when the exact search stopped at a bound (budget or
	// solves), heuristic when some candidates were searched by the
	// heuristic; limit says the first reason the plan is not proven.
	cut, heuristic bool
	limit          Limit
	// tie is the cost of the last set or bound the first pass passed over
	// for costing as much as the best (when tied): see [finder.mayTie].
	tie  Cost
	tied bool
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
	f.memberReq = make([]int64, len(f.pending)*R)
	for i, p := range f.pending {
		row, req := f.memberReq[i*R:(i+1)*R], p.Requests
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
