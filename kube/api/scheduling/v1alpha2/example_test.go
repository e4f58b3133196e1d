package v1alpha2_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
)

// The seed's PodGroup, written as a v1.36 cluster serves it.
func ExamplePodGroup() {
	mode := v1alpha2.DisruptionModePodGroup
	pg := v1alpha2.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha2.GroupVersion, Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "training-job-workers-pg"},
		Spec: v1alpha2.PodGroupSpec{
			PodGroupTemplateRef: &v1alpha2.PodGroupTemplateReference{Workload: &v1alpha2.WorkloadPodGroupTemplateReference{
				WorkloadName: "training-job-workload", PodGroupTemplateName: "workers",
			}},
			SchedulingPolicy: v1alpha2.PodGroupSchedulingPolicy{Gang: &v1alpha2.GangSchedulingPolicy{MinCount: 4}},
			DisruptionMode:   &mode,
		},
	}
	out, err := yaml.Marshal(pg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// apiVersion: scheduling.k8s.io/v1alpha2
	// kind: PodGroup
	// metadata:
	//   name: training-job-workers-pg
	//   namespace: default
	// spec:
	//   disruptionMode: PodGroup
	//   podGroupTemplateRef:
	//     workload:
	//       podGroupTemplateName: workers
	//       workloadName: training-job-workload
	//   schedulingPolicy:
	//     gang:
	//       minCount: 4
	// status: {}
}
