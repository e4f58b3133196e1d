package fragment_test

import (
	"fmt"

	"github.com/gangsched/gangsched/fragment"
	"github.com/gangsched/gangsched/placement"
)

// A 500-milli share on a cluster of two nodes: n1's three GPUs have 1000,
// 700 and 550 milli free, n2's two are idle. The target workload is a
// 200-milli share and a whole GPU. FGD puts the share where the expected
// unusable GPU milli grows least — on n1's 700 device, which leaves a
// whole GPU and room for the small share; best fit takes the idle node,
// whose leftover is smallest.
func Example() {
	s, _ := placement.NewSnapshot([]placement.Node{
		{Name: "n1", Allocatable: placement.ResourceList{placement.ResourceCPU: 8000, fragment.ResourceGPUMilli: 3000}},
		{Name: "n2", Allocatable: placement.ResourceList{placement.ResourceCPU: 8000, fragment.ResourceGPUMilli: 2000}},
	}, nil)
	w, _ := fragment.NewWorkload([]fragment.Request{{CPU: 1000, GPUMilli: 200, GPUs: 1}, {CPU: 1000, GPUMilli: 1000, GPUs: 1}}, 100)
	pod := placement.Pod{Namespace: "default", Name: "infer", SchedulingGroup: "infer",
		Requests: placement.ResourceList{placement.ResourceCPU: 1000, fragment.ResourceGPUMilli: 500}}
	g := &placement.Group{Namespace: "default", Name: "infer", MinCount: 1, Members: []placement.Pod{pod}}
	for _, p := range []fragment.Policy{fragment.NewFGD(w), fragment.BestFit{}} {
		devs, _ := fragment.NewDevices([]fragment.NodeGPUs{{Name: "n1", Model: "G2", Count: 3}, {Name: "n2", Model: "G2", Count: 2}})
		// Earlier pods hold 300 of n1's device 1 and 450 of its device 2.
		_, _ = devs.Allocate("default/a", fragment.Request{GPUMilli: 300, GPUs: 1}, "n1", 8000, onDevice(1))
		_, _ = devs.Allocate("default/b", fragment.Request{GPUMilli: 450, GPUs: 1}, "n1", 8000, onDevice(2))
		d, _ := placement.Solve(s, g, fragment.NewPlugin(devs, p).Options())
		r, _ := fragment.RequestOf(&pod)
		a, _ := devs.Allocate(pod.Key().String(), r, d.Assignments[0].Node, 8000, p)
		_, free, _ := devs.Node(a.Node)
		fmt.Printf("%T: %s device %d, devices now %v\n", p, a.Node, a.Devices[0], free)
	}
	// Output:
	// *fragment.FGD: n1 device 1, devices now [1000 200 550]
	// fragment.BestFit: n2 device 0, devices now [500 1000]
}

// onDevice is a policy that scores every node alike and puts a share on
// the given device.
type onDevice int

func (d onDevice) Score(string, *fragment.NodeState, fragment.Request) (int64, int) { return 0, int(d) }
