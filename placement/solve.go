package placement

import (
	"fmt"
	"slices"
)

// DefaultBudget is the budget a zero Options.Budget stands for: enough for
// a 4,096-member group over 10,000 nodes with hooks on every pair.
const DefaultBudget int64 = 1 << 27

// Options configures [Solve]. The zero value solves with upstream's
// defaults: one placement holding every node, resource fit plus
// nodeSelector, taints and unschedulable as filters, and [DefaultScorer].
type Options struct {
	// Filters are the caller's per-pod, per-node checks, applied after the
	// built-in ones.
	Filters []Filter
	// Reservers create stateful per-solve hooks (e.g. DRA claim
	// allocation); see [Reserver].
	Reservers []NewReserverFunc
	// Generator yields candidate placements; nil means one placement named
	// "" with every node (a group without topology constraints). Solve
	// skips a placement that lacks the node of a bound member.
	Generator PlacementGenerator
	// Scorer ranks feasible placements; nil means [DefaultScorer].
	Scorer PlacementScorer
	// PlacementFilters check each feasible placement's whole assignment.
	PlacementFilters []PlacementFilter
	// Budget caps the work of one solve in steps, the unit Decision.Steps
	// reports. A step is one node visit: a member placed one by one (by the
	// greedy passes or one node of the search) costs the nodes of its
	// placement, a run of identical members placed as a batch costs them
	// once, and a batch over the whole cluster costs its classes of
	// identical nodes (each class a visit). A pass that starts under the
	// budget may end over it. 0 means [DefaultBudget]. It is counted, never
	// timed, so the same input always gives the same decision.
	Budget int64
	// SearchBudget caps the exhaustive search in one placement, in the same
	// units, within what is left of Budget (at most half of it); 0 means
	// [DefaultSearchBudget]. A search cut short leaves Decision.Proven
	// false.
	SearchBudget int64
	// NodeScoring chooses each member's node inside a placement; the zero
	// value is gangsched's packing, [UpstreamNodeScoring] kube-scheduler's
	// default profile. See [NodeScoring].
	NodeScoring NodeScoring
	// NodeScorer, when set, scores each member on each node that passed
	// every filter, alone or added to NodeScoring's profile; see
	// [NodeScorer].
	NodeScorer NodeScorer
	// StatusOnly is for a caller that reads only whether the group is
	// Scheduled, and Bound and Required (a victim search trying what-ifs,
	// KEP-5710). When no placement is feasible, the decision then comes
	// without the explanation of the first waiting member (Reasons is
	// empty, Message gives the count that fits only), and an Unschedulable
	// status is not told apart from Unresolvable, which costs a pass over
	// the placements' nodes. Every other decision, Scheduled ones
	// included, is the same as without it.
	StatusOnly bool
}

// DefaultSearchBudget is the search budget a zero Options.SearchBudget
// stands for: a few milliseconds of search per placement.
const DefaultSearchBudget int64 = 1 << 20

