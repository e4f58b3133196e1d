package placement_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// TestProp_SnapshotPodsInAnyOrder: NewSnapshot resolves pods grouped by
// node without a name index and looks the rest up; whatever the order of
// nodes and pods (grouped by node in name order, grouped out of order,
// shuffled), with nodes that hold no pod, the snapshot is the same, and a
// pod on an unknown or empty node is named, with spec.nodeName, by the
// same error — the first such pod by namespace/name.
func TestProp_SnapshotPodsInAnyOrder(t *testing.T) {
	outcomes := map[bool]int{} // by whether the pods are rejected
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "nodes")
		nodes := make([]Node, n)
		for i := range nodes {
			nodes[i] = Node{Name: fmt.Sprintf("n%02d", i), Allocatable: ResourceList{ResourceCPU: 100000, ResourcePods: 110}}
		}
		var pods []Pod
		for i := range rapid.IntRange(0, 30).Draw(t, "pods") {
			node := ""
			switch k := rapid.IntRange(-2, n-1).Draw(t, "node"); {
			case k >= 0:
				node = nodes[k].Name
			case k == -1 && rapid.IntRange(0, 5).Draw(t, "bad") == 0:
				node = "ghost"
			case k == -2 && rapid.IntRange(0, 5).Draw(t, "bad") == 0:
				node = ""
			case n > 0:
				node = nodes[0].Name
			default:
				node = "ghost"
			}
			pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("p%02d", i), NodeName: node,
				SchedulingGroup: []string{"", "pg0"}[i%2], Requests: ResourceList{ResourceCPU: int64(1 + i)}})
		}
		var wantErr *FieldError
		for _, p := range slices.SortedFunc(slices.Values(pods), func(a, b Pod) int { return a.Key().Compare(b.Key()) }) {
			if p.NodeName == "" || p.NodeName == "ghost" {
				wantErr = &FieldError{Object: "pod " + p.Key().String(), Field: "spec.nodeName"}
				break
			}
		}
		outcomes[wantErr != nil]++
		sorted := slices.Clone(pods)
		slices.SortStableFunc(sorted, func(a, b Pod) int { return strings.Compare(a.NodeName, b.NodeName) })
		shuffledNodes := rapid.Permutation(nodes).Draw(t, "nodeOrder")
		shuffledPods := rapid.Permutation(pods).Draw(t, "podOrder")
		reversed := slices.Clone(sorted)
		slices.Reverse(reversed)
		var first string
		for i, in := range []struct {
			nodes []Node
			pods  []Pod
		}{{nodes, sorted}, {nodes, reversed}, {shuffledNodes, shuffledPods}, {shuffledNodes, sorted}} {
			s, err := NewSnapshot(in.nodes, in.pods)
			if wantErr != nil {
				var fe *FieldError
				require.ErrorAs(t, err, &fe, "input %d", i)
				require.Equal(t, wantErr.Field, fe.Field, "input %d: %v", i, err)
				require.Contains(t, fe.Object, wantErr.Object[len("pod "):], "input %d: %v", i, err)
				continue
			}
			require.NoError(t, err, "input %d", i)
			for _, nd := range nodes {
				id, ok := s.NodeID(nd.Name)
				require.True(t, ok)
				require.Equal(t, nd.Name, s.Node(id).Name)
			}
			_, ok := s.NodeID("ghost")
			require.False(t, ok)
			if d := dump(s); i == 0 {
				first = d
			} else {
				require.Equal(t, first, d, "input %d", i)
			}
		}
	})
	require.Positive(t, outcomes[true], "no input rejected")
	require.Positive(t, outcomes[false], "no input accepted")
}

// TestSnapshot_ConcurrentFirstNameLookups: the name index of a fresh
// snapshot (pods grouped by node, so NewSnapshot built none) is built by
// whichever of NodeID, Apply, a Solve with bound members or a derived
// snapshot's lookup comes first, from several goroutines at once; run
// with -race. Every answer is the one of a snapshot whose index was built
// before.
func TestSnapshot_ConcurrentFirstNameLookups(t *testing.T) {
	build := func() *Snapshot {
		var nodes []Node
		var pods []Pod
		for i := range 300 {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%03d", i), Allocatable: ResourceList{ResourceCPU: 4000, ResourcePods: 110}})
			pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%03d", i), NodeName: nodes[i].Name,
				SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}})
		}
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		return s
	}
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 302}
	g.Members = []Pod{
		{Namespace: "default", Name: "m0", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 3000}},
		{Namespace: "default", Name: "m1", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 3000}},
	}
	bind := Change{Bind: []Pod{{Namespace: "default", Name: "x", NodeName: "n150", Requests: ResourceList{ResourceCPU: 3000}}},
		Remove: []Key{{Namespace: "default", Name: "b007"}}}
	warm := build()
	_, _ = warm.NodeID("n000")
	wantD, err := Solve(warm, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, wantD.Status)
	wantA, err := warm.Apply(bind)
	require.NoError(t, err)
	for range 20 {
		s := build()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for k := range 8 {
			wg.Go(func() {
				switch k % 4 {
				case 0:
					for i := range 300 {
						if id, ok := s.NodeID(fmt.Sprintf("n%03d", i)); !ok || int(id) != i {
							errs <- fmt.Errorf("NodeID(n%03d) = %d, %v", i, id, ok)
							return
						}
					}
				case 1:
					a, err := s.Apply(bind)
					if err != nil {
						errs <- err
						return
					}
					if dump(a) != dump(wantA) {
						errs <- errors.New("Apply differs")
					}
					if id, ok := a.NodeID("n299"); !ok || id != 299 {
						errs <- errors.New("derived NodeID")
					}
				case 2:
					d, err := Solve(s, g, Options{})
					if err != nil {
						errs <- err
						return
					}
					if fmt.Sprint(d) != fmt.Sprint(wantD) {
						errs <- fmt.Errorf("Solve differs: %v", d.Message)
					}
				case 3:
					_, err := s.Apply(Change{Bind: []Pod{{Namespace: "default", Name: "y", NodeName: "ghost"}}})
					var fe *FieldError
					if !errors.As(err, &fe) || fe.Field != "spec.nodeName" || !errors.Is(err, ErrNotFound) {
						errs <- fmt.Errorf("Apply to an unknown node: %v", err)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}

// TestKeyIndex_LazyBuildConcurrent: a snapshot of pods in key order builds
// its key index on the first lookup; lookups, Apply and Solve from several
// goroutines at once all find every pod (run with -race).
func TestKeyIndex_LazyBuildConcurrent(t *testing.T) {
	for round := range 20 {
		nodes := []Node{{Name: "n", Allocatable: ResourceList{ResourceCPU: 1 << 40}}}
		var pods []Pod
		for i := range 300 {
			pods = append(pods, Pod{Namespace: "ns", Name: fmt.Sprintf("p%04d", i), NodeName: "n", SchedulingGroup: []string{"", "pg"}[i%2]})
		}
		s, err := NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 300 {
					k := Key{Namespace: "ns", Name: fmt.Sprintf("p%04d", (i+w*77)%300)}
					if _, ok := s.Pod(k); !ok {
						t.Errorf("round %d: %v not found", round, k)
					}
				}
				if w == 0 {
					if _, err := s.Apply(Change{Remove: []Key{{Namespace: "ns", Name: "p0001"}}}); err != nil {
						t.Error(err)
					}
				}
				g := &Group{Namespace: "ns", Name: "pg", MinCount: 1, Members: []Pod{{Namespace: "ns", Name: fmt.Sprintf("q%d", w), SchedulingGroup: "pg"}}}
				if _, err := Solve(s, g, Options{}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
}
