package placement_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// mutate changes a hook's assignment list in one of the ways a careless
// hook might: the entries themselves, or through a resliced or appended
// copy of its header that shares the backing array.
func mutate(as []Assignment, how int) {
	if len(as) == 0 {
		return
	}
	switch how {
	case 0: // a pod set entry's Count
		for i := range as {
			if as[i].Count > 0 {
				as[i].Count++
				return
			}
		}
	case 1: // two members' Pod keys swapped
		var ms []int
		for i := range as {
			if as[i].Count == 0 {
				ms = append(ms, i)
			}
		}
		if len(ms) >= 2 {
			as[ms[0]].Pod, as[ms[1]].Pod = as[ms[1]].Pod, as[ms[0]].Pod
		}
	case 2: // appended to (past its length, within its capacity if any)
		_ = append(as, as[0])
	case 3: // truncated, then appended to: overwrites the last entry
		x := as[len(as)-1]
		x.NodeID, x.Node = as[0].NodeID, as[0].Node
		_ = append(as[:len(as)-1], x)
	case 4: // Member zeroed everywhere
		for i := range as {
			as[i].Member = 0
		}
	case 5:
		slices.Reverse(as)
	case 6: // truncated to nothing and refilled with the first entry
		y := as[0]
		y.Member = 1 << 20
		_ = append(as[:0], y)
	case 7: // the last entry's node changed
		as[len(as)-1].Node = "elsewhere"
	}
}

// TestProp_MutatingScorerKeepsTheDecision: a PlacementScorer that computes
// the default score and then changes its assignment list (nothing in its
// contract forbids it) must get the decision the default scorer behind a
// well-behaved hook gets, field for field: Score, Placement, the members'
// assignments in member order with Member zeroed, the pod sets', Waiting.
func TestProp_MutatingScorerKeepsTheDecision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ps := drawPodSets(t, false)
		how := rapid.IntRange(0, 7).Draw(t, "mutation")
		for _, g := range []*Group{ps.sets, ps.expanded} {
			opts := ps.in.opts
			opts.PlacementFilters = nil
			opts.Scorer = viaHook{}
			want, err := Solve(ps.in.s, g, opts)
			require.NoError(t, err)
			opts.Scorer = PlacementScorerFunc(func(s *Snapshot, g *Group, p *Placement, as []Assignment) int64 {
				score := DefaultScorer{}.Score(s, g, p, as)
				mutate(as, how)
				return score
			})
			got, err := Solve(ps.in.s, g, opts)
			require.NoError(t, err)
			require.Equal(t, want, got, "mutation %d", how)
			for _, sc := range []PlacementScorer{nil, DefaultScorer{}, &DefaultScorer{}} {
				opts.Scorer = sc
				fast, err := Solve(ps.in.s, g, opts)
				require.NoError(t, err)
				require.Equal(t, want, fast, "scorer %T", sc)
			}
		}
	})
}

// TestProp_MutatingFilterKeepsTheAssignments: a PlacementFilter that
// reorders its list or swaps two members' keys (neither changes the
// default score) leaves the decision as a no-op filter's, and a no-op
// filter alone leaves it as no filter does.
func TestProp_MutatingFilterKeepsTheAssignments(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ps := drawPodSets(t, false)
		how := rapid.SampledFrom([]int{1, 2, 5}).Draw(t, "mutation")
		for _, g := range []*Group{ps.sets, ps.expanded} {
			opts := ps.in.opts
			noop := PlacementFilterFunc(func(*Snapshot, *Group, *Placement, []Assignment) Rejection { return Rejection{} })
			opts.PlacementFilters = append(slices.Clone(opts.PlacementFilters), noop)
			want, err := Solve(ps.in.s, g, opts)
			require.NoError(t, err)
			if len(opts.PlacementFilters) == 1 { // the no-op one alone: as without
				without := opts
				without.PlacementFilters = nil
				d, err := Solve(ps.in.s, g, without)
				require.NoError(t, err)
				require.Equal(t, d, want)
			}
			opts.PlacementFilters[len(opts.PlacementFilters)-1] = PlacementFilterFunc(func(_ *Snapshot, _ *Group, _ *Placement, as []Assignment) Rejection {
				mutate(as, how)
				return Rejection{}
			})
			got, err := Solve(ps.in.s, g, opts)
			require.NoError(t, err)
			require.Equal(t, want, got, "mutation %d", how)
		}
	})
}

