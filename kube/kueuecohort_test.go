package kube

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// cpuQuota is a flavor f cpu quota of nominal CPUs, with a borrowing and
// a lending limit where given ("" for none).
func cpuQuota(nominal, borrow, lend string) []kueue.ResourceGroup {
	rq := kueue.ResourceQuota{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse(nominal)}
	if borrow != "" {
		q := resource.MustParse(borrow)
		rq.BorrowingLimit = &q
	}
	if lend != "" {
		q := resource.MustParse(lend)
		rq.LendingLimit = &q
	}
	return []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
		Flavors: []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{rq}}}}}
}

// cohortCQ is ClusterQueue name in cohort with cpuQuota's quota.
func cohortCQ(name, cohort, nominal, borrow, lend string) *kueue.ClusterQueue {
	return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueue.ClusterQueueSpec{CohortName: kueue.CohortReference(cohort), ResourceGroups: cpuQuota(nominal, borrow, lend)}}
}

// cohortObj is Cohort name under parent with cpuQuota's quota.
func cohortObj(name, parent, nominal, borrow, lend string) *kueue.Cohort {
	return &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueue.CohortSpec{ParentName: kueue.CohortReference(parent), ResourceGroups: cpuQuota(nominal, borrow, lend)}}
}

// Bad limits and cohort names are refused as Kueue's API and webhook
// refuse them, naming object and field.
func TestConvertCohortLimits(t *testing.T) {
	at := "spec.resourceGroups[0].flavors[0].resources[0]."
	for _, c := range []struct {
		name string
		obj  any
		want string
	}{
		{"borrowingLimit without a cohort", cohortCQ("a", "", "4", "1", ""),
			`Kueue ClusterQueue "a": ` + at + "borrowingLimit: is set without spec.cohortName: only a member of a cohort borrows or lends"},
		{"lendingLimit without a cohort", cohortCQ("a", "", "4", "", "1"),
			`Kueue ClusterQueue "a": ` + at + "lendingLimit: is set without spec.cohortName: only a member of a cohort borrows or lends"},
		{"negative borrowingLimit", cohortCQ("a", "c", "4", "-1", ""),
			`Kueue ClusterQueue "a": ` + at + "borrowingLimit: -1 is negative"},
		{"negative lendingLimit", cohortCQ("a", "c", "4", "", "-1"),
			`Kueue ClusterQueue "a": ` + at + "lendingLimit: -1 is negative"},
		{"lendingLimit over nominal", cohortCQ("a", "c", "4", "", "5"),
			`Kueue ClusterQueue "a": ` + at + "lendingLimit: 5 is more than the nominalQuota 4"},
		{"bad cohortName", cohortCQ("a", "Team_A", "4", "", ""),
			`Kueue ClusterQueue "a": spec.cohortName: "Team_A" is not a cohort name`},
		{"Cohort limit without a parent", cohortObj("org", "", "4", "1", ""),
			`Kueue Cohort "org": ` + at + "borrowingLimit: is set without spec.parentName: only a member of a cohort borrows or lends"},
		{"bad parentName", cohortObj("team", "Org", "4", "", ""),
			`Kueue Cohort "team": spec.parentName: "Org" is not a cohort name`},
		{"Cohort lendingLimit over nominal is allowed", cohortObj("team", "org", "4", "", "5"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in kueueQueueInputs
			err := in.add(c.obj)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, placement.ErrInvalid)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// What a ClusterQueue may take, worked by hand from Kueue's resource node
// rules (subtree quota, local quota under a lendingLimit, borrowingLimit
// capping what a node takes from its parent).
func TestQuotaTree_Room(t *testing.T) {
	hier := []any{ // org (own 2) > team (borrowingLimit 3) > a (4), b (2, lends 1); org > c (6)
		cohortObj("org", "", "2", "", ""), cohortObj("team", "org", "0", "3", ""),
		cohortCQ("a", "team", "4", "", ""), cohortCQ("b", "team", "2", "", "1"), cohortCQ("c", "org", "6", "", ""),
	}
	for _, c := range []struct {
		name           string
		objs           []any
		used           quotaUsage // millicores
		cq             string
		capacity, free int64 // CPUs
	}{
		{"no cohort: nominal", []any{cohortCQ("a", "", "4", "", "")}, quotaUsage{"a": {frOf("f", "cpu"): 1000}}, "a", 4, 3},
		{"no cohort, over-admitted: nothing free", []any{cohortCQ("a", "", "4", "", "")}, quotaUsage{"a": {frOf("f", "cpu"): 5000}}, "a", 4, 0},
		// cohort 4 + 6 = 10, b uses 2.
		{"flat: borrow b's unused", []any{cohortCQ("a", "c", "4", "", ""), cohortCQ("b", "c", "6", "", "")}, quotaUsage{"b": {frOf("f", "cpu"): 2000}}, "a", 10, 8},
		// a may hold 4 + 3.
		{"flat: borrowingLimit caps", []any{cohortCQ("a", "c", "4", "3", ""), cohortCQ("b", "c", "6", "", "")}, quotaUsage{"b": {frOf("f", "cpu"): 2000}}, "a", 7, 7},
		// a uses 5 (borrows 1): 2 more within its limit, 3 left in the cohort.
		{"flat: borrowingLimit less what is borrowed", []any{cohortCQ("a", "c", "4", "3", ""), cohortCQ("b", "c", "6", "", "")},
			quotaUsage{"a": {frOf("f", "cpu"): 5000}, "b": {frOf("f", "cpu"): 2000}}, "a", 7, 2},
		// b keeps 5 of its 6 for itself: the cohort holds 4 + 1; b's use of 2 is within what it keeps.
		{"flat: lendingLimit caps", []any{cohortCQ("a", "c", "4", "", ""), cohortCQ("b", "c", "6", "", "1")}, quotaUsage{"b": {frOf("f", "cpu"): 2000}}, "a", 5, 5},
		{"flat: the lender keeps its own", []any{cohortCQ("a", "c", "4", "", ""), cohortCQ("b", "c", "6", "", "1")}, quotaUsage{"b": {frOf("f", "cpu"): 2000}}, "b", 10, 8},
		// org holds 2 + team's 4 + 1 + c's 6 = 13, c uses 5: 8 left; team may take 5 + 3.
		{"hierarchy: a", hier, quotaUsage{"c": {frOf("f", "cpu"): 5000}}, "a", 8, 8},
		{"hierarchy: b adds what it keeps", hier, quotaUsage{"c": {frOf("f", "cpu"): 5000}}, "b", 9, 9},
		{"hierarchy: c", hier, quotaUsage{"c": {frOf("f", "cpu"): 5000}}, "c", 13, 8},
		// a uses 6: org has 13 − 11 = 2 left, team may take 5 − 6 + 3 = 2 more.
		{"hierarchy: a borrowing", hier, quotaUsage{"a": {frOf("f", "cpu"): 6000}, "c": {frOf("f", "cpu"): 5000}}, "a", 8, 2},
		{"hierarchy: b beside a borrowing", hier, quotaUsage{"a": {frOf("f", "cpu"): 6000}, "c": {frOf("f", "cpu"): 5000}}, "b", 9, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in kueueQueueInputs
			for _, o := range c.objs {
				require.NoError(t, in.add(o))
			}
			_, q := in.result()
			capacity, free := q.indexed().tree(c.used).room(q.ClusterQueues[c.cq], frOf("f", "cpu"))
			require.Equal(t, [2]int64{c.capacity * 1000, c.free * 1000}, [2]int64{capacity, free})
		})
	}
}

// cohortQueues are flavor tas (Topology t, nodes pool=tas) and
// LocalQueues la → ClusterQueue a, lb → b, with the ClusterQueues and
// Cohorts given (flow-style YAML documents).
func cohortQueues(docs ...string) string {
	var b strings.Builder
	b.WriteString("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: tas}\nspec: {nodeLabels: {pool: tas}, topologyName: t}\n")
	for _, lq := range []string{"a", "b"} {
		fmt.Fprintf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l%s}\nspec: {clusterQueue: %s}\n", lq, lq)
	}
	for _, d := range docs {
		b.WriteString("---\napiVersion: kueue.x-k8s.io/v1beta2\n" + d + "\n")
	}
	return b.String()
}

// cqDoc is a ClusterQueue document of name in cohort with quota of tas cpu
// (limits in flow style, e.g. "borrowingLimit: 1").
func cqDoc(name, cohort, quota string) string {
	return fmt.Sprintf("kind: ClusterQueue\nmetadata: {name: %s}\nspec: {cohortName: %s, namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, %s}]}]}]}", name, cohort, quota)
}

// cohortWL is a pending Workload of count one-CPU pods without a level,
// in LocalQueue lq, created at second at.
func cohortWL(name, lq string, at int, count int32) string {
	return strings.Replace(partialWL(name, at, "["+partialSet("main", count, 0, "kueue.x-k8s.io/podset-unconstrained-topology: 'true'", "")+"]"), "queueName: lq", "queueName: "+lq, 1)
}

// Admission through cohorts over 12 one-CPU slots: a Workload borrows what
// its cohort leaves unused, within the limits; Workloads within nominal
// quota go before those that borrow, then queue order; a cohort cycle
// leaves its ClusterQueues inactive. Worked by hand in each comment.
func TestAdmitKueueWorkloads_Cohort(t *testing.T) {
	type want struct {
		action KueueAction
		msg    string
	}
	const short = "couldn't assign flavors to pod set main: insufficient "
	for _, c := range []struct {
		name   string
		queues []string
		wls    []string
		want   []want
	}{
		{"borrows within the cohort", // a 4 + b 8: w takes 6
			[]string{cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 8")},
			[]string{cohortWL("w", "la", 0, 6)},
			[]want{{KueueAdmitted, "borrows from cohort c: cpu 2 in flavor tas"}}},
		{"borrowingLimit caps", // a may hold 4 + 1
			[]string{cqDoc("a", "c", "nominalQuota: 4, borrowingLimit: 1"), cqDoc("b", "c", "nominalQuota: 8")},
			[]string{cohortWL("w", "la", 0, 6)},
			[]want{{KueuePending, short + "quota for cpu in flavor tas, earlier pod sets' requests (0) + this pod set's request (6) > maximum capacity with borrowing in cohort c (5)"}}},
		{"lendingLimit caps", // b lends 1 of its 8
			[]string{cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 8, lendingLimit: 1")},
			[]string{cohortWL("w", "la", 0, 6)},
			[]want{{KueuePending, short + "quota for cpu in flavor tas, earlier pod sets' requests (0) + this pod set's request (6) > maximum capacity with borrowing in cohort c (5)"}}},
		{"within nominal quota first", // w2 fits b's 8 and goes first; then a has 12 − 4 = 8 for w1's 10
			[]string{cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 8")},
			[]string{cohortWL("w1", "la", 0, 10), cohortWL("w2", "lb", 1, 4)},
			[]want{{KueuePending, short + "unused quota for cpu in flavor tas, 2 more needed"}, {KueueAdmitted, ""}}},
		{"borrowers in queue order", // both borrow: w1 first (7), then b has 5 for w2's 9
			[]string{cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 8")},
			[]string{cohortWL("w1", "la", 0, 7), cohortWL("w2", "lb", 1, 9)},
			[]want{{KueueAdmitted, "borrows from cohort c: cpu 3 in flavor tas"}, {KueuePending, short + "unused quota for cpu in flavor tas, 4 more needed"}}},
		{"a head that borrows keeps its queue's order", // w1 borrows 2 of b's; w3, which a's own 4 held before, finds none
			[]string{cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 2")},
			[]string{cohortWL("w1", "la", 0, 6), cohortWL("w3", "la", 2, 1)},
			[]want{{KueueAdmitted, "borrows from cohort c: cpu 2 in flavor tas"}, {KueuePending, short + "unused quota for cpu in flavor tas, 1 more needed"}}},
		{"hierarchy: borrows from the parent's own quota", // org 4 + team (a 4) + b 2 = 10
			[]string{"kind: Cohort\nmetadata: {name: org}\nspec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, nominalQuota: 4}]}]}]}",
				"kind: Cohort\nmetadata: {name: team}\nspec: {parentName: org}",
				cqDoc("a", "team", "nominalQuota: 4"), cqDoc("b", "org", "nominalQuota: 2")},
			[]string{cohortWL("w", "la", 0, 8)},
			[]want{{KueueAdmitted, "borrows from cohort team: cpu 4 in flavor tas"}}},
		{"a cohort cycle leaves its queues inactive",
			[]string{"kind: Cohort\nmetadata: {name: left}\nspec: {parentName: right}", "kind: Cohort\nmetadata: {name: right}\nspec: {parentName: left}",
				cqDoc("a", "left", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 8")},
			[]string{cohortWL("w1", "la", 0, 1), cohortWL("w2", "lb", 1, 1)},
			[]want{{KueuePending, "ClusterQueue a is inactive: its cohorts' spec.parentName form a cycle, left → right → left"}, {KueueAdmitted, ""}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, _ := admitAll(t, partialNodes+cohortQueues(c.queues...)+strings.Join(c.wls, ""))
			var got []want
			for _, o := range outs {
				got = append(got, want{o.Action, o.Message})
			}
			require.Equal(t, c.want, got)
		})
	}
}

// An admitted pod set grows within what its ClusterQueue may still take,
// its cohort's unused quota included: q (4) and p (2) in cohort c, w holds
// 3 of q's and grows by 3 (6 − 3 = 3 left) or 4; with q's borrowingLimit
// 1, q may hold 5 at most: 2 more.
func TestAdmitKueueWorkloads_GrowthBorrows(t *testing.T) {
	const (
		queues = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\nspec: {nodeLabels: {rack: r1}, topologyName: t}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {cohortName: c, namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4%s}]}]}]}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: p}\nspec: {cohortName: c, namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2}]}]}]}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l}\nspec: {clusterQueue: q}\n" +
			"---\napiVersion: v1\nkind: Node\nmetadata: {name: h1, labels: {kubernetes.io/hostname: h1, rack: r1}}\nstatus: {allocatable: {cpu: '8', pods: '110'}}\n"
		wl = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, creationTimestamp: '2026-01-01T00:00:01Z'}\nspec:\n  queueName: l\n  podSets: [{name: main, count: %d, " +
			"template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]\n" +
			kueueReserved + "  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 3, flavors: {cpu: f}, " +
			"topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, valuesPerLevel: [{universal: h1}], podCounts: {universal: 3}}]}}]}\n"
	)
	for _, c := range []struct {
		name   string
		limit  string
		count  int
		action KueueAction
		msg    string
	}{
		{"borrows", "", 6, KueueResized, `pod set "main" grows from 3 to 6 pods: 3 of 3 members placed in r1`},
		{"more than the cohort has", "", 7, KueueGrowWaits, `pod set "main" waits to grow from 3 to 7 pods: insufficient unused quota for cpu in flavor f, 1 more needed`},
		{"borrowingLimit caps", ", borrowingLimit: 1", 6, KueueGrowWaits, `pod set "main" waits to grow from 3 to 6 pods: insufficient unused quota for cpu in flavor f, 1 more needed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := manifest.Decode("f.yaml", strings.NewReader(fmt.Sprintf(queues, c.limit)+fmt.Sprintf(wl, c.count)), manifest.Options{})
			require.NoError(t, err)
			cl, err := Load(objs)
			require.NoError(t, err)
			_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC), Queues: cl.KueueQueues})
			require.NoError(t, err)
			require.Equal(t, [2]string{string(c.action), c.msg}, [2]string{string(outs[0].Action), outs[0].Message})
		})
	}
}

// A chain of 30 Cohorts, each lending 1 of its 2, is read in linear time:
// reading a node's subtree quota and its local quota apart walked each
// child twice per level, 2^30 walks here. a keeps 1 of its 2, each of the
// 29 Cohorts below the root keeps 1, and the root holds 2: a may take
// 1 + 29 + 2 = 32.
func TestQuotaTree_DeepLendingChain(t *testing.T) {
	var in kueueQueueInputs
	require.NoError(t, in.add(cohortObj("c0", "", "1", "", "")))
	for i := 1; i < 30; i++ {
		require.NoError(t, in.add(cohortObj(fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", i-1), "1", "", "1")))
	}
	require.NoError(t, in.add(cohortCQ("a", "c29", "2", "", "1")))
	_, q := in.result()
	capacity, free := q.indexed().tree(quotaUsage{"a": {frOf("f", "cpu"): 1000}}).room(q.ClusterQueues["a"], frOf("f", "cpu"))
	require.Equal(t, [2]int64{32000, 31000}, [2]int64{capacity, free})
}

// A Workload whose requests add up past int64 (3 pods of 5·10^15 CPUs)
// never fits, even in a cohort whose quotas (2 × 9·10^15 CPUs) add up past
// int64 too: both sums saturate at math.MaxInt64, and a saturated request
// compared with a saturated capacity was admitted, "borrowing"
// MaxInt64 − 9·10^18 millicores.
func TestAdmitKueueWorkloads_SaturatedRequestNeverFits(t *testing.T) {
	const y = `
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec: {cohortName: co, namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: "9000000000000000"}]}]}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: b}
spec: {cohortName: co, namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: "9000000000000000"}]}]}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq}
spec: {clusterQueue: a}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "9000000000000000", pods: "110"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, creationTimestamp: '2026-01-01T10:00:00Z'}
spec:
  queueName: lq
  podSets: [{name: main, count: 3, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "5000000000000000"}}}]}}}]
