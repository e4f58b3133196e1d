package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// prefSolve loads manifests and solves the gang "default/pg" of every
// pending pod with kube-scheduler's default resource scoring plus, when
// scored, its TaintToleration (weight 3) and NodeAffinity (weight 2)
// scores, summed by SumScores. It returns pod → node and the summed
// scores of those two plugins the last member saw.
func prefSolve(t *testing.T, scored bool, docs ...string) (map[string]string, map[string]int64) {
	t.Helper()
	c, g := loadGang(t, docs...)
	opts := placement.Options{NodeScoring: placement.UpstreamNodeScoring()}
	rec := &recordScores{}
	if scored {
		var scorers []placement.NodeScoreNormalizer
		if ts := c.TaintTolerationScorer(DefaultTaintTolerationWeight); ts != nil {
			scorers = append(scorers, ts)
		}
		na, err := c.PreferredNodeAffinityScorer(DefaultNodeAffinityWeight)
		require.NoError(t, err)
		if na != nil {
			scorers = append(scorers, na)
		}
		rec.NodeScoreNormalizer = &SumScores{Scorers: scorers}
		opts.NodeScorer = rec
	}
	return solvePlaced(t, c, g, opts), rec.last
}

// taintedNode is labelledNode with spec taints (a YAML list body).
func taintedNode(name, labels, cpu, taints string) string {
	return strings.Replace(labelledNode(name, labels, cpu), "status:", "spec: {taints: ["+taints+"]}\nstatus:", 1)
}

const (
	preferA = "{key: a, value: '1', effect: PreferNoSchedule}"
	preferB = "{key: b, value: '2', effect: PreferNoSchedule}"
)

// TestScenario_TaintAndNodeAffinityScore: TaintToleration and preferred
// NodeAffinity as upstream's Score plugins add them (weights 3 and 2) to
// the default profile's resource score. Nodes have cpu only: the
// resource score is LeastAllocated + BalancedAllocation 75, so an 8-CPU
// node scores 87+75 = 162 and a 4-CPU node 75+75 = 150 for a 1-CPU pod.
// Each case gives the choice without and with the two scores, and their
// summed scores the last member saw.
func TestScenario_TaintAndNodeAffinityScore(t *testing.T) {
	nodes := []string{taintedNode("n1", "pool: p", "8", preferA), labelledNode("n2", "pool: p", "4"), taintedNode("n3", "pool: p", "4", preferA+", "+preferB)}
	for _, c := range []scoreCase{{
		// Intolerable PreferNoSchedule taints n1 1, n2 0, n3 2; max 2,
		// reversed 100−100·count/2: 50, 100, 0, times 3. Totals n1
		// 162+150, n2 150+300, n3 150+0.
		name:    "taints",
		docs:    append(nodes[:3:3], softPod("m", "", "", "")),
		without: map[string]string{"m": "n1"}, with: map[string]string{"m": "n2"},
		scores: map[string]int64{"n1": 150, "n2": 300, "n3": 0},
	}, {
		// Tolerating a with effect PreferNoSchedule: counts 0, 0, 1;
		// scores 100, 100, 0, times 3; n1 162+300 wins.
		name:    "tolerated",
		docs:    append(nodes[:3:3], softPod("m", "", "", "  tolerations: [{key: a, operator: Exists, effect: PreferNoSchedule}]\n")),
		without: map[string]string{"m": "n1"}, with: map[string]string{"m": "n1"},
		scores: map[string]int64{"n1": 300, "n2": 300, "n3": 0},
	}, {
		// A toleration of effect NoSchedule is not read by the score
		// (upstream keeps PreferNoSchedule and empty effects only): as
		// untolerated.
		name:    "toleration of another effect",
		docs:    append(nodes[:3:3], softPod("m", "", "", "  tolerations: [{key: a, operator: Exists, effect: NoSchedule}]\n")),
		without: map[string]string{"m": "n1"}, with: map[string]string{"m": "n2"},
		scores: map[string]int64{"n1": 150, "n2": 300, "n3": 0},
	}, {
		// Preferred terms: disk=ssd weight 10, gpu Exists weight 30. Sums
		// n1 0, n2 10, n3 40; normalised 100·sum/40: 0, 25, 100, times 2.
		// No PreferNoSchedule taint anywhere: no taint scorer. Totals n1
		// 162, n2 150+50, n3 150+200.
		name: "preferred node affinity",
		docs: []string{labelledNode("n1", "disk: hdd", "8"), labelledNode("n2", "disk: ssd", "4"), labelledNode("n3", "disk: ssd, gpu: 'yes'", "4"),
			softPod("m", "", "", "  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}, {weight: 30, preference: {matchExpressions: [{key: gpu, operator: Exists}]}}]}}\n")},
		without: map[string]string{"m": "n1"}, with: map[string]string{"m": "n3"},
		scores: map[string]int64{"n1": 0, "n2": 50, "n3": 200},
	}, {
		// Both: n1 (8 CPUs, disk=ssd, taint a) scores taint 0 + affinity
		// 200, n2 (4 CPUs) taint 300 + affinity 0. Totals n1 162+200, n2
		// 150+300. The second member sees n2 at 2 CPUs used (50+75) and
		// still prefers it (425 against 362).
		name: "both, summed",
		docs: []string{taintedNode("n1", "disk: ssd", "8", preferA), labelledNode("n2", "disk: hdd", "4"),
			softPod("m0", "", "", "  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}]}}\n"),
			softPod("m1", "", "", "  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}]}}\n")},
		without: map[string]string{"m0": "n1", "m1": "n1"}, with: map[string]string{"m0": "n2", "m1": "n2"},
		scores: map[string]int64{"n1": 200, "n2": 300},
	}} {
		t.Run(c.name, func(t *testing.T) { c.check(t, prefSolve) })
	}
}

// TestNormalize: upstream's DefaultNormalizeScore, plain and reversed,
// with the all-zero case (reversed: 100 everywhere).
func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		in      []int64
		reverse bool
		w       int64
		want    []int64
	}{
		{[]int64{0, 1, 3}, false, 1, []int64{0, 33, 100}},
		{[]int64{0, 1, 3}, true, 3, []int64{300, 201, 0}},
		{[]int64{0, 0}, false, 2, []int64{0, 0}},
		{[]int64{0, 0}, true, 3, []int64{300, 300}},
	} {
		s := append([]int64(nil), c.in...)
		normalize(s, c.reverse, c.w)
		require.Equal(t, c.want, s, "%v reverse %v", c.in, c.reverse)
	}
}

// TestPreferredNodeAffinityScorer: nil without preferred terms, the
// scorer's Needed by pod, and a bad weight an error naming the field.
func TestPreferredNodeAffinityScorer(t *testing.T) {
	load := func(docs ...string) *Cluster {
		objs, err := manifest.Decode("in.yaml", strings.NewReader(strings.Join(docs, "---\n")), manifest.Options{})
		require.NoError(t, err)
		c, err := Load(objs)
		require.NoError(t, err)
		return c
	}
	c := load(labelledNode("n1", "pool: p", "4"), softPod("m", "", "", ""))
	na, err := c.PreferredNodeAffinityScorer(2)
	require.NoError(t, err)
	require.Nil(t, na)
	require.Nil(t, c.TaintTolerationScorer(3))
	c = load(labelledNode("n1", "pool: p", "4"), softPod("m", "", "", "  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 101, preference: {matchExpressions: [{key: pool, operator: Exists}]}}]}}\n"))
	_, err = c.PreferredNodeAffinityScorer(2)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight")
}