// TestSolve_ManyPodSetsAtNodeBitBoundaries: pod sets' runs are sorted as
// integers whose node field is bits.Len(nodes) wide and whose rank field
// covers more than 256 sets; at node counts on both sides of a power of
// two, with a set's pods spread over several nodes and sharing nodes with
// other sets, the pod set assignments are the expanded members' per set
// and node, in set name then node name order, each pair once.
func TestSolve_ManyPodSetsAtNodeBitBoundaries(t *testing.T) {
	for _, n := range []int{255, 256, 257, 511, 512, 1023, 1024, 1025} {
		for _, sets := range []int{3, 257, 300, MaxPodSets} {
			if sets == MaxPodSets && n < 1023 {
				continue // no room for them
			}
			t.Run(fmt.Sprintf("nodes=%d/sets=%d", n, sets), func(t *testing.T) {
				nodes := make([]Node, n)
				for i := range nodes {
					nodes[i] = Node{Name: fmt.Sprintf("n%05d", i), Allocatable: ResourceList{ResourceCPU: 8000, ResourcePods: 110}}
				}
				// The lower half is full, the upper half has room for
				// 1..7 pods a node: the sets land at the top IDs, spread.
				var pods []Pod
				for i := range n {
					used := int64(8000)
					if i >= n/2 {
						used = 8000 - int64(i%7+1)*1000
					}
					pods = append(pods, Pod{Namespace: "x", Name: fmt.Sprintf("b%05d", i), NodeName: nodes[i].Name, Requests: ResourceList{ResourceCPU: used}})
				}
				s, err := NewSnapshot(nodes, pods)
				require.NoError(t, err)
				g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
				exp := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
				total := 0
				for k := range sets {
					// names in reverse of index order; counts 1..3
					name := fmt.Sprintf("set%04d", sets-k)
					count := 1 + k%2
					total += count
					tmpl := Pod{Requests: ResourceList{ResourceCPU: 1000}, Priority: int32(k % 4)}
					g.PodSets = append(g.PodSets, PodSet{Name: name, Count: int32(count), Template: tmpl})
					for i := range count {
						p := tmpl
						p.Namespace, p.Name, p.SchedulingGroup = "default", fmt.Sprintf("%s-%d", name, i), "pg"
						exp.Members = append(exp.Members, p)
					}
				}
				g.MinCount, exp.MinCount = int32(total), int32(total)
				d, err := Solve(s, g, Options{})
				require.NoError(t, err)
				require.Equal(t, Scheduled, d.Status, d.Message)
				require.NoError(t, Verify(s, g, d))
				de, err := Solve(s, exp, Options{})
				require.NoError(t, err)
				require.Equal(t, Scheduled, de.Status)
				require.Equal(t, setCounts(de), setCounts(d))
				require.Len(t, g.PodSets, sets)
				require.Greater(t, len(d.PodSetAssignments), sets)
				for i := 1; i < len(d.PodSetAssignments); i++ {
					a, b := d.PodSetAssignments[i-1], d.PodSetAssignments[i]
					require.True(t, a.PodSet < b.PodSet || a.PodSet == b.PodSet && a.Node < b.Node, "%v before %v", a, b)
				}
				for _, x := range d.PodSetAssignments {
					id, ok := s.NodeID(x.Node)
					require.True(t, ok)
					require.Equal(t, id, x.NodeID)
				}
			})
		}
	}
}
