package placement_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// Wild input: unlike placementtest's generators, these produce invalid
// values on purpose (empty and duplicate names, negative and extreme
// quantities, dangling references), for fuzz targets that require an
// error or a valid result and never a panic.
var (
	wildNames      = []string{"", "n0", "n1", "n2"}
	wildNodeNames  = []string{"", "n0", "n1", "n9"}
	wildSpaces     = []string{"", "default", "x"}
	wildPodNames   = []string{"", "p0", "p1", "p2", "p3"}
	wildGroups     = []string{"", "g", "h"}
	wildQuantities = []int64{0, 1, 1000, -1, math.MaxInt64, math.MaxInt64/2 + 1, math.MinInt64}
	wildResources  = []ResourceName{ResourceCPU, ResourcePods, ResourceMemory, ResourceGPU, "example.com/x", ""}
)

func wildKeys() []Key {
	var out []Key
	for _, ns := range wildSpaces {
		for _, n := range wildPodNames {
			out = append(out, Key{ns, n})
		}
	}
	return out
}

func wildList(t *rapid.T, label string) ResourceList {
	rl := ResourceList{}
	for range rapid.IntRange(0, 3).Draw(t, label) {
		rl[rapid.SampledFrom(wildResources).Draw(t, "resource")] = rapid.SampledFrom(wildQuantities).Draw(t, "quantity")
	}
	return rl
}

func wildPod(t *rapid.T) Pod {
	p := Pod{
		Namespace:       rapid.SampledFrom(wildSpaces).Draw(t, "namespace"),
		Name:            rapid.SampledFrom(wildPodNames).Draw(t, "name"),
		NodeName:        rapid.SampledFrom(wildNodeNames).Draw(t, "nodeName"),
		SchedulingGroup: rapid.SampledFrom(wildGroups).Draw(t, "schedulingGroup"),
		Requests:        wildList(t, "requests"),
		Priority:        rapid.SampledFrom([]int32{math.MinInt32, 0, 1, math.MaxInt32}).Draw(t, "priority"),
	}
	if rapid.Bool().Draw(t, "selector") {
		p.NodeSelector = map[string]string{"zone": rapid.SampledFrom([]string{"", "a"}).Draw(t, "zone")}
	}
	if rapid.Bool().Draw(t, "toleration") {
		p.Tolerations = []Toleration{{Key: "k", Operator: rapid.SampledFrom([]TolerationOperator{"", TolerationOpExists, "Bogus"}).Draw(t, "op")}}
	}
	return p
}

func wildCluster(t *rapid.T) ([]Node, []Pod) {
	var nodes []Node
	for range rapid.IntRange(0, 4).Draw(t, "nodes") {
		n := Node{Name: rapid.SampledFrom(wildNames).Draw(t, "name"), Allocatable: wildList(t, "allocatable"), Unschedulable: rapid.Bool().Draw(t, "unschedulable")}
		if rapid.Bool().Draw(t, "labelled") {
			n.Labels = map[string]string{"zone": "a"}
		}
		if rapid.Bool().Draw(t, "tainted") {
			n.Taints = []Taint{{Key: "k", Effect: rapid.SampledFrom([]TaintEffect{"", TaintEffectNoSchedule, TaintEffectPreferNoSchedule, "Bogus"}).Draw(t, "effect")}}
		}
		nodes = append(nodes, n)
	}
	var pods []Pod
	for range rapid.IntRange(0, 5).Draw(t, "pods") {
		pods = append(pods, wildPod(t))
	}
	return nodes, pods
}

// requireInputError checks the shape of every error for bad input.
func requireInputError(t require.TestingT, err error) {
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "%v is not a *FieldError", err)
	require.True(t, errors.Is(err, ErrInvalid) || errors.Is(err, ErrDuplicate) || errors.Is(err, ErrNotFound), "%v wraps no sentinel", err)
	require.NotEmpty(t, fe.Object)
	require.NotEmpty(t, fe.Field)
}

func reversed[S ~[]E, E any](s S) S {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// checkNewSnapshot: an error of the right shape and no snapshot, or a
// snapshot holding every pod where it was bound; the same either way
// whatever the input order.
func checkNewSnapshot(t *rapid.T) {
	nodes, pods := wildCluster(t)
	s, err := NewSnapshot(nodes, pods)
	s2, err2 := NewSnapshot(reversed(nodes), reversed(pods))
	require.Equal(t, fmt.Sprint(err), fmt.Sprint(err2), "the error depends on the input order")
	if err != nil {
		requireInputError(t, err)
		require.Nil(t, s)
		return
	}
	require.Equal(t, dump(s), dump(s2))
	require.Equal(t, len(pods), s.NumPods())
	for _, p := range pods {
		got, ok := s.Pod(p.Key())
		require.True(t, ok)
		require.Equal(t, p.NodeName, got.NodeName)
	}
}

func FuzzNewSnapshot(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(checkNewSnapshot))
}

func TestProp_NewSnapshotWildInput(t *testing.T) { rapid.Check(t, checkNewSnapshot) }

