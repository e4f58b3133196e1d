package trace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// Resource names and labels of the openb trace, as its node YAML writes
// them.
const (
	// ResourceGPUMilli counts thousandths of a GPU: a node of 8 GPUs has
	// 8000, a pod sharing 46% of one GPU requests 460.
	ResourceGPUMilli placement.ResourceName = "alibabacloud.com/gpu-milli"
	// LabelGPUModel is a node's GPU model (P100, T4, V100M16, G2, …).
	LabelGPUModel = "alibabacloud.com/gpu-card-model"
	// LabelGPUSpec is a pod's allowed GPU models, "|"-separated (the
	// trace's gpu_spec); [GPUSpecFilter] enforces it.
	LabelGPUSpec = "alibabacloud.com/gpu-spec"
)

// Epoch is the time of second 0 of a trace (trace times are seconds from
// its start).
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// openb's pods are 1 per row; the node YAML allows 1001 pods per node.
const openbMaxPods = 1001

// ReadOpenBDir reads the openb trace of Alibaba's cluster-trace-gpu-v2023
// (Weng et al., "Beware of Fragmentation", ATC'23) from its folder:
// csv/openb_node_list_all_node.csv and csv/openb_pod_list_<pods>.csv
// (pods "default", "gpuspec33", …). See [ReadOpenB].
func ReadOpenBDir(dir, pods string) (replay.Input, error) {
	nf, err := os.Open(filepath.Join(dir, "csv", "openb_node_list_all_node.csv"))
	if err != nil {
		return replay.Input{}, err
	}
	defer nf.Close()
	pf, err := os.Open(filepath.Join(dir, "csv", "openb_pod_list_"+pods+".csv"))
	if err != nil {
		return replay.Input{}, err
	}
	defer pf.Close()
	return ReadOpenB(nf.Name(), nf, pf.Name(), pf)
}

// ReadOpenB reads openb's node list (sn,cpu_milli,memory_mib,gpu,model)
// and pod list (name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
// pod_phase,creation_time,deletion_time,scheduled_time) into a replay
// input, in namespace "openb":
//
//   - a node has cpu (millicores), memory (bytes), [ResourceGPUMilli] =
//     1000 per GPU and 1001 pods, labelled with its model (LabelGPUModel);
//   - a pod requests cpu, memory and num_gpu × gpu_milli of
//     ResourceGPUMilli (GPU shares are pooled per node: a pod of 0.46 GPU
//     fits a node whose two GPUs each have 0.3 free, which one device
//     could not hold — the per-device model comes with shared DRA
//     devices); it arrives at creation_time (seconds after [Epoch]) and
//     runs for deletion_time − scheduled_time, or, never scheduled in the
//     trace, for its life there, deletion_time − creation_time (at least
//     one second); its qos is the label "qos", its gpu_spec the label
//     LabelGPUSpec, with [GPUSpecFilter] among the input's filters.
//
// Every pod is a pod of its own: the trace has no job or gang id.
// Errors name the file, the line and the column.
func ReadOpenB(nodesName string, nodes io.Reader, podsName string, pods io.Reader) (replay.Input, error) {
	in := replay.Input{GPU: replay.GPUResource{Name: ResourceGPUMilli, PerGPU: 1000}, DomainKey: LabelGPUModel}
	t, err := newTable(nodesName, nodes, []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}, true)
	if err != nil {
		return replay.Input{}, err
	}
	err = t.each(func() error {
		n := placement.Node{Name: t.str("sn"), Labels: map[string]string{"kubernetes.io/hostname": t.str("sn")}, Allocatable: placement.ResourceList{placement.ResourcePods: openbMaxPods}}
		if n.Name == "" {
			return t.errorf("sn", "is empty")
		}
		if m := t.str("model"); m != "" {
			n.Labels[LabelGPUModel] = m
		}
		if err := t.resources(n.Allocatable, "cpu_milli", "memory_mib", "gpu", 1000); err != nil {
			return err
		}
		in.Nodes = append(in.Nodes, n)
		return nil
	})
	if err != nil {
		return replay.Input{}, err
	}
	t, err = newTable(podsName, pods, []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "creation_time", "deletion_time", "scheduled_time"}, true)
	if err != nil {
		return replay.Input{}, err
	}
	specs := false
	err = t.each(func() error {
		p := replay.Pod{Pod: placement.Pod{Namespace: "openb", Name: t.str("name"), Requests: placement.ResourceList{}, Labels: map[string]string{"qos": t.str("qos")}}}
		if p.Name == "" {
			return t.errorf("name", "is empty")
		}
		gpus, _, err := t.num("num_gpu", 1, false)
		if err != nil {
			return err
		}
		milli, _, err := t.num("gpu_milli", 1, false)
		if err != nil {
			return err
		}
		if err := t.resources(p.Requests, "cpu_milli", "memory_mib", "", 0); err != nil {
			return err
		}
		if gpus*milli > 0 {
			p.Requests[ResourceGPUMilli] = gpus * milli
		}
		if s := t.str("gpu_spec"); s != "" {
			p.Labels[LabelGPUSpec] = s
			specs = true
		}
		if _, err := t.lifetime(&p, false); err != nil {
			return err
		}
		in.Pods = append(in.Pods, p)
		return nil
	})
	if err != nil {
		return replay.Input{}, err
	}
	if specs {
		in.Filters = []placement.Filter{GPUSpecFilter}
	}
	return in, nil
}

// resources reads a row's CPU (millicores), memory (MiB, into bytes) and,
// when gpuCol is set, GPUs (times gpuScale) into rl.
func (t *table) resources(rl placement.ResourceList, cpuCol, memCol, gpuCol string, gpuScale float64) error {
	cpu, _, err := t.num(cpuCol, 1, false)
	if err != nil {
		return err
	}
	mem, _, err := t.num(memCol, 1<<20, false)
	if err != nil {
		return err
	}
	rl[placement.ResourceCPU], rl[placement.ResourceMemory] = cpu, mem
	if gpuCol != "" {
		g, _, err := t.num(gpuCol, gpuScale, false)
		if err != nil {
			return err
		}
		if g > 0 {
			rl[ResourceGPUMilli] = g
		}
	}
	return nil
}

// GPUSpecFilter keeps a pod with the label LabelGPUSpec ("V100M16|V100M32")
// on nodes whose LabelGPUModel is one of those models.
var GPUSpecFilter = placement.FilterFunc(func(p *placement.Pod, n placement.NodeInfo) placement.Rejection {
	spec, ok := p.Labels[LabelGPUSpec]
	if !ok {
		return placement.Rejection{}
	}
	model := n.Node().Labels[LabelGPUModel]
	for m := range strings.SplitSeq(spec, "|") {
		if m == model && m != "" {
			return placement.Rejection{}
		}
	}
	return placement.Rejection{Reason: fmt.Sprintf("GPU model not in %s", spec), Unresolvable: true}
})
