package kube

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Labels and annotations of Kueue's batch/Job integration (Kueue v0.17:
// pkg/controller/constants, pkg/controller/jobs/job).
const (
	// KueueQueueNameLabel names the LocalQueue of a Job Kueue manages:
	// with Kueue's default manageJobsWithoutQueueName false, exactly the
	// Jobs carrying it are Kueue's.
	KueueQueueNameLabel = "kueue.x-k8s.io/queue-name"
	// KueueWorkloadPriorityClassLabel names the WorkloadPriorityClass
	// whose value is the Workload's priority; it wins over the pod
	// template's priorityClassName.
	KueueWorkloadPriorityClassLabel = "kueue.x-k8s.io/priority-class"
	// KueueJobUIDLabel, on a Workload, is the UID of the Job it was
	// built for.
	KueueJobUIDLabel = "kueue.x-k8s.io/job-uid"
	// KueueMaxExecTimeLabel is a Job's maximum execution time in seconds,
	// copied to the Workload's spec.maximumExecutionTimeSeconds.
	KueueMaxExecTimeLabel = "kueue.x-k8s.io/max-exec-time-seconds"
	// KueuePrebuiltWorkloadLabel names a Workload made beforehand for the
	// Job: Kueue builds none then.
	KueuePrebuiltWorkloadLabel = "kueue.x-k8s.io/prebuilt-workload-name"
	// KueueJobMinParallelism, a Job annotation, is the fewest pods the
	// Job may run with: its pod set's minCount (partial admission).
	KueueJobMinParallelism = "kueue.x-k8s.io/job-min-parallelism"
)

const (
	// kueueJobPodSet is the name of a Job's one pod set (kueue's
	// DefaultPodSetName).
	kueueJobPodSet = "main"
	// kueueResourceInUse is the finalizer Kueue puts on the Workloads it
	// builds.
	kueueResourceInUse = "kueue.x-k8s.io/resource-in-use"
	// kueueProvReqPrefix starts the Job annotations Kueue copies to the
	// Workload (ProvisioningRequest parameters).
	kueueProvReqPrefix = "provreq.kueue.x-k8s.io/"
	// kueueMaxWorkloadName is the longest Workload name Kueue generates
	// (253; 63 with the ShortWorkloadNames gate, alpha and off in v0.17).
	kueueMaxWorkloadName = 253
)

// KueueJobOptions are what [KueueJobWorkload] reads beside the Job.
type KueueJobOptions struct {
	// PriorityClasses resolve the template's priorityClassName, and give
	// the global default class for a Job that names none.
	PriorityClasses *PriorityClasses
	// WorkloadPriorityClasses are the input's WorkloadPriorityClasses'
	// values by name.
	WorkloadPriorityClasses map[string]int32
	// MultiLayerTopology is Kueue's TASMultiLayerTopology gate (see
	// [KueueReadOptions]): off, the Job webhook refuses
	// [KueueSliceConstraints].
	MultiLayerTopology bool
}

// kueueManaged reports whether Kueue's Job integration manages Job j on
// its own account: it carries [KueueQueueNameLabel] (Kueue's default
// manageJobsWithoutQueueName false) or [KueuePrebuiltWorkloadLabel].
func kueueManaged(j *batchv1.Job) bool {
	_, q := j.Labels[KueueQueueNameLabel]
	_, p := j.Labels[KueuePrebuiltWorkloadLabel]
	return q || p
}

