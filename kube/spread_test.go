package kube

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

const zoneKey = "topology.kubernetes.io/zone"

type testingT interface {
	require.TestingT
	Helper()
}

// spreadSolve loads manifests, solves the gang "default/pg" of every
// pending pod with the cluster's spread filter, and returns pod → node.
func spreadSolve(t testingT, docs ...string) (placement.Decision, map[string]string) {
	t.Helper()
	return spreadSolvePolicy(t, placement.PolicyGang, docs...)
}

func spreadSolvePolicy(t testingT, policy placement.Policy, docs ...string) (placement.Decision, map[string]string) {
	t.Helper()
	objs, err := manifest.Decode("in.yaml", strings.NewReader(strings.Join(docs, "---\n")), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	f, err := c.TopologySpreadFilter()
	require.NoError(t, err)
	g := &placement.Group{Namespace: "default", Name: "pg", Policy: policy, MinCount: int32(len(c.Pending)), Members: c.Pending}
	opts := placement.Options{}
	if f != nil {
		opts.Reservers = []placement.NewReserverFunc{f.Reserver}
	}
	d, err := placement.Solve(c.Snapshot, g, opts)
	require.NoError(t, err)
	got := map[string]string{}
	for _, a := range d.Assignments {
		got[a.Pod.Name] = a.Node
	}
	return d, got
}

func zoneNode(name, zone, extra string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {%s: %s}}\n%sstatus: {allocatable: {cpu: '4', pods: '110'}}\n", name, zoneKey, zone, extra)
}

func webPod(name, node, constraint string) string {
	spec := "  nodeName: " + node + "\n"
	if node == "" {
		spec = "  schedulingGroup: {podGroupName: pg}\n"
	}
	if constraint != "" {
		spec += "  topologySpreadConstraints:\n  - {" + constraint + "}\n"
	}
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", labels: {app: web}}\nspec:\n" + spec + "  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n"
}

const zoneSpread = "maxSkew: 1, topologyKey: " + zoneKey + ", whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}"

// TestScenario_TopologySpread: DoNotSchedule spread as kube-scheduler's
// filter decides it, over bound pods and the group's own members.
func TestScenario_TopologySpread(t *testing.T) {
	nodes := []string{zoneNode("a1", "a", ""), zoneNode("a2", "a", ""), zoneNode("b1", "b", "")}
	pg := "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg}\nspec: {schedulingPolicy: {gang: {minCount: 1}}}\n"
	for _, c := range []struct {
		name string
		docs []string
		want map[string]string
	}{
		// zone a holds web-0: the first member must go to b; then a, then b.
		{"maxSkew 1 over zones with a bound pod", []string{webPod("web-0", "a1", ""), webPod("m1", "", zoneSpread), webPod("m2", "", zoneSpread), webPod("m3", "", zoneSpread)},
			map[string]string{"m1": "b1", "m2": "a1", "m3": "b1"}},
		// with no constraint, packing puts every member on a1.
		{"no constraint", []string{webPod("web-0", "a1", ""), webPod("m1", "", ""), webPod("m2", "", ""), webPod("m3", "", "")},
			map[string]string{"m1": "a1", "m2": "a1", "m3": "a1"}},
		// the selector matches no bound pod of another label.
		{"selector", []string{strings.Replace(webPod("db-0", "a1", ""), "app: web", "app: db", 1), webPod("m1", "", zoneSpread), webPod("m2", "", zoneSpread)},
			map[string]string{"m1": "a1", "m2": "b1"}},
		// minDomains 3 with two zones: the emptiest counts 0, so each zone
		// takes one matching pod at most; a gang of three would wait.
		{"minDomains above the zones", []string{webPod("m1", "", zoneSpread+", minDomains: 3"), webPod("m2", "", zoneSpread+", minDomains: 3")},
			map[string]string{"m1": "a1", "m2": "b1"}},
		{"minDomains above the zones, three members", []string{webPod("m1", "", zoneSpread+", minDomains: 3"), webPod("m2", "", zoneSpread+", minDomains: 3"), webPod("m3", "", zoneSpread+", minDomains: 3")},
			map[string]string{}},
		// matchLabelKeys: the selector also requires the member's own
		// rev, so web-0 (rev 1) does not count for members of rev 2.
		{"matchLabelKeys", []string{strings.Replace(webPod("web-0", "a1", ""), "app: web", "app: web, rev: '1'", 1),
			strings.Replace(webPod("m1", "", zoneSpread+", matchLabelKeys: [rev]"), "app: web", "app: web, rev: '2'", 1)},
			map[string]string{"m1": "a1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := append(append(slices.Clone(nodes), pg), c.docs...)
			_, got := spreadSolve(t, docs...)
			require.Equal(t, c.want, got)
		})
	}
}