// Solve decides where the pending members of g go on s: all-or-nothing
// for a gang (bound plus placed members reach MinCount, every sub-group
// reaches its own minimum, or nothing is placed), as many as fit for a
// basic group. It never moves bound members and never modifies s. The
// decision depends only on the contents of s and g, never on the order of
// g.Members or of the snapshot's input slices.
//
// How: the generator's placements are tried rank by rank. In each placement
// the members first go greedily, in [MemberOrder], each to the node that
// passes every filter and scores highest by Options.NodeScoring, ties by
// node name — by default the most allocated after taking it, so members
// pack (kube-scheduler's default profile spreads them instead, see
// [NodeScoring]); a member that fits nowhere waits. When that leaves members
// waiting and the members differ (requests, selectors, caller filters,
// affinity, sub-groups), the solver tries first-fit decreasing, then a
// complete depth-first search over member-to-node choices — identical
// nodes and identical members are tried once — within the budget, so a
// placement is found whenever one exists and the search can finish
// (Decision.Proven says whether it did). A placement is feasible when
// enough members fit, every constraint holds and every PlacementFilter
// accepts it; the feasible placement of the lowest rank with the highest
// score wins, ties by placement name.
//
// Pods of a [PodSet] are members like the others (same order, same
// batches), answered in Decision.PodSetAssignments instead of one
// assignment each.
//
// Errors (a [*FieldError], for bad input only — "does not fit" is a
// decision): an invalid group (see [Group]; an invalid [PodSet], more
// than [MaxPending] pods or [MaxPodSets] sets, or pod sets combined with
// affinity terms, SubGroups or Options.Reservers), a member or template
// with invalid requests, tolerations or affinity terms, a negative
// Options.Budget or SearchBudget, bound members of a sub-group already in two
// domains of its key, a generated placement whose node IDs are not
// ascending, unique and of s, or a FieldError from a generator or a
// NewReserverFunc; a nil s or g, a nil hook in opts, or a NewReserverFunc
// that returns a nil Reserver. A hook that fails for a reason of its own
// (any other error, or a [Rejection] with Err) stops the solve with an
// error that wraps [ErrHook] and names the hook.
func Solve(s *Snapshot, g *Group, opts Options) (Decision, error) {
	return solveRows(s, g, opts, nil)
}

