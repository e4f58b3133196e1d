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

// NodeScoreNormalizer is a [NodeScorer] whose scores are only final once
// every candidate node of a member has been scored: kube-scheduler's
// PreScore (which reads the list of nodes that passed the filters) and
// ScoreExtensions.NormalizeScore, as PodTopologySpread's score needs
// them. When Options.NodeScorer implements it, the solver scores a
// member on each candidate node with ScoreNode, then hands every
// candidate and its score, in node ID order, to NormalizeNodeScores,
// which rewrites scores in place; the normalised score is
// the hook's, to which NodeScoring's profile is then added. Candidates
// are the nodes of the placement that pass every filter; while the
// exhaustive search runs (after the greedy passes failed), they are the
// nodes still open to the member at that depth of the search.
//
// NormalizeNodeScores is not called when no node passes. Its error is
// handled as ScoreNode's (Solve stops and returns an error that wraps
// [ErrHook]), naming Options.NodeScorer and the pod. It is subject to
// ScoreNode's rules: a pure function of its arguments and of state shared
// with the solve's Reservers; nodes and scores are the solver's and must
// not be kept.
type NodeScoreNormalizer interface {
	NodeScorer
	NormalizeNodeScores(pod *Pod, nodes []NodeInfo, scores []int64) error
}

// candidateScores scores member m on each of nodes (all passed every
// filter) with Options.NodeScorer, normalised by its
// NormalizeNodeScores, plus NodeScoring's profile when its Strategy is
// set. It returns nil after a hook's error (kept for Solve, with the
// budget spent). The slice is the solver's until the next call.
func (sv *solver) candidateScores(m *member, nodes []NodeID) []int64 {
	p := sv.pod(m.row)
	infos, scores := sv.normInfos[:0], sv.normScores[:0]
	for _, id := range nodes {
		ni := NodeInfo{sv.s, sv.w, id}
		sc, err := sv.norm.ScoreNode(p, ni)
		if sv.failed(Rejection{Err: err}, "Options.NodeScorer", p, ni) {
			return nil
		}
		infos, scores = append(infos, ni), append(scores, sc)
	}
	sv.normInfos, sv.normScores = infos, scores
	if len(nodes) == 0 {
		return scores
	}
	if err := sv.norm.NormalizeNodeScores(p, infos, scores); err != nil {
		sv.failed(Rejection{Err: err}, "Options.NodeScorer (NormalizeNodeScores)", p, NodeInfo{})
		return nil
	}
	if sv.ns != nil {
		for k, id := range nodes {
			scores[k] = addSat(scores[k], sv.rowScore(m.row, id))
		}
	}
	return scores
}

// memberScore is the score of member m on node id, which passed every
// filter: Options.NodeScorer's (plus NodeScoring's when its Strategy is
// set) or the built-in one. A scorer's error is kept for Solve and spends
// the budget, so that the solve stops.
func (sv *solver) memberScore(m *member, id NodeID) int64 {
	h := sv.opts.NodeScorer
	if h == nil {
		return sv.rowScore(m.row, id)
	}
	p := sv.pod(m.row)
	ni := NodeInfo{sv.s, sv.w, id}
	sc, err := h.ScoreNode(p, ni)
	if sv.failed(Rejection{Err: err}, "Options.NodeScorer", p, ni) {
		return 0
	}
	if sv.ns != nil {
		sc = addSat(sc, sv.rowScore(m.row, id))
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
