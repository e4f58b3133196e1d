package kube

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// qWorld builds a fair-sharing world over flavor q (quota only, CPUs):
// its documents are appended in order.
type qWorld struct{ b strings.Builder }

// cohort adds Cohort name under parent ("" for a root) with nominal CPUs
// of its own.
func (w *qWorld) cohort(name, parent string, nominal int) *qWorld {
	p := ""
	if parent != "" {
		p = "parentName: " + parent + ", "
	}
	fmt.Fprintf(&w.b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: %s}\nspec: {%sresourceGroups: [{coveredResources: [cpu], flavors: [{name: q, resources: [{name: cpu, nominalQuota: %d}]}]}]}\n", name, p, nominal)
	return w
}

// cq adds ClusterQueue name in cohort with nominal CPUs, spec.preemption
// preemption (flow style, "" for none), and its LocalQueue l<name>.
func (w *qWorld) cq(name, cohort string, nominal int, preemption string) *qWorld {
	if preemption != "" {
		preemption = "preemption: " + preemption + ", "
	}
	fmt.Fprintf(&w.b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\nspec: {%scohortName: %s, namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: q, resources: [{name: cpu, nominalQuota: %d}]}]}]}\n", name, preemption, cohort, nominal)
	fmt.Fprintf(&w.b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l%s}\nspec: {clusterQueue: %s}\n", name, name)
	return w
}

// admitted adds Workload name of cpu CPUs admitted in cq, its quota
// reserved at 09:00:<at>.
func (w *qWorld) admitted(name, cq string, cpu, at int) *qWorld {
	return w.admittedPriority(name, cq, cpu, at, 0)
}

