package kube

import (
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// runJobController does for each Job of the input what the Job controller
// does on its first sync (see [Load]): it finds what the Job already has,
// creates the Workload and PodGroup of a Job that never started, and the
// pods the Job lacks, as profile p's release does ([StampJobAs]), but for
// the Jobs of kj, which Kueue's Job integration manages. gate is
// the PodGroupPreemptionPolicy gate: with it on under v1.37, and always
// under v1.38 ([gang.Profile.AdmitsPreemptionPolicy]), a PodGroup it
// creates passes the Priority admission plugin's preemptionPolicy step
// too.
func (c *Cluster) runJobController(pcs *PriorityClasses, in *inputs, kj kueueJobs, p gang.Profile, gate bool) error {
	var owned []*corev1.Pod // the input's pods that some Job controls
	for _, p := range in.pods {
		if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "Job" {
			owned = append(owned, p)
		}
	}
	for i := range c.objs {
		o := &c.objs[i]
		j, ok := o.Obj.(*batchv1.Job)
		if !ok {
			continue
		}
		if _, kueue := kj[placement.Key{Namespace: j.Namespace, Name: j.Name}]; kueue {
			continue // a Kueue Job's pods are its Workload's
		}
		jo, err := StampJobAs(j, pcs, p)
		if err != nil {
			return o.Wrap(err)
		}
		var mine []*corev1.Pod
		for _, p := range owned {
			if p.Namespace == j.Namespace && controlledBy(p, j) {
				mine = append(mine, p)
			}
		}
		if jo.PodGroup != nil {
			if err := c.stampGroup(o, j, &jo, mine, pcs, p.AdmitsPreemptionPolicy(gate)); err != nil {
				return err
			}
		}
		jo.Pods, err = c.missingPods(o, j, jo.Pods, mine)
		if err != nil {
			return err
		}
		if err := c.admitCreated(jo.Pods); err != nil {
			return o.Wrap(err)
		}
		c.created = append(c.created, podsAsAny(jo.Pods)...)
		c.Jobs = append(c.Jobs, JobInfo{Key: placement.Key{Namespace: j.Namespace, Name: j.Name}, JobObjects: jo})
		in.pods = append(in.pods, jo.Pods...)
	}
	return nil
}

// admitPolicy sets the spec.preemptionPolicy of pg, the PodGroup Job j's
// controller creates, as the Priority admission plugin does with the
// PodGroupPreemptionPolicy gate on (admitPodGroup,
// plugin/pkg/admission/priority, v1.37.2), and always in v1.38.0-beta.0
// (same file and function, no gate): the policy of the class the
// Job's pod template names, of the global default class without one, and
// PreemptLowerPriority without either. Errors: as
// [PriorityClasses.Resolve] for the template's class.
func admitPolicy(pcs *PriorityClasses, j *batchv1.Job, pg *gang.PodGroup) error {
	t := &j.Spec.Template.Spec
	// The priority itself was checked when the PodGroup was stamped; nil
	// here lets Resolve take the default class's policy as admission
	// does for an object that names no class.
	_, policy, err := pcs.Resolve(jobObj(j.Namespace, j.Name), "spec.template.spec.priorityClassName", t.PriorityClassName, nil)
	if err != nil {
		return err
	}
	pg.Spec.PreemptionPolicy = policy
	return nil
}

// controlledBy reports whether obj's controller ownerReference names Job j
// (kind, name and UID, as metav1.IsControlledBy compares UIDs; a manifest
// without UIDs matches by name).
func controlledBy(obj metav1.Object, j *batchv1.Job) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.Kind == "Job" && strings.HasPrefix(ref.APIVersion, "batch/") && ref.Name == j.Name && ref.UID == j.UID
}

// newJob is the Job controller's test for a Job that never started
// (isNewJob): only such a Job gets a Workload and PodGroup created. It
// returns why not, or "".
func newJob(j *batchv1.Job, mine []*corev1.Pod) string {
	switch {
	case len(mine) > 0:
		return "the Job already has pods"
	case j.Status.StartTime != nil:
		return "the Job already started (status.startTime)"
	case j.Status.Succeeded != 0 || j.Status.Failed != 0:
		return "the Job already has finished pods (status.succeeded, status.failed)"
	}
	for _, cond := range j.Status.Conditions {
		if cond.Type == batchv1.JobSuspended {
			return "the Job was suspended (status.conditions Suspended)"
		}
	}
	return ""
}

