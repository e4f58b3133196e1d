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

// keyOrderPods draws pods whose keys may repeat, over namespaces and names
// of different lengths that share prefixes (so that the order check meets
// a namespace that goes back while the name goes forward, and names equal
// in their first eight bytes), and reports whether a key repeats.
func keyOrderPods(t *rapid.T, nodes []Node) ([]Pod, bool) {
	namespaces := []string{"", "a", "default", "default-2", "b"}
	names := []string{"p", "p0", "p1", "p10", "pod-0000000", "pod-0000001", "pod-00000010", "pod-000000010", "q"}
	n := rapid.IntRange(0, 40).Draw(t, "pods")
	pods := make([]Pod, n)
	seen := map[Key]bool{}
	dup := false
	for i := range pods {
		k := Key{Namespace: rapid.SampledFrom(namespaces).Draw(t, "namespace"), Name: rapid.SampledFrom(names).Draw(t, "name")}
		if i%4 != 3 {
			// Mostly fresh keys, so that inputs without a repeat are common.
			k.Name += fmt.Sprint("-", i)
		}
		dup = dup || seen[k]
		seen[k] = true
		pods[i] = Pod{Namespace: k.Namespace, Name: k.Name, NodeName: nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "node")].Name,
			Requests: ResourceList{ResourceCPU: int64(i + 1)}}
	}
	return pods, dup
}

// TestProp_SnapshotPodsInKeyOrder: pods given in key order (which
// NewSnapshot proves unique without a key index, built then on the first
// lookup) give the snapshot, the lookups and the duplicate error that the
// same pods give in any other order — shuffled, reversed, by name alone,
// or in key order but for one pod moved to the end (so that the pods
// before the first out of order are counted in the index after the pass).
func TestProp_SnapshotPodsInKeyOrder(t *testing.T) {
	outcomes := map[bool]int{} // by whether a key repeats
	rapid.Check(t, func(t *rapid.T) {
		nodes := []Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 1000}}, {Name: "n1", Allocatable: ResourceList{ResourceCPU: 1000}}}
		pods, dup := keyOrderPods(t, nodes)
		outcomes[dup]++
		byKey := slices.SortedStableFunc(slices.Values(pods), func(a, b Pod) int { return a.Key().Compare(b.Key()) })
		moved := slices.Clone(byKey)
		if len(moved) > 1 {
			i := rapid.IntRange(0, len(moved)-2).Draw(t, "moved")
			p := moved[i]
			moved = append(slices.Delete(moved, i, i+1), p)
		}
		// By name alone, namespaces go back while names go forward.
		byName := slices.SortedStableFunc(slices.Values(pods), func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
		inputs := [][]Pod{byKey, moved, reversed(byKey), byName, rapid.Permutation(pods).Draw(t, "order")}
		var first string
		var firstErr error
		for i, in := range inputs {
			s, err := NewSnapshot(nodes, in)
			if dup {
				require.ErrorIs(t, err, ErrDuplicate, "input %d", i)
				if i == 0 {
					firstErr = err
				} else {
					require.Equal(t, firstErr.Error(), err.Error(), "input %d", i)
				}
				continue
			}
			require.NoError(t, err, "input %d", i)
			for j := range in {
				p, ok := s.Pod(in[j].Key())
				require.True(t, ok, "input %d: %s not found", i, in[j].Key())
				require.Same(t, &in[j], p, "input %d", i)
			}
			for _, k := range []Key{{Namespace: "default", Name: "p"}, {Namespace: "a", Name: "absent"}, {Namespace: "zz", Name: "q-1"}} {
				if !slices.ContainsFunc(in, func(p Pod) bool { return p.Key() == k }) {
					_, ok := s.Pod(k)
					require.False(t, ok, "input %d: found %s", i, k)
				}
			}
			if d := dump(s); i == 0 {
				first = d
			} else {
				require.Equal(t, first, d, "input %d", i)
			}
		}
	})
	require.Positive(t, outcomes[true], "the generator never repeated a key")
	require.Positive(t, outcomes[false], "the generator never drew unique keys")
}

// TestSnapshot_ConcurrentFirstKeyLookups: the key index of a snapshot of
// pods in key order (NewSnapshot built none) is built by whichever of
// Pod, Apply or a Solve (which checks its members are not bound) comes
// first, from several goroutines at once; run with -race.
func TestSnapshot_ConcurrentFirstKeyLookups(t *testing.T) {
	build := func() (*Snapshot, []Pod) {
		nodes := []Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 1 << 20}}, {Name: "n1", Allocatable: ResourceList{ResourceCPU: 1 << 20}}}
		var pods []Pod
		for i := range 500 {
			pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%03d", i), NodeName: nodes[i%2].Name, Requests: ResourceList{ResourceCPU: 1}})
		}
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		return s, pods
	}
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 1,
		Members: []Pod{{Namespace: "default", Name: "b007", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1}}}}
	bind := Change{Remove: []Key{{Namespace: "default", Name: "b499"}}}
	for range 20 {
		s, pods := build()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for k := range 8 {
			wg.Go(func() {
				switch k % 3 {
				case 0:
					for i := range pods {
						if p, ok := s.Pod(pods[i].Key()); !ok || p != &pods[i] {
							errs <- fmt.Errorf("Pod(%s) = %v, %v", pods[i].Key(), p, ok)
							return
						}
					}
				case 1:
					a, err := s.Apply(bind)
					if err != nil {
						errs <- err
						return
					}
					if a.NumPods() != len(pods)-1 {
						errs <- errors.New("Apply removed no pod")
					}
				case 2:
					// b007 is bound already: the group is rejected.
					if _, err := Solve(s, g, Options{}); !errors.Is(err, ErrDuplicate) {
						errs <- fmt.Errorf("Solve of a bound member: %v", err)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
}
