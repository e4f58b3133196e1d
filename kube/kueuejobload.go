package kube

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// kueueLabelPodSet, on a pod Kueue let run, names its Workload's pod set.
const kueueLabelPodSet = "kueue.x-k8s.io/podset"

// kueueJob is a Job of the input that Kueue's Job integration manages,
// with its Workload.
type kueueJob struct {
	uid types.UID
	w   *KueueWorkload
	// running: the input's Job was not suspended and its Workload was
	// admitted (admission, a copy, is that admission): Kueue leaves such
	// a Job as it is while the Workload keeps that admission.
	running   bool
	admission *kueue.Admission
}

// kueueJobs are the Kueue Jobs by namespace and name.
type kueueJobs map[placement.Key]kueueJob

// readKueueJobs finds the Jobs of the input that are Kueue's (see [Load]):
// one that owns a Kueue Workload of the input keeps it; one that carries
// [KueueQueueNameLabel] without, and has no active pods (status.active),
// gets the Workload Kueue builds for it
// ([KueueJobWorkload]), converted and added to c.KueueWorkloads and to
// the objects written back. wpcs are the input's WorkloadPriorityClasses.
func (c *Cluster) readKueueJobs(pcs *PriorityClasses, wpcs map[string]int32, opts LoadOptions) (kueueJobs, error) {
	given := c.KueueWorkloads
	kj := kueueJobs{}
	for i := range c.objs {
		o := &c.objs[i]
		j, ok := o.Obj.(*batchv1.Job)
		if !ok {
			continue
		}
		k := placement.Key{Namespace: j.Namespace, Name: j.Name}
		if w := ownedKueueWorkload(given, j); w != nil {
			w.Job = k
			running := !kptr.Deref(j.Spec.Suspend, false) && kueueAdmitted(w.Obj)
			kj[k] = kueueJob{uid: j.UID, w: w, running: running, admission: w.Obj.Status.Admission.DeepCopy()}
			continue
		}
		if !kueueManaged(j) || j.Status.Active != 0 {
			// Kueue builds a Workload for a Job only once it has no
			// active pods (handleJobWithNoWorkload): until then the Job
			// runs as the Job controller runs it.
			continue
		}
		obj := jobObj(j.Namespace, j.Name)
		if name, ok := j.Labels[KueuePrebuiltWorkloadLabel]; ok {
			return nil, o.Wrap(placement.Errorf(placement.ErrNotFound, obj, "metadata.labels["+KueuePrebuiltWorkloadLabel+"]", "no Kueue Workload %q in the input: Kueue keeps the Job suspended until it exists", name))
		}
		api, err := KueueJobWorkload(j, KueueJobOptions{PriorityClasses: pcs, WorkloadPriorityClasses: wpcs, MultiLayerTopology: opts.KueueMultiLayerTopology})
		if err != nil {
			return nil, o.Wrap(err)
		}
		for _, w := range c.KueueWorkloads {
			if w.Obj.Namespace == api.Namespace && w.Obj.Name == api.Name {
				return nil, o.Wrap(placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "Kueue would create %s for the Job, which the input already has without the Job as its owner", kueueWorkloadObj(api.Namespace, api.Name)))
			}
		}
		w, err := ConvertKueueWorkloadWith(api, pcs, KueueReadOptions{MultiLayerTopology: opts.KueueMultiLayerTopology,
			Admission: c.admission, ExcludeResourcePrefixes: c.kueueExcluded, Transformations: c.kueueTransforms})
		if err != nil {
			return nil, o.Wrap(asJobError(obj, err))
		}
		w.Job = k
		c.KueueWorkloads = append(c.KueueWorkloads, w)
		c.created = append(c.created, api)
		// Admission's errors about the Workload are located at its Job.
		c.where[kueueWorkloadObj(api.Namespace, api.Name)] = o
		kj[k] = kueueJob{uid: j.UID, w: w}
	}
	return kj, nil
}

