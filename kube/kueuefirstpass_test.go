package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// firstPassWant is one Workload's expected end state in a first-pass
// world: its action, the delayedTopologyRequest of its one pod set ("" for
// none), the count admitted (0: not admitted), its pods per host, and its
// Admitted condition, status/reason ("" for none).
type firstPassWant struct {
	action   KueueAction
	delayed  string
	count    int32
	pods     string
	admitted string
}

// Kueue's first pass for delayed topology requests (v0.17 flavorassigner:
// no topology request for a set of a Workload without quota whose topology
// flavor a ProvisioningRequest check covers, or of a ClusterQueue with a
// MultiKueue check), over the worlds recorded on the real Kueue (fp1-fp5,
// sp-cluster.yaml: 8 hosts of 4 CPUs, racks of 8, cq of 20 CPUs with the
// ProvisioningRequest check dws) and edits of them, each answer worked by
// hand.
func TestAdmitKueueWorkloads_FirstPass(t *testing.T) {
	const (
		noChecks = "  admissionChecksStrategy:\n    admissionChecks:\n    - name: dws\n  resourceGroups"
		other    = "controllerName: kueue.x-k8s.io/provisioning-request\nstatus"
		waits    = "" // Kueue writes no Admitted condition on a fresh reservation (fp1's record)
	)
	awaits := func(count int32) firstPassWant {
		return firstPassWant{KueueAwaitingChecks, "Pending", count, "", waits}
	}
	pending := firstPassWant{action: KueuePending}
	for _, c := range []struct {
		name string
		y    string
		want map[string]firstPassWant
	}{
		// fresh (6 pods) fits a rack, but its topology is delayed all
		// the same; later's 16 then exceed the 14 CPUs left.
		{"fp1: quota reserved, topology delayed", secondPassWorld(t, "fp1-first-pass-reserves"),
			map[string]firstPassWant{"fresh": awaits(6), "later": pending}},
		// Another controller's check delays nothing: fresh is planned at
		// once (b1-r1, the first rack of 8 free) and awaits the check.
		{"fp1, a check of another controller", secondPassWorld(t, "fp1-first-pass-reserves", other, "controllerName: example.com/other\nstatus"),
			map[string]firstPassWant{"fresh": {KueueAwaitingChecks, "", 6, "b1-r1-h1:4 b1-r1-h2:2", waits}, "later": pending}},
		// fresh's check is Ready already: reserved without a topology,
		// then planned by Kueue's second pass in the same run (as fp6
		// recorded), on b1-r1, and Admitted.
		{"fp1, its check Ready already", secondPassWorld(t, "fp1-first-pass-reserves", "        - {name: c, resources: {requests: {cpu: \"1\"}}}\n---",
			"        - {name: c, resources: {requests: {cpu: \"1\"}}}\nstatus:\n  admissionChecks:\n  - {name: dws, state: Ready, message: \"\", lastTransitionTime: \"2026-01-01T07:00:00Z\"}\n---"),
			map[string]firstPassWant{"fresh": {KueueAdmitted, "Ready", 6, "b1-r1-h1:4 b1-r1-h2:2", "True/Admitted"}, "later": pending}},
		// No rack holds big's 4 pods now; quota does (big 4, small 2 of
		// 20), wide's 16 do not.
		{"fp2: no room now, quota reserved", secondPassWorld(t, "fp2-first-pass-no-room-now"),
			map[string]firstPassWant{"big": awaits(4), "small": awaits(2), "wide": pending}},
		// Without the check, big waits on topology and small is placed;
		// wide, the quota free, waits on topology too.
		{"fp2 without the check", secondPassWorld(t, "fp2-first-pass-no-room-now", noChecks, "  resourceGroups"),
			map[string]firstPassWant{"big": pending, "small": {KueueAdmitted, "", 2, "b1-r1-h1:1 b1-r1-h2:1", "True/Admitted"}, "wide": pending}},
		// Partial admission on quota alone: wide at the 14 CPUs left.
		{"fp2, wide partial", secondPassWorld(t, "fp2-first-pass-no-room-now", "    count: 16\n", "    count: 16\n    minCount: 1\n"),
			map[string]firstPassWant{"big": awaits(4), "small": awaits(2), "wide": awaits(14)}},
		// mk, a MultiKueue check, delays multi's topology; dws-plain runs
		// on flavor plain only, so on-tas is placed and Admitted.
		{"fp3: which checks delay", secondPassWorld(t, "fp3-first-pass-which-checks"),
			map[string]firstPassWant{"multi": awaits(4), "on-tas": {KueueAdmitted, "", 4, "b1-r1-h1:4", "True/Admitted"}}},
		// dws-plain on both flavors: on-tas is delayed too.
		{"fp3, the check on tas too", secondPassWorld(t, "fp3-first-pass-which-checks", "onFlavors: [plain]", "onFlavors: [plain, tas]"),
			map[string]firstPassWant{"multi": awaits(4), "on-tas": awaits(4)}},
		// low (8 of cq-pre's 10 CPUs) is preempted by quota alone for
		// urgent's 9 pods, more than any rack holds; Admitted before,
		// its check reset to Pending by the eviction, it is Admitted
		// False for both (Kueue's SyncAdmittedCondition).
		{"fp5: preemption by quota alone", secondPassWorld(t, "fp5-first-pass-preempts"),
			map[string]firstPassWant{"urgent": awaits(9), "low": {KueuePreempted, "", 0, "", "False/NoReservationUnsatisfiedChecks"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, cl := admitAll(t, c.y)
			require.Len(t, outs, len(c.want))
			objs := map[string]*kueue.Workload{}
			for _, w := range cl.KueueWorkloads {
				objs[w.Obj.Name] = w.Obj
			}
			for _, o := range outs {
				want, ok := c.want[o.Workload.Name]
				require.True(t, ok, o.Workload.Name)
				require.Equal(t, want.action, o.Action, "%s: %s", o.Workload.Name, o.Message)
				obj := objs[o.Workload.Name]
				cond := apimeta.FindStatusCondition(obj.Status.Conditions, kueue.WorkloadAdmitted)
				if want.admitted == "" {
					require.Nil(t, cond, o.Workload.Name)
				} else {
					require.NotNil(t, cond, o.Workload.Name)
					require.Equal(t, want.admitted, string(cond.Status)+"/"+cond.Reason, o.Workload.Name)
				}
				if want.count == 0 {
					require.Nil(t, obj.Status.Admission, o.Workload.Name)
					continue
				}
				psa := obj.Status.Admission.PodSetAssignments[0]
				require.Equal(t, want.count, *psa.Count, o.Workload.Name)
				require.Equal(t, want.delayed, string(ptrVal(psa.DelayedTopologyRequest)), o.Workload.Name)
				require.Equal(t, want.pods != "", psa.TopologyAssignment != nil, o.Workload.Name)
				if want.pods != "" {
					require.Equal(t, pods("main", want.pods), o.PodSets[0], o.Workload.Name)
				} else {
					require.Empty(t, o.PodSets[0], o.Workload.Name)
				}
				if want.delayed == "Pending" || want.delayed == "Ready" && want.action == KueueAdmitted {
					require.Contains(t, o.Message, `without a topology for pod set(s) "main" (delayedTopologyRequest Pending)`)
				}
			}
			requireNoOverlap(t, cl)
		})
	}
}

// ptrVal is *p, or the zero value for nil.
func ptrVal[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}
