package kube

import (
	"cmp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Kueue's condition reasons that admission writes (the Workload API's
// words for them).
const (
	kueueReasonQuotaReserved = "QuotaReserved"
	kueueReasonAdmitted      = "Admitted"
	kueueReasonPending       = "Pending"
	kueueReasonNoReservation = "NoReservation"
	kueueReasonNodeFailures  = "NodeFailures"
)

// maxConditionMessage is the API's limit on a condition message.
const maxConditionMessage = 32768

// setCondition writes a condition of w at now: as
// meta.SetStatusCondition does, its transition time changes only with its
// status, and the others keep their places.
func setCondition(w *kueue.Workload, typ string, status metav1.ConditionStatus, reason, msg string, now time.Time) {
	if len(msg) > maxConditionMessage {
		msg = msg[:maxConditionMessage-3] + "..."
	}
	apimeta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: w.Generation, LastTransitionTime: metav1.NewTime(now)})
}

// assignment is the podSetAssignment of one set: its count and its pods
// per host in the order given.
func assignment(name string, pods []placement.PodSetAssignment, hostOf func(placement.NodeID) string) kueue.PodSetAssignment {
	var n int32
	hosts := make([]placement.PodSetAssignment, len(pods))
	for i, p := range pods {
		n += p.Count
		hosts[i] = placement.PodSetAssignment{Node: hostOf(p.NodeID), Count: p.Count}
	}
	return kueue.PodSetAssignment{Name: kueue.PodSetReference(name), Count: &n, TopologyAssignment: writeTopologyAssignment(hosts)}
}

// flavorAdmission is what flavor assignment adds to a new admission; its
// zero value, without ResourceFlavors, adds nothing.
type flavorAdmission struct {
	// clusterQueue is the ClusterQueue the Workload's LocalQueue names.
	clusterQueue string
	// choice holds each pod set's flavors (Group.PodSets' order); a set
	// without a topology flavor is admitted on quota alone, with no
	// topologyAssignment.
	choice *flavorChoice
	cq     *KueueClusterQueue
}

// writeAdmitted writes a new admission of w at its Group's counts (a
// partial admission's, below spec.podSets' own): status.admission with a
// topologyAssignment per pod set, QuotaReserved True, and the Evicted and
// Preempted conditions of an earlier eviction set False, as Kueue resets
// them; the Admitted condition is the caller's, once the checks are
// synced ([admitter.afterReservation]). Without
// ResourceFlavors (ka's zero value) the ClusterQueue is named by
// spec.queueName; with them, it is ka's, and each set also gets its
// flavors and resourceUsage, and no topologyAssignment when admitted on
// quota alone (then delayedTopologyRequest Pending when Kueue's first
// pass delayed its topology).
func writeAdmitted(w *KueueWorkload, sets [][]placement.PodSetAssignment, hostOf func(placement.NodeID) string, now time.Time, ka flavorAdmission) {
	obj := w.Obj
	adm := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cmp.Or(ka.clusterQueue, string(obj.Spec.QueueName)))}
	k := 0
	for _, ps := range obj.Spec.PodSets { // Group.PodSets: these in order, less the sets of count 0
		if k >= len(w.Group.PodSets) || w.Group.PodSets[k].Name != string(ps.Name) {
			// A set of count 0 (or all of whose pods are reclaimable)
			// is admitted with no pods, in its place.
			adm.PodSetAssignments = append(adm.PodSetAssignments, assignment(string(ps.Name), nil, hostOf))
			continue
		}
		psa := assignment(string(ps.Name), sets[k], hostOf)
		if k < len(w.unplaced) && w.unplaced[k] > 0 {
			// Kueue writes the count it charged, above the whole
			// slices its topologyAssignment places.
			n := *psa.Count + w.unplaced[k]
			psa.Count = &n
		}
		if ch := ka.choice; ch != nil {
			psa.Flavors, psa.ResourceUsage = map[corev1.ResourceName]kueue.ResourceFlavorReference{}, corev1.ResourceList{}
			for r, v := range w.quotaRequests(ka.cq, k, w.quotaCount(k)) {
				f, ok := ch.flavors[k][r]
				if !ok {
					continue // a resource of 0 its ClusterQueue does not cover: Kueue writes neither
				}
				psa.Flavors[corev1.ResourceName(r)] = kueue.ResourceFlavorReference(f)
				psa.ResourceUsage[corev1.ResourceName(r)] = CanonicalQuantity(r, v)
			}
			if ch.tas[k] == "" {
				n := w.quotaCount(k)
				psa.Count, psa.TopologyAssignment = &n, nil // its pods are on no node yet
			}
			if k < len(ch.delayed) && ch.delayed[k] {
				psa.DelayedTopologyRequest = kptr.To(kueue.DelayedTopologyRequestStatePending) // kueuefirstpass.go
			}
		}
		if w.isPhantom(string(ps.Name)) {
			// Kueue writes a phantom leader at its count, its one pod in
			// the topologyAssignment (kueuephantom.go).
			var n int32
			psa.Count = &n
		}
		adm.PodSetAssignments = append(adm.PodSetAssignments, psa)
		k++
	}
	obj.Status.Admission = adm
	msg := "Quota reserved and topology assigned by gangsim"
	if delayedSets(obj) != "" {
		msg = "Quota reserved by gangsim, topology delayed until the admission checks are Ready"
	}
	setCondition(obj, kueue.WorkloadQuotaReserved, metav1.ConditionTrue, kueueReasonQuotaReserved, msg, now)
	for _, typ := range []string{kueue.WorkloadEvicted, kueue.WorkloadPreempted} {
		if prev := apimeta.FindStatusCondition(obj.Status.Conditions, typ); prev != nil && prev.Status == metav1.ConditionTrue {
			setCondition(obj, typ, metav1.ConditionFalse, kueueReasonQuotaReserved, "Previously: "+prev.Message, now)
		}
	}
}

