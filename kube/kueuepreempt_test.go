package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// preemptCQ is a ClusterQueue document of name in cohort ("" for none)
// with nominal CPUs of flavor tas and spec.preemption pre (flow style,
// "" for none).
func preemptCQ(name, cohort string, nominal int, pre string) string {
	spec := fmt.Sprintf("namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, nominalQuota: %d}]}]}]", nominal)
	if cohort != "" {
		spec += ", cohortName: " + cohort
	}
	if pre != "" {
		spec += ", preemption: {" + pre + "}"
	}
	return fmt.Sprintf("kind: ClusterQueue\nmetadata: {name: %s}\nspec: {%s}", name, spec)
}

// preemptWL is a Workload of one-CPU pods without a level in LocalQueue
// lq ("la" → ClusterQueue a, "lb" → b), of priority pri, created at
// second at of 10:00. With hosts ("r1-h1:4 r2-h1:2") it is admitted there
// in ClusterQueue cq, its quota reserved at minute reserved of 09:00;
// else it asks for count pods, at the required level req when given.
func preemptWL(name, lq string, pri, at int, count int32, req, hosts string, reserved int) string {
	ann := "kueue.x-k8s.io/podset-unconstrained-topology: 'true'"
	if req != "" {
		ann = "kueue.x-k8s.io/podset-required-topology: " + req
	}
	y := fmt.Sprintf("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T10:00:%02dZ'}\nspec:\n  queueName: %s\n  priority: %d\n  podSets: [%s]\n",
		name, at, lq, pri, partialSet("main", count, 0, ann, ""))
	if hosts == "" {
		return y
	}
	var roots, counts []string
	for _, h := range strings.Fields(hosts) {
		host, n, _ := strings.Cut(h, ":")
		roots, counts = append(roots, host), append(counts, n)
	}
	return y + fmt.Sprintf("status:\n  conditions: [{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2026-01-01T09:%02d:00Z'}]\n", reserved) +
		fmt.Sprintf("  admission: {clusterQueue: %s, podSetAssignments: [{name: main, count: %d, flavors: {cpu: tas}, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: %d, valuesPerLevel: [{individual: {roots: [%s]}}], podCounts: {individual: [%s]}}]}}]}\n",
			strings.TrimPrefix(lq, "l"), count, len(roots), strings.Join(roots, ", "), strings.Join(counts, ", "))
}

