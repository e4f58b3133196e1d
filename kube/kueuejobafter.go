package kube

import (
	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// kueueAdmitted reports whether w's Admitted condition is True.
func kueueAdmitted(w *kueue.Workload) bool {
	return apimeta.IsStatusConditionTrue(w.Status.Conditions, kueue.WorkloadAdmitted)
}

// kueueJobAfter returns obj as Kueue v0.17's Job reconciler leaves it
// once its Workload's state at the end of the run settles, for a Job
// Kueue manages (obj itself otherwise, and for a Job whose Workload is
// finished): with the Workload admitted, the Job is left as it is when
// it ran with that same admission in the input, else started
// ([KueueJobStarted]), after a stop when it was running with another; with
// the Workload evicted or not admitted, a Job that runs (or is not
// suspended: Kueue's webhook suspends a Job it manages at creation) is
// stopped ([KueueJobStopped]), and so is a suspended one whose Workload
// is evicted; a suspended Job of a pending Workload is left as it is. A
// start Kueue cannot make (a flavor the input lacks, a conflicting key)
// leaves the Job stopped, as Kueue leaves it suspended.
func (c *Cluster) kueueJobAfter(obj any) any {
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return obj
	}
	kj, ok := c.kueueJobs[placement.Key{Namespace: j.Namespace, Name: j.Name}]
	if !ok || kj.w == nil {
		return obj
	}
	w := kj.w.Obj
	if apimeta.IsStatusConditionTrue(w.Status.Conditions, kueue.WorkloadFinished) {
		return obj
	}
	suspended := kptr.Deref(j.Spec.Suspend, false)
	evicted := apimeta.IsStatusConditionTrue(w.Status.Conditions, kueue.WorkloadEvicted)
	if !kueueAdmitted(w) || evicted {
		if suspended && !evicted {
			return obj
		}
		return KueueJobStopped(j, w)
	}
	if kj.running && apiequality.Semantic.DeepEqual(kj.admission, w.Status.Admission) {
		return obj
	}
	base := j
	if !suspended {
		base = KueueJobStopped(j, w)
	}
	started, err := KueueJobStarted(base, w, c.kueueFlavor)
	if err != nil {
		return KueueJobStopped(j, w)
	}
	return started
}

// kueueFlavor is the input's ResourceFlavor of that name.
func (c *Cluster) kueueFlavor(name string) (*kueue.ResourceFlavor, bool) {
	for _, o := range c.objs {
		if f, ok := o.Obj.(*kueue.ResourceFlavor); ok && f.Name == name {
			return f, true
		}
	}
	return nil, false
}
