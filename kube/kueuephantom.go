package kube

import (
	"slices"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A PodSetGroup of two sets, one of count 0 and one with pods, is placed
// by Kueue v0.17 with a "phantom" leader. Its TAS takes the group's
// leader to be its second set unless that has more pods than the first
// (findLeaderAndWorkers), so the set of count 0 is the leader in either
// order, and it searches for a leader as for one pod of the leader's
// template whatever the leader's count (findTopologyAssignment: a leader
// counts 1). The count-0 set so gets a topologyAssignment of one pod on a
// host where its template's requests fit beside the other set, in the
// domain the group takes, and Kueue writes the admission: count 0,
// resourceUsage 0 (its flavor assigner charged count × requests), and
// that one-pod topologyAssignment, which its Workload API accepts (only
// an assignment without slices is refused). Once written, Kueue's cache
// counts the phantom pod on its host as the admission's resourceUsage
// divided by its count, 0 (Requests.Divide skips 0/0), plus the pod
// itself: it takes one "pods" of the host and none of its other
// resources, and no pod of it is ever made. The real Kueue admitted
// such a group in both orders (kueue-oracle/preemption/r19, r20).
//
// gangsim reads such a set as a pod set of count 1 with its template
// (Group.PodSets, in its spec.podSets place), marked in
// [KueueWorkload.phantom]: planned as Kueue's leader with the template's
// requests, charged no quota ([KueueWorkload.quotaCount]), reserved on its
// host with no requests ([KueueWorkload.nodeRequests]), written with count
// 0 ([writeAdmitted]) and read back at count 1 from its one-pod
// assignment ([KueueWorkload.readAdmission]).

// phantomSets are the spec.podSets indexes of w's sets that Kueue places
// as a phantom leader: of count 0, in a PodSetGroup of two sets (reqs,
// every set's request in spec.podSets order) whose other set keeps pods
// beyond its reclaimable ones, and, while w holds quota, admitted at
// count 0 (one admitted with pods and shrunk to 0 since releases them, as
// any set of count 0), and asking for no slices (Kueue ignores a
// leader's slices; gangsim plans a set by its own, and leaves such a set
// of count 0, held as before). Both sets of a group of count 0 stay sets of count
// 0: Kueue's workers of no pods get no slice and its admission is refused
// ([admitter.unwritable]).
func phantomSets(w *kueue.Workload, reqs []topology.PodSetRequest) map[int]bool {
	var out map[int]bool
	ps := w.Spec.PodSets
	admitted := apimeta.IsStatusConditionTrue(w.Status.Conditions, kueue.WorkloadQuotaReserved) && w.Status.Admission != nil
	for i, r := range reqs {
		if r.Group == "" || ps[i].Count != 0 || len(r.Slices) > 0 {
			continue // a sliced one is not modelled: it stays of count 0
		}
		other := -1
		for j, q := range reqs {
			if j != i && q.Group == r.Group {
				other = j
			}
		}
		if other < 0 || ps[other].Count-reclaimableOf(w, string(ps[other].Name)) <= 0 {
			continue
		}
		if admitted && !admittedAtZero(w.Status.Admission, ps[i].Name) {
			continue
		}
		if out == nil {
			out = map[int]bool{}
		}
		out[i] = true
	}
	return out
}

// admittedAtZero reports whether adm admits pod set name as a phantom
// leader: with count 0 (a nil count stands for the spec's, 0 here) and a
// topologyAssignment with slices (its pod), or none (on quota alone). One
// written with no slices, as a set of count 0, is read as one; adm not
// listing the set is an error readAdmission reports.
func admittedAtZero(adm *kueue.Admission, name kueue.PodSetReference) bool {
	for _, a := range adm.PodSetAssignments {
		if a.Name == name {
			return (a.Count == nil || *a.Count == 0) && (a.TopologyAssignment == nil || len(a.TopologyAssignment.Slices) > 0)
		}
	}
	return true
}

// isPhantom reports whether pod set name of w is a phantom leader.
func (w *KueueWorkload) isPhantom(name string) bool { return w != nil && w.phantom[name] }

// PhantomLeader reports whether pod set name of w is of count 0 and
// placed as its PodSetGroup's one-pod phantom leader, as Kueue v0.17
// places it (kueuephantom.go): in Group.PodSets at count 1, admitted with
// count 0, charged no quota, its pod holding no requests on its host and
// never run. False for any other name.
func (w *KueueWorkload) PhantomLeader(name string) bool { return w.isPhantom(name) }

// nodeRequests are the requests pod set k of w (Group.PodSets' order),
// admitted, holds on its hosts per pod, as Kueue's TAS cache counts them
// ([KueueWorkload.admittedCharge]: its template's unless the Configuration
// excludes or transforms resources); none for a phantom leader, which
// Kueue's cache counts as a pod alone.
func (w *KueueWorkload) nodeRequests(k int) placement.ResourceList {
	if w.isPhantom(w.Group.PodSets[k].Name) {
		return nil
	}
	return w.admittedCharge(k)
}

// phantomUsage returns us, the reservations of a plan of w, with the
// phantom leaders' requests dropped ([KueueWorkload.nodeRequests]).
func (w *KueueWorkload) phantomUsage(us []placement.PodSetUsage) []placement.PodSetUsage {
	if w == nil || len(w.phantom) == 0 {
		return us
	}
	out := slices.Clone(us)
	for i := range out {
		if w.isPhantom(out[i].PodSet) {
			out[i].Requests = nil
		}
	}
	return out
}

// promotePhantoms moves the sets phantomSets names (by spec.podSets
// index) out of out.Zero into out.Group at count 1, each in its
// spec.podSets place, with its template tmpls[i], request reqs[i] and no
// minCount, and marks them in out.phantom.
func (w *KueueWorkload) promotePhantoms(ph map[int]bool, tmpls map[int]placement.Pod, reqs []topology.PodSetRequest, mins []int32) []int32 {
	if len(ph) == 0 {
		return mins
	}
	out := w
	out.phantom = map[string]bool{}
	var zero []KueueZeroPodSet
	for _, z := range out.Zero {
		if !ph[z.Index] {
			zero = append(zero, z)
			continue
		}
		// Its place among Group.PodSets: after every set with pods
		// before it in spec.podSets.
		k := 0
		for k < len(out.Group.PodSets) && out.specIndex(out.Group.PodSets[k].Name) < z.Index {
			k++
		}
		out.Group.PodSets = slices.Insert(out.Group.PodSets, k, placement.PodSet{Name: z.Name, Count: 1, Template: tmpls[z.Index]})
		out.Requests = slices.Insert(out.Requests, k, reqs[z.Index])
		mins = slices.Insert(mins, k, 0)
		out.phantom[z.Name] = true
	}
	out.Zero = zero
	return mins
}

// grouped reports whether pod set name of w belongs to a PodSetGroup.
func (w *KueueWorkload) grouped(name string) bool {
	if k := w.setIndex(name); k >= 0 {
		return w.Requests[k].Group != ""
	}
	z := slices.IndexFunc(w.Zero, func(z KueueZeroPodSet) bool { return z.Name == name })
	return z >= 0 && w.Zero[z].Request.Group != ""
}

// setIndex is the index in w.Group.PodSets (and w.Requests) of pod set
// name of w, -1 if none (a set of count 0 is not there: see w.Zero).
func (w *KueueWorkload) setIndex(name string) int {
	return slices.IndexFunc(w.Group.PodSets, func(ps placement.PodSet) bool { return ps.Name == name })
}

// specIndex is the spec.podSets index of pod set name of w, -1 if none.
func (w *KueueWorkload) specIndex(name string) int {
	return slices.IndexFunc(w.Obj.Spec.PodSets, func(ps kueue.PodSet) bool { return string(ps.Name) == name })
}

// releasePhantoms takes the phantom leaders' reservations out of the
// snapshot once admission is over: they count for Kueue's decisions (its
// TAS cache counts the phantom pod on its host), made by then, but no Pod
// object is ever made for one, so kube-scheduler's NodeResourcesFit,
// which counts the pods it sees, leaves the slot free (the tester brk8's
// finding 06).
func (a *admitter) releasePhantoms() error {
	for _, w := range a.queue {
		for _, set := range w.Group.PodSets {
			if w.isPhantom(set.Name) {
				if err := a.release(w, set.Name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
