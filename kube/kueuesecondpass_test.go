package kube

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// secondPassWorld reads kube/testdata/kueue-oracle/preemption's
// sp-cluster.yaml and the named world, each edit applied in turn (old,
// new: strings.Replace once).
func secondPassWorld(t *testing.T, world string, edits ...string) string {
	t.Helper()
	dir := "testdata/kueue-oracle/preemption/"
	var y string
	for _, f := range []string{"sp-cluster.yaml", world + ".yaml"} {
		b, err := os.ReadFile(dir + f)
		require.NoError(t, err)
		y += "---\n" + string(b) + "\n"
	}
	for i := 0; i+1 < len(edits); i += 2 {
		require.Contains(t, y, edits[i])
		y = strings.Replace(y, edits[i], edits[i+1], 1)
	}
	return y
}

// Kueue's second pass for a delayed topology (v0.17 NeedsSecondPass; the
// flavor assigner keeps the admitted flavors, TAS plans the template's
// requests with the Ready checks' podSetUpdates), over the worlds recorded
// on the real Kueue (sp1-sp3) and edits of them, each answer worked by
// hand: 8 hosts of 4 CPUs in racks b1-r1, b1-r2, b2-r1, b2-r2; cq has 20
// CPUs; BestFit takes the rack with the least room that fits.
func TestAdmitKueueWorkloads_SecondPass(t *testing.T) {
	const (
		taint  = "spec: {}\nstatus:\n  allocatable: {cpu: \"4\", memory: 16Gi, pods: \"110\"}\n"
		update = "      nodeSelector: {example.com/provisioned: \"true\"}\n"
	)
	tainted := func(node string) []string {
		return []string{"name: " + node + "\n  labels: {kubernetes.io/hostname: " + node + ", example.com/block: b2, example.com/rack: b2-" + node[3:5] + ", example.com/pool: tas, example.com/provisioned: \"true\"}\n" + taint,
			"name: " + node + "\n  labels: {kubernetes.io/hostname: " + node + ", example.com/block: b2, example.com/rack: b2-" + node[3:5] + ", example.com/pool: tas, example.com/provisioned: \"true\"}\nspec: {taints: [{key: example.com/provisioned, value: \"true\", effect: NoSchedule}]}\nstatus:\n  allocatable: {cpu: \"4\", memory: 16Gi, pods: \"110\"}\n"}
	}
	var allTainted []string
	for _, n := range []string{"b2-r1-h1", "b2-r1-h2", "b2-r2-h1", "b2-r2-h2"} {
		allTainted = append(allTainted, tainted(n)...)
	}
	for _, c := range []struct {
		name   string
		y      string
		action KueueAction
		pods   string // delayed's pods per host
		// admitted is its Admitted condition, status/reason: a
		// second pass that waits leaves the input's (Kueue's
		// SyncAdmittedCondition changes none of a Workload never
		// Admitted).
		admitted string
		delayed  kueue.DelayedTopologyRequestState
		msg      string // in its message
	}{
		// busy and filler hold 15 of 20 CPUs (b1-r1-h1 3; b1-r2 and
		// b2-r1-h1 full): b1-r1 (5 free) is the one rack for 5 pods, and
		// delayed's quota is not charged again (20 of 20).
		{"sp1: fits, in the flavor it holds", secondPassWorld(t, "sp1-second-pass-fits"), KueueAdmitted, "b1-r1-h1:1 b1-r1-h2:4", "True/Admitted", kueue.DelayedTopologyRequestStateReady, "planned"},
		{"sp2: no rack of 20: keeps its quota", secondPassWorld(t, "sp2-second-pass-no-fit"), KueueDelayedTopologyWaits, "", "False/UnsatisfiedChecks", kueue.DelayedTopologyRequestStatePending,
			`pod set "main" needs 20 pods in one example.com/rack domain`},
		// The update's nodeSelector leaves b2 only: b2-r1 (6 free) before
		// b2-r2 (8); its fullest host with room, h2.
		{"sp3: podSetUpdates steer to b2", secondPassWorld(t, "sp3-second-pass-pod-set-updates"), KueueAdmitted, "b2-r1-h2:4", "True/Admitted", kueue.DelayedTopologyRequestStateReady, "planned"},
		// Without it: b1-r1 (5 free) is the best fit, on b1-r1-h2.
		{"sp3 without the update", secondPassWorld(t, "sp3-second-pass-pod-set-updates", "    podSetUpdates:\n    - name: main\n"+update, ""), KueueAdmitted, "b1-r1-h2:4", "True/Admitted", kueue.DelayedTopologyRequestStateReady, "planned"},
		// The same update on a Pending check is not applied: the
		// Workload waits for its check, its topology still delayed.
		{"check Pending: awaits it", secondPassWorld(t, "sp3-second-pass-pod-set-updates", "  - name: dws\n    state: Ready\n    message: \"\"\n    lastTransitionTime: \"2026-01-01T09:00:01Z\"\n    podSetUpdates", "  - name: dws\n    state: Pending\n    message: \"\"\n    lastTransitionTime: \"2026-01-01T09:00:01Z\"\n    podSetUpdates"),
			KueueAwaitingChecks, "", "False/UnsatisfiedChecks", kueue.DelayedTopologyRequestStatePending, "waiting for admission check(s) dws"},
		// b2 tainted NoSchedule: the update's nodeSelector alone leaves no
		// host; with its toleration too, b2-r1-h2 as in sp3.
		{"tainted b2, no toleration", secondPassWorld(t, "sp3-second-pass-pod-set-updates", allTainted...), KueueDelayedTopologyWaits, "", "False/UnsatisfiedChecks", kueue.DelayedTopologyRequestStatePending, "keeps its quota"},
		{"tainted b2, tolerated by the update", secondPassWorld(t, "sp3-second-pass-pod-set-updates", append(allTainted, update, update+"      tolerations: [{key: example.com/provisioned, operator: Exists, effect: NoSchedule}]\n")...),
			KueueAdmitted, "b2-r1-h2:4", "True/Admitted", kueue.DelayedTopologyRequestStateReady, "planned"},
		// The flavor's nodes carry example.com/pool: tas: an update
		// selecting another pool matches none (Kueue's TAS finds no node).
		{"update against the flavor's labels", secondPassWorld(t, "sp3-second-pass-pod-set-updates", update, "      nodeSelector: {example.com/pool: other}\n"), KueueDelayedTopologyWaits, "", "False/UnsatisfiedChecks", kueue.DelayedTopologyRequestStatePending,
			"nodeSelector example.com/pool=other, where its template, flavor or an earlier update selects tas"},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, cl := admitAll(t, c.y)
			var got *KueueOutcome
			var obj *kueue.Workload
			for i, o := range outs {
				if o.Workload.Name == "delayed" {
					got, obj = &outs[i], cl.KueueWorkloads[i].Obj
				} else {
					require.Equal(t, KueueKept, o.Action, "%s: %s", o.Workload, o.Message)
				}
			}
			require.NotNil(t, got)
			require.Equal(t, c.action, got.Action, got.Message)
			require.Contains(t, got.Message, c.msg)
			require.Equal(t, [][]placement.PodSetAssignment{pods("main", c.pods)}, got.PodSets)
			cond := apimeta.FindStatusCondition(obj.Status.Conditions, kueue.WorkloadAdmitted)
			require.Equal(t, c.admitted, string(cond.Status)+"/"+cond.Reason)
			require.True(t, apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadQuotaReserved))
			psa := obj.Status.Admission.PodSetAssignments[0]
			require.Equal(t, c.delayed, *psa.DelayedTopologyRequest)
			require.Equal(t, c.pods != "", psa.TopologyAssignment != nil)
			requireNoOverlap(t, cl)
		})
	}
}

