package replay

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/fragment"
	"github.com/gangsched/gangsched/placement"
)

var gpuShareNames = []string{"bestfit", "dotprod", "fgd", "gpupacking", "random"}

func shareNode(name, model string, gpus int64) placement.Node {
	n := placement.Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name},
		Allocatable: placement.ResourceList{placement.ResourceCPU: 32000, fragment.ResourceGPUMilli: gpus * fragment.MilliGPU, placement.ResourcePods: 110}}
	if gpus > 0 {
		n.Labels[fragment.ModelLabel] = model
	}
	return n
}

func sharePod(name string, cpu, milli int64, at time.Time, d time.Duration) Pod {
	return Pod{Pod: placement.Pod{Namespace: "default", Name: name, QueuedAt: at,
		Requests: placement.ResourceList{placement.ResourceCPU: cpu, fragment.ResourceGPUMilli: milli}}, Duration: d}
}

// genShareInput draws a small GPU-sharing cluster over an hour: 1–4
// nodes of 0–4 devices of model A or B, lone pods asking for a share of
// one GPU (100–900 milli), one or two whole GPUs or none, some for model
// A only, of 1–60 minutes or running on.
func genShareInput(t *rapid.T) Input {
	in := Input{GPU: GPUResource{Name: fragment.ResourceGPUMilli, PerGPU: fragment.MilliGPU}}
	for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
		in.Nodes = append(in.Nodes, shareNode(fmt.Sprintf("n%d", i), rapid.SampledFrom([]string{"A", "B"}).Draw(t, "model"), rapid.Int64Range(0, 4).Draw(t, "gpus")))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rapid.IntRange(1, 20).Draw(t, "pods") {
		milli := rapid.SampledFrom([]int64{0, 100, 250, 500, 600, 900, 1000, 2000}).Draw(t, "milli")
		at := t0.Add(time.Duration(rapid.IntRange(0, 60).Draw(t, "at")) * time.Minute)
		d := time.Duration(rapid.IntRange(0, 60).Draw(t, "minutes")) * time.Minute
		p := sharePod(fmt.Sprintf("p%02d", i), rapid.Int64Range(1, 16).Draw(t, "cpu")*1000, milli, at, d)
		if rapid.IntRange(0, 3).Draw(t, "selector") == 0 {
			p.NodeSelector = map[string]string{fragment.ModelLabel: "A"}
		}
		in.Pods = append(in.Pods, p)
	}
	return in
}

// packs says whether GPU requests (milli each; a multiple of 1000 is
// whole GPUs) fit on n devices of 1000: shares on one device each, whole
// GPUs on free devices — by trying every placement.
func packs(reqs []int64, n int) bool {
	free := make([]int64, n)
	for i := range free {
		free[i] = fragment.MilliGPU
	}
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(reqs) {
			return true
		}
		q := reqs[k]
		if q >= fragment.MilliGPU { // whole GPUs: the first free ones will do
			want := q / fragment.MilliGPU
			var took []int
			for i := range free {
				if free[i] == fragment.MilliGPU && int64(len(took)) < want {
					took = append(took, i)
				}
			}
			if int64(len(took)) < want {
				return false
			}
			for _, i := range took {
				free[i] = 0
			}
			ok := try(k + 1)
			for _, i := range took {
				free[i] = fragment.MilliGPU
			}
			return ok
		}
		for i := range free {
			if free[i] >= q {
				free[i] -= q
				if try(k + 1) {
					return true
				}
				free[i] += q
			}
		}
		return false
	}
	return try(0)
}

// TestProp_GPUShareNeverOverbooks: under each of the FGD paper's
// policies, at every moment a pod starts, the GPU requests of the pods
// running on its node fit the node's devices one share per device — the
// per-device model, not the node's pooled milli — and a model selector
// is kept; Run itself fails if the tracker ever finds a device short.
func TestProp_GPUShareNeverOverbooks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genShareInput(t)
		name := rapid.SampledFrom(gpuShareNames).Draw(t, "policy")
		pol, ok := LookupPolicy(name)
		require.True(t, ok)
		r, err := Run(in, Options{Policy: pol, RecordRuns: true})
		require.NoError(t, err)
		pods, nodes := map[string]Pod{}, map[string]placement.Node{}
		for _, p := range in.Pods {
			pods[p.Key().String()] = p
		}
		for _, n := range in.Nodes {
			nodes[n.Name] = n
		}
		for _, run := range r.Runs {
			node := nodes[run.Node]
			if sel := pods[run.Pod].NodeSelector[fragment.ModelLabel]; sel != "" && pods[run.Pod].Requests[fragment.ResourceGPUMilli] > 0 {
				require.Equal(t, sel, node.Labels[fragment.ModelLabel], "pod %s on %s", run.Pod, run.Node)
			}
			var reqs []int64
			for _, o := range r.Runs {
				if o.Node == run.Node && !o.Start.After(run.Start) && (o.End.IsZero() || o.End.After(run.Start)) {
					if q := pods[o.Pod].Requests[fragment.ResourceGPUMilli]; q > 0 {
						reqs = append(reqs, q)
					}
				}
			}
			devs := int(node.Allocatable[fragment.ResourceGPUMilli] / fragment.MilliGPU)
			require.True(t, packs(reqs, devs), "%s: at %s node %s (%d devices) runs %v", name, run.Start, run.Node, devs, reqs)
		}
	})
}

// TestProp_GPUShareDeterministic: each policy's replay is byte-identical
// across runs and input orders.
func TestProp_GPUShareDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genShareInput(t)
		pol, _ := LookupPolicy(rapid.SampledFrom(gpuShareNames).Draw(t, "policy"))
		checkDeterministic(t, in, Options{Policy: pol, RecordRuns: true})
	})
}

// TestGPUShare_PerDevice: three pods of 0.6 GPU on one node of two GPUs.
// The node pools 2.0 GPUs, so the stateless packing policy starts all
// three; each device holds one 0.6 share only, so the FGD paper's
// policies start two and leave the third waiting. A pod running before
// the replay holds its device too.
func TestGPUShare_PerDevice(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := Input{GPU: GPUResource{Name: fragment.ResourceGPUMilli, PerGPU: fragment.MilliGPU}, Nodes: []placement.Node{shareNode("n0", "A", 2)}}
	for i := range 3 {
		in.Pods = append(in.Pods, sharePod(fmt.Sprintf("p%d", i), 1000, 600, t0.Add(time.Duration(i)*time.Second), 0))
	}
	started := func(r *Result) (n int) {
		for _, g := range r.Groups {
			if g.Started {
				n++
			}
		}
		return n
	}
	for _, name := range append([]string{"packing"}, gpuShareNames...) {
		pol, _ := LookupPolicy(name)
		r, err := Run(in, Options{Policy: pol})
		require.NoError(t, err, name)
		want := 2
		if name == "packing" {
			want = 3
		}
		require.Equal(t, want, started(r), name)
	}
	// p0 already runs on n0: of the two that arrive, one starts.
	pre := in
	pre.Pods = append([]Pod(nil), in.Pods...)
	pre.Pods[0].NodeName, pre.Pods[0].StartTime = "n0", t0
	for _, name := range gpuShareNames {
		pol, _ := LookupPolicy(name)
		r, err := Run(pre, Options{Policy: pol})
		require.NoError(t, err, name)
		require.Equal(t, 2, started(r), name)
	}
}
