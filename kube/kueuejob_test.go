package kube

import (
	"errors"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/placement"
)

// FuzzKueueJobWorkload: whatever a Job's Kueue labels and annotations
// hold, KueueJobWorkload either refuses the Job with an error naming it,
// or builds a Workload that ConvertKueueWorkload reads or refuses with an
// error naming it; it never panics.
func FuzzKueueJobWorkload(f *testing.F) {
	f.Add("lq", "", "2", "example.com/rack", "", "", "", "", "", int32(4), int32(4))
	f.Add("Bad_Queue", "60", "x", "", "b", "true", "kubernetes.io/hostname", "2", "g", int32(2), int32(1))
	f.Add("lq", "0", "4", "", "", "yes", "", "", "", int32(0), int32(-1))
	f.Fuzz(func(t *testing.T, queue, maxExec, minPar, required, preferred, unconstrained, sliceKey, sliceSize, group string, par, comp int32) {
		ann := map[string]string{}
		for k, v := range map[string]string{KueueRequiredTopology: required, KueuePreferredTopology: preferred, KueueUnconstrainedTopology: unconstrained,
			KueueSliceRequiredTopology: sliceKey, KueueSliceSize: sliceSize, KueuePodSetGroup: group} {
			if v != "" {
				ann[k] = v
			}
		}
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "n", Labels: map[string]string{KueueQueueNameLabel: queue}},
			Spec: batchv1.JobSpec{Parallelism: &par, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: ann},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}}}
		if comp >= 0 {
			j.Spec.Completions = &comp
		}
		if maxExec != "" {
			j.Labels[KueueMaxExecTimeLabel] = maxExec
		}
		if minPar != "" {
			j.Annotations = map[string]string{KueueJobMinParallelism: minPar}
		}
		var fe *placement.FieldError
		w, err := KueueJobWorkload(j, KueueJobOptions{})
		if err != nil {
			if !errors.As(err, &fe) || fe.Object != jobObj("n", "j") {
				t.Fatalf("error not naming the Job: %v", err)
			}
			return
		}
		if _, err := ConvertKueueWorkload(w, nil); err != nil && !errors.As(err, &fe) {
			t.Fatalf("unlocated error %T: %v", err, err)
		}
	})
}