// A ClusterQueue with a MultiKueue check: Kueue delays the topology again
// in the second pass, leaving it to the worker cluster; gangsim refuses it
// naming the field.
func TestAdmitKueueWorkloads_SecondPassMultiKueue(t *testing.T) {
	y := secondPassWorld(t, "sp2-second-pass-no-fit", "controllerName: kueue.x-k8s.io/provisioning-request", "controllerName: kueue.x-k8s.io/multikueue")
	err := admitError(t, y)
	require.True(t, errors.Is(err, ErrUnsupported), "%v", err)
	require.EqualError(t, err, `Kueue Workload "default/delayed": status.admission.podSetAssignments: a delayedTopologyRequest Pending with every admission check Ready in a ClusterQueue with the MultiKueue check "dws": Kueue leaves such a topology to the worker cluster, which gangsim does not model`)
}

// A set whose topology is delayed in a flavor that names no Topology
// (sp-cluster.yaml's tas without topologyName) is not what Kueue writes,
// which delays only a topology flavor's sets: refused naming the field,
// not planned over the input's one Topology its flavor never named.
func TestAdmitKueueWorkloads_SecondPassFlavorWithoutTopology(t *testing.T) {
	y := secondPassWorld(t, "sp1-second-pass-fits", "  topologyName: default\n", "")
	err := admitError(t, y)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.EqualError(t, err, `Kueue Workload "default/delayed": status.admission.podSetAssignments[0].delayedTopologyRequest: is Pending, but no flavor of the set (tas) names a Topology of the input: Kueue delays only the topology of a set in a topology flavor`)
}

