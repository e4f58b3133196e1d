package fragment_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/fragment"
	"github.com/gangsched/gangsched/placement"
)

func gpuNode(name string, cpu int64, gpus int) placement.Node {
	return placement.Node{Name: name, Allocatable: placement.ResourceList{placement.ResourceCPU: cpu, ResourceGPUMilli: int64(gpus) * MilliGPU}}
}

func gpuPod(name string, cpu, milli int64) placement.Pod {
	p := placement.Pod{Namespace: "default", Name: name, SchedulingGroup: "pg", Requests: placement.ResourceList{placement.ResourceCPU: cpu}}
	if milli > 0 {
		p.Requests[ResourceGPUMilli] = milli
	}
	return p
}

// TestScenario_ReserverBooksDevices: a gang of three 600-milli shares on
// two nodes of two GPUs each. n1 holds 1,800 of its 2,000 milli in sum,
// but only two shares by device: best fit puts the first two on n1 (a tie
// by name, then the smaller leftover) and the third on n2.
func TestScenario_ReserverBooksDevices(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{gpuNode("n1", 8000, 2), gpuNode("n2", 8000, 2)}, nil)
	require.NoError(t, err)
	devs, err := NewDevices([]NodeGPUs{{"n1", "T4", 2}, {"n2", "T4", 2}})
	require.NoError(t, err)
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 3,
		Members: []placement.Pod{gpuPod("m1", 1000, 600), gpuPod("m2", 1000, 600), gpuPod("m3", 1000, 600)}}
	d, err := placement.Solve(s, g, NewPlugin(devs, BestFit{}).Options())
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	got := map[string]string{}
	for _, a := range d.Assignments {
		got[a.Pod.Name] = a.Node
	}
	require.Equal(t, map[string]string{"m1": "n1", "m2": "n1", "m3": "n2"}, got)
	_, free, _ := devs.Node("n1")
	require.Equal(t, []int64{1000, 1000}, free, "a solve books nothing in the Devices")
}

// TestScenario_FGDPicksNodeAndDevice: under nodeC's workload (a 200
// share and a whole GPU), n1 is nodeC (devices 1000, 700, 550 after two
// earlier shares) and n2 an idle node of two GPUs. A 500 share on n2
// grows its fragmentation by 500 (the whole GPU cannot use the 500
// left), on n1's device 1 shrinks it by 500: FGD sends it to n1, device
// 1. Best fit sends it to n2, which has less GPU left after it, device 0.
func TestScenario_FGDPicksNodeAndDevice(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{gpuNode("n1", 8000, 3), gpuNode("n2", 8000, 2)}, nil)
	require.NoError(t, err)
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []placement.Pod{gpuPod("p", 1000, 500)}}
	share := Request{CPU: 1000, GPUMilli: 500, GPUs: 1}
	for _, c := range []struct {
		p    Policy
		node string
		dev  int
	}{{NewFGD(cWorkload(t)), "n1", 1}, {BestFit{}, "n2", 0}} {
		devs, err := NewDevices([]NodeGPUs{{"n1", "G2", 3}, {"n2", "G2", 2}})
		require.NoError(t, err)
		for i, milli := range []int64{300, 450} {
			_, err := devs.Allocate("default/old", Request{GPUMilli: milli, GPUs: 1}, "n1", 8000, onDevice(i+1))
			require.NoError(t, err)
		}
		d, err := placement.Solve(s, g, NewPlugin(devs, c.p).Options())
		require.NoError(t, err)
		require.Equal(t, c.node, d.Assignments[0].Node, "%T", c.p)
		a, err := devs.Allocate("default/p", share, c.node, 8000, c.p)
		require.NoError(t, err)
		require.Equal(t, Allocation{Node: c.node, Devices: []int{c.dev}, Milli: 500}, a, "%T", c.p)
		require.NoError(t, devs.Release(a))
	}
}

