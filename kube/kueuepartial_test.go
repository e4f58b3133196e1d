package kube

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Kueue's search over smaller counts: index i of 0..total takes
// delta·i/total pods from each set, probed in binary-search order; the
// answer is the last probe that fit. Worked by hand from sort.Search's
// midpoints.
func TestReducedCounts(t *testing.T) {
	for _, tc := range []struct {
		name        string
		full, mins  []int32
		fits        func([]int32) bool
		probes      [][]int32
		found       bool
		answerProbe int // index in probes of the answer
	}{
		{name: "one set, up to 6 fit", full: []int32{8}, mins: []int32{4},
			fits:   func(c []int32) bool { return c[0] <= 6 },
			probes: [][]int32{{6}, {7}}, found: true, answerProbe: 0},
		{name: "down to minCount", full: []int32{10}, mins: []int32{2},
			fits:   func(c []int32) bool { return c[0] <= 2 },
			probes: [][]int32{{6}, {3}, {2}}, found: true, answerProbe: 2},
		{name: "nothing fits", full: []int32{5}, mins: []int32{3},
			fits:   func([]int32) bool { return false },
			probes: [][]int32{{4}, {3}}, found: false},
		// Kueue's validation allows one set a minCount; the search itself
		// shrinks several in proportion: deltas 4 and 2 of total 6.
		{name: "two sets in proportion", full: []int32{8, 4, 3}, mins: []int32{4, 2, 0},
			fits:   func(c []int32) bool { return c[0]+c[1] <= 10 },
			probes: [][]int32{{6, 3, 3}, {8, 4, 3}, {7, 4, 3}}, found: true, answerProbe: 0},
		{name: "no delta", full: []int32{4}, mins: []int32{4}, fits: func([]int32) bool { return true }},
		{name: "no minCount", full: []int32{4}, mins: []int32{0}, fits: func([]int32) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var probes [][]int32
			last := -1
			found := reducedCounts(tc.full, tc.mins, func(c []int32) bool {
				probes = append(probes, append([]int32(nil), c...))
				ok := tc.fits(c)
				if ok {
					last = len(probes) - 1
				}
				return ok
			})
			require.Equal(t, tc.probes, probes)
			require.Equal(t, tc.found, found)
			if found {
				require.Equal(t, tc.answerProbe, last)
			}
		})
	}
}

