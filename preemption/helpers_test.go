package preemption_test

import (
	"maps"
	"slices"
	"time"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// Priorities of the scenarios.
const (
	low  int32 = 10
	mid  int32 = 100
	high int32 = 1000
)

const (
	ns      = "default"
	rackKey = "topology.kubernetes.io/rack"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func cpu(milli int64) placement.ResourceList {
	return placement.ResourceList{placement.ResourceCPU: milli}
}

func gpu(n int64) placement.ResourceList {
	return placement.ResourceList{placement.ResourceGPU: n}
}

func node(name string, alloc placement.ResourceList, labels ...string) placement.Node {
	n := placement.Node{Name: name, Allocatable: alloc}
	if len(labels) > 0 {
		n.Labels = map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			n.Labels[labels[i]] = labels[i+1]
		}
	}
	return n
}

// bound is a running pod; group may be "".
func bound(name, nodeName, group string, prio int32, req placement.ResourceList) placement.Pod {
	return placement.Pod{Namespace: ns, Name: name, NodeName: nodeName, SchedulingGroup: group, Priority: prio, Requests: req, StartTime: t0}
}

// gang is a pending PodGroup of n identical members named name-0…
func gang(name string, n int, minCount int32, prio int32, req placement.ResourceList) *placement.Group {
	g := &placement.Group{Namespace: ns, Name: name, MinCount: minCount}
	for i := range n {
		g.Members = append(g.Members, placement.Pod{Namespace: ns, Name: name + "-" + itoa(i), SchedulingGroup: name, Priority: prio, Requests: req})
	}
	return g
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func key(name string) placement.Key { return placement.Key{Namespace: ns, Name: name} }

func snapshot(nodes []placement.Node, pods []placement.Pod) *placement.Snapshot {
	s, err := placement.NewSnapshot(nodes, pods)
	if err != nil {
		panic(err)
	}
	return s
}

// evicted returns the names of the pods a plan evicts, sorted.
func evicted(p preemption.Plan) []string {
	var out []string
	for _, k := range p.EvictedPods() {
		out = append(out, k.Name)
	}
	return out
}

// assigned maps member names to node names.
func assigned(d placement.Decision) map[string]string {
	out := map[string]string{}
	for _, a := range d.Assignments {
		out[a.Pod.Name] = a.Node
	}
	return out
}

// rackGenerator yields one placement per value of the rack label, named by
// it: a required topology key, without importing the topology package.
func rackGenerator() placement.PlacementGenerator {
	return placement.PlacementGeneratorFunc(func(s *placement.Snapshot, g placement.GroupView) ([]placement.Placement, error) {
		byRack := map[string][]placement.NodeID{}
		for id := range s.NumNodes() {
			if r, ok := s.Node(placement.NodeID(id)).Labels[rackKey]; ok {
				byRack[r] = append(byRack[r], placement.NodeID(id))
			}
		}
		var out []placement.Placement
		for _, r := range slices.Sorted(maps.Keys(byRack)) {
			out = append(out, placement.Placement{Name: r, Nodes: byRack[r]})
		}
		return out, nil
	})
}

func ptr[T any](v T) *T { return &v }
