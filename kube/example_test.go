package kube_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/kube"
)

// A pod with a sidecar, an init container and RuntimeClass overhead: the
// scheduler sees the larger of (containers + sidecar) and (init container +
// the sidecar started before it), plus the overhead.
func ExampleConvertPod() {
	always := corev1.ContainerRestartPolicyAlways
	group := "training-job-workers-pg"
	req := func(cpu, mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		}}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "worker-0"},
		Spec: corev1.PodSpec{
			SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: &group},
			InitContainers: []corev1.Container{
				{Name: "proxy", RestartPolicy: &always, Resources: req("500m", "64Mi")},
				{Name: "fetch-data", Resources: req("3", "1Gi")},
			},
			Containers: []corev1.Container{{Name: "trainer", Resources: req("2", "4Gi")}},
			Overhead:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
		},
	}
	p, err := kube.ConvertPod(pod, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Key(), "in", p.SchedulingGroup)
	fmt.Println("cpu", p.Requests["cpu"], "millicores; memory", p.Requests["memory"], "bytes")

	pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("-2")
	_, err = kube.ConvertPod(pod, nil)
	fmt.Println(err)
	// Output:
	// default/worker-0 in training-job-workers-pg
	// cpu 3600 millicores; memory 4362076160 bytes
	// pod "default/worker-0": spec.containers[0].resources.requests[cpu]: -2 is negative
}