// solveRows is Solve with g's members' rows compiled already (nil: read
// from their maps); see compiledRows.
func solveRows(s *Snapshot, g *Group, opts Options, pre *compiledRows) (Decision, error) {
	if err := checkArgs("Solve", s, g, &opts, nil); err != nil {
		return Decision{}, err
	}
	bound := s.GroupMembers(g.Key())
	members, err := g.validate(s, bound, pre != nil && pre.ascending)
	if err != nil {
		return Decision{}, err
	}
	// The caller's Group is never written: the solver only reads it, and
	// with pod sets, whose templates it renames, works on a private copy.
	// Hooks read the compiled members through their GroupView, so that
	// they need not read every member's maps again.
	sc := scratchPool.Get().(*scratch)
	gc := g
	// What hooks may keep past the Solve — the compiled members and the
	// copy of the group they are handed — is the Solve's own, in one
	// allocation. Without a caller's hook that is handed a GroupView
	// (Reservers, Generator, Scorer, PlacementFilters; the default scorer
	// keeps none), or with only a generator and a scorer that forget
	// their views (ViewForgetter), nothing can keep it, and the scratch's
	// serves.
	var own *hookOwned
	switch {
	case pre != nil && pre.own != nil:
		own = pre.own
		*own = hookOwned{prep: prepared{b: s.b, bound: len(bound)}}
	case len(opts.Reservers) == 0 && len(opts.PlacementFilters) == 0 && forgetsViews(opts.Generator) && forgetsViews(opts.Scorer):
		own = &sc.own // zero (see release): set field by field, as sv below
		own.prep.b, own.prep.bound = s.b, len(bound)
	default:
		own = &hookOwned{prep: prepared{b: s.b, bound: len(bound)}}
	}
	prep := &own.prep
	if len(g.PodSets) > 0 {
		if len(opts.Reservers) > 0 {
			return Decision{}, Errorf(ErrInvalid, groupObj(g), "Options.Reservers", "cannot be combined with pod sets: list the pods as members")
		}
		sc.g = *g
		gc = &sc.g
		if len(g.PodSets) == 1 {
			own.oneSet[0] = g.PodSets[0]
			gc.PodSets = own.oneSet[:]      // the Solve's own: hooks may keep it
			prep.starts = prep.oneStarts[:] // the Solve's own, as prep
		} else {
			gc.PodSets = slices.Clone(g.PodSets)
			prep.starts = make([]int, len(g.PodSets)+1)
		}
		prep.starts[0] = len(g.Members)
		for k := range gc.PodSets {
			// Hooks and messages see the set's pods as pods of the group
			// named after the set.
			t := &gc.PodSets[k].Template
			t.Namespace, t.Name, t.SchedulingGroup, t.NodeName, t.UID = g.Namespace, gc.PodSets[k].Name, g.Name, "", ""
			prep.starts[k+1] = prep.starts[k] + int(gc.PodSets[k].Count)
		}
	}
	g = gc
	if err := opts.NodeScoring.Validate(); err != nil {
		return Decision{}, err
	}
	// The solver too is the scratch's: 1.2 KB that a small group's Solve
	// spent a tenth of its time allocating and collecting. It is set field
	// by field into the zero solver release left: a struct literal would
	// be copied in with a write barrier over every field while the
	// collector runs.
	sv := &sc.sv
	sv.s, sv.g, sv.prep, sv.opts, sv.R, sv.bound, sv.budget = s, g, prep, opts, len(s.b.res), len(bound), opts.Budget
	sv.pre = pre
	sv.noNodeAffinity, sv.noNodeFilters = members.noNodeAffinity, members.noNodeFilters
	sv.ns = compileNodeScoring(s.b, opts.NodeScoring)
	sv.sc, sv.hg = sc, &own.hg
	sv.gs = sc.gs
	sv.rejections = sc.rejections
	if sv.budget <= 0 {
		sv.budget = DefaultBudget
	}
	if opts.Scorer == nil {
		sv.opts.Scorer = DefaultScorer{}
	}
	boundAffinity := slices.ContainsFunc(bound, func(p *Pod) bool { return p.Affinity != nil })
	if err := sv.prepareMembers(members); err != nil {
		return Decision{}, err
	}
	sv.nz = newNonZero(sv)
	sv.norm, _ = opts.NodeScorer.(NodeScoreNormalizer)
	// Constraints between members: sub-groups or affinity terms, which
	// validate ruled out with pod sets.
	constrained := len(g.SubGroups) > 0 || boundAffinity
	for i := 0; i < len(g.Members) && !members.noAffinity && !constrained; i++ {
		constrained = g.Members[i].Affinity != nil
	}
	if constrained && len(g.PodSets) == 0 {
		// All members: the bound ones, then the pending in member order
		// (no pod sets here: a row is a member).
		pods := memberPods{bound: bound, members: g.Members, rows: sv.members}
		if len(g.SubGroups) > 0 {
			if err := validateSubGroups(g, pods); err != nil {
				return Decision{}, err
			}
		}
		sv.cons = compileConsInto(&sv.sc.cons, s, g, pods)
		if sv.cons != nil {
			sv.splitUnalike()
		}
		// Non-nil even when empty: it says the group is constrained.
		n := len(bound) + len(sv.members)
		sv.sc.pos = zeroed(sv.sc.pos, max(n, 1))
		sv.pos = sv.sc.pos[:n]
	}
	if sv.cons != nil {
		if err := sv.cons.boundConflict(g); err != nil {
			return Decision{}, err
		}
		for i := range sv.pos {
			sv.pos[i] = -1
			if i < len(bound) {
				sv.pos[i], _ = s.b.byName(bound[i].NodeName)
			}
		}
	}
	sv.required, sv.need = len(bound)+1, 1
	if g.IsGang() {
		sv.required = max(int(g.MinCount), len(bound)+1)
		sv.need = max(int(g.MinCount)-len(bound), 1)
	}
	for i, nr := range opts.Reservers {
		r, err := nr(s, sv.hookGroup())
		if err != nil {
			releaseReservers(sv.reservers)
			return Decision{}, hookFailure(g, fmt.Sprintf("Options.Reservers[%d]", i), err)
		}
		if r == nil {
			releaseReservers(sv.reservers)
			return Decision{}, Errorf(ErrInvalid, groupObj(g), fmt.Sprintf("Options.Reservers[%d]", i), "returned a nil Reserver and no error")
		}
		sv.reservers = append(sv.reservers, r)
	}
	sv.batched = sv.cons.empty() && len(opts.Filters) == 0 && len(sv.reservers) == 0
	if sv.splitLater {
		if sv.cons.empty() && len(opts.Filters) == 0 && sv.ns == nil && opts.NodeScorer == nil {
			sv.runClasses()
		}
		sv.splitClasses()
	}
	var placements []Placement
	if opts.Generator == nil {
		own.all[0].Nodes = s.b.allNodes // the rest zero, as own came
		placements = own.all[:]
	} else {
		var err error
		if placements, err = opts.Generator.Generate(s, sv.hookGroup()); err != nil {
			releaseReservers(sv.reservers)
			return Decision{}, hookFailure(g, "Options.Generator", err)
		}
	}
	// An attempt touches at most a node per pod it places, and only nodes
	// of its placement.
	most := 0
	for i := range placements {
		most = max(most, len(placements[i].Nodes))
	}
	sv.w = sv.sc.work(sv.R, len(s.b.nodes), min(g.NumPending(), most))
	sv.boundNodes = make([]NodeID, len(bound))
	for i, b := range bound {
		sv.boundNodes[i], _ = s.NodeOf(b)
	}
	d, err := sv.solve(placements)
	hookErr := sv.hookErr
	releaseReservers(sv.reservers) // d holds nothing of theirs: see ReserverReleaser
	sv.release()                   // sv is not read after this: another Solve may own it
	if r, ok := opts.Generator.(PlacementReleaser); ok {
		r.ReleasePlacements(placements)
	}
	if hookErr != nil {
		return Decision{}, hookErr
	}
	return d, err
}

