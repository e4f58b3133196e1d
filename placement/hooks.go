package placement

// Rejection is a filter's verdict on one pod and one node, or on a whole
// placement. The zero value accepts. Reason is what a person reads in the
// decision's per-reason counts (kube-scheduler: a Status message);
// Unresolvable says that removing pods cannot change the verdict
// (kube-scheduler: UnschedulableAndUnresolvable), which tells preemption not
// to try. Cut says that the hook's own search stopped at its budget before
// deciding (the node might fit): a solve that saw such a rejection leaves
// Decision.Proven false.
//
// Err is for a hook that could not decide for a reason of its own (a
// lookup the host could not make): Solve then stops and returns an error
// that wraps [ErrHook] and Err and names the hook, the pod and the node,
// and [Verify] returns one likewise (kube-scheduler: a Status with code
// Error, which fails the cycle rather than the pod).
type Rejection struct {
	Reason       string
	Unresolvable bool
	Cut          bool
	Err          error
}

// OK reports whether the verdict accepts: no Reason and no Err.
func (r Rejection) OK() bool { return r.Reason == "" && r.Err == nil }

// NodeInfo is a read-only view of one node during a [Solve], as a hook sees
// it: the snapshot's state plus the members the solver has assumed onto the
// node so far in the current attempt. Hooks must not keep it after they
// return.
type NodeInfo struct {
	s  *Snapshot
	w  *work
	id NodeID
}

// NewNodeInfo returns the view of node id on s with nothing assumed onto
// it: what a hook sees when a planner outside Solve (such as
// topology.Tree.PlanPodSets) asks it about a node. Free then reports the
// snapshot's own free capacity.
func NewNodeInfo(s *Snapshot, id NodeID) NodeInfo { return NodeInfo{s: s, id: id} }

// ID returns the node's ID in the snapshot.
func (n NodeInfo) ID() NodeID { return n.id }

// Node returns the node, or nil for the zero NodeInfo.
func (n NodeInfo) Node() *Node {
	if n.s == nil {
		return nil
	}
	return n.s.Node(n.id)
}

// Snapshot returns the snapshot the solve runs on.
func (n NodeInfo) Snapshot() *Snapshot { return n.s }

// Free returns the node's free quantity of r, in canonical units, after the
// members assumed onto it in this attempt; 0 for the zero NodeInfo.
func (n NodeInfo) Free(r ResourceName) int64 {
	if n.s == nil {
		return 0
	}
	free := n.s.Free(n.id, r)
	if n.w != nil {
		if i, ok := n.s.b.resIdx[r]; ok {
			free -= n.w.extra(n.id, i)
		}
	}
	return free
}

// Filter is a per-pod, per-node check (kube-scheduler's FilterPlugin). The
// solver already applies resource fit, nodeSelector, taints and
// unschedulable; a Filter adds the caller's own rules. It must be a pure
// function of its arguments. A Filter whose answer depends on what is
// already on the node (NodeInfo.Free) makes the order of placement matter,
// and the solver places pods in two orders only (member order, then
// first-fit decreasing): Decision.Proven then covers those orders, not
// every order.
type Filter interface {
	Filter(pod *Pod, node NodeInfo) Rejection
}

// FilterFunc adapts a function to [Filter].
type FilterFunc func(pod *Pod, node NodeInfo) Rejection

// Filter calls f.
func (f FilterFunc) Filter(pod *Pod, node NodeInfo) Rejection { return f(pod, node) }

// Reserver is a stateful per-solve hook for constraints that depend on the
// members placed so far, such as devices allocated to the group's shared
// ResourceClaims (KEP-5729) — kube-scheduler's Filter plus Reserve and
// Unreserve. The solver creates one per Solve with [Options.Reservers], calls
// Filter before placing a member, Reserve after placing it and Unreserve
// when it takes the member back (backtracking, or the end of an attempt on
// one placement), always in last-in first-out order, so that between
// attempts the Reserver is back in its initial state.
type Reserver interface {
	Filter(pod *Pod, node NodeInfo) Rejection
	Reserve(pod *Pod, node NodeInfo)
	Unreserve(pod *Pod, node NodeInfo)
}

// PlacementChecker is an optional interface of a [Reserver]: before the
// solver attempts a generated placement (not the default one holding every
// node), it asks each Reserver that implements it whether the placement's
// nodes can serve the group at all, e.g. whether they reach as many
// devices as the group's claims need. A rejection excludes the placement
// before any member is tried. When no placement is attempted, the decision
// quotes the exclusions in Reasons (Nodes counts the excluded placements'
// nodes) and is Unresolvable when every exclusion is; a Cut rejection
// leaves it not Proven. A rejection with Err stops the solve, as a
// Filter's does.
//
// CheckPlacement must be a necessary condition only (a placement it
// excludes cannot hold the group), and a pure function of the placement
// and the Reserver's initial state: the solver calls it between attempts,
// when every member is unreserved.
type PlacementChecker interface {
	CheckPlacement(p *Placement) Rejection
}

