package kube

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Labels and annotations the Job controller puts on the pods it creates.
const (
	LabelJobName         = "batch.kubernetes.io/job-name"
	LabelCompletionIndex = "batch.kubernetes.io/job-completion-index"
)

// MaxJobParallelism is the largest spec.parallelism [StampJob] accepts:
// the API server's limit for a Job of completionMode Indexed
// (batch/v1 validation, maxParallelismForIndexedJob), taken here for every
// Job, since StampJob creates all the pods a Job starts at once.
const MaxJobParallelism = 100_000

// JobObjects is what the Job controller creates for a Job: with workload-
// aware scheduling (gate WorkloadWithJob, KEP-5547), a Workload and a
// PodGroup that own the Job's pods; always, the pods themselves.
type JobObjects struct {
	// Workload and PodGroup are nil when the Job schedules pod by pod.
	Workload *gang.Workload
	PodGroup *gang.PodGroup
	// V1beta1 is set when the objects come from the Job's own
	// spec.scheduling (Kubernetes v1.37), so they are written in
	// scheduling.k8s.io/v1beta1; otherwise v1alpha2 (v1.36).
	V1beta1 bool
	// Reason says why the Job schedules pod by pod.
	Reason string
	// Pods are the pods the controller starts: min(parallelism,
	// completions) of them (none for a suspended Job), named
	// <job>-<index>, with the template's labels plus the job-name and
	// completion-index labels, owned by the Job, and with
	// spec.schedulingGroup naming the PodGroup when there is one. Apart
	// from their names and labels the pods share the template's objects
	// (spec slices and maps, annotations, owner references): treat them
	// as read-only, but for spec.nodeName, which is each pod's own.
	Pods []*corev1.Pod
}

func jobObj(namespace, name string) string {
	return fmt.Sprintf("Job %q", placement.Key{Namespace: namespace, Name: name}.String())
}

// StampJob does what the Job controller of v1.36 (KEP-5547 alpha, with
// v1.37's spec.scheduling honoured) does for a new Job (batch/v1); it is
// [StampJobAs] for [gang.ProfileV136]:
//
//   - a Job with spec.scheduling (v1.37) gets a Workload and PodGroup with
//     that policy (a gang's minCount defaults to parallelism), topology
//     constraints, disruption mode and resource claims;
//   - otherwise a Job that [gang.JobEligible] accepts (v1.36: parallelism
//     above 1, completionMode Indexed, completions equal to parallelism,
//     no schedulingGroup in the pod template) gets a gang Workload and
//     PodGroup with minCount = parallelism ([gang.StampJob]);
//   - every other Job schedules pod by pod.
//
// Names are deterministic ([gang.StampJob]'s). The template's priority
// class is resolved through pcs into the group's priority. A stamped group
// also takes the topology constraints of the Kueue annotations on the pod
// template, [KueueRequiredTopology] and [KueuePreferredTopology]
// (preferred: a gangsched extension, see [gang.TopologyConstraint]): both
// may be set (e.g. required block, preferred rack), and a key named both
// ways, or also by spec.scheduling, is one required constraint.
//
// Errors (a [*placement.FieldError]): a nil Job; an empty name; negative
// parallelism or completions; parallelism above [MaxJobParallelism]; an
// unknown completionMode; a Kueue topology annotation whose value is not a
// label key (checked on every Job); spec.scheduling together with a template
// schedulingGroup, or with a policy that sets both or neither of gang and
// basic, or a gang minCount below 1; an unknown priority class; and what
// [gang.PodGroup.Validate] reports for the stamped group.
func StampJob(j *batchv1.Job, pcs *PriorityClasses) (JobObjects, error) {
	return StampJobAs(j, pcs, gang.ProfileV136)
}