// A bad minCount is refused at load, naming the Workload and the field, as
// Kueue's API and validation refuse it (and gangsim's whole-slice rule).
func TestKueueWorkload_BadMinCount(t *testing.T) {
	sliced := "template: {metadata: {annotations: {kueue.x-k8s.io/podset-slice-required-topology: rack, kueue.x-k8s.io/podset-slice-size: '4'}}, spec: {containers: [{name: c}]}}"
	for _, tc := range []struct {
		name, sets, want string
	}{
		{"zero", "[{name: main, count: 2, minCount: 0, " + kueueTmpl + "}]", `spec.podSets[0].minCount: 0 is below 1`},
		{"above count", "[{name: main, count: 2, minCount: 3, " + kueueTmpl + "}]", `spec.podSets[0].minCount: 3 is more than the count 2`},
		{"count zero", "[{name: main, count: 0, minCount: 1, " + kueueTmpl + "}]", `spec.podSets[0].minCount: 1 is more than the count 0`},
		{"two sets", "[{name: a, count: 2, minCount: 1, " + kueueTmpl + "}, {name: b, count: 2, " + kueueTmpl + "}, {name: c, count: 2, minCount: 2, " + kueueTmpl + "}]",
			`spec.podSets: spec.podSets[0] and [2] both set minCount: at most one pod set may`},
		{"not whole slices", "[{name: main, count: 8, minCount: 2, " + sliced + "}]", `spec.podSets[0].minCount: 2 is not a multiple of the slice size 4 (gangsim admits whole slices)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Decode("f.yaml", strings.NewReader(kueueWorkload(tc.sets, "")), manifest.Options{})
			require.NoError(t, err)
			_, err = Load(objs)
			require.EqualError(t, err, `f.yaml: document 1 (line 6): Kueue Workload "default/w": `+tc.want)
		})
	}
}

// partialNodes are racks r1 (hosts r1-h1, r1-h2) and r2 (r2-h1) of 4 CPUs,
// in node pool tas.
const partialNodes = `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
` + partialNode + partialNodeR1H2 + partialNodeR2H1

const (
	partialNode     = "---\napiVersion: v1\nkind: Node\nmetadata: {name: r1-h1, labels: {kubernetes.io/hostname: r1-h1, rack: r1, pool: tas}}\nstatus: {allocatable: {cpu: '4', pods: '110'}}\n"
	partialNodeR1H2 = "---\napiVersion: v1\nkind: Node\nmetadata: {name: r1-h2, labels: {kubernetes.io/hostname: r1-h2, rack: r1, pool: tas}}\nstatus: {allocatable: {cpu: '4', pods: '110'}}\n"
	partialNodeR2H1 = "---\napiVersion: v1\nkind: Node\nmetadata: {name: r2-h1, labels: {kubernetes.io/hostname: r2-h1, rack: r2, pool: tas}}\nstatus: {allocatable: {cpu: '4', pods: '110'}}\n"
)

// partialQueues are ClusterQueue cq, with flavor tas (Topology t, nodes
// pool=tas) holding 10 CPUs, reached from LocalQueue default/lq.
const partialQueues = `
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {nodeLabels: {pool: tas}, topologyName: t}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, nominalQuota: 10}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq}
spec: {clusterQueue: cq}
`

// partialWL is a pending Workload name, created at second at, in queue lq,
// of pod sets sets (flow style).
func partialWL(name string, at int, sets string) string {
	return fmt.Sprintf("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T10:00:%02dZ'}\nspec:\n  queueName: lq\n  podSets: %s\n", name, at, sets)
}

// partialSet is a pod set of count pods (minCount min, none when 0) of 1
// CPU with template annotations ann (flow style, "" for none) and more
// fields.
func partialSet(name string, count, min int32, ann, more string) string {
	m := ""
	if min > 0 {
		m = fmt.Sprintf("minCount: %d, ", min)
	}
	return fmt.Sprintf("{name: %s, count: %d, %s%stemplate: {metadata: {annotations: {%s}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}", name, count, m, more, ann)
}

// admitAll loads y and admits its Workloads over its one Topology, through
// its queues when it has them; node IDs are zeroed in the outcomes.
func admitAll(t *testing.T, y string) ([]KueueOutcome, *Cluster) {
	t.Helper()
	objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	tree, err := topology.NewTree(c.Snapshot, c.KueueLevels)
	require.NoError(t, err)
	snap, outs, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: c.KueueQueues})
	require.NoError(t, err)
	c.Snapshot = snap
	for _, o := range outs {
		for _, ps := range o.PodSets {
			for i := range ps {
				ps[i].NodeID = 0
			}
		}
	}
	return outs, c
}

// pods is one pod set's pods per node, "r1-h1:4 r1-h2:2".
func pods(set, spec string) []placement.PodSetAssignment {
	var out []placement.PodSetAssignment
	for _, f := range strings.Fields(spec) {
		var n int32
		host, count, _ := strings.Cut(f, ":")
		fmt.Sscan(count, &n)
		out = append(out, placement.PodSetAssignment{PodSet: set, Node: host, Count: n})
	}
	return out
}

// A Workload that does not fit whole is admitted at the counts Kueue's
// search finds, without queues (topology decides) and with them (quota
// and topology decide); one whose minCount does not fit either waits with
// its whole count's reason. Counts worked by hand in each comment.
func TestAdmitKueueWorkloads_Partial(t *testing.T) {
	rack := "kueue.x-k8s.io/podset-required-topology: rack"
	free := "kueue.x-k8s.io/podset-unconstrained-topology: 'true'"
	for _, tc := range []struct {
		name    string
		queued  bool
		wls     []string
		actions []KueueAction
		msgs    []string
		pods    [][][]placement.PodSetAssignment
		counts  [][]int32 // status.admission counts per Workload
	}{
		// 16 of 1 CPU over 12 CPUs: probes 9 (fits), 13, 11, 12: 12.
		{name: "topology limits an unconstrained set",
			wls:     []string{partialWL("w", 0, "["+partialSet("main", 16, 2, free, "")+"]")},
			actions: []KueueAction{KueueAdmitted}, msgs: []string{`partially admitted: pod set "main" with 12 of 16 pods (minCount 2)`},
			pods: [][][]placement.PodSetAssignment{{pods("main", "r1-h1:4 r1-h2:4 r2-h1:4")}}, counts: [][]int32{{12}}},
		// Rack r1 holds 8: probes 8 (fits), 10, 9: 8.
		{name: "a required rack limits",
			wls:     []string{partialWL("w", 0, "["+partialSet("main", 12, 4, rack, "")+"]")},
			actions: []KueueAction{KueueAdmitted}, msgs: []string{`partially admitted: pod set "main" with 8 of 12 pods (minCount 4)`},
			pods: [][][]placement.PodSetAssignment{{pods("main", "r1-h1:4 r1-h2:4")}}, counts: [][]int32{{8}}},
		{name: "whole fits: no reduction",
			wls:     []string{partialWL("w", 0, "["+partialSet("main", 6, 2, rack, "")+"]")},
			actions: []KueueAction{KueueAdmitted}, msgs: []string{""},
			pods: [][][]placement.PodSetAssignment{{pods("main", "r1-h1:4 r1-h2:2")}}, counts: [][]int32{{6}}},
		{name: "minCount does not fit: waits",
			wls:     []string{partialWL("w", 0, "["+partialSet("main", 12, 10, rack, "")+"]")},
			actions: []KueueAction{KueuePending},
			msgs:    []string{`pod set "main" needs 12 pods in one rack domain; the best, r1, holds 8`}},
		// Host slices of 3 (a host of 4 CPUs holds one), rack r1 two:
		// probes 7→6 (fits), 10→9, 9→9, 8→6 (fits): 8, placed as 6.
		{name: "sliced: whole slices",
			wls: []string{partialWL("w", 0, "["+partialSet("main", 12, 3,
				rack+", kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname, kueue.x-k8s.io/podset-slice-size: '3'", "")+"]")},
			actions: []KueueAction{KueueAdmitted}, msgs: []string{`partially admitted: pod set "main" with 6 of 12 pods (minCount 3)`},
			pods: [][][]placement.PodSetAssignment{{pods("main", "r1-h1:3 r1-h2:3")}}, counts: [][]int32{{6}}},
		// Leader and workers share rack r1 (8 CPUs): 1 + 8 does not fit;
		// probes 5 (fits), 7 (fits), 8: 7 workers.
		{name: "a PodSetGroup shares the rack",
			wls: []string{partialWL("w", 0, "["+partialSet("leader", 1, 0, rack+", kueue.x-k8s.io/podset-group-name: g", "")+", "+
				partialSet("workers", 8, 2, rack+", kueue.x-k8s.io/podset-group-name: g", "")+"]")},
			actions: []KueueAction{KueueAdmitted}, msgs: []string{`partially admitted: pod set "workers" with 7 of 8 pods (minCount 2)`},
			pods: [][][]placement.PodSetAssignment{{pods("leader", "r1-h1:1"), pods("workers", "r1-h1:3 r1-h2:4")}}, counts: [][]int32{{1, 7}}},
		// Quota 10 CPUs: a (12, rack) gets rack r1's 8; b (unconstrained)
		// the 2 CPUs of quota left, c (minCount 3) waits on quota.
		{name: "queued: topology, then quota limits", queued: true,
			wls: []string{partialWL("a", 0, "["+partialSet("main", 12, 2, rack, "")+"]"), partialWL("b", 1, "["+partialSet("main", 4, 1, free, "")+"]"),
				partialWL("c", 2, "["+partialSet("main", 4, 3, free, "")+"]")},
			actions: []KueueAction{KueueAdmitted, KueueAdmitted, KueuePending},
			msgs: []string{`partially admitted: pod set "main" with 8 of 12 pods (minCount 2)`, `partially admitted: pod set "main" with 2 of 4 pods (minCount 1)`,
				"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"},
			pods:   [][][]placement.PodSetAssignment{{pods("main", "r1-h1:4 r1-h2:4")}, {pods("main", "r2-h1:2")}, nil},
			counts: [][]int32{{8}, {2}, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := partialNodes + strings.Join(tc.wls, "")
			if tc.queued {
				y += partialQueues
			}
			outs, c := admitAll(t, y)
			require.Len(t, outs, len(tc.actions))
			for i, o := range outs {
				require.Equal(t, tc.actions[i], o.Action, o.Message)
				require.Equal(t, tc.msgs[i], o.Message)
				if tc.pods != nil {
					require.Equal(t, tc.pods[i], o.PodSets)
				}
				adm := c.KueueWorkloads[i].Obj.Status.Admission
				if tc.counts == nil || tc.counts[i] == nil {
					require.Nil(t, adm)
					continue
				}
				var counts []int32
				for _, psa := range adm.PodSetAssignments {
					counts = append(counts, *psa.Count)
					if tc.queued {
						require.Equal(t, map[corev1.ResourceName]kueue.ResourceFlavorReference{"cpu": "tas"}, psa.Flavors)
						want := resource.MustParse(fmt.Sprint(*psa.Count))
						require.True(t, want.Equal(psa.ResourceUsage["cpu"]), "resourceUsage %v for count %d", psa.ResourceUsage, *psa.Count)
					}
				}
				require.Equal(t, tc.counts[i], counts)
				require.Equal(t, c.KueueWorkloads[i].Obj.Spec.PodSets[len(counts)-1].Count, c.KueueWorkloads[i].Group.PodSets[len(counts)-1].Count, "spec.podSets keep their counts")
			}
		})
	}
}

// An admitted Workload whose set Kueue admitted partially keeps its
// admitted count: with room to grow it is Kept, and a failed node's pods
// are replaced up to the admitted count, not the spec's; evicted, it is
// admitted again from the search over its whole count.
func TestAdmitKueueWorkloads_PartialStays(t *testing.T) {
	admitted := func(hosts string, counts string, n int) string {
		return fmt.Sprintf(`status:
  admission:
    clusterQueue: lq
    podSetAssignments:
    - name: main
      count: %d
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        slices: [{domainCount: %d, valuesPerLevel: [{individual: {roots: [%s]}}], podCounts: {individual: [%s]}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
`, n, strings.Count(hosts, ",")+1, hosts, counts)
	}
	wl := partialWL("w", 0, "["+partialSet("main", 12, 2, "kueue.x-k8s.io/podset-required-topology: rack", "")+"]")
	outs, c := admitAll(t, partialNodes+wl+admitted("r1-h1", "3", 3))
	require.Equal(t, KueueKept, outs[0].Action, outs[0].Message)
	require.Equal(t, [][]placement.PodSetAssignment{pods("main", "r1-h1:3")}, outs[0].PodSets)
	require.Equal(t, int32(3), *c.KueueWorkloads[0].Obj.Status.Admission.PodSetAssignments[0].Count)

	// Host r1-h9 is gone: its 2 pods come back together in rack r1, on
	// r1-h2 (r1-h1 holds 1 more), to 5 pods, not 12.
	outs, c = admitAll(t, partialNodes+wl+admitted("r1-h1, r1-h9", "3, 2", 5))
	require.Equal(t, KueueRepaired, outs[0].Action, outs[0].Message)
	require.Equal(t, [][]placement.PodSetAssignment{pods("main", "r1-h1:3 r1-h2:2")}, outs[0].PodSets)
	require.Equal(t, int32(5), *c.KueueWorkloads[0].Obj.Status.Admission.PodSetAssignments[0].Count)

	// Host r2-h9 is gone and rack r2 has no room for its pod: evicted, the
	// Workload is searched again from its whole count, and readmitted
	// with rack r1's 8.
	outs, c = admitAll(t, partialNodes+wl+admitted("r2-h1, r2-h9", "4, 1", 5))
	require.Equal(t, KueueReadmitted, outs[0].Action, outs[0].Message)
	require.True(t, strings.HasSuffix(outs[0].Message, `; partially admitted: pod set "main" with 8 of 12 pods (minCount 2)`), outs[0].Message)
	require.Equal(t, [][]placement.PodSetAssignment{pods("main", "r1-h1:4 r1-h2:4")}, outs[0].PodSets)
	require.Equal(t, int32(8), *c.KueueWorkloads[0].Obj.Status.Admission.PodSetAssignments[0].Count)

	// Below its minCount (a hand-edited status), it grows to its count.
	outs, _ = admitAll(t, partialNodes+strings.Replace(wl, "minCount: 2", "minCount: 4", 1)+admitted("r1-h1", "3", 3))
	require.Equal(t, KueueGrowWaits, outs[0].Action, outs[0].Message)
}

// Over a random rack > host cluster, one Workload of one set with a
// minCount (required rack, preferred rack or unconstrained; host slices of
// 2 or none) is admitted at its count when that fits; else, when its
// minCount fits, at a count that fits from the minCount up, the next
// larger one on Kueue's path (one more pod, or one more slice) not
// fitting; else it waits. Planning is monotone in the count here, so the
// binary search finds the largest count that fits.
func TestProp_KueuePartialLargestFit(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var b strings.Builder
		b.WriteString("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n")
		for r := range rapid.IntRange(1, 3).Draw(rt, "racks") {
			for h := range rapid.IntRange(1, 3).Draw(rt, "hosts") {
				n := fmt.Sprintf("r%d-h%d", r, h)
				fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s, rack: r%d}}\nstatus: {allocatable: {cpu: '%d', pods: '110'}}\n",
					n, n, r, rapid.IntRange(1, 6).Draw(rt, "cpu"))
			}
		}
		unit := int32(rapid.SampledFrom([]int{1, 2}).Draw(rt, "slice"))
		count := unit * int32(rapid.IntRange(1, 12).Draw(rt, "count"))
		min := unit * int32(rapid.IntRange(1, int(count/unit)).Draw(rt, "min"))
		ann := rapid.SampledFrom([]string{"kueue.x-k8s.io/podset-required-topology: rack", "kueue.x-k8s.io/podset-preferred-topology: rack",
			"kueue.x-k8s.io/podset-unconstrained-topology: 'true'"}).Draw(rt, "request")
		if unit > 1 {
			ann = "kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname, kueue.x-k8s.io/podset-slice-size: '2'"
		}
		b.WriteString(partialWL("w", 0, "["+partialSet("main", count, min, ann, "")+"]"))
		objs, err := manifest.Decode("f.yaml", strings.NewReader(b.String()), manifest.Options{})
		require.NoError(rt, err)
		c, err := Load(objs)
		require.NoError(rt, err)
		tree, err := topology.NewTree(c.Snapshot, c.KueueLevels)
		require.NoError(rt, err)
		w := c.KueueWorkloads[0]
		fits := func(n int32) bool {
			if n > count {
				return false
			}
			p, err := tree.PlanPodSets(c.Snapshot, w.atCounts([]int32{n}).Group, w.Requests, topology.PlanOptions{})
			require.NoError(rt, err)
			return p.Decision.Status == placement.Scheduled
		}
		_, outs, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, KueueOptions{})
		require.NoError(rt, err)
		adm := w.Obj.Status.Admission
		switch {
		case fits(count):
			require.Equal(rt, KueueAdmitted, outs[0].Action)
			require.Equal(rt, count, *adm.PodSetAssignments[0].Count)
		case !fits(min):
			require.Equal(rt, KueuePending, outs[0].Action)
			require.Nil(rt, adm)
		default:
			require.Equal(rt, KueueAdmitted, outs[0].Action)
			n := *adm.PodSetAssignments[0].Count
			require.GreaterOrEqual(rt, n, min)
			require.Less(rt, n, count)
			require.Zero(rt, n%unit)
			require.True(rt, fits(n))
			require.False(rt, fits(n+unit), "%d fits too", n+unit)
		}
	})
}