`
	objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	_, outs, err := AdmitKueueWorkloads(c.Snapshot, nil, c.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: c.KueueQueues})
	require.NoError(t, err)
	require.Len(t, outs, 1)
	require.Equal(t, KueuePending, outs[0].Action, outs[0].Message)
	require.Contains(t, outs[0].Message, "insufficient quota for cpu in flavor f")
}

// The cohorts whose chain of parents runs into a cycle (those on it
// included) are marked, and only those: a chain into a cycle, a cycle, a
// self-parent, a chain to an implicit cohort, and a chain into another
// chain already walked.
func TestKueueQueues_CycleMarks(t *testing.T) {
	var in kueueQueueInputs
	for _, c := range [][2]string{
		{"a", "b"}, {"b", "c"}, {"c", "b"}, // a → b → c → b
		{"s", "s"},             // a self-parent
		{"x", "y"}, {"y", "z"}, // y → z, an implicit cohort
		{"w", "x"}, // into the walked chain x → y → z
		{"r", ""},
	} {
		require.NoError(t, in.add(cohortObj(c[0], c[1], "1", "", "")))
	}
	require.NoError(t, in.add(cohortCQ("q", "w", "1", "", "")))
	_, q := in.result()
	x := q.indexed().idx
	var marked []string
	for c, in := range x.cycle {
		if in {
			marked = append(marked, c)
		}
	}
	slices.Sort(marked)
	require.Equal(t, []string{"a", "b", "c", "s"}, marked)
}

// BenchmarkKueueQueuesIndexed_DeepChain indexes a chain of 4,000 Cohorts;
// finding cycles walked the whole chain above each one, 8·10^6 steps.
func BenchmarkKueueQueuesIndexed_DeepChain(b *testing.B) {
	var in kueueQueueInputs
	const n = 4000
	for i := range n {
		parent := ""
		if i+1 < n {
			parent = fmt.Sprintf("c%d", i+1)
		}
		require.NoError(b, in.add(cohortObj(fmt.Sprintf("c%d", i), parent, "1", "", "")))
	}
	require.NoError(b, in.add(cohortCQ("q", "c0", "1", "", "")))
	_, q := in.result()
	for b.Loop() {
		if q.indexed().idx.cycle["c0"] {
			b.Fatal("c0 is in no cycle")
		}
	}
}