// KueueJobWorkload is the Workload Kueue v0.17's batch/Job integration
// builds for Job j when the Job has none (pkg/controller/jobframework
// ConstructWorkload and PrepareWorkloadPriority, with the Job's PodSets
// from pkg/controller/jobs/job), with Kueue's default feature gates
// (TopologyAwareScheduling and PartialAdmission on):
//
//   - name "job-<name>-<hash>": the Job's name, lower-cased kind prefix,
//     truncated to 247 bytes, and the first 5 hex digits of the SHA-1 of
//     kind, group, name and UID (GetWorkloadNameForOwnerWithGVK); the
//     Job's namespace, creationTimestamp and a controller ownerReference
//     to it; label [KueueJobUIDLabel] when the UID is a label value (also
//     when empty, as Kueue writes it); the Job's provreq.kueue.x-k8s.io/ annotations; Kueue's
//     resource-in-use finalizer;
//   - spec.queueName from [KueueQueueNameLabel];
//     spec.maximumExecutionTimeSeconds from [KueueMaxExecTimeLabel];
//   - one pod set "main" of count min(parallelism, completions)
//     (parallelism 1 when unset), minCount from [KueueJobMinParallelism],
//     the template less the Job controller's legacy labels (job-name,
//     controller-uid, batch.kubernetes.io/controller-uid) and with each
//     container's repeated environment variables folded into the last
//     (SanitizePodSet), and a topologyRequest from the template's
//     annotations: one of required, preferred and unconstrained (in that
//     order), the single-layer slice pair, the layers annotation with
//     opts.MultiLayerTopology, the PodSetGroup name beside required or
//     preferred, and podIndexLabel batch.kubernetes.io/job-completion-index;
//   - spec.priority and spec.priorityClassRef: the WorkloadPriorityClass
//     of [KueueWorkloadPriorityClassLabel], else the PriorityClass the
//     template names, else the global default PriorityClass, else 0 and
//     no reference.
//
// Errors (a [*placement.FieldError] naming the Job and the field) are what
// Kueue's Job webhook refuses at creation: a queue or prebuilt Workload
// name not a DNS subdomain; a max-exec-time not a positive integer; a
// min-parallelism not an integer, or not above 0 and below the count; the
// template's topology annotations as ValidateTASPodSetRequest refuses them
// (more than one of required, preferred and unconstrained, a level not a
// label key, unconstrained not a boolean, slice annotations as [StampJob]
// refuses them, a PodSetGroup name without required or preferred); and
// what keeps Kueue from building it: a WorkloadPriorityClass or
// PriorityClass the options lack.
func KueueJobWorkload(j *batchv1.Job, opts KueueJobOptions) (*kueue.Workload, error) {
	if j == nil {
		return nil, errNil("Job")
	}
	obj := jobObj(j.Namespace, j.Name)
	count := kueueJobCount(j)
	min, err := checkKueueJob(obj, j, count, opts)
	if err != nil {
		return nil, err
	}
	ref, pri, err := kueueJobPriority(obj, j, opts)
	if err != nil {
		return nil, err
	}
	tmpl := kueueJobTemplate(&j.Spec.Template)
	w := &kueue.Workload{
		TypeMeta: metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              KueueJobWorkloadName(j.Name, string(j.UID)),
			Namespace:         j.Namespace,
			CreationTimestamp: j.CreationTimestamp,
			Labels:            map[string]string{},
			Annotations:       map[string]string{},
			Finalizers:        []string{kueueResourceInUse},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID,
				Controller: new(true), BlockOwnerDeletion: new(true)}},
		},
		Spec: kueue.WorkloadSpec{
			QueueName: kueue.LocalQueueName(j.Labels[KueueQueueNameLabel]),
			PodSets: []kueue.PodSet{{Name: kueueJobPodSet, Template: *tmpl, Count: count, MinCount: min,
				TopologyRequest: kueueJobTopologyRequest(tmpl.Annotations, opts.MultiLayerTopology)}},
			PriorityClassRef: ref,
			Priority:         new(pri),
		},
	}
	if uid := string(j.UID); len(validation.IsValidLabelValue(uid)) == 0 {
		w.Labels[KueueJobUIDLabel] = uid
	}
	for k, v := range j.Annotations {
		if strings.HasPrefix(k, kueueProvReqPrefix) {
			w.Annotations[k] = v
		}
	}
	if v, ok := j.Labels[KueueMaxExecTimeLabel]; ok {
		n, _ := strconv.ParseInt(v, 10, 32) // checked
		w.Spec.MaximumExecutionTimeSeconds = new(int32(n))
	}
	return w, nil
}

// KueueJobWorkloadName is the name Kueue v0.17 gives the Workload of the
// Job name with UID uid (jobframework.GetWorkloadNameForOwnerWithGVK for
// batch/v1 Job): "job-" and the name, cut to leave room for the hash, "-",
// and the first 5 hex digits of the SHA-1 of "Job\nbatch\n<name>\n<uid>".
func KueueJobWorkloadName(name, uid string) string {
	prefix := "job-" + name
	if n := kueueMaxWorkloadName - 6; len(prefix) > n {
		prefix = prefix[:n]
	}
	sum := sha1.Sum([]byte("Job\nbatch\n" + name + "\n" + uid))
	return prefix + "-" + hex.EncodeToString(sum[:])[:5]
}