// wildSnapshot draws a valid snapshot with extreme quantities: unique
// names, allocatable up to MaxInt64, requests up to MaxInt64/8 (five pods
// cannot overflow a node; FuzzNewSnapshot covers overflow).
func wildSnapshot(t *rapid.T) *Snapshot {
	big := []int64{0, 1, 1000, math.MaxInt64 / 2, math.MaxInt64}
	valid := func(t *rapid.T, label string, values []int64) ResourceList {
		rl := ResourceList{}
		for range rapid.IntRange(0, 3).Draw(t, label) {
			r := rapid.SampledFrom(wildResources[:len(wildResources)-1]).Draw(t, "resource")
			if label == "requests" && r == ResourcePods {
				continue
			}
			rl[r] = rapid.SampledFrom(values).Draw(t, "quantity")
		}
		return rl
	}
	var nodes []Node
	for i := range rapid.IntRange(0, 3).Draw(t, "nodes") {
		nodes = append(nodes, Node{Name: wildNodeNames[i+1], Allocatable: valid(t, "allocatable", big), Unschedulable: rapid.Bool().Draw(t, "unschedulable")})
	}
	var pods []Pod
	if len(nodes) > 0 {
		for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(wildKeys()[1:]), 0, 5, rapid.ID).Draw(t, "pods") {
			if k.Name == "" {
				continue
			}
			pods = append(pods, Pod{
				Namespace: k.Namespace, Name: k.Name,
				NodeName:        nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "node")].Name,
				SchedulingGroup: rapid.SampledFrom(wildGroups).Draw(t, "schedulingGroup"),
				Requests:        valid(t, "requests", []int64{0, 1, 1000, math.MaxInt64 / 8}),
			})
		}
	}
	s, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	return s
}

// checkApply: Apply fails with a FieldError and no result, or yields what
// NewSnapshot builds from the resulting pod list; the parent never changes.
func checkApply(t *rapid.T) {
	s := wildSnapshot(t)
	before := dump(s)
	var ch Change
	for range rapid.IntRange(0, 3).Draw(t, "removes") {
		ch.Remove = append(ch.Remove, rapid.SampledFrom(wildKeys()).Draw(t, "remove"))
	}
	for range rapid.IntRange(0, 3).Draw(t, "binds") {
		ch.Bind = append(ch.Bind, wildPod(t))
	}
	n, err := s.Apply(ch)
	require.Equal(t, before, dump(s), "Apply changed its parent")
	if err != nil {
		requireInputError(t, err)
		require.Nil(t, n)
		return
	}
	model := map[Key]Pod{}
	var nodes []Node
	for id := range s.NumNodes() {
		nodes = append(nodes, *s.Node(NodeID(id)))
	}
	for p := range s.Pods() {
		model[p.Key()] = *p
	}
	for _, k := range ch.Remove {
		delete(model, k)
	}
	for _, p := range ch.Bind {
		model[p.Key()] = p
	}
	var pods []Pod
	for _, p := range model {
		pods = append(pods, p)
	}
	fresh, err := NewSnapshot(nodes, pods)
	require.NoError(t, err, "Apply accepted a change NewSnapshot rejects")
	require.Equal(t, dump(fresh), dump(n))
}

func FuzzApply(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(checkApply))
}

func TestProp_ApplyWildInput(t *testing.T) { rapid.Check(t, checkApply) }

// checkSolve: Solve on wild groups and wild generator output returns an
// input error, the generator's own error, or a decision Verify accepts.
func checkSolve(t *rapid.T) {
	s := wildSnapshot(t)
	g := &Group{
		Namespace: rapid.SampledFrom(wildSpaces).Draw(t, "namespace"),
		Name:      rapid.SampledFrom([]string{"g", "h", ""}).Draw(t, "name"),
		Policy:    rapid.SampledFrom([]Policy{PolicyGang, PolicyBasic, "", "Bogus"}).Draw(t, "policy"),
		MinCount:  rapid.SampledFrom([]int32{1, 2, 3, 0, -1, math.MaxInt32}).Draw(t, "minCount"),
	}
	for range rapid.IntRange(1, 4).Draw(t, "members") {
		p := wildPod(t)
		if rapid.IntRange(0, 3).Draw(t, "member") > 0 { // mostly well-formed members
			p.Namespace, p.SchedulingGroup, p.NodeName = g.Namespace, g.Name, ""
		}
		g.Members = append(g.Members, p)
	}
	if rapid.Bool().Draw(t, "podSets") {
		for range rapid.IntRange(1, 2).Draw(t, "sets") {
			g.PodSets = append(g.PodSets, PodSet{
				Name:     rapid.SampledFrom([]string{"", "s", "t", "p0"}).Draw(t, "setName"),
				Count:    rapid.SampledFrom([]int32{1, 3, 0, -1, MaxPending, math.MaxInt32}).Draw(t, "count"),
				Template: wildPod(t),
			})
		}
		if rapid.Bool().Draw(t, "setsOnly") {
			g.Members = nil
		}
	}
	var opts Options
	if rapid.Bool().Draw(t, "generator") {
		var ps []Placement
		for range rapid.IntRange(0, 3).Draw(t, "placements") {
			ps = append(ps, Placement{
				Name:  rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "placementName"),
				Nodes: rapid.SliceOfN(rapid.SampledFrom([]NodeID{0, 1, 2, -1, 7}), 0, 4).Draw(t, "ids"),
				Rank:  rapid.IntRange(-1, 1).Draw(t, "rank"),
			})
		}
		opts.Generator = PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) { return ps, nil })
	}
	opts.Budget = rapid.SampledFrom([]int64{0, -1, 1, 5, math.MaxInt64}).Draw(t, "budget")
	d, err := Solve(s, g, opts)
	if err != nil {
		requireInputError(t, err)
		return
	}
	require.NoError(t, Verify(s, g, d))
}

func FuzzSolve(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(checkSolve))
}

func TestProp_SolveWildInput(t *testing.T) { rapid.Check(t, checkSolve) }