// stampGroup records the Workload and PodGroup StampJob made for Job j:
// the input's own when the Job controls them, else new ones when the Job
// never started; a Job that started without them runs pod by pod. With
// admit (the release's admission sets the field) a new PodGroup passes
// admission's preemptionPolicy step ([admitPolicy]) with pcs.
func (c *Cluster) stampGroup(o *manifest.Object, j *batchv1.Job, jo *JobObjects, mine []*corev1.Pod, pcs *PriorityClasses, admit bool) error {
	k := jo.PodGroup.Key()
	wk := jo.Workload.Key()
	pgObj, hasPG := c.where[manifest.ObjectName("PodGroup", k.Namespace, k.Name)]
	wlObj, hasWL := c.where[manifest.ObjectName("Workload", wk.Namespace, wk.Name)]
	for _, e := range []struct {
		obj  *manifest.Object
		has  bool
		name string
	}{{pgObj, hasPG, podGroupObj(k.Namespace, k.Name)}, {wlObj, hasWL, objName("Workload", wk.Namespace, wk.Name)}} {
		if m, ok := metaOf(e.obj); e.has && (!ok || !controlledBy(m, j)) {
			return o.Wrap(placement.Errorf(placement.ErrDuplicate, jobObj(j.Namespace, j.Name), "spec", "the Job controller would create %s, which the input already has without the Job as its controller", e.name))
		}
	}
	if hasPG {
		// The Job's own, converted with the input (its Workload too, if
		// given); an elastic minCount reaches it.
		c.keepKueueConstraints(k, jo.PodGroup)
		c.syncMinCount(j, jo.PodGroup)
		return nil
	}
	if why := newJob(j, mine); why != "" {
		jo.Workload, jo.PodGroup, jo.V1beta1 = nil, nil, false
		jo.Reason = why + ", so the Job controller creates no Workload or PodGroup for it"
		jo.Pods = jobPods(j, nil, false)
		return nil
	}
	if admit {
		if err := admitPolicy(pcs, j, jo.PodGroup); err != nil {
			return o.Wrap(err)
		}
	}
	if !hasWL {
		c.Workloads = append(c.Workloads, jo.Workload)
	}
	c.PodGroups = append(c.PodGroups, jo.PodGroup)
	if jo.V1beta1 {
		api := PodGroupV1beta1(jo.PodGroup)
		c.groups[k] = apiGroup{v1beta1: api}
		if !hasWL {
			c.created = append(c.created, WorkloadV1beta1(jo.Workload))
		}
		c.created = append(c.created, api)
	} else {
		api := PodGroupV1alpha2(jo.PodGroup)
		c.groups[k] = apiGroup{v1alpha2: api}
		if !hasWL {
			c.created = append(c.created, WorkloadV1alpha2(jo.Workload))
		}
		c.created = append(c.created, api)
	}
	return nil
}

// metaOf returns the object metadata of an input object.
func metaOf(o *manifest.Object) (metav1.Object, bool) {
	if o == nil {
		return nil, false
	}
	m, ok := o.Obj.(metav1.Object)
	return m, ok
}

// missingPods returns the pods of want that Job j does not have yet: an
// Indexed Job lacks the completion indexes none of its pods carries; any
// other Job lacks as many pods as want has beyond its active ones. A pod
// of the input with a wanted name that the Job does not control is an
// error.
func (c *Cluster) missingPods(o *manifest.Object, j *batchv1.Job, want, mine []*corev1.Pod) ([]*corev1.Pod, error) {
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	have := map[string]bool{}
	active := 0
	for _, p := range mine {
		have[p.Name] = true
		if indexed {
			have["index "+p.Labels[LabelCompletionIndex]] = true
		}
		if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			active++
		}
	}
	var out []*corev1.Pod
	for _, p := range want {
		if have[p.Name] || (indexed && have["index "+p.Labels[LabelCompletionIndex]]) {
			continue
		}
		if _, dup := c.where[manifest.ObjectName("Pod", p.Namespace, p.Name)]; dup {
			return nil, o.Wrap(placement.Errorf(placement.ErrDuplicate, jobObj(j.Namespace, j.Name), "spec", "the Job controller would create %s, which the input already has without the Job as its controller", podObj(p.Namespace, p.Name)))
		}
		if !indexed && len(out)+active >= len(want) {
			break
		}
		out = append(out, p)
	}
	return out, nil
}

func podsAsAny(pods []*corev1.Pod) []any {
	out := make([]any, len(pods))
	for i, p := range pods {
		out[i] = p
	}
	return out
}

// Recreate does what the Job controller does when a pod of its Job was
// evicted (preemption deletes it): it creates the pod again, pending, so
// that a run ends where a cluster would. The new pod takes the evicted
// one's name (the controller would draw a new suffix) and spec, without
// spec.nodeName and status, created at now. It reports false, changing
// nothing, unless pod k was evicted ([Cluster.Evict]) and a Job of the
// input that is not suspended controls it.
func (c *Cluster) Recreate(k placement.Key, now time.Time) bool {
	p, ok := c.pods[k]
	if !ok || !c.evicted[k] {
		return false
	}
	ref := metav1.GetControllerOf(p)
	if ref == nil || ref.Kind != "Job" {
		return false
	}
	o, ok := c.where[manifest.ObjectName("Job", p.Namespace, ref.Name)]
	if !ok {
		return false
	}
	j, isJob := o.Obj.(*batchv1.Job)
	if !isJob || !controlledBy(p, j) || (j.Spec.Suspend != nil && *j.Spec.Suspend) {
		return false
	}
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{}
	p.CreationTimestamp = metav1.NewTime(now)
	delete(c.evicted, k)
	return true
}
