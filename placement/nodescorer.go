package placement

import "math"

// NodeScorer is the caller's per-pod, per-node score (kube-scheduler's
// ScorePlugin, the Score extension point of pkg/scheduler/framework): the
// solver asks it, inside one placement, for every node that passed every
// filter (the built-in ones, [Options].Filters and the Reservers'), and
// sends the member to the node of the highest score, ties by node name
// (upstream draws ties at random). It is how a Go user plugs in a policy
// such as the fragment package's FGD, or a preference kube-scheduler
// scores rather than filters.
//
// Scores are int64 in whatever scale the scorer likes (upstream's plugins
// return 0–100 and are weighted by the profile; a scorer that wants that
// weighs itself). With [Options].NodeScoring's Strategy set, the node's
// score is the hook's plus that profile's, as upstream sums its Score
// plugins; with the zero NodeScoring the hook's score alone decides,
// since gangsched's packing score is not on upstream's 0–100 scale. A
// member's preferred pod affinity still ranks nodes first.
//
// node is the node as the member would find it: NodeInfo.Free counts the
// members the solver assumed onto it so far in the attempt, and a Reserver
// that tracks more (devices) has seen them. ScoreNode must be a pure
// function of its arguments and of state the scorer shares with the
// solve's Reservers, and must not keep node; it is called O(nodes) times
// per member placed, and members are then placed one by one rather than
// in batches of identical members, as with NodeScoring set.
//
// An error says the scorer could not score for a reason of its own (a
// lookup the host could not make): Solve stops and returns an error that
// wraps [ErrHook] and it and names Options.NodeScorer, the pod and the
// node (kube-scheduler: a Status with code Error from Score).
type NodeScorer interface {
	ScoreNode(pod *Pod, node NodeInfo) (int64, error)
}

// NodeScorerFunc adapts a function to [NodeScorer].
type NodeScorerFunc func(pod *Pod, node NodeInfo) (int64, error)

// ScoreNode calls f.
func (f NodeScorerFunc) ScoreNode(pod *Pod, node NodeInfo) (int64, error) { return f(pod, node) }

var _ NodeScorer = NodeScorerFunc(nil)

// memberScore is the score of member m on node id, which passed every
// filter: Options.NodeScorer's (plus NodeScoring's when its Strategy is
// set) or the built-in one. A scorer's error is kept for Solve and spends
// the budget, so that the solve stops.
func (sv *solver) memberScore(m *member, id NodeID) int64 {
	h := sv.opts.NodeScorer
	if h == nil {
		return sv.nodeScore(sv.req(m.row), id)
	}
	p := sv.pod(m.row)
	ni := NodeInfo{sv.s, sv.w, id}
	sc, err := h.ScoreNode(p, ni)
	if sv.failed(Rejection{Err: err}, "Options.NodeScorer", p, ni) {
		return 0
	}
	if sv.ns != nil {
		sc = addSat(sc, sv.nodeScore(sv.req(m.row), id))
	}
	return sc
}

// addSat is a+b for signed a and b, clamped to the int64 range: a hook's
// score may be negative, the profile's is 0 or more.
func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}