// StampJobAs is [StampJob] as the Job controller of profile p's release
// does it (pkg/controller/job, getManagementMode and buildWorkloadItem):
// v1.36 ([gang.ProfileV136]) as StampJob; v1.37 and later
// ([gang.ProfileV137], [gang.ProfileV138], and "", the newest) give every
// Job a Workload and PodGroup in scheduling.k8s.io/v1beta1 (JobObjects.V1beta1),
// with the policy of its spec.scheduling or, without one, a basic policy
// (whatever its parallelism and completion mode), unless its pod template
// sets spec.schedulingGroup or another object controls the Job (a
// controller ownerReference: a JobSet, a CronJob, which manages the
// Job's scheduling objects itself). Whenever the objects are v1beta1 (v1.37's
// controller, or spec.scheduling under any profile), the pods also name the
// PodGroup in a second, non-controller ownerReference, as v1.37's
// controller writes them. Errors: as StampJob's.
func StampJobAs(j *batchv1.Job, pcs *PriorityClasses, p gang.Profile) (JobObjects, error) {
	if j == nil {
		return JobObjects{}, placement.Errorf(placement.ErrInvalid, "Job", "metadata", "is nil")
	}
	obj := jobObj(j.Namespace, j.Name)
	s := &j.Spec
	// The pods are created up front, one object each: a manifest must not
	// be able to ask for billions of them.
	if s.Parallelism != nil && *s.Parallelism > MaxJobParallelism {
		return JobObjects{}, placement.Errorf(placement.ErrInvalid, obj, "spec.parallelism", "%d is above %d", *s.Parallelism, MaxJobParallelism)
	}
	tmpl := &s.Template.Spec
	kueue, err := kueueTopologies(obj, s.Template.Annotations)
	if err != nil {
		return JobObjects{}, err
	}
	pods := int32(1)
	if s.Parallelism != nil {
		pods = *s.Parallelism
	}
	sliced, err := kueueSlices(obj, s.Template.Annotations, pods)
	if err != nil {
		return JobObjects{}, err
	}
	kueue = append(kueue, sliced...)
	gj := gang.Job{
		ObjectMeta: gangMeta(&j.ObjectMeta),
		UID:        string(j.UID),
		Spec: gang.JobSpec{
			Parallelism: copyInt32(s.Parallelism),
			Completions: copyInt32(s.Completions),
			Template:    gang.PodTemplateSpec{PriorityClassName: tmpl.PriorityClassName, Priority: copyInt32(tmpl.Priority)},
		},
	}
	if s.CompletionMode != nil {
		gj.Spec.CompletionMode = gang.CompletionMode(*s.CompletionMode)
	}
	if sg := tmpl.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		gj.Spec.Template.SchedulingGroup = &gang.PodSchedulingGroup{PodGroupName: *sg.PodGroupName}
	}
	var out JobObjects
	v137 := p != gang.ProfileV136
	switch ctl := metav1.GetControllerOf(j); {
	case s.Scheduling != nil && gj.Spec.Template.SchedulingGroup != nil:
		err = placement.Errorf(placement.ErrInvalid, obj, "spec.template.spec.schedulingGroup", "must not be set together with spec.scheduling")
	case v137 && gj.Spec.Template.SchedulingGroup != nil:
		out.Reason = "spec.template.spec.schedulingGroup is already set"
	case v137 && ctl != nil:
		out.Reason = fmt.Sprintf("%s %q controls the Job and manages its scheduling objects (a PodGroup it delegates is not simulated)", ctl.Kind, ctl.Name)
	case s.Scheduling != nil || v137:
		err = stampScheduling(j, &gj, &out)
	default:
		var st gang.JobStamp
		var ok bool
		st, ok, err = gang.StampJob(&gj)
		if err == nil && ok {
			out.Workload, out.PodGroup = st.Workload, st.PodGroup
		} else if err == nil {
			_, out.Reason = gang.JobEligible(&gj)
		}
	}
	if err != nil {
		return JobObjects{}, err
	}
	if out.PodGroup != nil && len(kueue) > 0 {
		addTopologies(kueue, &out)
	}
	if out.PodGroup != nil {
		// The stamped PodGroup passes the Priority admission plugin, as
		// the pods do: the pod template's class, else the global default.
		prio, err := objectPriority(pcs, obj, "spec.template.spec.", tmpl.PriorityClassName, tmpl.Priority)
		if err != nil {
			return JobObjects{}, err
		}
		if prio != nil {
			out.PodGroup.Spec.Priority = prio
			out.Workload.Spec.PodGroupTemplates[0].Priority = copyInt32(prio)
		}
	}
	out.Pods = jobPods(j, out.PodGroup, out.V1beta1)
	return out, nil
}

