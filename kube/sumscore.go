package kube

import (
	"github.com/gangsched/gangsched/placement"
)

// SumScores combines several normalising scorers into the one
// [placement.Options].NodeScorer, as kube-scheduler's framework sums its
// weighted Score plugins: each scorer scores every candidate and
// normalises its own scores, and a node's score is the sum. Each scorer
// weighs itself ([SpreadScorer], [TaintScorer], [NodeAffinityScorer]). A
// SumScores serves one solve at a time (it keeps scratch).
type SumScores struct {
	Scorers []placement.NodeScoreNormalizer
	scratch []int64
}

// ScoreNode returns 0: each scorer's score is only final once it has
// normalised over every candidate, so NormalizeNodeScores computes them.
func (s *SumScores) ScoreNode(*placement.Pod, placement.NodeInfo) (int64, error) {
	return 0, nil
}

// NormalizeNodeScores sets scores to the sum of each scorer's normalised
// scores of the candidates; the first error stops it.
func (s *SumScores) NormalizeNodeScores(p *placement.Pod, nodes []placement.NodeInfo, scores []int64) error {
	clear(scores)
	for _, sc := range s.Scorers {
		own := s.scratch[:0]
		for _, ni := range nodes {
			v, err := sc.ScoreNode(p, ni)
			if err != nil {
				return err
			}
			own = append(own, v)
		}
		if err := sc.NormalizeNodeScores(p, nodes, own); err != nil {
			return err
		}
		for k, v := range own {
			scores[k] += v
		}
		s.scratch = own
	}
	return nil
}

var _ placement.NodeScoreNormalizer = (*SumScores)(nil)