// A delayedTopologyRequest Kueue never writes is refused naming the
// field: read as no delay, it admitted the set with no topology.
func TestKueueWorkload_BadDelayedTopologyRequest(t *testing.T) {
	y := secondPassWorld(t, "sp1-second-pass-fits", "delayedTopologyRequest: Pending", "delayedTopologyRequest: Bogus")
	_, err := load(t, y)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, `Kueue Workload "default/delayed": status.admission.podSetAssignments[0].delayedTopologyRequest: "Bogus" is not Pending or Ready`)
}

// sp1 with its ClusterQueue's check removed after the first pass (and
// from delayed's status, as Kueue's workload controller syncs it): Kueue's
// second pass wants a check (needsSecondPassForDelayedAssignment), so
// delayed holds its quota with no pods, not Admitted (its condition, False
// UnsatisfiedChecks from the first pass, left as SyncAdmittedCondition
// leaves a Workload never Admitted), for good; it waits, never counted
// admitted as it was ("Kept").
func TestAdmitKueueWorkloads_DelayedWithoutChecks(t *testing.T) {
	y := secondPassWorld(t, "sp1-second-pass-fits", "  admissionChecksStrategy:\n    admissionChecks:\n    - name: dws\n", "",
		"      delayedTopologyRequest: Pending\n  admissionChecks:\n  - name: dws\n    state: Ready\n    message: \"\"\n    lastTransitionTime: \"2026-01-01T09:00:01Z\"\n",
		"      delayedTopologyRequest: Pending\n")
	outs, cl := admitAll(t, y)
	for i, o := range outs {
		if o.Workload.Name != "delayed" {
			require.Equal(t, KueueKept, o.Action, "%s: %s", o.Workload, o.Message)
			continue
		}
		require.Equal(t, KueueDelayedTopologyWaits, o.Action, o.Message)
		require.Contains(t, o.Message, `pod set(s) "main" hold quota with their topology delayed`)
		obj := cl.KueueWorkloads[i].Obj
		require.Empty(t, obj.Status.AdmissionChecks)
		cond := apimeta.FindStatusCondition(obj.Status.Conditions, kueue.WorkloadAdmitted)
		require.Equal(t, "False/UnsatisfiedChecks", string(cond.Status)+"/"+cond.Reason)
		require.True(t, apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadQuotaReserved))
		require.Nil(t, obj.Status.Admission.PodSetAssignments[0].TopologyAssignment)
	}
}

// admitError is the error of admitting manifests y's Kueue Workloads, which
// must load.
func admitError(t *testing.T, y string) error {
	t.Helper()
	c, err := load(t, y)
	require.NoError(t, err)
	tree, err := topology.NewTree(c.Snapshot, c.KueueLevels)
	require.NoError(t, err)
	_, _, err = AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, KueueOptions{Queues: c.KueueQueues})
	return err
}
