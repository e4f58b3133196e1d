package manifest_test

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/kube/manifest"
)

func ExampleDecode() {
	const in = `apiVersion: v1
kind: Node
metadata:
  name: n1
status:
  allocatable: {cpu: "4", nvidia.com/gpu: "8"}
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  schedulingGroup:
    podGroupName: training-job-workers-pg
  containers:
  - name: trainer
    resources:
      requests: {cpu: 500m}
`
	objs, err := manifest.Decode("cluster.yaml", strings.NewReader(in), manifest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range objs {
		fmt.Printf("%s: %s %T\n", o.Where(), o.String(), o.Obj)
	}
	pod := objs[1].Obj.(*corev1.Pod)
	fmt.Println(*pod.Spec.SchedulingGroup.PodGroupName)

	// A typo is an error that names file, document, line, object and field.
	_, err = manifest.Decode("cluster.yaml", strings.NewReader(strings.Replace(in, "requests:", "request:", 1)), manifest.Options{})
	fmt.Println(err)
	// Output:
	// cluster.yaml: document 1 (line 1): node "n1" *v1.Node
	// cluster.yaml: document 2 (line 8): pod "default/worker-0" *v1.Pod
	// training-job-workers-pg
	// cluster.yaml: document 2 (line 18): pod "default/worker-0": spec.containers[0].resources.request: unknown field
}
