package kube

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
)

// LabelHostname is the node label the kubelet sets to the node's name.
const LabelHostname = "kubernetes.io/hostname"

// FillIn adds to manifest objects, in place, what a cluster adds to the
// same objects created with `kubectl apply -f` in input order, where the
// input leaves it out, so that decisions read what they would read there:
//
//   - a Node gets the label kubernetes.io/hostname = its name (the kubelet
//     sets it; hostname topology keys and anti-affinity need it);
//   - a Pod, Job or Kueue Workload gets metadata.creationTimestamp (the
//     API server sets it) of start plus its index in objs in seconds, so
//     that pods and Workloads without one queue in file order, not by
//     name (Kueue orders a queue by priority, then creation time);
//   - a bound Pod gets status.startTime (the kubelet sets it) likewise, so
//     that preemption can tell older victims from newer ones.
//
// Values the input gives are kept. Objects of other kinds are untouched.
// Running FillIn on objects it filled in changes nothing.
func FillIn(objs []manifest.Object, start time.Time) {
	for i := range objs {
		at := metav1.NewTime(start.Add(time.Duration(i) * time.Second))
		switch v := objs[i].Obj.(type) {
		case *corev1.Node:
			if v == nil {
				continue
			}
			if _, ok := v.Labels[LabelHostname]; !ok && v.Name != "" {
				if v.Labels == nil {
					v.Labels = map[string]string{}
				}
				v.Labels[LabelHostname] = v.Name
			}
		case *corev1.Pod:
			if v == nil {
				continue
			}
			if v.CreationTimestamp.IsZero() {
				v.CreationTimestamp = at
			}
			if v.Spec.NodeName != "" && v.Status.StartTime == nil {
				v.Status.StartTime = &at
			}
		case *batchv1.Job:
			if v != nil && v.CreationTimestamp.IsZero() {
				v.CreationTimestamp = at
			}
		case *kueue.Workload:
			if v != nil && v.CreationTimestamp.IsZero() {
				v.CreationTimestamp = at
			}
		}
	}
}
