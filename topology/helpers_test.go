package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

const (
	zoneKey  = "topology.kubernetes.io/zone"
	blockKey = "example.com/block"
	rackKey  = "topology.kubernetes.io/rack"
	hostKey  = "kubernetes.io/hostname"
	cpu      = placement.ResourceCPU
)

// node makes a node with milli CPU and labels given as key, value pairs.
func node(name string, milli int64, kv ...string) placement.Node {
	n := placement.Node{Name: name, Allocatable: placement.ResourceList{cpu: milli}, Labels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

func member(name, group string, milli int64) placement.Pod {
	return placement.Pod{Namespace: "default", Name: name, SchedulingGroup: group, Requests: placement.ResourceList{cpu: milli}}
}

func members(group string, n int, milli int64) []placement.Pod {
	out := make([]placement.Pod, n)
	for i := range out {
		out[i] = member(group+"-"+string(rune('a'+i)), group, milli)
	}
	return out
}

func gang(name string, min int32, ms []placement.Pod) *placement.Group {
	return &placement.Group{Namespace: "default", Name: name, MinCount: min, Members: ms}
}

func snapshot(t testing.TB, nodes []placement.Node, pods ...placement.Pod) *placement.Snapshot {
	t.Helper()
	s, err := placement.NewSnapshot(nodes, pods)
	require.NoError(t, err)
	return s
}

func tree(t testing.TB, s *placement.Snapshot, keys ...string) *topology.Tree {
	t.Helper()
	tr, err := topology.NewTree(s, keys)
	require.NoError(t, err)
	return tr
}

func required(key string) topology.Constraint  { return topology.Constraint{Key: key} }
func preferred(key string) topology.Constraint { return topology.Constraint{Key: key, Preferred: true} }

// solve solves g on s with the tree's options for cs and checks the
// decision with Tree.Verify: placement.Verify's invariants and, for every
// required key, one shared domain for all members, bound ones included.
func solve(t testing.TB, tr *topology.Tree, s *placement.Snapshot, g *placement.Group, scoring topology.Scoring, cs ...topology.Constraint) placement.Decision {
	t.Helper()
	opts, err := tr.SolverOptions(cs, scoring)
	require.NoError(t, err)
	d, err := placement.Solve(s, g, opts)
	require.NoError(t, err)
	require.NoError(t, tr.Verify(s, g, d, cs))
	return d
}

// assigned maps member names to node names.
func assigned(d placement.Decision) map[string]string {
	out := map[string]string{}
	for _, a := range d.Assignments {
		out[a.Pod.Name] = a.Node
	}
	return out
}

// commit binds a decision's assignments into a new snapshot.
func commit(t testing.TB, s *placement.Snapshot, g *placement.Group, d placement.Decision) *placement.Snapshot {
	t.Helper()
	byKey := map[placement.Key]placement.Pod{}
	for _, p := range g.Members {
		byKey[p.Key()] = p
	}
	var ch placement.Change
	for _, a := range d.Assignments {
		p := byKey[a.Pod]
		p.NodeName = a.Node
		ch.Bind = append(ch.Bind, p)
	}
	next, err := s.Apply(ch)
	require.NoError(t, err)
	return next
}
