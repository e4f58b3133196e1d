package kube

import (
	"github.com/gangsched/gangsched/placement"
)

// The score weights of TaintToleration and NodeAffinity in kube-scheduler
// v1.37's default profile (pkg/scheduler/apis/config/v1 getDefaultPlugins).
const (
	DefaultTaintTolerationWeight = 3
	DefaultNodeAffinityWeight    = 2
)

// maxNodeScore is upstream's framework.MaxNodeScore.
const maxNodeScore = 100

// TaintScorer scores nodes as kube-scheduler's TaintToleration Score
// plugin does (tainttoleration, v1.37), times Weight: a node's raw score
// is the number of its PreferNoSchedule taints that none of the pod's
// tolerations with effect PreferNoSchedule or no effect tolerates; over
// the candidate nodes, with the largest count max, it becomes
// 100 − 100·count/max (integer division), 100 on every node when max is
// 0. Fewer intolerable taints score higher; it never filters. Use it with
// an upstream-compatible [placement.NodeScoring], whose scale it shares.
//
// Against kube-scheduler v1.37.2 (kubeoracle, 3 runs each) on 30 random
// clusters of 3–5 nodes with PreferNoSchedule taints and disk and zone
// labels, gangs and lone pods with random preferred node affinity and
// tolerations, gangsim -node-scoring upstream (this scorer and
// [NodeAffinityScorer] summed by [SumScores]) bound every pod as all
// upstream runs did in 27 and as one of them in the other 3, where
// upstream's own runs differed (random ties). With both scores disabled,
// 28 of the 30 bind otherwise.
type TaintScorer struct {
	// Weight multiplies the normalised score: the plugin's weight in the
	// profile, [DefaultTaintTolerationWeight] in the default one.
	Weight int64
}

// TaintTolerationScorer returns the scorer of weight w, or nil when no
// node of c carries a PreferNoSchedule taint: then every candidate scores
// 100·w for every pod, which changes no choice, and leaving it out keeps
// members placed in batches.
func (c *Cluster) TaintTolerationScorer(w int64) *TaintScorer {
	for _, n := range c.Nodes {
		for _, t := range n.Taints {
			if t.Effect == placement.TaintEffectPreferNoSchedule {
				return &TaintScorer{Weight: w}
			}
		}
	}
	return nil
}

// ScoreNode returns the number of node's PreferNoSchedule taints pod does
// not tolerate (upstream's raw score, before NormalizeNodeScores).
func (ts *TaintScorer) ScoreNode(pod *placement.Pod, node placement.NodeInfo) (int64, error) {
	var n int64
	for _, t := range node.Node().Taints {
		if t.Effect != placement.TaintEffectPreferNoSchedule {
			continue
		}
		ok := false
		for _, tol := range pod.Tolerations {
			// A toleration of another effect is not read, as upstream's
			// PreScore keeps only PreferNoSchedule and empty effects.
			if tol.Effect == "" || tol.Effect == placement.TaintEffectPreferNoSchedule {
				ok = ok || tol.Tolerates(t)
			}
		}
		if !ok {
			n++
		}
	}
	return n, nil
}

// NormalizeNodeScores rewrites the counts into reversed 0–100 scores over
// the candidates, times Weight (see [TaintScorer]).
func (ts *TaintScorer) NormalizeNodeScores(_ *placement.Pod, _ []placement.NodeInfo, scores []int64) error {
	normalize(scores, true, ts.Weight)
	return nil
}

// NodeAffinityScorer scores nodes as kube-scheduler's NodeAffinity Score
// plugin does (nodeaffinity, v1.37), times Weight: a node's raw score is
// the sum of the weights of the pod's preferred terms
// (preferredDuringSchedulingIgnoredDuringExecution) it matches; over the
// candidate nodes, with the largest sum max, it becomes 100·sum/max
// (integer division), 0 everywhere when max is 0. A pod without preferred
// terms scores 0 everywhere (upstream skips the plugin for it). The
// plugin's addedAffinity argument is not read. Use it with an
// upstream-compatible [placement.NodeScoring], whose scale it shares.
type NodeAffinityScorer struct {
	// Preferred holds each pending pod's preferred terms, by pod key.
	Preferred map[placement.Key]*placement.NodeAffinity
	// Weight multiplies the normalised score: the plugin's weight in the
	// profile, [DefaultNodeAffinityWeight] in the default one.
	Weight int64
}

// PreferredNodeAffinityScorer compiles the preferred node affinity terms
// of the cluster's pending pods, to score with weight w; nil when no pod
// has one. Errors (located at the pod's place in the input): a weight
// outside 1–100 or a term upstream's validation refuses (see
// [PodSetNodeAffinity]).
func (c *Cluster) PreferredNodeAffinityScorer(w int64) (*NodeAffinityScorer, error) {
	var sc *NodeAffinityScorer
	for i := range c.Pending {
		k := c.Pending[i].Key()
		p, ok := c.Pod(k)
		if !ok {
			continue
		}
		na, err := PodSetNodeAffinity(podObj(p.Namespace, p.Name), &p.Spec)
		if err != nil {
			return nil, c.Locate(err)
		}
		if na == nil || len(na.Preferred) == 0 {
			continue
		}
		if sc == nil {
			sc = &NodeAffinityScorer{Preferred: map[placement.Key]*placement.NodeAffinity{}, Weight: w}
		}
		sc.Preferred[k] = &placement.NodeAffinity{Preferred: na.Preferred}
	}
	return sc, nil
}

// Needed reports whether any of pods has preferred terms, so that a host
// adds the scorer (which places members one by one) only where it matters.
func (sc *NodeAffinityScorer) Needed(pods []*placement.Pod) bool {
	for _, p := range pods {
		if sc.Preferred[p.Key()] != nil {
			return true
		}
	}
	return false
}

// ScoreNode returns the sum of the weights of pod's preferred terms that
// node matches (upstream's raw score, before NormalizeNodeScores).
func (sc *NodeAffinityScorer) ScoreNode(pod *placement.Pod, node placement.NodeInfo) (int64, error) {
	return sc.Preferred[pod.Key()].Score(node.Node()), nil
}

// NormalizeNodeScores rewrites the sums into 0–100 scores over the
// candidates, times Weight (see [NodeAffinityScorer]).
func (sc *NodeAffinityScorer) NormalizeNodeScores(_ *placement.Pod, _ []placement.NodeInfo, scores []int64) error {
	normalize(scores, false, sc.Weight)
	return nil
}

// normalize is upstream's helper.DefaultNormalizeScore to 0–100 (scores
// are 0 or more), reversed when reverse, then times w.
func normalize(scores []int64, reverse bool, w int64) {
	var hi int64
	for _, s := range scores {
		hi = max(hi, s)
	}
	for k, s := range scores {
		switch {
		case hi == 0 && reverse:
			s = maxNodeScore
		case hi == 0:
			s = 0
		default:
			s = maxNodeScore * s / hi
			if reverse {
				s = maxNodeScore - s
			}
		}
		scores[k] = s * w
	}
}

var (
	_ placement.NodeScoreNormalizer = (*TaintScorer)(nil)
	_ placement.NodeScoreNormalizer = (*NodeAffinityScorer)(nil)
)
