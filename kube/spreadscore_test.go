package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// recordScores wraps a normalizer and keeps the last scores it set, per
// node name.
type recordScores struct {
	placement.NodeScoreNormalizer
	last map[string]int64
}

func (r *recordScores) NormalizeNodeScores(p *placement.Pod, nodes []placement.NodeInfo, scores []int64) error {
	err := r.NodeScoreNormalizer.NormalizeNodeScores(p, nodes, scores)
	r.last = map[string]int64{}
	for k, n := range nodes {
		r.last[n.Node().Name] = scores[k]
	}
	return err
}

// softSolve loads manifests and solves the gang "default/pg" of every
// pending pod with kube-scheduler's default resource scoring, plus, when
// spread, the cluster's ScheduleAnyway scorer of weight 2. It returns pod
// → node and the spread scores the last member saw.
func softSolve(t *testing.T, spread bool, docs ...string) (map[string]string, map[string]int64) {
	t.Helper()
	c, g := loadGang(t, docs...)
	sc, err := c.TopologySpreadScorer(DefaultSpreadWeight)
	require.NoError(t, err)
	opts := placement.Options{NodeScoring: placement.UpstreamNodeScoring()}
	rec := &recordScores{}
	if spread {
		require.NotNil(t, sc)
		newReserver, scorer := sc.Hooks()
		rec.NodeScoreNormalizer = scorer
		opts.Reservers, opts.NodeScorer = []placement.NewReserverFunc{newReserver}, rec
	}
	return solvePlaced(t, c, g, opts), rec.last
}

// labelledNode is a node of cpu CPUs with the given labels (a YAML map
// body) and no memory.
func labelledNode(name, labels, cpu string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {%s}}\nstatus: {allocatable: {cpu: '%s', pods: '110'}}\n", name, labels, cpu)
}

// softPod is a web pod of 1 CPU, bound to node or (node "") a pending
// member of pg, with a ScheduleAnyway constraint (a YAML map body).
func softPod(name, node, constraint, extraSpec string) string {
	spec := "  nodeName: " + node + "\n"
	if node == "" {
		spec = "  schedulingGroup: {podGroupName: pg}\n"
	}
	if constraint != "" {
		spec += "  topologySpreadConstraints:\n  - {" + constraint + ", whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}\n"
	}
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", labels: {app: web}}\nspec:\n" + spec + extraSpec + "  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n"
}

const (
	softZone = "maxSkew: 1, topologyKey: " + zoneKey
	softHost = "maxSkew: 1, topologyKey: kubernetes.io/hostname"
)