// kueueJobCount is the count of a Job's pod set: parallelism (1 when
// unset, as the API defaults it), or completions when fewer.
func kueueJobCount(j *batchv1.Job) int32 {
	n := int32(1)
	if p := j.Spec.Parallelism; p != nil {
		n = *p
	}
	if c := j.Spec.Completions; c != nil && *c < n {
		n = *c
	}
	return n
}

// checkKueueJob checks Job j as Kueue's Job webhook does at creation and
// returns its pod set's minCount (nil without the annotation).
func checkKueueJob(obj string, j *batchv1.Job, count int32, opts KueueJobOptions) (*int32, error) {
	for _, l := range []string{KueueQueueNameLabel, KueuePrebuiltWorkloadLabel} {
		if v, ok := j.Labels[l]; ok {
			if errs := validation.IsDNS1123Subdomain(v); len(errs) > 0 {
				return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.labels["+l+"]", "%q is not a valid name: %s", v, strings.Join(errs, "; "))
			}
		}
	}
	if v, ok := j.Labels[KueueMaxExecTimeLabel]; ok {
		if n, err := strconv.ParseInt(v, 10, 32); err != nil || n <= 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.labels["+KueueMaxExecTimeLabel+"]", "%q is not a number of seconds above 0", v)
		}
	}
	if err := checkKueueJobTopology(obj, &j.Spec.Template, count, opts); err != nil {
		return nil, err
	}
	v, ok := j.Annotations[KueueJobMinParallelism]
	if !ok {
		return nil, nil
	}
	f := "metadata.annotations[" + KueueJobMinParallelism + "]"
	n, err := strconv.ParseInt(v, 10, 32)
	switch {
	case err != nil:
		return nil, placement.Errorf(placement.ErrInvalid, obj, f, "%q is not an integer", v)
	case n <= 0 || n >= int64(count):
		return nil, placement.Errorf(placement.ErrInvalid, obj, f, "%d: want 1 to %d, below the Job's %d pods (min(parallelism, completions))", n, count-1, count)
	}
	return new(int32(n)), nil
}

// checkKueueJobTopology checks the topology annotations of a Job's pod
// template as Kueue's Job webhook does (ValidateTASPodSetRequest, and the
// slice size against the count).
func checkKueueJobTopology(obj string, t *corev1.PodTemplateSpec, count int32, opts KueueJobOptions) error {
	ann := t.Annotations
	f := "spec.template.metadata.annotations"
	if err := checkOneAnnotation(obj, f, ann); err != nil {
		return err
	}
	cs, err := kueueTopologiesAt(obj, "spec.template", ann)
	if err != nil {
		return err
	}
	if v, ok := ann[KueueUnconstrainedTopology]; ok {
		if _, err := strconv.ParseBool(v); err != nil {
			return placement.Errorf(placement.ErrInvalid, obj, f+"["+KueueUnconstrainedTopology+"]", "%q is not a boolean", v)
		}
	}
	if _, ok := ann[KueueSliceConstraints]; ok && !opts.MultiLayerTopology {
		return placement.Errorf(placement.ErrInvalid, obj, f+"["+KueueSliceConstraints+"]", "needs Kueue's TASMultiLayerTopology gate (-kueue-multi-layer-topology), off by default: Kueue's Job webhook refuses it")
	}
	if _, err := kueueSlicesAt(obj, "spec.template", "spec.parallelism", ann, count); err != nil {
		return err
	}
	if _, ok := ann[KueuePodSetGroup]; ok && len(cs) == 0 {
		return placement.Errorf(placement.ErrInvalid, obj, f+"["+KueuePodSetGroup+"]", "may not be set without %s or %s", KueueRequiredTopology, KueuePreferredTopology)
	}
	return nil
}

