package trace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// ReadDLRM reads the instances of Alibaba's disaggregated DLRM serving
// trace (cluster-trace-gpu-v2025, disaggregated_DLRM_trace.csv) as pods in
// gangs, in namespace "dlrm", for nodes from elsewhere (ReadPAIMachines):
//
//   - a pod requests cpu_request cores, memory_request GiB and
//     gpu_request nvidia.com/gpu; it arrives at creation_time (seconds
//     after [Epoch]; blank: before the trace, at Epoch) and runs for
//     deletion_time − scheduled_time (at least a second; a blank deletion
//     runs past the end);
//   - the instances of one app and role created at the same second form a
//     gang PodGroup, minCount all of them, named
//     <app>-<role>-<creation second> (app and role lower-cased, "_" as
//     "-"): the trace's scale-outs, the closest public data to gang sizes.
//
// rdma_request, disk and max_instance_per_node (a per-node cap) are not
// modelled. Errors name the file, the line and the column.
func ReadDLRM(name string, r io.Reader) ([]replay.Pod, []*gang.PodGroup, error) {
	t, err := newTable(name, r, []string{"instance_sn", "role", "app_name", "cpu_request", "gpu_request", "memory_request", "creation_time", "scheduled_time", "deletion_time"}, true)
	if err != nil {
		return nil, nil, err
	}
	var pods []replay.Pod
	size := map[string]int32{}
	err = t.each(func() error {
		p := replay.Pod{Pod: placement.Pod{Namespace: "dlrm", Name: dns(t.str("instance_sn")), Requests: placement.ResourceList{}}}
		if p.Name == "" {
			return t.errorf("instance_sn", "is empty")
		}
		if t.str("app_name") == "" {
			return t.errorf("app_name", "is empty")
		}
		if err := t.columns(p.Requests, column{"cpu_request", placement.ResourceCPU, 1000}, column{"memory_request", placement.ResourceMemory, 1 << 30}, column{"gpu_request", placement.ResourceGPU, 1}); err != nil {
			return err
		}
		created, err := t.lifetime(&p, true)
		if err != nil {
			return err
		}
		p.SchedulingGroup = fmt.Sprintf("%s-%s-%d", dns(t.str("app_name")), dns(t.str("role")), created)
		size[p.SchedulingGroup]++
		pods = append(pods, p)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	groups := make([]*gang.PodGroup, 0, len(size))
	for g, n := range size {
		groups = append(groups, &gang.PodGroup{ObjectMeta: gang.ObjectMeta{Namespace: "dlrm", Name: g},
			Spec: gang.PodGroupSpec{SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: n}}}})
	}
	slices.SortFunc(groups, func(a, b *gang.PodGroup) int { return cmp.Compare(a.Name, b.Name) })
	return pods, groups, nil
}

// dns lower-cases s and writes "_" as "-", as Kubernetes names want.
func dns(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