// TestPlugin_Errors: a node the Devices lack and a pod whose GPU milli is
// neither a share nor whole GPUs stop the solve, naming the hook and the
// object; a bad release changes nothing.
func TestPlugin_Errors(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{gpuNode("n1", 8000, 2)}, nil)
	require.NoError(t, err)
	devs, err := NewDevices([]NodeGPUs{{"other", "T4", 2}})
	require.NoError(t, err)
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []placement.Pod{gpuPod("p", 1000, 0)}}
	_, err = placement.Solve(s, g, NewPlugin(devs, BestFit{}).Options())
	require.ErrorIs(t, err, placement.ErrHook)
	require.ErrorContains(t, err, `Options.NodeScorer on pod default/p, node "n1": fragment: node "n1" is not among the devices' nodes`)

	devs, err = NewDevices([]NodeGPUs{{"n1", "T4", 2}})
	require.NoError(t, err)
	g.Members[0] = gpuPod("p", 1000, 1500)
	_, err = placement.Solve(s, g, NewPlugin(devs, BestFit{}).Options())
	require.ErrorIs(t, err, placement.ErrHook)
	require.ErrorContains(t, err, `fragment: pod "default/p": requests[alibabacloud.com/gpu-milli]: 1500 is more than one GPU and not whole GPUs`)

	a, err := devs.Allocate("default/p", Request{GPUMilli: 700, GPUs: 1}, "n1", 8000, BestFit{})
	require.NoError(t, err)
	require.EqualError(t, devs.Release(Allocation{Node: "n1", Devices: []int{0, 1}, Milli: 700}),
		`fragment: release: node "n1": device 1 cannot take back 700 GPU milli`)
	_, free, _ := devs.Node("n1")
	require.Equal(t, []int64{300, 1000}, free)
	require.NoError(t, devs.Release(a))
}

// TestProp_PluginPlacesWhereDevicesFit: pods placed one by one on a
// small cluster, each solved alone by a policy and then allocated, never
// overbook a device, are placed whenever some node has the CPU and the
// devices for them (checked against every node), and wait otherwise.
func TestProp_PluginPlacesWhereDevicesFit(t *testing.T) {
	w, err := NewWorkload(openbLikeShapes(), 95)
	require.NoError(t, err)
	pols := policies(w)
	placed, waited := 0, 0 // the generator must yield both
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		var gpus []NodeGPUs
		for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
			name, c := fmt.Sprintf("n%d", i), rapid.IntRange(0, 4).Draw(t, "gpus")
			nodes = append(nodes, gpuNode(name, int64(rapid.IntRange(1, 8).Draw(t, "cores"))*1000, c))
			model := ""
			if c > 0 {
				model = "T4"
			}
			gpus = append(gpus, NodeGPUs{name, model, c})
		}
		devs, err := NewDevices(gpus)
		require.NoError(t, err)
		pol := pols[rapid.IntRange(0, len(pols)-1).Draw(t, "policy")]
		s, err := placement.NewSnapshot(nodes, nil)
		require.NoError(t, err)
		for i := range rapid.IntRange(1, 12).Draw(t, "pods") {
			milli := rapid.SampledFrom([]int64{0, 100, 250, 500, 700, 1000, 2000, 4000}).Draw(t, "milli")
			p := gpuPod(fmt.Sprintf("p%02d", i), int64(rapid.IntRange(0, 4).Draw(t, "cpu"))*500, milli)
			p.SchedulingGroup = p.Name
			r, err := RequestOf(&p)
			require.NoError(t, err)
			fitsSomewhere := false
			for _, n := range nodes {
				model, free, _ := devs.Node(n.Name)
				ns := NodeState{CPUFree: s.Free(mustID(t, s, n.Name), placement.ResourceCPU), Model: model, Free: free}
				fitsSomewhere = fitsSomewhere || fitsByDevices(&ns, r)
			}
			g := &placement.Group{Namespace: "default", Name: p.Name, MinCount: 1, Members: []placement.Pod{p}}
			d, err := placement.Solve(s, g, NewPlugin(devs, pol.p).Options())
			require.NoError(t, err)
			require.Equal(t, fitsSomewhere, d.Status == placement.Scheduled, "%s (%+v) under %s: %s", p.Name, r, pol.name, d.Message)
			if d.Status != placement.Scheduled {
				waited++
				continue
			}
			placed++
			a := d.Assignments[0]
			_, err = devs.Allocate(p.Key().String(), r, a.Node, s.Free(a.NodeID, placement.ResourceCPU), pol.p)
			require.NoError(t, err)
			p.NodeName = a.Node
			s, err = s.Apply(placement.Change{Bind: []placement.Pod{p}})
			require.NoError(t, err)
		}
		for _, n := range gpus {
			_, free, _ := devs.Node(n.Name)
			for _, f := range free {
				require.True(t, f >= 0 && f <= MilliGPU, "node %s devices %v", n.Name, free)
			}
		}
	})
	require.Positive(t, placed)
	require.Positive(t, waited)
}

// fitsByDevices is the oracle: CPU, and as many devices with room for
// the per-GPU milli as the pod asks GPUs.
func fitsByDevices(n *NodeState, r Request) bool {
	room := 0
	for _, f := range n.Free {
		if f >= r.GPUMilli {
			room++
		}
	}
	return n.CPUFree >= r.CPU && (r.GPUs == 0 || room >= r.GPUs)
}

func mustID(t require.TestingT, s *placement.Snapshot, name string) placement.NodeID {
	id, ok := s.NodeID(name)
	require.True(t, ok, name)
	return id
}
