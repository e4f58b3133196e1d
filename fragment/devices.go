package fragment

import (
	"fmt"
	"slices"
	"strings"
)

// NodeGPUs describes one node's GPUs: its name, GPU model ("" for none)
// and device count (0–[MaxDevicesPerNode]).
type NodeGPUs struct {
	Name  string
	Model string
	Count int
}

// Devices is the free milli of every GPU device of a cluster, the state
// the paper's policies read beside each node's free CPU. The host owns it
// and changes it as pods start and end ([Devices.Allocate],
// [Devices.Release]), as it changes its snapshot; a solve only reads it
// (through a [Plugin]). It is not safe for concurrent use.
type Devices struct {
	index map[string]int32 // node name -> node
	names []string
	model []string
	start []int32 // node i's devices are free[start[i]:start[i+1]]
	free  []int64
}

// NewDevices returns the devices of nodes, all free. Errors name the node
// and the field: an empty or repeated name, a count outside
// 0–[MaxDevicesPerNode], or a model without devices.
func NewDevices(nodes []NodeGPUs) (*Devices, error) {
	d := &Devices{index: make(map[string]int32, len(nodes)), start: []int32{0}}
	for i, n := range nodes {
		obj := fmt.Sprintf("node %q", n.Name)
		switch _, dup := d.index[n.Name]; {
		case n.Name == "":
			return nil, fmt.Errorf("fragment: nodes[%d]: name: must not be empty", i)
		case dup:
			return nil, fmt.Errorf("fragment: %s: name: appears twice", obj)
		case n.Count < 0 || n.Count > MaxDevicesPerNode:
			return nil, fmt.Errorf("fragment: %s: count: %d is outside 0–%d", obj, n.Count, MaxDevicesPerNode)
		case n.Count == 0 && n.Model != "":
			return nil, fmt.Errorf("fragment: %s: model: %q on a node without GPUs", obj, n.Model)
		case strings.Contains(n.Model, "|"):
			return nil, fmt.Errorf("fragment: %s: model: %q must not contain \"|\"", obj, n.Model)
		}
		d.index[n.Name] = int32(i)
		d.names = append(d.names, n.Name)
		d.model = append(d.model, n.Model)
		for range n.Count {
			d.free = append(d.free, MilliGPU)
		}
		d.start = append(d.start, int32(len(d.free)))
	}
	return d, nil
}

// Node returns the GPU model and the free milli of each device of node
// name (the slice is the caller's), or false for a node Devices lacks.
func (d *Devices) Node(name string) (model string, free []int64, ok bool) {
	i, ok := d.index[name]
	if !ok {
		return "", nil, false
	}
	return d.model[i], slices.Clone(d.devices(i)), true
}

func (d *Devices) devices(i int32) []int64 { return d.free[d.start[i]:d.start[i+1]] }

// Allocation is the devices a pod holds on a node: each gives Milli.
type Allocation struct {
	Node    string
	Devices []int
	Milli   int64
}

// Allocate gives pod (namespace/name) with request r devices on node by
// policy p's choice, as a [Plugin] did for it during the solve; cpuFree
// is the node's free CPU before the pod (as the snapshot says), which the
// policy may read. It returns the allocation to hand to Release later.
// Errors name the pod and node: an unknown node, an invalid request, or
// devices without room (the solve that placed it did not use these
// Devices).
func (d *Devices) Allocate(pod string, r Request, node string, cpuFree int64, p Policy) (Allocation, error) {
	i, ok := d.index[node]
	if !ok {
		return Allocation{}, fmt.Errorf("fragment: pod %q: node %q: not among the devices' nodes", pod, node)
	}
	if err := r.Validate(fmt.Sprintf("pod %q", pod)); err != nil {
		return Allocation{}, err
	}
	n := NodeState{Name: node, CPUFree: cpuFree, Model: d.model[i], Free: d.devices(i)}
	if r.GPUs == 0 {
		return Allocation{Node: node}, nil
	}
	if !r.allows(n.Model) || countAtLeast(n.Free, r.GPUMilli) < r.GPUs {
		return Allocation{}, fmt.Errorf("fragment: pod %q: node %q: no devices for %d×%d GPU milli (free %v)", pod, node, r.GPUs, r.GPUMilli, n.Free)
	}
	a := Allocation{Node: node, Devices: pick(pod, &n, r, p), Milli: r.GPUMilli}
	for _, x := range a.Devices {
		n.Free[x] -= r.GPUMilli
	}
	return a, nil
}

// Release gives back what Allocate gave. Errors name the node: unknown,
// or a device index or amount that does not fit it (nothing is changed).
func (d *Devices) Release(a Allocation) error {
	i, ok := d.index[a.Node]
	if !ok {
		return fmt.Errorf("fragment: release: node %q: not among the devices' nodes", a.Node)
	}
	free := d.devices(i)
	for _, x := range a.Devices {
		if x < 0 || x >= len(free) || a.Milli < 0 || free[x]+a.Milli > MilliGPU {
			return fmt.Errorf("fragment: release: node %q: device %d cannot take back %d GPU milli", a.Node, x, a.Milli)
		}
	}
	for _, x := range a.Devices {
		free[x] += a.Milli
	}
	return nil
}

// pick is the devices r takes on n by policy p: its choice of device for
// a share (the best fit if it names none that holds it), the first fully
// free devices otherwise.
func pick(pod string, n *NodeState, r Request, p Policy) []int {
	if !r.Shared() {
		return take(n, r, -1)
	}
	_, share := p.Score(pod, n, r)
	if share < 0 || share >= len(n.Free) || n.Free[share] < r.GPUMilli {
		share = bestFitDevice(n.Free, r.GPUMilli)
	}
	return []int{share}
}
