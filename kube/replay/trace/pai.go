package trace

import (
	"io"

	"github.com/gangsched/gangsched/placement"
)

// paiMaxPods is the kubelet's default pod limit; the PAI machine list has
// none.
const paiMaxPods = 110

// ReadPAIMachines reads the machine list of Alibaba's
// cluster-trace-gpu-v2020 (pai_machine_spec.csv, no header:
// machine,gpu_type,cap_cpu,cap_mem,cap_gpu; CC BY 4.0, Weng et al., "MLaaS
// in the Wild", NSDI'22) as nodes: cap_cpu cores as millicores, cap_mem GB
// read as GiB, cap_gpu whole nvidia.com/gpu, 110 pods, the gpu_type as
// label LabelGPUModel. The list has no topology. Errors name the file, the
// line and the column.
func ReadPAIMachines(name string, r io.Reader) ([]placement.Node, error) {
	t, err := newTable(name, r, []string{"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"}, false)
	if err != nil {
		return nil, err
	}
	var nodes []placement.Node
	err = t.each(func() error {
		n := placement.Node{Name: t.str("machine"), Labels: map[string]string{LabelGPUModel: t.str("gpu_type")}, Allocatable: placement.ResourceList{placement.ResourcePods: paiMaxPods}}
		if n.Name == "" {
			return t.errorf("machine", "is empty")
		}
		n.Labels["kubernetes.io/hostname"] = n.Name
		if err := t.columns(n.Allocatable, column{"cap_cpu", placement.ResourceCPU, 1000}, column{"cap_mem", placement.ResourceMemory, 1 << 30}, column{"cap_gpu", placement.ResourceGPU, 1}); err != nil {
			return err
		}
		nodes = append(nodes, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nodes, nil
}