// kueueJobTopologyRequest is the topologyRequest Kueue's Job integration
// builds from template annotations ann (jobframework's
// podSetTopologyRequestBuilder with the Job's pod index label), the
// annotations checked.
func kueueJobTopologyRequest(ann map[string]string, multiLayer bool) *kueue.PodSetTopologyRequest {
	r := &kueue.PodSetTopologyRequest{PodIndexLabel: new(LabelCompletionIndex)}
	req, hasReq := ann[KueueRequiredTopology]
	pref, hasPref := ann[KueuePreferredTopology]
	switch unc, hasUnc := ann[KueueUnconstrainedTopology]; {
	case hasReq:
		r.Required = new(req)
	case hasPref:
		r.Preferred = new(pref)
	case hasUnc:
		b, _ := strconv.ParseBool(unc) // checked
		r.Unconstrained = new(b)
	}
	key, hasKey := ann[KueueSliceRequiredTopology]
	size, hasSize := ann[KueueSliceSize]
	if multi, ok := ann[KueueSliceConstraints]; ok && multiLayer {
		_ = json.Unmarshal([]byte(multi), &r.PodsetSliceRequiredTopologyConstraints) // checked
	} else if hasKey && hasSize {
		n, _ := strconv.ParseInt(size, 10, 32) // checked
		r.PodSetSliceRequiredTopology, r.PodSetSliceSize = new(key), new(int32(n))
	}
	if g, ok := ann[KueuePodSetGroup]; ok && (hasReq || hasPref) {
		r.PodSetGroupName = new(g)
	}
	return r
}

// kueueJobTemplate is the pod set template Kueue builds from a Job's:
// a copy less the Job controller's legacy labels, each container's
// environment variables deduplicated by name, the last value kept at the
// first one's place.
func kueueJobTemplate(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	out := t.DeepCopy()
	for _, l := range []string{"job-name", "controller-uid", batchv1.ControllerUidLabel} {
		delete(out.Labels, l)
	}
	for _, cs := range [][]corev1.Container{out.Spec.Containers, out.Spec.InitContainers} {
		for i := range cs {
			cs[i].Env = lastEnv(cs[i].Env)
		}
	}
	return out
}

// lastEnv folds repeated environment variables into one each, in the
// order of first appearance with the last value (an empty, non-nil list
// for none, as Kueue writes it).
func lastEnv(env []corev1.EnvVar) []corev1.EnvVar {
	at := map[string]int{}
	out := make([]corev1.EnvVar, 0, len(env))
	for _, e := range env {
		if i, ok := at[e.Name]; ok {
			out[i] = e
			continue
		}
		at[e.Name] = len(out)
		out = append(out, e)
	}
	return out
}

// kueueJobPriority is the priority reference and value Kueue gives the
// Workload of Job j (ExtractPriority).
func kueueJobPriority(obj string, j *batchv1.Job, opts KueueJobOptions) (*kueue.PriorityClassRef, int32, error) {
	if name := j.Labels[KueueWorkloadPriorityClassLabel]; name != "" {
		v, ok := opts.WorkloadPriorityClasses[name]
		if !ok {
			return nil, 0, placement.Errorf(placement.ErrNotFound, obj, "metadata.labels["+KueueWorkloadPriorityClassLabel+"]", "no WorkloadPriorityClass %q in the input: Kueue builds no Workload for the Job", name)
		}
		return kueue.NewWorkloadPriorityClassRef(name), v, nil
	}
	name := j.Spec.Template.Spec.PriorityClassName
	if name == "" {
		if d := opts.PriorityClasses; d != nil && d.def != nil {
			return kueue.NewPodPriorityClassRef(d.def.Name), d.def.Value, nil
		}
		return nil, 0, nil
	}
	v, _, err := opts.PriorityClasses.Resolve(obj, "spec.template.spec.priorityClassName", name, nil)
	if err != nil {
		return nil, 0, err
	}
	return kueue.NewPodPriorityClassRef(name), v, nil
}

// kueueJobField is the Job field of field f of the Workload built for it,
// for errors found reading that Workload.
func kueueJobField(f string) string {
	for _, m := range []struct{ of, is string }{
		{"spec.podSets[0].template", "spec.template"},
		{"spec.podSets[0].count", "spec.parallelism"},
		{"spec.podSets[0].minCount", "metadata.annotations[" + KueueJobMinParallelism + "]"},
		{"spec.podSets[0].topologyRequest", "spec.template.metadata.annotations"},
	} {
		if rest, ok := strings.CutPrefix(f, m.of); ok {
			if m.of == "spec.podSets[0].template" {
				return m.is + rest
			}
			return m.is
		}
	}
	return "spec"
}

// asJobError names Job obj and its field in err, an error reading the
// Workload built for the Job.
func asJobError(obj string, err error) error {
	fe, ok := err.(*placement.FieldError)
	if !ok {
		return err
	}
	return &placement.FieldError{Object: obj, Field: kueueJobField(fe.Field), Detail: fe.Detail + " (in the Workload Kueue builds for the Job)", Err: fe.Err}
}