// stampScheduling builds the Workload and PodGroup of a Job from its
// spec.scheduling, a basic policy when it has none (v1.37's default). The
// names and owner references are gang.StampJob's: it is asked to stamp
// the Job as if it were eligible by the v1.36 rules, and the template is
// then replaced by the Job's own configuration.
func stampScheduling(j *batchv1.Job, gj *gang.Job, out *JobObjects) error {
	obj := jobObj(j.Namespace, j.Name)
	sc := j.Spec.Scheduling
	if sc == nil {
		sc = &batchv1.JobSchedulingConfiguration{}
	}
	parallelism := int32(1)
	if j.Spec.Parallelism != nil {
		parallelism = *j.Spec.Parallelism
	}
	t := gang.PodGroupTemplate{
		Name:              gang.JobTemplateName,
		PriorityClassName: gj.Spec.Template.PriorityClassName,
		Priority:          copyInt32(gj.Spec.Template.Priority),
	}
	switch p := sc.SchedulingPolicy; {
	case p == nil || (p.Basic != nil && p.Gang == nil):
		t.SchedulingPolicy.Basic = &gang.BasicSchedulingPolicy{}
	case p.Gang != nil && p.Basic == nil:
		minCount := max(1, parallelism) // a suspended Job's parallelism may be 0
		if p.Gang.MinCount != nil {
			minCount = *p.Gang.MinCount
		}
		t.SchedulingPolicy.Gang = &gang.GangSchedulingPolicy{MinCount: minCount}
	default:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.scheduling.schedulingPolicy", "must set exactly one of gang and basic")
	}
	if c := sc.SchedulingConstraints; c != nil {
		for _, tc := range c.Topology {
			t.SchedulingConstraints.Topology = append(t.SchedulingConstraints.Topology, gang.TopologyConstraint{Key: tc.Key})
		}
	}
	if dm := sc.DisruptionMode; dm != nil {
		switch {
		case dm.Single != nil && dm.All == nil:
			t.DisruptionMode = gang.DisruptionModePod
		case dm.All != nil && dm.Single == nil:
			t.DisruptionMode = gang.DisruptionModePodGroup
		default:
			return placement.Errorf(placement.ErrInvalid, obj, "spec.scheduling.disruptionMode", "must set exactly one of single and all")
		}
	}
	for _, c := range sc.ResourceClaims {
		t.ResourceClaims = append(t.ResourceClaims, gang.PodGroupResourceClaim{Name: c.Name, ResourceClaimName: deref(c.ResourceClaimName), ResourceClaimTemplateName: deref(c.ResourceClaimTemplateName)})
	}
	eligible := *gj
	two := int32(2)
	eligible.Spec.Parallelism, eligible.Spec.Completions = &two, &two
	eligible.Spec.CompletionMode = gang.CompletionModeIndexed
	st, _, err := gang.StampJob(&eligible)
	if err != nil {
		return err
	}
	st.Workload.Spec.PodGroupTemplates = []gang.PodGroupTemplate{t}
	if err := st.Workload.Validate(); err != nil {
		return err
	}
	pg, err := gang.NewPodGroupFromTemplate(st.Workload, t.Name, st.PodGroup.Name, gang.StampOptions{})
	if err != nil {
		return err
	}
	// The Job as controller, then the Workload, which is a v1beta1 one here.
	pg.OwnerReferences = slices.Clone(st.PodGroup.OwnerReferences)
	for i := range pg.OwnerReferences {
		if pg.OwnerReferences[i].Kind == "Workload" {
			pg.OwnerReferences[i].APIVersion = schedulingv1beta1.SchemeGroupVersion.String()
		}
	}
	out.Workload, out.PodGroup, out.V1beta1 = st.Workload, pg, true
	return nil
}

// jobPodCount is how many pods [StampJob] creates for j: min(parallelism,
// completions), parallelism defaulting to 1, none when suspended. Values
// StampJob rejects count as 0 here.
func jobPodCount(j *batchv1.Job) int {
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		return 0
	}
	n := int32(1)
	if j.Spec.Parallelism != nil {
		n = *j.Spec.Parallelism
	}
	if c := j.Spec.Completions; c != nil && *c < n {
		n = *c
	}
	if n < 0 || n > MaxJobParallelism {
		return 0
	}
	return int(n)
}

// jobPods creates the pods the Job controller starts first. They differ
// only in name and labels (the completion index): the rest — spec,
// annotations, owner references — is the template's, shared by every pod
// of the Job and read-only, so that a Job of 100,000 pods costs 100,000
// small objects rather than 100,000 copies of its PodSpec. Only
// spec.nodeName and status are each pod's own to write (fields of its
// values). With linkGroup (v1.37's controller) a pod also names its
// PodGroup in a non-controller ownerReference.
func jobPods(j *batchv1.Job, pg *gang.PodGroup, linkGroup bool) []*corev1.Pod {
	n := jobPodCount(j)
	if n == 0 {
		return nil
	}
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	controller := true
	owners := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: &controller}}
	spec := j.Spec.Template.Spec // shallow: its slices and maps are shared
	if pg != nil {
		name := pg.Name
		spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &name}
		if linkGroup {
			owners = append(owners, metav1.OwnerReference{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "PodGroup", Name: pg.Name, UID: types.UID(pg.UID)})
		}
	}
	// One allocation for all the pods' structs.
	objs := make([]corev1.Pod, n)
	pods := make([]*corev1.Pod, n)
	for i := range n {
		labels := make(map[string]string, len(j.Spec.Template.Labels)+2)
		maps.Copy(labels, j.Spec.Template.Labels)
		labels[LabelJobName] = j.Name
		index := strconv.Itoa(i)
		if indexed {
			labels[LabelCompletionIndex] = index
		}
		objs[i] = corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Namespace:         j.Namespace,
				Name:              j.Name + "-" + index,
				Labels:            labels,
				Annotations:       j.Spec.Template.Annotations,
				CreationTimestamp: j.CreationTimestamp,
				OwnerReferences:   owners,
			},
			Spec: spec,
		}
		pods[i] = &objs[i]
	}
	return pods
}