// writeChangedSets rewrites the assignments of the pod sets marked
// changed (resized or repaired), and of the sets that shrank to count 0,
// with the resourceUsage of their new counts; the conditions stay as they
// are.
func writeChangedSets(w *KueueWorkload, sets [][]placement.PodSetAssignment, changed []bool, hostOf func(placement.NodeID) string) {
	adm := w.Obj.Status.Admission
	write := func(name string, pods []placement.PodSetAssignment, tmpl *placement.Pod) {
		for i := range adm.PodSetAssignments {
			psa := &adm.PodSetAssignments[i]
			if string(psa.Name) != name {
				continue
			}
			next := assignment(name, pods, hostOf)
			if w.isPhantom(name) {
				*next.Count = 0 // its count, its one pod moved (kueuephantom.go)
			}
			psa.Count, psa.TopologyAssignment = next.Count, next.TopologyAssignment
			for r := range psa.ResourceUsage { // the quota of the new count
				v := int64(*next.Count)
				if r != corev1.ResourcePods {
					v *= tmpl.Requests[placement.ResourceName(r)]
				}
				psa.ResourceUsage[r] = CanonicalQuantity(placement.ResourceName(r), v)
			}
		}
	}
	for k, ps := range w.Group.PodSets {
		if changed[k] {
			write(ps.Name, sets[k], &w.Group.PodSets[k].Template)
		}
	}
	for _, z := range w.Zero {
		if z.AdmittedCount > 0 {
			write(z.Name, nil, &placement.Pod{})
		}
	}
}

// writeEvicted writes an eviction for node failures: Evicted True, its
// checks reset to Pending as every Kueue eviction resets them (a
// ProvisioningRequest check must provision again), then the reservation
// dropped ([unreserve]).
func writeEvicted(w *KueueWorkload, reason string, now time.Time) {
	setCondition(w.Obj, kueue.WorkloadEvicted, metav1.ConditionTrue, kueueReasonNodeFailures, reason, now)
	resetChecks(w.Obj, now)
	unreserve(w.Obj, reason, now)
}

// unreserve drops obj's quota reservation as Kueue's eviction and its job
// reconciler do (UnsetQuotaReservationWithCondition): no admission and no
// unhealthy nodes, QuotaReserved False (reason Pending, msg), and the
// Admitted condition synced ([syncAdmitted]: False on one Admitted, with
// a reason that names the checks when any is not Ready; unchanged on one
// never Admitted). Callers write the eviction's own conditions, and reset
// the checks, first.
func unreserve(obj *kueue.Workload, msg string, now time.Time) {
	obj.Status.Admission, obj.Status.UnhealthyNodes = nil, nil
	setCondition(obj, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, kueueReasonPending, msg, now)
	syncAdmitted(obj, now)
}

// writePending writes why a Workload waits: QuotaReserved False, reason
// Pending, with the plan's reason.
func writePending(w *KueueWorkload, reason string, now time.Time) {
	// A pending Workload holds no quota: an admission left from before
	// (QuotaReserved not True) goes, as Kueue's
	// UnsetQuotaReservationWithCondition clears it.
	w.Obj.Status.Admission = nil
	setCondition(w.Obj, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, kueueReasonPending, reason, now)
}

// joinReasons joins the non-empty reasons with "; ".
func joinReasons(rs []string) string {
	var out []string
	for _, r := range rs {
		if r != "" {
			out = append(out, r)
		}
	}
	return strings.Join(out, "; ")
}

// hostList names hosts for a message: "h1, h2".
func hostList(hs []string) string { return strings.Join(hs, ", ") }
