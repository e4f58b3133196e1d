package kube

import (
	"slices"
	"strings"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Kueue's first scheduling pass for delayed topology requests (v0.17
// pkg/scheduler/flavorassigner, the TAS requests of an assignment): a pod
// set of a Workload holding no quota yet whose flavor assignment lands on
// a topology flavor that a ProvisioningRequest check of its ClusterQueue
// covers (the check's onFlavors name the flavor, or it names none and so
// covers every flavor of the queue), or any set on a topology flavor of a
// ClusterQueue with a MultiKueue check, gets no topology request: its
// quota is reserved (borrowing, preemption and partial admission as for
// quota alone: no topology is sought, so none fails) and Kueue writes
// its podSetAssignment with delayedTopologyRequest Pending and no
// topologyAssignment. The checks, Pending, leave the Workload not
// Admitted; once they are all Ready, Kueue's second pass plans the
// topology (kueuesecondpass.go). The checks count whether or not they
// are active: an inactive one leaves the ClusterQueue inactive anyway.

// delayTopology marks in ch the sets of a pending Workload whose topology
// Kueue's first pass delays in ClusterQueue cq, and takes their topology
// flavor out of ch.tas, so that they are admitted on quota alone; ch's
// Topology is cleared when no set is left to plan over it.
func (q *KueueQueues) delayTopology(cq *KueueClusterQueue, ch *flavorChoice) {
	if len(q.multiKueue) == 0 && len(q.provisioning) == 0 {
		return
	}
	for k, f := range ch.tas {
		if f == "" || !q.delaysTopology(cq, f) {
			continue
		}
		if ch.delayed == nil {
			ch.delayed = make([]bool, len(ch.tas))
		}
		ch.delayed[k], ch.tas[k] = true, ""
	}
	if ch.delayed != nil && !slices.ContainsFunc(ch.tas, func(f string) bool { return f != "" }) {
		ch.topology = ""
	}
}

// delaysTopology reports whether Kueue's first pass delays the topology
// of a set on topology flavor f of ClusterQueue cq: cq names a MultiKueue
// check, or a ProvisioningRequest check that covers f. A check missing
// from the input counts for neither, as Kueue's ClusterQueue cache knows
// no controller for it.
func (q *KueueQueues) delaysTopology(cq *KueueClusterQueue, f string) bool {
	for _, r := range cq.Checks {
		if q.multiKueue[r.Name] || q.provisioning[r.Name] && (len(r.OnFlavors) == 0 || slices.Contains(r.OnFlavors, f)) {
			return true
		}
	}
	return false
}

// delayedSets names, quoted and in status order, the pod sets of obj
// admitted with delayedTopologyRequest Pending ("" when none is).
func delayedSets(obj *kueue.Workload) string {
	if obj.Status.Admission == nil {
		return ""
	}
	var names []string
	for _, psa := range obj.Status.Admission.PodSetAssignments {
		if psa.TopologyAssignment == nil && psa.DelayedTopologyRequest != nil && *psa.DelayedTopologyRequest == kueue.DelayedTopologyRequestStatePending {
			names = append(names, `"`+string(psa.Name)+`"`)
		}
	}
	return strings.Join(names, ", ")
}

// firstPassOutcome says what Kueue's first pass did with Workload o,
// admitted in this run with the delayed sets names and no second pass
// run for them yet: it awaits the checks awaited (AwaitingChecks), or,
// with every check Ready already in a ClusterQueue with a MultiKueue
// check, a second pass gangsim does not model (DelayedTopologyWaits;
// [admitter.secondPassesNow] runs the others in the same run).
func firstPassOutcome(o *KueueOutcome, names string, awaited []string) {
	msg := firstPassWords(names)
	if len(awaited) > 0 {
		o.Action, o.Message = KueueAwaitingChecks, joinReasons([]string{o.Message, msg, checksAwaited(awaited)})
		return
	}
	o.Action, o.Message = KueueDelayedTopologyWaits, joinReasons([]string{o.Message, msg, "its admission checks are all Ready: Kueue's second pass follows, MultiKueue's for the worker cluster, which gangsim does not model"})
}

// firstPassWords says that Kueue's first pass reserved quota without a
// topology for the pod sets names (quoted).
func firstPassWords(names string) string {
	return "Kueue's first pass reserved quota without a topology for pod set(s) " + names + " (delayedTopologyRequest Pending)"
}