// ClassReserver is an optional interface of a [Reserver] that keeps
// members it cannot tell apart placed in runs, as members are without
// any Reserver: the solver then visits the nodes once for a run of
// identical members rather than once for every member (e.g. 512 members
// sharing the PodGroup's network claim). The solver uses it when every
// Reserver of the solve implements it, no Filter or constraint between
// members is present and nodes are scored by packing (the zero
// Options.NodeScoring, no NodeScorer); otherwise it calls Filter for every
// member on every node.
//
// The decisions are those of placing the members one by one, provided
// the implementation keeps two promises:
//   - pods with one non-empty ClassKey are interchangeable to it: in any
//     state, Filter gives them the same verdict on every node, and after
//     reserving either one it answers alike;
//   - reserving members never makes Filter accept a member of a class on
//     a node where it rejected one of that class before: a run never
//     returns to a node its class was refused.
//
// A run asks only the nodes it fills (and the first that refuses), so a
// Cut or an Err the Reserver would have returned on other nodes is not
// seen: Decision.Proven may then be true where one-by-one placement says
// false, and the solve may succeed where it would fail. The budget is
// spent once a run (Options.Budget), not once a member.
type ClassReserver interface {
	Reserver
	// ClassKey names pod's class, or returns "" for a pod
	// interchangeable with no other. Members are batched when the solver
	// finds them identical (requests, selectors, tolerations) and every
	// Reserver gives them one non-empty key.
	ClassKey(pod *Pod) string
	// ReserveRun reserves pods, all of one class, on node one after
	// another, as Filter and then Reserve would for each, and stops
	// before the first that Filter rejects: it returns how many it
	// reserved and that rejection (the zero Rejection when it reserved
	// every pod). The solver takes each back with Unreserve, last first,
	// as if it had reserved them one by one. node is the state before
	// the pods: its Free does not count them.
	ReserveRun(pods []*Pod, node NodeInfo) (int, Rejection)
}

// RunUnreserver is an optional interface of a [Reserver]: the solver
// takes back members reserved one after another on one node in one call
// rather than one Unreserve each (e.g. a run of 512 members sharing the
// PodGroup's claim, which the Reserver holds as counts).
type RunUnreserver interface {
	// UnreserveRun takes back pods, reserved one after another on node
	// and the last reserved of all (pods[len(pods)-1] last), exactly as
	// Unreserve would for each, last first.
	UnreserveRun(pods []*Pod, node NodeInfo)
}

// ReserverReleaser is an optional interface of a [Reserver] that reuses
// its memory from one solve to the next (e.g. the device assignments of a
// gang's claims, kept in a pool): [Solve] calls Release exactly once on
// each Reserver it created that implements it, once it will call the
// Reserver no more — after the decision is made, or when the solve stops
// on an error after the Reserver was created. Nothing the decision holds
// comes from a Reserver's memory (a Rejection's Reason is a string, copied
// by value), so a Reserver may hand its memory to the next solve, on any
// goroutine, from Release on. Only Solve makes the call: a Reserver created
// by a caller of the NewReserverFunc itself is never released, and is
// simply not reused.
type ReserverReleaser interface {
	Release()
}

// ReserverFuncs adapts three functions to a [Reserver], as [FilterFunc]
// does one to a [Filter]: a [NewReserverFunc] can return one whose
// functions share the solve's state in their closures. A nil FilterFunc
// accepts every node; a nil ReserveFunc or UnreserveFunc does nothing.
type ReserverFuncs struct {
	FilterFunc    func(pod *Pod, node NodeInfo) Rejection
	ReserveFunc   func(pod *Pod, node NodeInfo)
	UnreserveFunc func(pod *Pod, node NodeInfo)
}

// Filter calls r.FilterFunc, or accepts when it is nil.
func (r ReserverFuncs) Filter(pod *Pod, node NodeInfo) Rejection {
	if r.FilterFunc == nil {
		return Rejection{}
	}
	return r.FilterFunc(pod, node)
}

// Reserve calls r.ReserveFunc unless it is nil.
func (r ReserverFuncs) Reserve(pod *Pod, node NodeInfo) {
	if r.ReserveFunc != nil {
		r.ReserveFunc(pod, node)
	}
}

// Unreserve calls r.UnreserveFunc unless it is nil.
func (r ReserverFuncs) Unreserve(pod *Pod, node NodeInfo) {
	if r.UnreserveFunc != nil {
		r.UnreserveFunc(pod, node)
	}
}

var _ Reserver = ReserverFuncs{}

// NewReserverFunc creates a [Reserver] for one solve of group g on s. An
// error aborts the solve: Solve returns a [*FieldError] (bad input the
// hook found) as it is, and any other error wrapped in one that wraps
// [ErrHook] and names the hook (Options.Reservers[i]).
type NewReserverFunc func(s *Snapshot, g GroupView) (Reserver, error)