// TestScenario_SpreadScore: ScheduleAnyway spread as upstream's
// PodTopologySpread score adds it (weight 2) to the default profile's
// resource score (LeastAllocated + BalancedAllocation, here 75 on every
// node: cpu is the only resource). Each case gives the choice without and
// with the spread score, and the spread scores the last member saw.
func TestScenario_SpreadScore(t *testing.T) {
	for _, c := range []scoreCase{{
		// zone a holds 2 web pods (on a1), b none. Domains {a, b}, weight
		// ln 4: a1 and a2 score round(2·1.39) = 3, b1 0; normalised
		// 100·(3+0−s)/3: a 0, b 100, times 2. Resources: a1 25, a2 and b1
		// 75: a2 and b1 tie without spread (a2 by name), b1 with it.
		name: "zone with bound pods",
		docs: []string{labelledNode("a1", zoneKey+": a", "4"), labelledNode("a2", zoneKey+": a", "4"), labelledNode("b1", zoneKey+": b", "4"),
			softPod("w1", "a1", "", ""), softPod("w2", "a1", "", ""), softPod("m", "", softZone, "")},
		without: map[string]string{"m": "a2"}, with: map[string]string{"m": "b1"},
		scores: map[string]int64{"a1": 0, "a2": 0, "b1": 200},
	}, {
		// a1 has 16 CPUs, b1 4: LeastAllocated alone packs a1 (93, 87, 81
		// against 75). With spread, m0 sees both zones empty (all 200) and
		// takes a1; m1 sees a at 1 (a1 round(1.39) = 1, normalised 0) and
		// takes b1 (75+75+200 against 87+75); m2 sees a tie (both 200) and
		// takes a1. Members placed in the solve count.
		name: "members of the gang count",
		docs: []string{labelledNode("a1", zoneKey+": a", "16"), labelledNode("b1", zoneKey+": b", "4"),
			softPod("m0", "", softZone, ""), softPod("m1", "", softZone, ""), softPod("m2", "", softZone, "")},
		without: map[string]string{"m0": "a1", "m1": "a1", "m2": "a1"}, with: map[string]string{"m0": "a1", "m1": "b1", "m2": "a1"},
		scores: map[string]int64{"a1": 200, "b1": 200},
	}, {
		// hostname: n1 (16 CPUs) holds a web pod. Candidates 3, weight
		// ln 5: n1 round(1.61) = 2, others 0; normalised n1 0, n2 and n3
		// 100. Resources: n1 87, n2 and n3 75.
		name: "hostname",
		docs: []string{labelledNode("n1", "kubernetes.io/hostname: n1", "16"), labelledNode("n2", "kubernetes.io/hostname: n2", "4"), labelledNode("n3", "kubernetes.io/hostname: n3", "4"),
			softPod("w1", "n1", "", ""), softPod("m", "", softHost, "")},
		without: map[string]string{"m": "n1"}, with: map[string]string{"m": "n2"},
		scores: map[string]int64{"n1": 0, "n2": 200, "n3": 200},
	}, {
		// n0 lacks the zone key: ignored, it scores 0, where n1 (zone a,
		// alone, empty) scores 100 times 2.
		name:    "node without the key",
		docs:    []string{labelledNode("n0", "other: x", "4"), labelledNode("n1", zoneKey+": a", "4"), softPod("m", "", softZone, "")},
		without: map[string]string{"m": "n0"}, with: map[string]string{"m": "n1"},
		scores: map[string]int64{"n0": 0, "n1": 200},
	}, {
		// n3 (zone b, pool y) holds 2 web pods but fails the member's
		// nodeSelector pool: p1: with nodeAffinityPolicy Honor it does not
		// count, both zones are empty and n1 wins by name; with Ignore
		// zone b counts 2 and n2 (zone a) wins.
		name: "node affinity policy Honor",
		docs: []string{labelledNode("n1", zoneKey+": b, pool: p1", "4"), labelledNode("n2", zoneKey+": a, pool: p1", "4"), labelledNode("n3", zoneKey+": b, pool: p2", "4"),
			softPod("w1", "n3", "", ""), softPod("w2", "n3", "", ""), softPod("m", "", softZone, "  nodeSelector: {pool: p1}\n")},
		without: map[string]string{"m": "n1"}, with: map[string]string{"m": "n1"},
		scores: map[string]int64{"n1": 200, "n2": 200},
	}, {
		name: "node affinity policy Ignore",
		docs: []string{labelledNode("n1", zoneKey+": b, pool: p1", "4"), labelledNode("n2", zoneKey+": a, pool: p1", "4"), labelledNode("n3", zoneKey+": b, pool: p2", "4"),
			softPod("w1", "n3", "", ""), softPod("w2", "n3", "", ""), softPod("m", "", softZone+", nodeAffinityPolicy: Ignore", "  nodeSelector: {pool: p1}\n")},
		without: map[string]string{"m": "n1"}, with: map[string]string{"m": "n2"},
		scores: map[string]int64{"n1": 0, "n2": 200},
	}} {
		t.Run(c.name, func(t *testing.T) { c.check(t, softSolve) })
	}
}

// TestSoftTopologySpreadValidates: a bad ScheduleAnyway constraint is an
// error naming the field, for the scorer and the filter alike.
func TestSoftTopologySpreadValidates(t *testing.T) {
	objs, err := manifest.Decode("in.yaml", strings.NewReader(labelledNode("n1", zoneKey+": a", "4")+"---\n"+softPod("m", "", "maxSkew: 0, topologyKey: "+zoneKey, "")), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	_, err = c.TopologySpreadScorer(DefaultSpreadWeight)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, "spec.topologySpreadConstraints[0].maxSkew: 0 is below 1")
	_, err = c.TopologySpreadFilter()
	require.ErrorContains(t, err, "spec.topologySpreadConstraints[0].maxSkew: 0 is below 1")
}

// scoreCase is a row of a node scorer's table: where the members of docs
// go without the scorer and with it, and the scores (weighted and
// normalised) the last member saw with it.
type scoreCase struct {
	name          string
	docs          []string
	without, with map[string]string
	scores        map[string]int64
}

// check solves the row's docs with solve, the scorer off and on.
func (c scoreCase) check(t *testing.T, solve func(t *testing.T, scored bool, docs ...string) (map[string]string, map[string]int64)) {
	t.Helper()
	got, _ := solve(t, false, c.docs...)
	require.Equal(t, c.without, got, "without the scorer")
	got, scores := solve(t, true, c.docs...)
	require.Equal(t, c.with, got, "with the scorer")
	require.Equal(t, c.scores, scores, "the last member's scores")
}

// loadGang loads manifests docs and makes every pending pod a member of
// the gang "default/pg" with minCount all of them.
func loadGang(t *testing.T, docs ...string) (*Cluster, *placement.Group) {
	t.Helper()
	objs, err := manifest.Decode("in.yaml", strings.NewReader(strings.Join(docs, "---\n")), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	return c, &placement.Group{Namespace: "default", Name: "pg", MinCount: int32(len(c.Pending)), Members: c.Pending}
}

// solvePlaced solves g on c's snapshot, requires it scheduled and returns
// pod name → node.
func solvePlaced(t *testing.T, c *Cluster, g *placement.Group, opts placement.Options) map[string]string {
	t.Helper()
	d, err := placement.Solve(c.Snapshot, g, opts)
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	got := map[string]string{}
	for _, a := range d.Assignments {
		got[a.Pod.Name] = a.Node
	}
	return got
}
