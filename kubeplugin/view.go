package kubeplugin

import (
	"maps"
	"slices"
	"strings"
	"sync"

	fwk "k8s.io/kube-scheduler/framework"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// view keeps gangsched's snapshot of the framework's nodes, and the
// topology trees built on it, across PodGroup cycles. Each cycle it is
// brought in step with the nodes the framework passes: a NodeInfo whose
// generation moved since the last cycle has its pods taken out and put
// back with placement.Snapshot.Apply, so a cycle costs a generation
// comparison per node plus the nodes that changed, not a conversion of
// every node and pod and a tree per cycle. It follows the framework's
// NodeInfos rather than informers of its own because those are what the
// framework decides on: they hold the pods it assumed bound, which the
// watch shows only later.
//
// A change of the node set, of a node's labels, allocatable, taints or
// unschedulable, or a pod the snapshot cannot take (a resource no node
// had) rebuilds the snapshot and drops the trees; the trees serve every
// snapshot derived from the one they were built on (topology.Tree and
// placement.Snapshot.ChangedNodes).
type view struct {
	mu    sync.Mutex
	snap  *placement.Snapshot
	nodes map[string]nodeState
	trees map[string]*topology.Tree // by levels joined with "\x00"
}

// nodeState is what the snapshot holds of one node: the NodeInfo
// generation it reflects, the node as converted, and its pods' keys.
type nodeState struct {
	gen  int64
	node placement.Node
	pods []placement.Key
}

// sync brings the snapshot in step with nodes and returns it.
func (v *view) sync(nodes []fwk.NodeInfo) (*placement.Snapshot, error) {
	if v.snap == nil || len(nodes) != len(v.nodes) {
		return v.rebuild(nodes)
	}
	var ch placement.Change
	changed := map[string]nodeState{}
	for _, ni := range nodes {
		name := ni.Node().Name
		old, ok := v.nodes[name]
		switch {
		case !ok:
			return v.rebuild(nodes)
		case old.gen == ni.GetGeneration():
			continue
		}
		n, err := kube.ConvertNode(ni.Node())
		if err != nil {
			return nil, err
		}
		if !sameNode(old.node, n) {
			return v.rebuild(nodes)
		}
		ch.Remove = append(ch.Remove, old.pods...)
		st := nodeState{gen: ni.GetGeneration(), node: n}
		for _, pi := range ni.GetPods() {
			p, err := boundPod(pi, name)
			if err != nil {
				return nil, err
			}
			ch.Bind = append(ch.Bind, p)
			st.pods = append(st.pods, p.Key())
		}
		changed[name] = st
	}
	if len(changed) == 0 {
		return v.snap, nil
	}
	next, err := v.snap.Apply(ch)
	if err != nil {
		return v.rebuild(nodes) // a pod requests a resource the snapshot was built without
	}
	v.snap = next
	maps.Copy(v.nodes, changed)
	return next, nil
}

// rebuild converts every node and pod into a new snapshot.
func (v *view) rebuild(nodes []fwk.NodeInfo) (*placement.Snapshot, error) {
	v.snap, v.nodes, v.trees = nil, nil, nil
	states := make(map[string]nodeState, len(nodes))
	pns := make([]placement.Node, 0, len(nodes))
	var pods []placement.Pod
	for _, ni := range nodes {
		n, err := kube.ConvertNode(ni.Node())
		if err != nil {
			return nil, err
		}
		pns = append(pns, n)
		st := nodeState{gen: ni.GetGeneration(), node: n}
		for _, pi := range ni.GetPods() {
			p, err := boundPod(pi, n.Name)
			if err != nil {
				return nil, err
			}
			pods = append(pods, p)
			st.pods = append(st.pods, p.Key())
		}
		states[n.Name] = st
	}
	snap, err := placement.NewSnapshot(pns, pods)
	if err != nil {
		return nil, err
	}
	v.snap, v.nodes, v.trees = snap, states, map[string]*topology.Tree{}
	return snap, nil
}

// tree returns the topology tree of levels on the current snapshot's
// nodes, built once per snapshot frame.
func (v *view) tree(levels []string) (*topology.Tree, error) {
	id := strings.Join(levels, "\x00")
	if t, ok := v.trees[id]; ok {
		return t, nil
	}
	t, err := topology.NewTree(v.snap, levels)
	if err != nil {
		return nil, err
	}
	v.trees[id] = t
	return t, nil
}

// boundPod is pod pi on node as the snapshot holds it: its requests, and
// its PodGroup so that a group's bound members are known
// (placement.Snapshot.GroupMembers).
func boundPod(pi fwk.PodInfo, node string) (placement.Pod, error) {
	p, err := requestsOnly(pi.GetPod())
	if err != nil {
		return placement.Pod{}, err
	}
	p.NodeName, p.SchedulingGroup = node, groupOf(pi.GetPod())
	return p, nil
}

// sameNode reports whether two conversions of a node place pods alike.
func sameNode(a, b placement.Node) bool {
	return maps.Equal(a.Labels, b.Labels) && maps.Equal(a.Allocatable, b.Allocatable) &&
		slices.Equal(a.Taints, b.Taints) && a.Unschedulable == b.Unschedulable
}
