package trace

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// paiMachines is the PAI machine list the adapter's testdata carries (CC BY
// 4.0, see kube/testdata/README.md).
const paiMachines = "../../testdata/clusters/pai/pai_machine_spec.csv"

func readPAI(t testing.TB) []placement.Node {
	f, err := os.Open(paiMachines)
	require.NoError(t, err)
	defer f.Close()
	nodes, err := ReadPAIMachines(f.Name(), f)
	require.NoError(t, err)
	return nodes
}

func TestReadPAIMachines(t *testing.T) {
	nodes := readPAI(t)
	require.Len(t, nodes, 1897) // SOURCE.md says 1,896; the file has a row more
	var gpus int64
	for _, n := range nodes {
		gpus += n.Allocatable[placement.ResourceGPU]
	}
	require.Equal(t, int64(6742), gpus) // as SOURCE.md counts them
	require.Equal(t, placement.ResourceList{placement.ResourceCPU: 96000, placement.ResourceMemory: 512 << 30, placement.ResourcePods: 110}, nodes[0].Allocatable)
	require.Equal(t, "CPU", nodes[0].Labels[LabelGPUModel])

	_, err := ReadPAIMachines("m.csv", strings.NewReader("m1,T4,96,512\n"))
	require.ErrorContains(t, err, "m.csv: line 1: column cap_gpu: trace: bad format")
}

// A generated cut of the DLRM trace's shape: app-a's two HN instances of
// the trace's start form one gang, its CN instance created at 100 s a gang
// of one; app-b's instance has no deletion and runs past the end.
const dlrmCut = "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\n" +
	"instance_0,HN,app_a,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,3600\n" +
	"instance_1,HN,app_a,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,3600\n" +
	"instance_2,CN,app_a,8,8,0,0,0,0,40.0,40.0,100.0,100.0,-1,100.0,130.0,700\n" +
	"instance_3,HN,app_b,8,8,1,1,25,25,40.0,40.0,100.0,100.0,4,200,200,\n"

func TestReadDLRM(t *testing.T) {
	pods, groups, err := ReadDLRM("dlrm.csv", strings.NewReader(dlrmCut))
	require.NoError(t, err)
	require.Len(t, pods, 4)
	var names []string
	for _, g := range groups {
		names = append(names, g.Name)
	}
	require.Equal(t, []string{"app-a-cn-100", "app-a-hn-0", "app-b-hn-200"}, names)
	require.Equal(t, int32(2), groups[1].Spec.SchedulingPolicy.Gang.MinCount)
	require.Equal(t, placement.ResourceList{placement.ResourceCPU: 12000, placement.ResourceMemory: 120 << 30, placement.ResourceGPU: 1}, pods[0].Requests)
	require.Equal(t, 3600*time.Second, pods[0].Duration)
	require.Equal(t, 570*time.Second, pods[2].Duration)
	require.Zero(t, pods[3].Duration)

	var gpuNodes []placement.Node
	for _, n := range readPAI(t) {
		if n.Allocatable[placement.ResourceGPU] > 0 && len(gpuNodes) < 2 {
			gpuNodes = append(gpuNodes, n)
		}
	}
	in := replay.Input{Nodes: gpuNodes, Pods: pods, PodGroups: groups}
	r, err := replay.Run(in, replay.Options{})
	require.NoError(t, err)
	require.Zero(t, r.GroupsWaiting)
	require.Equal(t, Epoch.Add(3600*time.Second), r.End) // the last end: app-a's gang
}

// TestDLRM_Replay replays the whole DLRM trace (research use only: it is
// read from the file $GANGSCHED_DLRM, and skipped without it) on the PAI
// machines. It is not run by default: its 12,596 gangs outgrow the PAI
// machines, so most wait, and woken groups take about a cycle per end
// over its four weeks: minutes of CPU.
func TestDLRM_Replay(t *testing.T) {
	path := os.Getenv("GANGSCHED_DLRM")
	if path == "" {
		t.Skip("set GANGSCHED_DLRM to disaggregated_DLRM_trace.csv to replay it")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("DLRM trace not found (%v): set GANGSCHED_DLRM to its file", err)
	}
	defer f.Close()
	pods, groups, err := ReadDLRM(f.Name(), f)
	require.NoError(t, err)
	require.Len(t, pods, 23871)
	r, err := replay.Run(replay.Input{Nodes: readPAI(t), Pods: pods, PodGroups: groups}, replay.Options{})
	require.NoError(t, err)
	t.Logf("%d groups, %d never started, delay p50 %.0fs p99 %.0fs, %d cycles", len(r.Groups), r.GroupsWaiting, r.Delay.P50, r.Delay.P99, r.Cycles)
	require.Len(t, r.Groups, len(groups))
}

// FuzzReadDLRM: any instance list is read or refused with ErrFormat, and
// every gang read holds exactly its pods.
func FuzzReadDLRM(f *testing.F) {
	f.Add(dlrmCut)
	f.Add("instance_sn,role,app_name,cpu_request,gpu_request,memory_request,creation_time,scheduled_time,deletion_time\nx,HN,a,1,1,1,nan,,\n")
	f.Fuzz(func(t *testing.T, csv string) {
		pods, groups, err := ReadDLRM("dlrm.csv", strings.NewReader(csv))
		if err != nil {
			require.ErrorIs(t, err, ErrFormat)
			return
		}
		var n int32
		for _, g := range groups {
			n += g.Spec.SchedulingPolicy.Gang.MinCount
		}
		require.Equal(t, int(n), len(pods))
	})
}

// FuzzReadPAIMachines: any machine list is read or refused with ErrFormat.
func FuzzReadPAIMachines(f *testing.F) {
	f.Add("m1,T4,96,512,2\nm2,CPU,96,512,0\n")
	f.Fuzz(func(t *testing.T, csv string) {
		nodes, err := ReadPAIMachines("m.csv", strings.NewReader(csv))
		if err != nil {
			require.ErrorIs(t, err, ErrFormat)
			return
		}
		for _, n := range nodes {
			require.NotEmpty(t, n.Name)
		}
	})
}