// TestScenario_TopologySpreadNodePolicies: nodes that fail the pod's node
// inclusion policies hold no domain; a node without the key is rejected.
func TestScenario_TopologySpreadNodePolicies(t *testing.T) {
	pg := "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg}\nspec: {schedulingPolicy: {gang: {minCount: 1}}}\n"
	tainted := "spec: {taints: [{key: x, effect: NoSchedule}]}\n"
	// Zone c's only node is tainted, and the member does not tolerate it.
	// Ignored by default, zone c counts with 0, so zones a and b (one pod
	// each) are closed and the member waits; under Honor zone c does not
	// count, and a1 (the most allocated, first by name) takes it.
	base := []string{zoneNode("a1", "a", ""), zoneNode("b1", "b", ""), zoneNode("c1", "c", tainted), pg, webPod("web-0", "a1", ""), webPod("web-1", "b1", "")}
	_, got := spreadSolve(t, append(slices.Clone(base), webPod("m1", "", zoneSpread))...)
	require.Empty(t, got)
	_, got = spreadSolve(t, append(slices.Clone(base), webPod("m1", "", zoneSpread+", nodeTaintsPolicy: Honor"))...)
	require.Equal(t, map[string]string{"m1": "a1"}, got)

	// A node without the key fails the member outright.
	d, got := spreadSolve(t, "apiVersion: v1\nkind: Node\nmetadata: {name: bare}\nstatus: {allocatable: {cpu: '4'}}\n", pg, webPod("m1", "", zoneSpread))
	require.Empty(t, got)
	require.Contains(t, d.Message, "missing required label")
}

// TestTopologySpread_Convert: defaults and refusals of TopologySpread.
func TestTopologySpread_Convert(t *testing.T) {
	five := int32(5)
	honor, bad := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicy("Maybe")
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", Labels: map[string]string{"rev": "7"}}}
	p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
		{MaxSkew: 2, TopologyKey: zoneKey, WhenUnsatisfiable: corev1.ScheduleAnyway},
		{MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MatchLabelKeys: []string{"rev", "absent"}},
		{MaxSkew: 3, TopologyKey: "rack", WhenUnsatisfiable: corev1.DoNotSchedule, MinDomains: &five, NodeTaintsPolicy: &honor},
	}
	cs, err := TopologySpread(p)
	require.NoError(t, err)
	require.Len(t, cs, 2, "ScheduleAnyway only scores")
	require.Equal(t, "app=web,rev in (7)", cs[0].Selector.String())
	require.Equal(t, SpreadConstraint{MaxSkew: 3, TopologyKey: "rack", Selector: labels.Nothing(), MinDomains: 5, HonorAffinity: true, HonorTaints: true}, cs[1])
	for _, c := range []struct {
		mod  func(*corev1.TopologySpreadConstraint)
		want string
	}{
		{func(c *corev1.TopologySpreadConstraint) { c.MaxSkew = 0 }, `pod "default/p": spec.topologySpreadConstraints[0].maxSkew: 0 is below 1`},
		{func(c *corev1.TopologySpreadConstraint) { c.TopologyKey = "" }, `spec.topologySpreadConstraints[0].topologyKey: must not be empty`},
		{func(c *corev1.TopologySpreadConstraint) { c.WhenUnsatisfiable = "Never" }, `whenUnsatisfiable: unknown value "Never"`},
		{func(c *corev1.TopologySpreadConstraint) { c.NodeAffinityPolicy = &bad }, `nodeAffinityPolicy: unknown value "Maybe"`},
		{func(c *corev1.TopologySpreadConstraint) { zero := int32(0); c.MinDomains = &zero }, `minDomains: 0 is below 1`},
	} {
		q := p.DeepCopy()
		q.Spec.TopologySpreadConstraints = q.Spec.TopologySpreadConstraints[1:2]
		c.mod(&q.Spec.TopologySpreadConstraints[0])
		_, err := TopologySpread(q)
		var fe *placement.FieldError
		require.ErrorAs(t, err, &fe)
		require.ErrorContains(t, err, c.want)
	}
}

