package testmanifests_test

import (
	"fmt"
	"strings"

	"github.com/gangsched/gangsched/kube/internal/testmanifests"
)

// One gang of scheduler_perf's tas configuration: its PodGroup requires one
// rack.
func ExamplePerfWorkload() {
	m := testmanifests.PerfWorkload("tas-0", "tas", 1, 2, "topology.kubernetes.io/rack")
	fmt.Print(strings.Join(strings.Split(m, "\n")[:14], "\n"))
	// Output:
	// # scheduler_perf podgroup/tas workload: 1 gangs of 2 pods in namespace tas-0.
	// ---
	// apiVersion: scheduling.k8s.io/v1beta1
	// kind: PodGroup
	// metadata:
	//   name: gang-0
	//   namespace: tas-0
	// spec:
	//   schedulingPolicy:
	//     gang:
	//       minCount: 2
	//   schedulingConstraints:
	//     topology:
	//     - key: topology.kubernetes.io/rack
}