// Placement is a candidate set of nodes for a whole PodGroup (KEP-5732
// Placement): typically one topology domain.
type Placement struct {
	// Name identifies the placement in decisions and breaks score ties
	// (ascending); for a topology domain it is the domain's path, e.g.
	// "block-1/rack-3".
	Name string
	// Nodes are the node IDs the group may use, ascending, without
	// duplicates; nil or empty in a generated placement means no node (in
	// a Decision given to [Verify], nil means every node).
	Nodes []NodeID
	// Rank orders tiers of placements: the solver only considers rank r+1
	// when no placement of rank r is feasible (KEP-5732 "prioritized
	// placement": prefer a rack, fall back to a block). Lower is preferred.
	Rank int
}

// PlacementGenerator produces the candidate placements of a group (KEP-5732
// PlacementGeneratePlugin). Returning no placements means the group cannot
// be placed; an error aborts the solve. Solve returns a [*FieldError] as it
// is (bad input, e.g. bound members already spread over two domains of a
// required level), and any other error (the generator could not decide,
// e.g. a lookup the host could not make) wrapped in one that wraps
// [ErrHook] and names Options.Generator.
type PlacementGenerator interface {
	Generate(s *Snapshot, g GroupView) ([]Placement, error)
}

// PlacementReleaser is a [PlacementGenerator] that reuses the memory of
// its answers: [Solve] calls ReleasePlacements with the placements one
// Generate call returned once the solve no longer reads them (a Decision
// keeps a copy of the winner, never the slice), so that a generator that
// answers a placement per domain (topology's, one per rack) need not
// allocate per domain on every solve. Only Solve makes the call; an
// answer it is not given back to is simply not reused. Hooks must not keep
// the *Placement they are handed past their call.
type PlacementReleaser interface {
	PlacementGenerator
	ReleasePlacements(ps []Placement)
}

// PlacementGeneratorFunc adapts a function to [PlacementGenerator].
type PlacementGeneratorFunc func(s *Snapshot, g GroupView) ([]Placement, error)

// Generate calls f.
func (f PlacementGeneratorFunc) Generate(s *Snapshot, g GroupView) ([]Placement, error) {
	return f(s, g)
}

// PlacementScorer scores a feasible placement together with the assignment
// the solver found in it (KEP-5732 PlacementScorePlugin); higher wins.
// Scores of different placements of one group must be comparable.
//
// a is the solver's: a hook may read it during the call but must not keep
// it, as the winner's becomes the Decision's Assignments. A hook that
// reorders or changes it costs the solver a fresh list, never a wrong
// decision.
//
// An error says the scorer could not score for a reason of its own (a
// lookup the host could not make): Solve stops and returns an error that
// wraps [ErrHook] and it, naming the scorer and the placement.
type PlacementScorer interface {
	Score(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error)
}

// SumScorer is a [PlacementScorer] whose score depends on an assignment
// only through how many pending pods it places and their requests summed
// per resource ([AssignedSums]). The solver hands such a scorer those sums,
// computed from its classes of identical pods, instead of listing the
// assignments of every placement it scores (unless a PlacementFilter needs
// them anyway). ScoreSums(s, g, p, placed, requested) must equal
// Score(s, g, p, a) for every a with those sums. [DefaultScorer] and
// topology's Scorer are SumScorers.
type SumScorer interface {
	PlacementScorer
	// ScoreSums scores placement p for g when placed pending pods are
	// assigned there, requesting requested in total (indexed like
	// s.Resources(), the pods count included; an entry it lacks counts as
	// 0, one past s.Resources() is ignored). requested is the solver's:
	// read it during the call, do not modify or keep it.
	// An error is handled as Score's.
	ScoreSums(s *Snapshot, g GroupView, p *Placement, placed int64, requested []int64) (int64, error)
}

// PlacementScorerFunc adapts a function to [PlacementScorer].
type PlacementScorerFunc func(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error)

// Score calls f.
func (f PlacementScorerFunc) Score(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error) {
	return f(s, g, p, a)
}

// PlacementFilter checks a complete assignment of a group before the solver
// accepts it, e.g. a quota on the group's total GPUs. A rejected placement
// is never partially used: the solver tries the next one, and if none is
// accepted the group places nothing and the decision quotes the reason.
// As for [PlacementScorer], a is the solver's and must not be kept.
type PlacementFilter interface {
	FilterPlacement(s *Snapshot, g GroupView, p *Placement, a []Assignment) Rejection
}

// PlacementFilterFunc adapts a function to [PlacementFilter].
type PlacementFilterFunc func(s *Snapshot, g GroupView, p *Placement, a []Assignment) Rejection

// FilterPlacement calls f.
func (f PlacementFilterFunc) FilterPlacement(s *Snapshot, g GroupView, p *Placement, a []Assignment) Rejection {
	return f(s, g, p, a)
}
