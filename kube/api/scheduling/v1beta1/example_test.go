package v1beta1_test

import (
	"encoding/json"
	"fmt"

	"github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
)

// A v1.38 CompositePodGroup as the API server serves it, read into the
// mirror type.
func ExampleCompositePodGroup() {
	doc := `{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "CompositePodGroup",
		"metadata": {"name": "training", "namespace": "default"},
		"spec": {"workloadRef": {"workloadName": "training", "templateName": "root"},
			"schedulingPolicy": {"gang": {"minGroupCount": 2}},
			"schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/block"}]}}}`
	var c v1beta1.CompositePodGroup
	if err := json.Unmarshal([]byte(doc), &c); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.APIVersion == v1beta1.GroupVersion, c.Name, c.Spec.SchedulingPolicy.Gang.MinGroupCount, c.Spec.SchedulingConstraints.Topology[0].Key)
	// Output: true training 2 topology.kubernetes.io/block
}
