package kube

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Labels, annotations and the scheduling gate Kueue v0.17's job
// framework writes on the pod template of a Job it starts
// (pkg/controller/jobframework getPodSetsInfoFromStatus, pkg/podset
// FromAssignment; AssignQueueLabelsForPods and TopologyAwareScheduling
// are on by default).
const (
	// KueueJobCompletionsEqualParallelism, a Job annotation ("true" as
	// strconv.ParseBool reads it), has Kueue set spec.completions with
	// spec.parallelism when it changes the count.
	KueueJobCompletionsEqualParallelism = "kueue.x-k8s.io/job-completions-equal-parallelism"
	// KueueWorkloadAnnotation, on a started Job's template, names its
	// Workload.
	KueueWorkloadAnnotation = "kueue.x-k8s.io/workload"
	// KueueTopologyGate is the scheduling gate Kueue puts on the template
	// of a pod set admitted with a topologyAssignment; its TAS
	// controller lifts it pod by pod as it assigns each pod its node.
	KueueTopologyGate = "kueue.x-k8s.io/topology"
	// kueueLocalQueueLabel and kueueClusterQueueLabel, on a started
	// Job's template, name its LocalQueue and ClusterQueue.
	kueueLocalQueueLabel   = "kueue.x-k8s.io/local-queue-name"
	kueueClusterQueueLabel = "kueue.x-k8s.io/cluster-queue-name"
	// kueueUnconstrainedAnnotation is the topology annotation Kueue
	// writes on a set admitted by topology without asking for one.
	kueueUnconstrainedAnnotation = "kueue.x-k8s.io/podset-unconstrained-topology"
)

// kueueJobManagedLabels are the Job controller's template labels that
// Kueue keeps from the Job when it restores a stopped Job's template.
var kueueJobManagedLabels = []string{"job-name", "controller-uid", batchv1.JobNameLabel, batchv1.ControllerUidLabel}