// releaseReservers hands each Reserver that reuses its memory (see
// [ReserverReleaser]) back to its owner: the solve calls none of them
// again.
func releaseReservers(rs []Reserver) {
	for _, r := range rs {
		if rr, ok := r.(ReserverReleaser); ok {
			rr.Release()
		}
	}
}

// failedIn is failed for hook k of the option list named list
// ("Options.Reservers"), its name formatted only for an error: hooks
// reject on most nodes they are asked about.
func (sv *solver) failedIn(r Rejection, list string, k int, p *Pod, ni NodeInfo) bool {
	if r.Err == nil {
		return false
	}
	return sv.failed(r, fmt.Sprintf("%s[%d]", list, k), p, ni)
}

// failed reports whether hook's verdict r carries an error; the first one
// is kept for Solve to return, and the budget is spent so that every loop
// stops.
func (sv *solver) failed(r Rejection, hook string, p *Pod, ni NodeInfo) bool {
	if r.Err == nil {
		return false
	}
	if sv.hookErr == nil {
		sv.hookErr = hookError(sv.g, hook, p, ni, r.Err)
	}
	sv.exhausted = true
	return true
}

// checkPlacement rejects a generator's placement whose node IDs are not
// ascending, unique and of s: a repeated node would be filled twice over,
// and an unknown one does not exist.
func checkPlacement(s *Snapshot, p *Placement) error {
	// Strictly ascending IDs lie within s when the first and the last do:
	// one comparison a node, where a 512-node block was a tenth of a
	// resize's Solve. Only a bad placement takes the pass that names the
	// first bad node.
	ns := p.Nodes
	if len(ns) == 0 || ns[0] >= 0 && int(ns[len(ns)-1]) < s.NumNodes() && ascending(ns) {
		return nil
	}
	for i, id := range p.Nodes {
		if id < 0 || int(id) >= s.NumNodes() {
			return Errorf(ErrInvalid, fmt.Sprintf("placement %q", p.Name), fmt.Sprintf("nodes[%d]", i), "node ID %d is not in 0..%d", id, s.NumNodes()-1)
		}
		if i > 0 && id <= p.Nodes[i-1] {
			return Errorf(ErrInvalid, fmt.Sprintf("placement %q", p.Name), fmt.Sprintf("nodes[%d]", i), "node ID %d does not follow %d: IDs must ascend without duplicates", id, p.Nodes[i-1])
		}
	}
	return nil
}