// admittedPriority adds Workload name of cpu CPUs and priority prio
// admitted in cq, its quota reserved at 09:00:<at>.
func (w *qWorld) admittedPriority(name, cq string, cpu, at, prio int) *qWorld {
	fmt.Fprintf(&w.b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: %s, creationTimestamp: '2026-01-01T08:00:%02dZ'}
spec:
  queueName: l%s
  priority: %d
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '%d'}}}]}}}]
status:
  admission:
    clusterQueue: %s
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: q}, resourceUsage: {cpu: '%d'}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T09:00:%02dZ"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T09:00:%02dZ"}
`, name, at, cq, prio, cpu, cq, cpu, at, at)
	return w
}

// pending adds pending Workload name of cpu CPUs in cq, created at
// 10:00:<at>.
func (w *qWorld) pending(name, cq string, cpu, at int) *qWorld {
	return w.pendingPriority(name, cq, cpu, at, 0)
}

// pendingPriority adds pending Workload name of cpu CPUs and priority
// prio in cq, created at 10:00:<at>.
func (w *qWorld) pendingPriority(name, cq string, cpu, at, prio int) *qWorld {
	fmt.Fprintf(&w.b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T10:00:%02dZ'}\nspec:\n  queueName: l%s\n  priority: %d\n  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '%d'}}}]}}}]\n", name, at, cq, prio, cpu)
	return w
}

// outcomeLines words each outcome "name: action (message)", in order.
func outcomeLines(outs []KueueOutcome) []string {
	var lines []string
	for _, o := range outs {
		s := o.Workload.Name + ": " + string(o.Action)
		if o.Message != "" {
			s += " (" + o.Message + ")"
		}
		lines = append(lines, s)
	}
	return lines
}

// qFlavor is flavor q, on the tas pool without a Topology: quota only.
const qFlavor = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: q}\nspec: {nodeLabels: {pool: tas}}\n"

// fairStrategies is a Kueue Configuration turning fair sharing on with
// strategies (flow style).
func fairStrategies(s string) string {
	return "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {preemptionStrategies: [" + s + "]}\n"
}

// Kueue's fair-sharing preemption, worked by hand in each comment (CPUs;
// shares are 1000 × CPUs borrowed ÷ what the parent could lend). Each
// outcome is "name: action (message)", in queue order.
func TestAdmitKueueWorkloads_FairPreemption(t *testing.T) {
	const both = "LessThanOrEqualToFinalShare, LessThanInitialShare"
	const any = "{reclaimWithinCohort: Any}"
	for _, c := range []struct {
		name       string
		strategies string
		world      *qWorld
		want       []string
	}{
		// c (0 own) over a (4) and b (4): b holds 6. w (4) keeps a
		// within its nominal quota, so it reclaims regardless of shares
		// (FairSharingPreemptWithinNominal): b's newest, b3, frees 2 of
		// the 4 needed with 2 unused.
		{"within nominal quota: reclaim", both,
			new(qWorld).cohort("c", "", 0).cq("a", "c", 4, any).cq("b", "c", 4, "").
				admitted("b1", "b", 2, 1).admitted("b2", "b", 2, 2).admitted("b3", "b", 2, 3).pending("w", "a", 4, 0),
			[]string{"b1: Kept", "b2: Kept", "b3: Preempted (preempted by default/w (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 2 more needed)",
				"w: Admitted (preempted default/b3 (InCohortReclamation))"}},
		// c (4 own) over a (2) and b (2): 8; b holds 6. w (3) would make a
		// borrow 1 (125); b borrows 4 (500), 1 without b2 (125): a's 125
		// is not above b's final 125, so LessThanOrEqualToFinalShare takes
		// b2 (newer than b1), and w fits in the 5 left.
		{"LessThanOrEqualToFinalShare", both,
			new(qWorld).cohort("c", "", 4).cq("a", "c", 2, any).cq("b", "c", 2, "").
				admitted("b1", "b", 3, 1).admitted("b2", "b", 3, 2).pending("w", "a", 3, 0),
			[]string{"b1: Kept", "b2: Preempted (preempted by default/w (InCohortFairSharing); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 1 more needed)",
				"w: Admitted (preempted default/b2 (InCohortFairSharing); borrows from cohort c: cpu 1 in flavor q)"}},
		// c (4 own) over a (2) and b (2): a holds 2, b 6. w (3) would make
		// a borrow 3 (375); b borrows 4 (500), 0 without b1: the first
		// strategy refuses (375 > 0), LessThanInitialShare takes b1
		// (375 < 500).
		{"LessThanInitialShare after the first refuses", both,
			new(qWorld).cohort("c", "", 4).cq("a", "c", 2, any).cq("b", "c", 2, "").
				admitted("a1", "a", 2, 1).admitted("b1", "b", 6, 2).pending("w", "a", 3, 0),
			[]string{"a1: Kept", "b1: Preempted (preempted by default/w (InCohortFairSharing); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 3 more needed)",
				"w: Admitted (preempted default/b1 (InCohortFairSharing); borrows from cohort c: cpu 3 in flavor q)"}},
		// The same with LessThanOrEqualToFinalShare alone: no victim.
		{"LessThanOrEqualToFinalShare alone refuses", "LessThanOrEqualToFinalShare",
			new(qWorld).cohort("c", "", 4).cq("a", "c", 2, any).cq("b", "c", 2, "").
				admitted("a1", "a", 2, 1).admitted("b1", "b", 6, 2).pending("w", "a", 3, 0),
			[]string{"a1: Kept", "b1: Kept", "w: Pending (couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 3 more needed)"}},
		// r (0 own) over xs (x1: 2, x2: 2) and ys (y1: 4): x1 holds 3, x2 5
		// (xs borrows 4 of ys's), y1 nothing. w (4) keeps y1 within
		// nominal: reclaim, from the ClusterQueue of the highest share
		// found from the root down: xs (4) over ys (0), then x2 (3) over x1
		// (1): x2c (newest). 2 free: then xs (2): x1 and x2 both borrow 1,
		// a tie broken by their first candidates: x2a, reserved after x1a.
		// Freed 5; x2c is not given back (3 < 4).
		{"the highest share from the root down", both,
			new(qWorld).cohort("r", "", 0).cohort("xs", "r", 0).cohort("ys", "r", 0).
				cq("x1", "xs", 2, "").cq("x2", "xs", 2, "").cq("y1", "ys", 4, any).
				admitted("x1a", "x1", 3, 1).admitted("x2a", "x2", 3, 2).admitted("x2c", "x2", 2, 3).pending("w", "y1", 4, 0),
			[]string{"x1a: Kept",
				"x2a: Preempted (preempted by default/w (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 2 more needed)",
				"x2c: Preempted (preempted by default/w (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 1 more needed)",
				"w: Admitted (preempted default/x2a (InCohortReclamation), default/x2c (InCohortReclamation))"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, _ := admitAll(t, partialNodes+qFlavor+c.world.b.String()+fairStrategies(c.strategies))
			got := outcomeLines(outs)
			require.Equal(t, c.want, got)
		})
	}
}

// fairSharing reports whether w has Kueue's fair sharing on
// ([propWorld.withFairSharing]).
func (w *propWorld) fairSharing() bool {
	return slices.ContainsFunc(w.rest, func(o any) bool {
		_, ok := o.(*configv1beta2.Configuration)
		return ok
	})
}

// withFairSharing turns Kueue's fair sharing on in w (a Configuration with
// a strategy list drawn) and draws a weight for each ClusterQueue: 0,
// 0.5, 1 (unset) or 2.
func (w *propWorld) withFairSharing(t *rapid.T) *propWorld {
	lists := [][]configv1beta2.PreemptionStrategy{
		{configv1beta2.LessThanOrEqualToFinalShare, configv1beta2.LessThanInitialShare},
		{configv1beta2.LessThanOrEqualToFinalShare}, {configv1beta2.LessThanInitialShare},
	}
	cfg := &configv1beta2.Configuration{FairSharing: &configv1beta2.FairSharing{PreemptionStrategies: rapid.SampledFrom(lists).Draw(t, "strategies")}}
	for _, o := range w.rest {
		if cq, ok := o.(*kueue.ClusterQueue); ok {
			if weight := rapid.SampledFrom([]string{"", "0", "500m", "2"}).Draw(t, "weight"); weight != "" {
				q := resource.MustParse(weight)
				cq.Spec.FairSharing = &kueue.FairSharing{Weight: &q}
			}
		}
	}
	w.rest = append(w.rest, cfg)
	return w
}
