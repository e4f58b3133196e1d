package gang

import (
	"fmt"
	"hash/fnv"

	"github.com/gangsched/gangsched/placement"
)

// CompletionMode is a Job's spec.completionMode (batch/v1).
type CompletionMode string

// Completion modes. The empty mode means NonIndexed, as in Kubernetes.
const (
	CompletionModeIndexed    CompletionMode = "Indexed"
	CompletionModeNonIndexed CompletionMode = "NonIndexed"
)

// Job is the part of a batch/v1 Job that decides whether the Job controller
// creates a Workload and a PodGroup for it (KEP-5547, feature gate
// WorkloadWithJob).
type Job struct {
	ObjectMeta
	// UID is metadata.uid; stamped names are derived from it.
	UID  string
	Spec JobSpec
}

// JobSpec is the part of a Job's spec that matters here.
type JobSpec struct {
	// Parallelism is spec.parallelism; nil means 1.
	Parallelism *int32
	// Completions is spec.completions; nil means unset.
	Completions *int32
	// CompletionMode is spec.completionMode; empty means NonIndexed.
	CompletionMode CompletionMode
	// Template is spec.template.
	Template PodTemplateSpec
}

// PodTemplateSpec is the part of a pod template that matters here.
type PodTemplateSpec struct {
	// SchedulingGroup is spec.schedulingGroup; a higher-level controller
	// that sets it keeps control of the pods' PodGroup.
	SchedulingGroup *PodSchedulingGroup
	// PriorityClassName and Priority are spec.priorityClassName and
	// spec.priority; the stamped PodGroup inherits them.
	PriorityClassName string
	Priority          *int32
}

// JobTemplateName is the name of the single PodGroupTemplate of a Workload
// stamped for a Job.
const JobTemplateName = "job"

// JobEligible reports whether the Job controller stamps a Workload and a
// PodGroup for j (KEP-5547 as released in v1.36): spec.parallelism > 1,
// spec.completionMode Indexed, spec.completions == spec.parallelism, and no
// spec.template.spec.schedulingGroup. When it is not, reason says which
// rule failed first, in that order.
func JobEligible(j *Job) (eligible bool, reason string) {
	if j == nil {
		return false, "no Job"
	}
	s := &j.Spec
	switch {
	case s.Parallelism == nil || *s.Parallelism <= 1:
		return false, "spec.parallelism is not above 1"
	case s.CompletionMode != CompletionModeIndexed:
		return false, "spec.completionMode is not Indexed"
	case s.Completions == nil || *s.Completions != *s.Parallelism:
		return false, "spec.completions does not equal spec.parallelism"
	case s.Template.SchedulingGroup != nil:
		return false, "spec.template.spec.schedulingGroup is already set"
	}
	return true, ""
}

// JobStamp is what the Job controller creates for an eligible Job.
type JobStamp struct {
	// Workload has one PodGroupTemplate, [JobTemplateName], with a gang
	// policy of minCount = parallelism.
	Workload *Workload
	// PodGroup is stamped from that template with [NewPodGroupFromTemplate].
	PodGroup *PodGroup
	// Template is the Job's pod template with spec.schedulingGroup naming
	// PodGroup: every pod of the Job is created from it.
	Template PodTemplateSpec
}

// StampJob returns the Workload, the PodGroup and the pod template the Job
// controller creates for j, and ok = false (and nothing) when j is not
// eligible (see [JobEligible]). j is never modified. Names are
// deterministic: the Workload is "<job name>-<hash>", where hash is 8 hex
// digits of the FNV-1a hash of the Job's namespace, name and UID, and the
// PodGroup is "<workload name>-job". Both live in the Job's namespace and
// name the Job as their controlling owner, so that they are deleted with it.
//
// Errors (a [*placement.FieldError]): an empty metadata.name, a negative
// spec.parallelism or spec.completions, an unknown spec.completionMode.
func StampJob(j *Job) (stamp JobStamp, ok bool, err error) {
	if j == nil {
		return JobStamp{}, false, placement.Errorf(placement.ErrInvalid, "Job", "metadata", "is nil")
	}
	obj := objRef("Job", &j.ObjectMeta)
	s := &j.Spec
	switch {
	case j.Name == "":
		return JobStamp{}, false, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	case s.Parallelism != nil && *s.Parallelism < 0:
		return JobStamp{}, false, placement.Errorf(placement.ErrInvalid, obj, "spec.parallelism", "%d is negative", *s.Parallelism)
	case s.Completions != nil && *s.Completions < 0:
		return JobStamp{}, false, placement.Errorf(placement.ErrInvalid, obj, "spec.completions", "%d is negative", *s.Completions)
	case s.CompletionMode != "" && s.CompletionMode != CompletionModeIndexed && s.CompletionMode != CompletionModeNonIndexed:
		return JobStamp{}, false, placement.Errorf(placement.ErrInvalid, obj, "spec.completionMode", "%q is not Indexed or NonIndexed", s.CompletionMode)
	}
	if eligible, _ := JobEligible(j); !eligible {
		return JobStamp{}, false, nil
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", j.Namespace, j.Name, j.UID)
	// DNS subdomain names are at most 253 characters; keep room for the
	// hash and the template suffix.
	base := j.Name[:min(len(j.Name), 253-len("-01234567-"+JobTemplateName))]
	owner := OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: true}
	w := &Workload{
		ObjectMeta: ObjectMeta{Namespace: j.Namespace, Name: fmt.Sprintf("%s-%08x", base, h.Sum32()), OwnerReferences: []OwnerReference{owner}},
		Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{{
			Name:              JobTemplateName,
			SchedulingPolicy:  SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: *s.Parallelism}},
			PriorityClassName: s.Template.PriorityClassName,
			Priority:          copyPtr(s.Template.Priority),
		}}},
	}
	pg, err := NewPodGroupFromTemplate(w, JobTemplateName, w.Name+"-"+JobTemplateName, StampOptions{})
	if err != nil {
		return JobStamp{}, false, err
	}
	pg.OwnerReferences = append([]OwnerReference{owner}, pg.OwnerReferences...)
	tmpl := s.Template
	tmpl.Priority = copyPtr(s.Template.Priority)
	tmpl.SchedulingGroup = &PodSchedulingGroup{PodGroupName: pg.Name}
	return JobStamp{Workload: w, PodGroup: pg, Template: tmpl}, true, nil
}