// ascending reports whether ids strictly ascend.
func ascending(ids []NodeID) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return false
		}
	}
	return true
}

type solver struct {
	s          *Snapshot
	g          *Group
	hg         *Group    // see hookGroup
	prep       *prepared // what hooks read through their GroupView
	opts       Options
	R          int
	members    []member
	sc         *scratch // memory from the pool; see release
	bySize     []int    // ffdOrder, once built
	gs         groupScratch
	reqs       []int64 // per class, the requests indexed like Snapshot.b.res; the pods count is 1
	class      []int32 // per row: rows of one class are interchangeable
	size       []int64 // per row, for first-fit decreasing: sum of request/largest allocatable
	cols       []int   // the columns of the tracked resources but pods, in compile's lookup order
	bound      int
	usableSeen uint64 // bit i: selectPlacement found placements[i] usable (the first 64)
	required   int    // members (bound included) the decision must reach
	need       int    // pending members that must be placed
	reservers  []Reserver
	cons       *cons
	pos        []NodeID // with cons: node of every member, bound first
	boundNodes []NodeID
	missing    map[*Pod]ResourceName // member or template -> an untracked resource it requests
	pre        *compiledRows         // the members' rows compiled by the caller, or nil
	smallest   []smallestSums        // per resource, built on first use
	rejections []Rejection           // reasons' answer, reused by the next call
	w          *work
	classes    int // distinct member classes
	steps      int64
	budget     int64
	exhausted  bool
	hookCut    bool // a hook's rejection said its own search was cut short
	// batched is the solver's mode, chosen once in Solve: with no
	// constraint between members, caller Filter or Reserver, members of
	// one class are placed in runs (greedy), an attempt of one class is
	// exact (attempt), and diagnose needs only the built-in checks.
	// Otherwise members go one by one.
	batched bool
	// runHooks are the reservers as ClassReservers when every one is and
	// nothing else stops the greedy passes from placing runs (see
	// runClasses); hclass is then, per row, its class to the solver and
	// to them.
	runHooks []ClassReserver
	hclass   []int32
	// splitLater says prepareMembers merged members that only the
	// reservers might tell apart: see splitClasses.
	splitLater bool
	runPods    []*Pod // reserveRun's and undo's scratch
	runGot     []int
	// ns is Options.NodeScoring compiled; nil for packing (nodeScore's
	// own), the only scoring that batches.
	ns *nodeScorer
	// norm is Options.NodeScorer when it normalises (NodeScoreNormalizer):
	// members then choose among scores of every candidate at once, in
	// normInfos and normScores, and normIDs lists the candidates.
	norm       NodeScoreNormalizer
	normInfos  []NodeInfo
	normScores []int64
	normIDs    []NodeID
	// nz carries Pod.ScoreRequests into ns's fit score; nil when no pod
	// has them or ns reads neither cpu nor memory.
	nz *nonZero
	// hookErr is the first error a hook returned (see Rejection.Err): it
	// ends the solve, which returns it.
	hookErr error
	// searchBudgetCut is set when a search stopped at Options.SearchBudget
	// rather than at its share of what was left of Options.Budget.
	searchBudgetCut bool
	// preferring are the pending pods with preferred node affinity, with
	// how many pods each stands for; built on first use (nodeaffinity.go).
	preferring     []preferringPod
	preferringDone bool
	// noNodeAffinity says validate found no member with node affinity;
	// noNodeFilters, none with a node filter at all (see checked).
	noNodeAffinity bool
	noNodeFilters  bool
	// grouped is the placement of the short attempt whose groups gs
	// still holds (see groupReasons), nil after any other grouping.
	grouped *Placement
}
