package kube

import (
	batchv1 "k8s.io/api/batch/v1"

	"github.com/gangsched/gangsched/gang"
)

// syncMinCount carries a Job's spec.scheduling.schedulingPolicy.gang.minCount
// to the PodGroup the Job controls, as the Job controller does since v1.37:
// gang.minCount is the one field of spec.scheduling that may change after
// the Job is created (an elastic gang), and the scheduler re-evaluates the
// group at its next cycle without moving bound members. stamped is the
// PodGroup the Job would get now; only a gang minCount is carried.
func (c *Cluster) syncMinCount(j *batchv1.Job, stamped *gang.PodGroup) {
	if j.Spec.Scheduling == nil || stamped.Spec.SchedulingPolicy.Gang == nil {
		return
	}
	want := stamped.Spec.SchedulingPolicy.Gang.MinCount
	for _, pg := range c.PodGroups {
		if pg.Key() != stamped.Key() || pg.Spec.SchedulingPolicy.Gang == nil || pg.Spec.SchedulingPolicy.Gang.MinCount == want {
			continue
		}
		pg.Spec.SchedulingPolicy.Gang.MinCount = want
		if api := c.groups[pg.Key()]; api.v1beta1 != nil && api.v1beta1.Spec.SchedulingPolicy.Gang != nil {
			api.v1beta1.Spec.SchedulingPolicy.Gang.MinCount = want
		} else if api.v1alpha2 != nil && api.v1alpha2.Spec.SchedulingPolicy.Gang != nil {
			api.v1alpha2.Spec.SchedulingPolicy.Gang.MinCount = want
		}
	}
}
