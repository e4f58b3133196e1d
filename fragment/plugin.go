package fragment

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// Plugin runs a [Policy] inside placement.Solve: its Reserver keeps each
// member off nodes whose devices cannot hold its GPUs (one device with
// room for a share, or enough fully free devices; the GPU model) and
// books the devices of the members the solver assumes, and its
// ScoreNode (a placement.NodeScorer) scores a member on a node as the
// policy does, seeing those bookings. Devices themselves are never
// written: after a Scheduled decision the host calls [Devices.Allocate]
// for each assignment.
//
// A Plugin serves one solve at a time ([Plugin.Options] hands out both
// hooks); make a new one, or reuse it for the next solve, but never for
// two solves at once.
type Plugin struct {
	d      *Devices
	p      Policy
	booked map[int32][]int64 // node -> its devices' free milli with the bookings
	undo   []booking
	// The last pod asked about, its request and name: the solver asks
	// about one member on every node in a row.
	pod  *placement.Pod
	req  Request
	name string
	err  error
	// byID caches the devices' node of each NodeID (+1; 0 unknown), and
	// ns is the state handed to the policy: an interface call would move
	// a fresh one to the heap per node.
	byID []int32
	ns   NodeState
}

// booking is what Reserve took, for Unreserve to give back.
type booking struct {
	node  int32
	devs  []int
	milli int64
}

// NewPlugin returns the plugin of policy p over devices d.
func NewPlugin(d *Devices, p Policy) *Plugin {
	return &Plugin{d: d, p: p, booked: map[int32][]int64{}}
}

// Options returns placement options with the plugin's Reserver and node
// scorer and nothing else.
func (pl *Plugin) Options() placement.Options {
	return placement.Options{Reservers: []placement.NewReserverFunc{pl.NewReserver}, NodeScorer: pl}
}

// NewReserver starts a solve: it forgets the last solve's bookings. It is
// a placement.NewReserverFunc.
func (pl *Plugin) NewReserver(*placement.Snapshot, placement.GroupView) (placement.Reserver, error) {
	clear(pl.booked)
	pl.undo, pl.pod = pl.undo[:0], nil
	return reserver{pl}, nil
}

// state is the node of ni as the policy sees it now (pl.ns, until the
// next call), and its index in the devices, or an error when the devices
// lack the node.
func (pl *Plugin) state(ni placement.NodeInfo) (*NodeState, int32, error) {
	name := ni.Node().Name
	i, ok := pl.index(ni.ID(), name)
	if !ok {
		return nil, 0, fmt.Errorf("fragment: node %q is not among the devices' nodes", name)
	}
	free, ok := pl.booked[i]
	if !ok {
		free = pl.d.devices(i)
	}
	pl.ns = NodeState{Name: name, CPUFree: ni.Free(placement.ResourceCPU), Model: pl.d.model[i], Free: free}
	return &pl.ns, i, nil
}

// index is the devices' node called name, which has ID id in the solve's
// snapshot, from the cache when it names the same node.
func (pl *Plugin) index(id placement.NodeID, name string) (int32, bool) {
	if int(id) < len(pl.byID) {
		if i := pl.byID[id] - 1; i >= 0 && pl.d.names[i] == name {
			return i, true
		}
	}
	i, ok := pl.d.index[name]
	if !ok {
		return 0, false
	}
	if int(id) >= len(pl.byID) {
		pl.byID = append(pl.byID, make([]int32, int(id)+1-len(pl.byID))...)
	}
	pl.byID[id] = i + 1
	return i, true
}

// request is RequestOf(pod) and the pod's name, remembered for the next
// call about the same pod (a pod does not change during a solve).
func (pl *Plugin) request(pod *placement.Pod) (Request, string, error) {
	if pod != pl.pod {
		pl.pod, pl.name = pod, pod.Key().String()
		pl.req, pl.err = RequestOf(pod)
	}
	return pl.req, pl.name, pl.err
}

// ScoreNode scores pod on the node by the policy: placement.NodeScorer.
// Use it together with the plugin's Reserver (as [Plugin.Options] does):
// the Reserver books the devices of the members assumed in the solve,
// and its creation starts the solve.
func (pl *Plugin) ScoreNode(pod *placement.Pod, ni placement.NodeInfo) (int64, error) {
	r, name, err := pl.request(pod)
	if err != nil {
		return 0, err
	}
	n, _, err := pl.state(ni)
	if err != nil {
		return 0, err
	}
	sc, _ := pl.p.Score(name, n, r)
	return sc, nil
}

var _ placement.NodeScorer = (*Plugin)(nil)

type reserver struct{ pl *Plugin }

var _ placement.Reserver = reserver{}

// Filter rejects a node whose devices cannot hold the pod's GPUs.
func (rv reserver) Filter(pod *placement.Pod, ni placement.NodeInfo) placement.Rejection {
	r, _, err := rv.pl.request(pod)
	if err != nil {
		return placement.Rejection{Err: err}
	}
	if r.GPUs == 0 {
		return placement.Rejection{}
	}
	n, _, err := rv.pl.state(ni)
	switch {
	case err != nil:
		return placement.Rejection{Err: err}
	case !r.allows(n.Model):
		return placement.Rejection{Reason: "GPU model not allowed", Unresolvable: true}
	case countAtLeast(n.Free, r.GPUMilli) < r.GPUs:
		if r.Shared() {
			return placement.Rejection{Reason: "no GPU with room for the share"}
		}
		return placement.Rejection{Reason: "too few fully free GPUs"}
	}
	return placement.Rejection{}
}

// Reserve books the devices the policy picks for the pod on the node.
func (rv reserver) Reserve(pod *placement.Pod, ni placement.NodeInfo) {
	pl := rv.pl
	r, name, err := pl.request(pod)
	if err != nil || r.GPUs == 0 {
		pl.undo = append(pl.undo, booking{node: -1})
		return
	}
	n, i, err := pl.state(ni)
	if err != nil {
		pl.undo = append(pl.undo, booking{node: -1})
		return
	}
	devs := pick(name, n, r, pl.p)
	free, ok := pl.booked[i]
	if !ok {
		free = slices.Clone(n.Free)
		pl.booked[i] = free
	}
	for _, x := range devs {
		free[x] -= r.GPUMilli
	}
	pl.undo = append(pl.undo, booking{i, devs, r.GPUMilli})
}

// Unreserve gives back the last booking (the solver unreserves last in,
// first out).
func (rv reserver) Unreserve(*placement.Pod, placement.NodeInfo) {
	pl := rv.pl
	b := pl.undo[len(pl.undo)-1]
	pl.undo = pl.undo[:len(pl.undo)-1]
	if b.node < 0 {
		return
	}
	free := pl.booked[b.node]
	for _, x := range b.devs {
		free[x] += b.milli
	}
}
