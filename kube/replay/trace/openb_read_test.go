package trace

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// A generated cut of openb's shape: a CPU node, a 2-GPU P100 and an 8-GPU
// G2; a whole-GPU pod, a shared one with a gpu_spec, a CPU pod, and one
// never scheduled in the trace.
const (
	openbNodes = "sn,cpu_milli,memory_mib,gpu,model\n" +
		"n-cpu,32000,262144,0,\n" +
		"n-p100,64000,262144,2,P100\n" +
		"n-g2,96000,393216,8,G2\n"
	openbPods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n" +
		"p-whole,12000,16384,2,1000,,LS,Running,0,3600,10\n" +
		"p-share,6000,12288,1,460,P100|T4,BE,Running,60,7260,60\n" +
		"p-cpu,4000,8192,0,0,,Burstable,Succeeded,120,180,120\n" +
		"p-gone,1000,1024,8,1000,,BE,Pending,200,200,\n"
)

func TestReadOpenB(t *testing.T) {
	in, err := ReadOpenB("nodes.csv", strings.NewReader(openbNodes), "pods.csv", strings.NewReader(openbPods))
	require.NoError(t, err)
	require.Len(t, in.Nodes, 3)
	require.Equal(t, placement.ResourceList{placement.ResourceCPU: 96000, placement.ResourceMemory: 393216 << 20, ResourceGPUMilli: 8000, placement.ResourcePods: 1001}, in.Nodes[2].Allocatable)
	require.Equal(t, "G2", in.Nodes[2].Labels[LabelGPUModel])
	require.NotContains(t, in.Nodes[0].Labels, LabelGPUModel)
	require.Len(t, in.Pods, 4)
	whole, share, cpu, gone := in.Pods[0], in.Pods[1], in.Pods[2], in.Pods[3]
	require.Equal(t, int64(2000), whole.Requests[ResourceGPUMilli])
	require.Equal(t, 3590*time.Second, whole.Duration)
	require.Equal(t, int64(460), share.Requests[ResourceGPUMilli])
	require.Equal(t, "P100|T4", share.Labels[LabelGPUSpec])
	require.Equal(t, Epoch.Add(time.Minute), share.QueuedAt)
	require.NotContains(t, cpu.Requests, ResourceGPUMilli)
	require.Equal(t, time.Second, gone.Duration) // deleted as it was created: at least a second
	require.Len(t, in.Filters, 1)

	// Packing puts the 2-GPU pod on the P100, which it fills, and the CPU
	// pod beside it; the shared pod, allowed on P100s and T4s only, waits
	// there until the 2-GPU pod ends at 3,590 s (it runs as long as in the
	// trace: deletion 3,600 − scheduled 10); the 8-GPU pod takes the
	// G2 at once.
	r, err := replay.Run(in, replay.Options{RecordRuns: true})
	require.NoError(t, err)
	nodes := map[string]string{}
	for _, run := range r.Runs {
		nodes[run.Pod] = run.Node
	}
	require.Equal(t, map[string]string{"openb/p-whole": "n-p100", "openb/p-share": "n-p100", "openb/p-cpu": "n-p100", "openb/p-gone": "n-g2"}, nodes)
	starts := map[string]time.Duration{}
	for _, g := range r.Groups {
		starts[g.Name] = g.Start.Sub(Epoch)
	}
	require.Equal(t, map[string]time.Duration{"openb/p-whole": 0, "openb/p-share": 3590 * time.Second, "openb/p-cpu": 120 * time.Second, "openb/p-gone": 200 * time.Second}, starts)
}

func TestReadOpenB_BadInput(t *testing.T) {
	for _, c := range []struct{ nodes, pods, want string }{
		{"sn,cpu_milli,memory_mib,gpu\n", openbPods, `nodes.csv: trace: bad format: no column "model"`},
		{openbNodes + "n-x,-1,1,0,\n", openbPods, "nodes.csv: line 5: column cpu_milli: trace: bad format: -1 is negative"},
		{openbNodes, openbPods + "p-x,1,1,one,1000,,LS,Running,0,1,0\n", `pods.csv: line 6: column num_gpu: trace: bad format: "one" is not a number`},
		{openbNodes, openbPods + ",1,1,1,1000,,LS,Running,0,1,0\n", "pods.csv: line 6: column name: trace: bad format: is empty"},
		{openbNodes + "n-x,1e300,1,0,\n", openbPods, "column cpu_milli: trace: bad format: 1e300 is too large"},
	} {
		_, err := ReadOpenB("nodes.csv", strings.NewReader(c.nodes), "pods.csv", strings.NewReader(c.pods))
		require.ErrorIs(t, err, ErrFormat)
		require.ErrorContains(t, err, c.want)
	}
}

// FuzzReadOpenB: any pod list is read or refused with ErrFormat, never a
// panic, and what is read replays without error.
func FuzzReadOpenB(f *testing.F) {
	f.Add(openbPods)
	f.Add("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np,1,1,1,1,,,,nan,1,\n")
	f.Fuzz(func(t *testing.T, pods string) {
		in, err := ReadOpenB("nodes.csv", strings.NewReader(openbNodes), "pods.csv", strings.NewReader(pods))
		if err != nil {
			require.ErrorIs(t, err, ErrFormat)
			return
		}
		if len(in.Pods) > 50 {
			return
		}
		_, err = replay.Run(in, replay.Options{MaxCycles: 1000})
		if err != nil {
			require.ErrorIs(t, err, placement.ErrDuplicate) // a name given twice
		}
	})
}

func TestSpeedUp(t *testing.T) {
	in, err := ReadOpenB("nodes.csv", strings.NewReader(openbNodes), "pods.csv", strings.NewReader(openbPods))
	require.NoError(t, err)
	require.NoError(t, SpeedUp(&in, Epoch, 60))
	var arrivals []time.Duration
	for _, p := range in.Pods {
		arrivals = append(arrivals, p.QueuedAt.Sub(Epoch))
	}
	require.Equal(t, []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}, arrivals)
	require.Equal(t, 3590*time.Second, in.Pods[0].Duration) // durations kept
	for _, f := range []float64{0.5, math.NaN(), math.Inf(1)} {
		require.ErrorContains(t, SpeedUp(&in, Epoch, f), "want a finite factor of at least 1")
	}
}