// KueueJobStarted returns a copy of Job j as Kueue v0.17's Job
// reconciler starts it once its Workload w (built for j, one pod set)
// is admitted (jobframework startJob, jobs/job RunWithPodSetsInfo):
// spec.suspend false; with the annotation [KueueJobMinParallelism],
// spec.parallelism at the admitted count (and spec.completions too with
// [KueueJobCompletionsEqualParallelism] true); and merged into the pod
// template: the label kueue.x-k8s.io/podset (the set's name), the
// LocalQueue and ClusterQueue labels (the latter when the name is a DNS
// label), the annotation [KueueWorkloadAnnotation]; for a set with a
// topologyAssignment the gate [KueueTopologyGate] and, without a
// topology request, the unconstrained annotation; each assigned
// flavor's nodeLabels into the nodeSelector and its tolerations
// appended (flavors in the order of their resource names, where Kueue
// walks a Go map); then each admission check's podSetUpdate for the set
// (labels, annotations, nodeSelector, tolerations). Tolerations and
// gates already there are not added twice.
//
// flavor looks a ResourceFlavor up by name. Errors: w without an
// admission or without one pod set, a flavor flavor does not know
// (Kueue retries and the Job stays suspended), and a key given two
// values (the template against the admission, or a check against the
// rest), which Kueue reports as a permanent failure and finishes the
// Workload with; each names the Job and the field.
func KueueJobStarted(j *batchv1.Job, w *kueue.Workload, flavor func(string) (*kueue.ResourceFlavor, bool)) (*batchv1.Job, error) {
	obj := jobObj(j.Namespace, j.Name)
	if w.Status.Admission == nil || len(w.Status.Admission.PodSetAssignments) != 1 || len(w.Spec.PodSets) != 1 {
		return nil, fmt.Errorf("%s: Kueue Workload %s/%s: want an admission of one pod set", obj, w.Namespace, w.Name)
	}
	psa, ps := &w.Status.Admission.PodSetAssignments[0], &w.Spec.PodSets[0]
	info := kueuePodSetInfo{
		labels:       map[string]string{kueueLabelPodSet: string(psa.Name), kueueLocalQueueLabel: string(w.Spec.QueueName)},
		annotations:  map[string]string{KueueWorkloadAnnotation: w.Name},
		nodeSelector: map[string]string{},
	}
	if cq := string(w.Status.Admission.ClusterQueue); len(validation.IsDNS1123Label(cq)) == 0 {
		info.labels[kueueClusterQueueLabel] = cq
	}
	if psa.TopologyAssignment != nil {
		if tr := ps.TopologyRequest; tr == nil || (tr.Required == nil && tr.Preferred == nil && tr.Unconstrained == nil) {
			info.annotations[kueueUnconstrainedAnnotation] = "true"
		}
		info.gates = []corev1.PodSchedulingGate{{Name: KueueTopologyGate}}
	}
	var names []string
	for _, r := range slices.Sorted(maps.Keys(psa.Flavors)) {
		if n := string(psa.Flavors[r]); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range names {
		f, ok := flavor(n)
		if !ok {
			return nil, fmt.Errorf("%s: Kueue Workload %s/%s: status.admission names ResourceFlavor %q, which the input lacks", obj, w.Namespace, w.Name, n)
		}
		maps.Copy(info.nodeSelector, f.Spec.NodeLabels)
		info.tolerations = append(info.tolerations, f.Spec.Tolerations...)
	}
	for _, ac := range w.Status.AdmissionChecks {
		for _, u := range ac.PodSetUpdates {
			if u.Name != psa.Name {
				continue
			}
			upd := kueuePodSetInfo{labels: u.Labels, annotations: u.Annotations, nodeSelector: u.NodeSelector, tolerations: u.Tolerations}
			if err := info.merge(upd); err != nil {
				return nil, fmt.Errorf("%s: admission check %q: %w", obj, ac.Name, err)
			}
			break
		}
	}
	out := j.DeepCopy()
	out.Spec.Suspend = kptr.To(false)
	if kueueJobPartial(j) {
		out.Spec.Parallelism = kptr.To(kptr.Deref(psa.Count, ps.Count))
		if kueueJobSyncCompletions(j) {
			out.Spec.Completions = kptr.To(*out.Spec.Parallelism)
		}
	}
	t := &out.Spec.Template
	tmpl := kueuePodSetInfo{labels: t.Labels, annotations: t.Annotations, nodeSelector: t.Spec.NodeSelector, tolerations: t.Spec.Tolerations, gates: t.Spec.SchedulingGates}
	if err := tmpl.merge(info); err != nil {
		return nil, fmt.Errorf("%s: spec.template: %w", obj, err)
	}
	t.Labels, t.Annotations, t.Spec.NodeSelector, t.Spec.Tolerations, t.Spec.SchedulingGates = tmpl.labels, tmpl.annotations, tmpl.nodeSelector, tmpl.tolerations, tmpl.gates
	return out, nil
}

// KueueJobStopped returns a copy of Job j as Kueue v0.17's Job
// reconciler stops it when its Workload w is evicted or not admitted
// (jobs/job Stop and RestorePodSetsInfo): spec.suspend true,
// status.startTime cleared, and the pod template's labels (but the Job
// controller's own), annotations, nodeSelector, tolerations and
// scheduling gates set back to those of w's pod set, as is, with
// [KueueJobMinParallelism], spec.parallelism to its count (and
// spec.completions with [KueueJobCompletionsEqualParallelism] true).
// A Workload without one pod set restores nothing but the suspension.
func KueueJobStopped(j *batchv1.Job, w *kueue.Workload) *batchv1.Job {
	out := j.DeepCopy()
	out.Spec.Suspend = kptr.To(true)
	out.Status.StartTime = nil
	if len(w.Spec.PodSets) != 1 {
		return out
	}
	ps := &w.Spec.PodSets[0]
	if kueueJobPartial(j) {
		out.Spec.Parallelism = kptr.To(ps.Count)
		if kueueJobSyncCompletions(j) {
			out.Spec.Completions = kptr.To(ps.Count)
		}
	}
	t, src := &out.Spec.Template, &ps.Template
	labels := maps.Clone(src.Labels)
	for _, l := range kueueJobManagedLabels {
		if v, ok := t.Labels[l]; ok {
			if labels == nil {
				labels = map[string]string{}
			}
			labels[l] = v
		}
	}
	t.Labels, t.Annotations = labels, maps.Clone(src.Annotations)
	t.Spec.NodeSelector = maps.Clone(src.Spec.NodeSelector)
	t.Spec.Tolerations = slices.Clone(src.Spec.Tolerations)
	t.Spec.SchedulingGates = slices.Clone(src.Spec.SchedulingGates)
	return out
}

// kueueJobPartial reports whether Kueue changes j's parallelism with its
// admitted count: its [KueueJobMinParallelism] annotation is an integer.
func kueueJobPartial(j *batchv1.Job) bool {
	_, err := strconv.Atoi(j.Annotations[KueueJobMinParallelism])
	return err == nil
}

// kueueJobSyncCompletions reports whether j's
// [KueueJobCompletionsEqualParallelism] annotation reads true.
func kueueJobSyncCompletions(j *batchv1.Job) bool {
	b, err := strconv.ParseBool(j.Annotations[KueueJobCompletionsEqualParallelism])
	return err == nil && b
}

// kueuePodSetInfo is what Kueue merges into a pod template (its
// podset.PodSetInfo less the count).
type kueuePodSetInfo struct {
	labels, annotations, nodeSelector map[string]string
	tolerations                       []corev1.Toleration
	gates                             []corev1.PodSchedulingGate
}

// merge adds o to p as Kueue's PodSetInfo.Merge does: a key of o's maps
// that p has with another value is an error naming the field, and
// nothing is changed then; tolerations and gates p has are not added
// again.
func (p *kueuePodSetInfo) merge(o kueuePodSetInfo) error {
	for _, f := range []struct {
		name string
		a, b map[string]string
	}{{"labels", p.labels, o.labels}, {"annotations", p.annotations, o.annotations}, {"nodeSelector", p.nodeSelector, o.nodeSelector}} {
		for _, k := range slices.Sorted(maps.Keys(f.b)) {
			if v, ok := f.a[k]; ok && v != f.b[k] {
				return fmt.Errorf("%s[%s]: %q conflicts with %q", f.name, k, v, f.b[k])
			}
		}
	}
	p.labels = mergeMap(p.labels, o.labels)
	p.annotations = mergeMap(p.annotations, o.annotations)
	p.nodeSelector = mergeMap(p.nodeSelector, o.nodeSelector)
	for _, t := range o.tolerations {
		if !slices.ContainsFunc(p.tolerations, func(x corev1.Toleration) bool { return x == t }) {
			p.tolerations = append(p.tolerations, t)
		}
	}
	for _, g := range o.gates {
		if !slices.Contains(p.gates, g) {
			p.gates = append(p.gates, g)
		}
	}
	return nil
}

// mergeMap returns a with b's entries added, a new map when a is nil and
// b is not empty (so a nil stays nil when nothing is added).
func mergeMap(a, b map[string]string) map[string]string {
	if len(b) == 0 {
		return a
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}