// Preemption over three hosts of 4 CPUs (r1-h1, r1-h2 in rack r1; r2-h1),
// worked by hand from Kueue v0.17's classical preemption in each comment:
// the victims are exact, and the preemptor is admitted in the pass after
// their eviction.
func TestAdmitKueueWorkloads_Preemption(t *testing.T) {
	type want struct {
		action KueueAction
		msg    string
	}
	// bwcWorld: in cohort c, b (nominal 2) borrows 8: b-top (priority 20,
	// r2-h1:2), b1 and b2 (0, 4 each, b2 reserved last); a's ah (5) asks 6.
	bwcWorld := []string{preemptWL("b-top", "lb", 20, 0, 2, "", "r2-h1:2", 0), preemptWL("b1", "lb", 0, 1, 4, "", "r1-h1:4", 0),
		preemptWL("b2", "lb", 0, 2, 4, "", "r1-h2:4", 10), preemptWL("ah", "la", 5, 9, 6, "", "", 0)}
	const (
		bwc    = "reclaimWithinCohort: LowerPriority, borrowWithinCohort: {policy: LowerPriority"
		lower  = "withinClusterQueue: LowerPriority"
		newer  = "withinClusterQueue: LowerOrNewerEqualPriority"
		full   = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"
		queued = "; queued again: " + full
	)
	for _, c := range []struct {
		name   string
		queues []string
		wls    []string
		want   []want // in queue order: priority, creation, name
	}{
		{"the lowest priority first", // p1 alone makes room
			[]string{preemptCQ("a", "", 12, lower)},
			[]string{preemptWL("p1", "la", 1, 0, 4, "", "r1-h1:4", 0), preemptWL("p2", "la", 2, 1, 4, "", "r1-h2:4", 0),
				preemptWL("p3", "la", 3, 2, 4, "", "r2-h1:4", 0), preemptWL("hi", "la", 10, 9, 4, "", "", 0)},
			[]want{{KueueAdmitted, "preempted default/p1 (InClusterQueue)"}, {KueueKept, ""}, {KueueKept, ""},
				{KueuePreempted, "preempted by default/hi (InClusterQueue)" + queued}}},
		{"the newest reservation first among equals", // e2's quota was reserved last
			[]string{preemptCQ("a", "", 12, lower)},
			[]string{preemptWL("e1", "la", 0, 0, 4, "", "r1-h1:4", 0), preemptWL("e2", "la", 0, 1, 4, "", "r1-h2:4", 30),
				preemptWL("e3", "la", 5, 2, 4, "", "r2-h1:4", 0), preemptWL("hi", "la", 10, 9, 4, "", "", 0)},
			[]want{{KueueAdmitted, "preempted default/e2 (InClusterQueue)"}, {KueueKept, ""}, {KueueKept, ""},
				{KueuePreempted, "preempted by default/hi (InClusterQueue)" + queued}}},
		{"a minimal set: fill-back keeps s1", // s1 (2) then s2 (4) removed; with s1 back hi still fits on r1-h2
			[]string{preemptCQ("a", "", 12, lower)},
			[]string{preemptWL("s1", "la", 1, 0, 2, "", "r1-h1:2", 0), preemptWL("s2", "la", 2, 1, 4, "", "r1-h2:4", 0),
				preemptWL("s3", "la", 3, 2, 4, "", "r2-h1:4", 0), preemptWL("x", "la", 20, 3, 2, "", "r1-h1:2", 0),
				preemptWL("hi", "la", 10, 9, 4, "", "", 0)},
			[]want{{KueueKept, ""}, {KueueAdmitted, "preempted default/s2 (InClusterQueue)"}, {KueueKept, ""},
				{KueuePreempted, "preempted by default/hi (InClusterQueue)" + queued}, {KueueKept, ""}}},
		{"topology, not quota: the rack needs two hosts freed", // 8 in rack r1: l3 (r2) goes first, then l2, l1; l3 is put back
			[]string{preemptCQ("a", "", 20, lower)},
			[]string{preemptWL("l1", "la", 0, 0, 4, "", "r1-h1:4", 0), preemptWL("l2", "la", 0, 1, 4, "", "r1-h2:4", 10),
				preemptWL("l3", "la", 0, 2, 4, "", "r2-h1:4", 20), preemptWL("hi", "la", 10, 9, 8, "rack", "", 0)},
			[]want{{KueueAdmitted, "preempted default/l1 (InClusterQueue), default/l2 (InClusterQueue)"},
				{KueuePreempted, "preempted by default/hi (InClusterQueue); queued again: in flavor tas: pod set \"main\" needs 4 pods; the cluster holds 0"},
				{KueuePreempted, ""}, {KueueKept, ""}}},
		{"reclaim from a cohort member that borrows", // b holds 8 of its 6; a's 2 + 4 is within its nominal 6
			[]string{preemptCQ("a", "c", 6, "reclaimWithinCohort: LowerPriority"), preemptCQ("b", "c", 6, "")},
			[]string{preemptWL("a1", "la", 0, 0, 2, "", "r1-h1:2", 0), preemptWL("bb", "lb", 0, 1, 8, "", "r1-h2:4 r2-h1:4", 0),
				preemptWL("ah", "la", 5, 9, 4, "", "", 0)},
			[]want{{KueueAdmitted, "preempted default/bb (InCohortReclamation)"}, {KueueKept, ""},
				{KueuePreempted, "preempted by default/ah (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 2 more needed"}}},
		{"hierarchy: the nearer claim reclaims while borrowing", // a (team) holds 2 of 4; ah's 4 fit team's 8, so c (org) is reclaimed even though a then borrows 2 of b's
			[]string{"kind: Cohort\nmetadata: {name: team}\nspec: {parentName: org}", preemptCQ("a", "team", 4, "reclaimWithinCohort: Any"),
				preemptCQ("b", "team", 4, ""), preemptCQ("c", "org", 4, ""), "kind: LocalQueue\nmetadata: {name: lc}\nspec: {clusterQueue: c}"},
			[]string{preemptWL("a1", "la", 0, 0, 2, "", "r1-h1:2", 0), preemptWL("cc", "lc", 0, 1, 8, "", "r1-h2:4 r2-h1:4", 0),
				preemptWL("ah", "la", 5, 9, 4, "", "", 0)},
			[]want{{KueueAdmitted, "preempted default/cc (InCohortReclamation); borrows from cohort team: cpu 2 in flavor tas"}, {KueueKept, ""},
				{KueuePreempted, "preempted by default/ah (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 2 more needed"}}},
		{"no reclaim from a member within its nominal quota", // b holds 6 of its 6: not borrowing
			[]string{preemptCQ("a", "c", 6, "reclaimWithinCohort: Any"), preemptCQ("b", "c", 6, "")},
			[]string{preemptWL("a1", "la", 0, 0, 4, "", "r1-h1:4", 0), preemptWL("bb", "lb", 0, 1, 6, "", "r1-h2:4 r2-h1:2", 0),
				preemptWL("ah", "la", 5, 9, 4, "", "", 0)},
			[]want{{KueuePending, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 2 more needed"}, {KueueKept, ""}, {KueueKept, ""}}},
		{"Never does nothing",
			[]string{preemptCQ("a", "", 12, "withinClusterQueue: Never")},
			[]string{preemptWL("p1", "la", 1, 0, 4, "", "r1-h1:4", 0), preemptWL("p2", "la", 2, 1, 8, "", "r1-h2:4 r2-h1:4", 0),
				preemptWL("hi", "la", 10, 9, 4, "", "", 0)},
			[]want{{KueuePending, full}, {KueueKept, ""}, {KueueKept, ""}}},
		{"preemption that cannot help does nothing", // p1's 4 are not hi's 8; p20 is above hi
			[]string{preemptCQ("a", "", 12, lower)},
			[]string{preemptWL("p1", "la", 1, 0, 4, "", "r1-h1:4", 0), preemptWL("p20", "la", 20, 1, 8, "", "r1-h2:4 r2-h1:4", 0),
				preemptWL("hi", "la", 10, 9, 8, "", "", 0)},
			[]want{{KueueKept, ""}, {KueuePending, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 8 more needed"}, {KueueKept, ""}}},
		{"LowerOrNewerEqualPriority: the newer of equal priority", // mid was created before young, after old
			[]string{preemptCQ("a", "", 12, newer)},
			[]string{preemptWL("old", "la", 0, 0, 4, "", "r1-h1:4", 0), preemptWL("mid", "la", 0, 2, 4, "", "", 0),
				preemptWL("young", "la", 0, 5, 4, "", "r1-h2:4", 0), preemptWL("top", "la", 20, 6, 4, "", "r2-h1:4", 0)},
			[]want{{KueueKept, ""}, {KueueKept, ""}, {KueueAdmitted, "preempted default/young (InClusterQueue)"},
				{KueuePreempted, "preempted by default/mid (InClusterQueue)" + queued}}},
		{"whole before partial: Kueue preempts before it reduces", // hi (minCount 4) would fit 4 on r1-h1; p1 makes room for all 8
			[]string{preemptCQ("a", "", 12, lower)},
			[]string{preemptWL("p1", "la", 1, 0, 8, "", "r1-h2:4 r2-h1:4", 0),
				strings.Replace(preemptWL("hi", "la", 10, 9, 8, "", "", 0), "count: 8, ", "count: 8, minCount: 4, ", 1)},
			[]want{{KueueAdmitted, "preempted default/p1 (InClusterQueue)"}, {KueuePreempted, "preempted by default/hi (InClusterQueue)" + queued}}},
		{"a Workload already evicted, still holding quota, first", // Kueue sorts evicted candidates before all others; by name p1 would go
			[]string{preemptCQ("a", "", 8, lower)},
			[]string{preemptWL("p1", "la", 1, 0, 4, "", "r1-h1:4", 0),
				strings.Replace(preemptWL("pev", "la", 1, 1, 4, "", "r1-h2:4", 0), "conditions: [",
					"conditions: [{type: Evicted, status: 'True', reason: Preempted, message: m, lastTransitionTime: '2026-01-01T09:50:00Z'}, ", 1),
				preemptWL("hi", "la", 10, 9, 4, "", "", 0)},
			[]want{{KueueAdmitted, "preempted default/pev (InClusterQueue)"}, {KueueKept, ""}, {KueuePreempted, "preempted by default/hi (InClusterQueue)" + queued}}},
		{"borrowWithinCohort: a lower priority preempted while borrowing", // ah's 6 exceed a's 2 whatever it preempts; b borrows 8 of c's; b2 (the newer reservation) alone frees room; b-top is above ah
			[]string{preemptCQ("a", "c", 2, bwc+"}"), preemptCQ("b", "c", 2, ""), preemptCQ("c", "c", 8, "")},
			bwcWorld,
			[]want{{KueueKept, ""}, {KueueAdmitted, "preempted default/b2 (InCohortReclaimWhileBorrowing); borrows from cohort c: cpu 4 in flavor tas"},
				{KueueKept, ""}, {KueuePreempted, "preempted by default/ah (InCohortReclaimWhileBorrowing); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"}}},
		{"borrowWithinCohort: maxPriorityThreshold spares those above it", // b1, b2 (0) are above -1: preemptible only if a then borrowed nothing
			[]string{preemptCQ("a", "c", 2, bwc+", maxPriorityThreshold: -1}"), preemptCQ("b", "c", 2, ""), preemptCQ("c", "c", 8, "")},
			bwcWorld,
			[]want{{KueueKept, ""}, {KueuePending, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"}, {KueueKept, ""}, {KueueKept, ""}}},
		{"borrowWithinCohort Never: a borrowing preemptor reclaims nothing", // as Kueue's default: 6 > a's nominal 2, no cohort above
			[]string{preemptCQ("a", "c", 2, "reclaimWithinCohort: LowerPriority, borrowWithinCohort: {policy: Never}"), preemptCQ("b", "c", 2, ""), preemptCQ("c", "c", 8, "")},
			bwcWorld,
			[]want{{KueueKept, ""}, {KueuePending, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"}, {KueueKept, ""}, {KueueKept, ""}}},
		{"borrowWithinCohort: above the threshold, reclaimed without borrowing", // a's nominal 6 holds ah: the try without borrowing takes b2 (InCohortReclamation)
			[]string{preemptCQ("a", "c", 6, bwc+", maxPriorityThreshold: -1}"), preemptCQ("b", "c", 2, ""), preemptCQ("c", "c", 4, "")},
			bwcWorld,
			[]want{{KueueKept, ""}, {KueueAdmitted, "preempted default/b2 (InCohortReclamation)"},
				{KueueKept, ""}, {KueuePreempted, "preempted by default/ah (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"}}},
		{"LowerPriority spares equals",
			[]string{preemptCQ("a", "", 12, lower)},
			[]string{preemptWL("old", "la", 0, 0, 4, "", "r1-h1:4", 0), preemptWL("mid", "la", 0, 2, 4, "", "", 0),
				preemptWL("young", "la", 0, 5, 4, "", "r1-h2:4", 0), preemptWL("top", "la", 20, 6, 4, "", "r2-h1:4", 0)},
			[]want{{KueueKept, ""}, {KueueKept, ""}, {KueuePending, full}, {KueueKept, ""}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, cl := admitAll(t, partialNodes+cohortQueues(c.queues...)+strings.Join(c.wls, ""))
			var got []want
			for _, o := range outs {
				got = append(got, want{o.Action, o.Message})
			}
			for i := range c.want {
				if c.want[i].action == KueuePreempted && c.want[i].msg == "" {
					c.want[i].msg = got[i].msg // a second victim: checked by the first's message
				}
			}
			require.Equal(t, c.want, got)
			for _, o := range outs { // a victim names its preemptor, in words and as a key
				if by, ok := strings.CutPrefix(o.Message, "preempted by "); ok {
					require.True(t, strings.HasPrefix(by, o.PreemptedBy.String()+" ("), "%s: PreemptedBy %v, message %q", o.Workload, o.PreemptedBy, o.Message)
				} else {
					require.Zero(t, o.PreemptedBy, "%s: %s", o.Workload, o.Message)
				}
			}
			requireNoOverlap(t, cl)
		})
	}
}

// requireNoOverlap checks that no node holds more than its capacity.
func requireNoOverlap(t *testing.T, cl *Cluster) {
	t.Helper()
	s := cl.Snapshot
	for id := range placement.NodeID(s.NumNodes()) {
		for _, r := range s.Resources() {
			require.GreaterOrEqual(t, s.Free(id, r), int64(0), "node %s over its %s", s.Node(id).Name, r)
		}
	}
}

// A victim is written as Kueue's preemptor writes it: Evicted True
// (Preempted) and Preempted True (InClusterQueue) with Kueue's message,
// no admission; readmitted, both turn False.
func TestAdmitKueueWorkloads_PreemptedConditions(t *testing.T) {
	_, cl := admitAll(t, partialNodes+cohortQueues(preemptCQ("a", "", 12, "withinClusterQueue: LowerPriority"))+
		preemptWL("p1", "la", 1, 0, 4, "", "r1-h1:4", 0)+preemptWL("p2", "la", 2, 1, 8, "", "r1-h2:4 r2-h1:4", 0)+
		preemptWL("hi", "la", 10, 9, 4, "", "", 0))
	var p1 *kueue.Workload
	for _, w := range cl.KueueWorkloads {
		if w.Obj.Name == "p1" {
			p1 = w.Obj
		}
	}
	require.Nil(t, p1.Status.Admission)
	const msg = "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to prioritization in the ClusterQueue; preemptor path: /a; preemptee path: /a"
	ev := apimeta.FindStatusCondition(p1.Status.Conditions, kueue.WorkloadEvicted)
	require.Equal(t, [3]string{"True", "Preempted", msg}, [3]string{string(ev.Status), ev.Reason, ev.Message})
	pr := apimeta.FindStatusCondition(p1.Status.Conditions, kueue.WorkloadPreempted)
	require.Equal(t, [3]string{"True", "InClusterQueue", msg}, [3]string{string(pr.Status), pr.Reason, pr.Message})
	qr := apimeta.FindStatusCondition(p1.Status.Conditions, kueue.WorkloadQuotaReserved)
	require.Equal(t, "False", string(qr.Status))
}

// spec.preemption values outside Kueue's enums, and borrowWithinCohort
// without reclaimWithinCohort (Kueue's webhook), are refused, naming the
// ClusterQueue and the field.
func TestConvertClusterQueue_Preemption(t *testing.T) {
	for _, c := range []struct {
		name, pre, want string
		err             error
	}{
		{"defaults", "", "", nil},
		{"all set", "withinClusterQueue: LowerOrNewerEqualPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: Never}", "", nil},
		{"bad within", "withinClusterQueue: Any", `Kueue ClusterQueue "a": spec.preemption.withinClusterQueue: "Any" is not Never, LowerPriority or LowerOrNewerEqualPriority`, placement.ErrInvalid},
		{"bad reclaim", "reclaimWithinCohort: LowerOrNewerEqualPriority", `Kueue ClusterQueue "a": spec.preemption.reclaimWithinCohort: "LowerOrNewerEqualPriority" is not Never, LowerPriority or Any`, placement.ErrInvalid},
		{"borrowWithinCohort without reclaim", "borrowWithinCohort: {policy: LowerPriority}", `Kueue ClusterQueue "a": spec.preemption.borrowWithinCohort.policy: is LowerPriority while reclaimWithinCohort is Never`, placement.ErrInvalid},
		{"borrowWithinCohort", "reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 5}", "", nil},
		{"bad borrowWithinCohort", "reclaimWithinCohort: Any, borrowWithinCohort: {policy: Any}", `Kueue ClusterQueue "a": spec.preemption.borrowWithinCohort.policy: "Any" is not Never or LowerPriority`, placement.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := manifest.Decode("f.yaml", strings.NewReader(cohortQueues(preemptCQ("a", "c", 4, c.pre))), manifest.Options{})
			require.NoError(t, err)
			_, err = Load(objs)
			if c.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, c.err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// Among flavors that all need preemption, Kueue's default preference
// takes one that reclaims from the cohort over one that preempts in the
// ClusterQueue: ah could preempt a1 in tas-a (rack r1) but reclaims tas-b
// (rack r2), within a's nominal quota, from bb, which borrows it.
func TestAdmitKueueWorkloads_PreemptionPrefersReclaim(t *testing.T) {
	flavor := func(name, rack string) string {
		return fmt.Sprintf("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: %s}\nspec: {nodeLabels: {rack: %s}, topologyName: t}\n", name, rack)
	}
	cq := func(name, quotas, pre string) string {
		return fmt.Sprintf("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\nspec: {cohortName: c, namespaceSelector: {}, preemption: {%s}, resourceGroups: [{coveredResources: [cpu], flavors: [%s]}]}\n", name, pre, quotas)
	}
	q := func(f string, n int) string {
		return fmt.Sprintf("{name: %s, resources: [{name: cpu, nominalQuota: %d}]}", f, n)
	}
	y := partialNodes + flavor("tas-a", "r1") + flavor("tas-b", "r2") +
		cq("a", q("tas-a", 4)+", "+q("tas-b", 4), "withinClusterQueue: LowerPriority, reclaimWithinCohort: Any") + cq("b", q("tas-b", 0), "") +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: la}\nspec: {clusterQueue: a}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lb}\nspec: {clusterQueue: b}\n" +
		strings.Replace(preemptWL("a1", "la", 0, 0, 4, "", "r1-h1:4", 0), "cpu: tas}", "cpu: tas-a}", 1) +
		strings.Replace(preemptWL("bb", "lb", 0, 1, 4, "", "r2-h1:4", 0), "cpu: tas}", "cpu: tas-b}", 1) +
		preemptWL("ah", "la", 5, 9, 4, "", "", 0)
	outs, _ := admitAll(t, y)
	got := map[string][2]string{}
	for _, o := range outs {
		got[o.Workload.Name] = [2]string{string(o.Action), o.Message}
	}
	require.Equal(t, map[string][2]string{
		"ah": {"Admitted", "preempted default/bb (InCohortReclamation)"},
		"a1": {"Kept", ""},
		"bb": {"Preempted", "preempted by default/ah (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas-b, 4 more needed"},
	}, got)
	require.Equal(t, []string{"tas-b"}, outs[0].Flavors)
}