// ownedKueueWorkload returns the Workload of ws that Job j owns, as
// Kueue's Job integration finds it: a controller ownerReference to the
// Job (batch, kind Job, its name, and its UID when both have one), the
// [KueueJobUIDLabel] of the Job's UID, or the name of its
// [KueuePrebuiltWorkloadLabel]; nil for none.
func ownedKueueWorkload(ws []*KueueWorkload, j *batchv1.Job) *KueueWorkload {
	prebuilt, hasPrebuilt := j.Labels[KueuePrebuiltWorkloadLabel]
	for _, w := range ws {
		m := w.Obj
		if m.Namespace != j.Namespace {
			continue
		}
		if (hasPrebuilt && m.Name == prebuilt) || (j.UID != "" && m.Labels[KueueJobUIDLabel] == string(j.UID)) {
			return w
		}
		for _, r := range m.OwnerReferences {
			if r.Controller != nil && *r.Controller && refersToJob(r.APIVersion, r.Kind, r.Name, r.UID, j) {
				return w
			}
		}
	}
	return nil
}

// refersToJob reports whether an ownerReference names Job j: group batch,
// kind Job, its name, and its UID when both have one.
func refersToJob(apiVersion, kind, name string, uid types.UID, j *batchv1.Job) bool {
	return strings.HasPrefix(apiVersion, "batch/") && kind == "Job" && name == j.Name && (uid == "" || j.UID == "" || uid == j.UID)
}

// dropPods returns pods less those of Kueue's Jobs that Kueue does not
// count beside their Workload: a pod owned by such a Job (an
// ownerReference to it) is kept only when the Workload holds quota and
// the pod's pod set (its kueue.x-k8s.io/podset label, "main" without)
// was admitted without a topologyAssignment, in a flavor without a
// Topology: its pods run where kube-scheduler puts them and Kueue's TAS
// counts them as any other pod. A pod of a set that holds a
// topologyAssignment is charged through that assignment alone (Kueue's
// TAS cache; its non-TAS usage controller skips TAS pods), and one of a
// Workload that holds no quota is being deleted: Kueue stops (suspends)
// a Job whose Workload is not admitted.
//
// A pod whose kueue.x-k8s.io/workload annotation (Kueue writes it on the
// pods of a Workload it admits with a topologyAssignment) names a Kueue
// Workload of ws is its Workload's so too, with or without its Job.
func (kj kueueJobs) dropPods(pods []*corev1.Pod, ws []*KueueWorkload) []*corev1.Pod {
	if len(ws) == 0 {
		return pods
	}
	byKey := make(map[placement.Key]*KueueWorkload, len(ws))
	for _, w := range ws {
		byKey[w.Key()] = w
	}
	out := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		if w := kj.ownerOf(p, byKey); w != nil && !w.runsPod(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// ownerOf returns the Workload of pod p: the one its
// kueue.x-k8s.io/workload annotation names in byKey, or that of the Kueue
// Job that owns it; nil for none.
func (kj kueueJobs) ownerOf(p *corev1.Pod, byKey map[placement.Key]*KueueWorkload) *KueueWorkload {
	if name, ok := p.Annotations[kueue.WorkloadAnnotation]; ok {
		if w, ok := byKey[placement.Key{Namespace: p.Namespace, Name: name}]; ok {
			return w
		}
	}
	for _, r := range p.OwnerReferences {
		j, ok := kj[placement.Key{Namespace: p.Namespace, Name: r.Name}]
		if ok && strings.HasPrefix(r.APIVersion, "batch/") && r.Kind == "Job" && (r.UID == "" || j.uid == "" || r.UID == j.uid) {
			return j.w
		}
	}
	return nil
}

// runsPod reports whether pod p of w's Job runs beside w's admission
// rather than in it (see [kueueJobs.dropPods]).
func (w *KueueWorkload) runsPod(p *corev1.Pod) bool {
	if !w.Admitted {
		return false
	}
	set := p.Labels[kueueLabelPodSet]
	if set == "" {
		set = kueueJobPodSet
	}
	for i, ps := range w.Group.PodSets {
		if ps.Name == set {
			return i < len(w.QuotaOnly) && w.QuotaOnly[i]
		}
	}
	return false
}

// addWorkloadPriorityClass records a WorkloadPriorityClass's value in
// wpcs; a second of one name is refused.
func addWorkloadPriorityClass(wpcs map[string]int32, pc *kueue.WorkloadPriorityClass) error {
	if _, dup := wpcs[pc.Name]; dup {
		return placement.Errorf(placement.ErrDuplicate, fmt.Sprintf("WorkloadPriorityClass %q", pc.Name), "metadata.name", "appears twice")
	}
	wpcs[pc.Name] = pc.Value
	return nil
}