// TestProp_TopologySpreadHolds: on random zones, bound pods and members,
// every zone that holds a placed member ends at most maxSkew above the
// emptiest zone (0 when fewer than minDomains): members are checked one
// by one and the minimum never falls, so the final counts keep it.
func TestProp_TopologySpreadHolds(t *testing.T) {
	placedAny := false
	defer func() { require.True(t, placedAny, "the generator places members") }()
	rapid.Check(t, func(t *rapid.T) {
		zones := []string{"a", "b", "c"}
		var docs []string
		nodes := rapid.IntRange(1, 5).Draw(t, "nodes")
		zoneOf := map[string]string{}
		for i := range nodes {
			n, z := fmt.Sprintf("n%d", i), rapid.SampledFrom(zones).Draw(t, "zone")
			zoneOf[n] = z
			docs = append(docs, zoneNode(n, z, ""))
		}
		docs = append(docs, "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg}\nspec: {schedulingPolicy: {gang: {minCount: 1}}}\n")
		count := map[string]int{}
		for i := range rapid.IntRange(0, 4).Draw(t, "bound") {
			n := fmt.Sprintf("n%d", rapid.IntRange(0, nodes-1).Draw(t, "on"))
			docs = append(docs, webPod(fmt.Sprintf("b%d", i), n, ""))
			count[zoneOf[n]]++
		}
		skew, minDomains := rapid.IntRange(1, 2).Draw(t, "maxSkew"), rapid.IntRange(1, 3).Draw(t, "minDomains")
		cons := fmt.Sprintf("maxSkew: %d, topologyKey: %s, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}, minDomains: %d", skew, zoneKey, minDomains)
		for i := range rapid.IntRange(1, 6).Draw(t, "members") {
			docs = append(docs, webPod(fmt.Sprintf("m%d", i), "", cons))
		}
		_, got := spreadSolvePolicy(t, placement.PolicyBasic, docs...) // as many as fit
		placedAny = placedAny || len(got) > 0
		for _, n := range got {
			count[zoneOf[n]]++
		}
		domains := map[string]bool{}
		for _, z := range zoneOf {
			domains[z] = true
		}
		least := 0
		if len(domains) >= minDomains {
			least = -1
			for z := range domains {
				if least < 0 || count[z] < least {
					least = count[z]
				}
			}
		}
		for m, n := range got {
			if count[zoneOf[n]]-least > skew {
				t.Fatalf("%s on %s: zone %s has %d, the emptiest %d, maxSkew %d", m, n, zoneOf[n], count[zoneOf[n]], least, skew)
			}
		}
	})
}

// FuzzTopologySpreadFilter: any input the reader and Load accept gives a
// spread filter or a located field error, and solving with it never
// panics.
func FuzzTopologySpreadFilter(f *testing.F) {
	fuzzManifests(f, []string{"testdata/spread/zones.yaml", "testdata/spread/preemption.yaml"}, func(t *testing.T, objs []manifest.Object) {
		c, err := Load(objs)
		if err != nil {
			return
		}
		sf, err := c.TopologySpreadFilter()
		if err != nil {
			var fe *placement.FieldError
			require.ErrorAs(t, err, &fe)
			return
		}
		if sf == nil || len(c.Pending) == 0 {
			return
		}
		g := &placement.Group{Namespace: c.Pending[0].Namespace, Name: "fuzz", Policy: placement.PolicyBasic, Members: c.Pending[:1]}
		g.Members[0].SchedulingGroup = "fuzz"
		_, _ = placement.Solve(c.Snapshot, g, placement.Options{Reservers: []placement.NewReserverFunc{sf.Reserver}})
	})
}
