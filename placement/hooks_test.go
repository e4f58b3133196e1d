package placement_test

import (
	"errors"
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
			opts.Scorer = PlacementScorerFunc(func(s *Snapshot, g GroupView, p *Placement, as []Assignment) (int64, error) {
				score, _ := DefaultScorer{}.Score(s, g, p, as)
				mutate(as, how)
				return score, nil
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
			noop := PlacementFilterFunc(func(*Snapshot, GroupView, *Placement, []Assignment) Rejection { return Rejection{} })
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
			opts.PlacementFilters[len(opts.PlacementFilters)-1] = PlacementFilterFunc(func(_ *Snapshot, _ GroupView, _ *Placement, as []Assignment) Rejection {
				mutate(as, how)
				return Rejection{}
			})
			got, err := Solve(ps.in.s, g, opts)
			require.NoError(t, err)
			require.Equal(t, want, got, "mutation %d", how)
		}
	})
}

// TestSolve_PlacementHooksThatReorderTheirAssignments: a PlacementScorer
// or PlacementFilter that reorders or changes the assignment slice it is
// shown (nothing in their contract forbids it) must not cost the decision
// members or pod sets: the decision still places every member, in member
// order, and the pod sets, and Verify accepts it.
func TestSolve_PlacementHooksThatReorderTheirAssignments(t *testing.T) {
	a := ResourceList{ResourceCPU: 8000, ResourcePods: 110}
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: a}, {Name: "n1", Allocatable: a}}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 6,
		Members: []Pod{
			{Namespace: "default", Name: "m0", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}},
			{Namespace: "default", Name: "m1", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}},
		},
		PodSets: []PodSet{{Name: "a-workers", Count: 4, Template: Pod{Requests: ResourceList{ResourceCPU: 1000}}}}}
	reverse := func(as []Assignment) { slices.Reverse(as) }
	// Moving the last entry to the other node keeps the order.
	move := func(as []Assignment) {
		last := &as[len(as)-1]
		last.NodeID, last.Node = 1-last.NodeID, []string{"n1", "n0"}[last.NodeID]
		last.Count++
	}
	for name, opts := range map[string]Options{
		"scorer": {Scorer: PlacementScorerFunc(func(_ *Snapshot, _ GroupView, _ *Placement, as []Assignment) (int64, error) {
			reverse(as)
			return 0, nil
		})},
		"filter": {PlacementFilters: []PlacementFilter{PlacementFilterFunc(func(_ *Snapshot, _ GroupView, _ *Placement, as []Assignment) Rejection {
			reverse(as)
			return Rejection{}
		})}},
		"scorer-moves": {Scorer: PlacementScorerFunc(func(_ *Snapshot, _ GroupView, _ *Placement, as []Assignment) (int64, error) {
			move(as)
			return 0, nil
		})},
	} {
		membersOnly := *g
		membersOnly.PodSets, membersOnly.MinCount = nil, 2
		for _, g := range []*Group{g, &membersOnly} {
			t.Run(name, func(t *testing.T) {
				want, err := Solve(s, g, Options{})
				require.NoError(t, err)
				require.Equal(t, Scheduled, want.Status)
				d, err := Solve(s, g, opts)
				require.NoError(t, err)
				require.Equal(t, Scheduled, d.Status)
				require.Equal(t, want.Assignments, d.Assignments)
				require.Equal(t, want.PodSetAssignments, d.PodSetAssignments)
				require.NoError(t, Verify(s, g, d))
			})
		}
	}
}

// TestSolve_PendingMemberAlreadyBound: a pending member whose key is a
// bound pod's — one of the group's own bound members, or another group's
// pod — is an input error naming it, with members listed in order or not.
func TestSolve_PendingMemberAlreadyBound(t *testing.T) {
	a := ResourceList{ResourceCPU: 8000, ResourcePods: 110}
	bound := []Pod{
		{Namespace: "default", Name: "m1", SchedulingGroup: "pg", NodeName: "n0", Requests: ResourceList{ResourceCPU: 1000}},
		{Namespace: "default", Name: "x", SchedulingGroup: "other", NodeName: "n0", Requests: ResourceList{ResourceCPU: 1000}},
	}
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: a}}, bound)
	require.NoError(t, err)
	member := func(name string) Pod {
		return Pod{Namespace: "default", Name: name, SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}}
	}
	for _, names := range [][]string{{"m0", "m1", "m2"}, {"m2", "m1", "m0"}, {"m0", "x"}, {"x", "m0"}} {
		g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 1}
		for _, n := range names {
			g.Members = append(g.Members, member(n))
		}
		_, err := Solve(s, g, Options{})
		require.ErrorIs(t, err, ErrDuplicate, "%v", names)
		require.ErrorContains(t, err, "already bound", "%v", names)
	}
}

// hookErrCase is one node and a gang of two members for the hook error
// tests.
func hookErrCase(t *testing.T) (*Snapshot, *Group) {
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 4000}}}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []Pod{
		{Namespace: "default", Name: "a", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}},
		{Namespace: "default", Name: "b", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}},
	}}
	return s, g
}

var errLookup = errors.New("lookup failed")

// failingSums is a SumScorer whose sums cannot be scored.
type failingSums struct{}

func (failingSums) Score(*Snapshot, GroupView, *Placement, []Assignment) (int64, error) {
	return 0, errLookup
}

func (failingSums) ScoreSums(*Snapshot, GroupView, *Placement, int64, []int64) (int64, error) {
	return 0, errLookup
}

// TestHooks_ErrorsStopTheSolve: a hook of each kind (filter, reserver,
// placement filter, scorer, sum scorer, generator, reserver constructor) that
// fails for a reason of its own (here a lookup) makes Solve return an error
// that wraps ErrHook and the hook's error and names the hook, the pod and the
// node or the placement; no decision comes with it.
func TestHooks_ErrorsStopTheSolve(t *testing.T) {
	failing := Rejection{Err: errLookup}
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"filter", Options{Filters: []Filter{FilterFunc(func(*Pod, NodeInfo) Rejection { return Rejection{} }), FilterFunc(func(*Pod, NodeInfo) Rejection { return failing })}},
			`placement: hook failed: PodGroup default/pg: Options.Filters[1] on pod default/a, node "n0": lookup failed`},
		{"reserver", Options{Reservers: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) {
			return ReserverFuncs{FilterFunc: func(p *Pod, _ NodeInfo) Rejection {
				if p.Name == "b" {
					return failing
				}
				return Rejection{}
			}}, nil
		}}},
			`placement: hook failed: PodGroup default/pg: Options.Reservers[0] on pod default/b, node "n0": lookup failed`},
		{"placement filter", Options{PlacementFilters: []PlacementFilter{PlacementFilterFunc(func(*Snapshot, GroupView, *Placement, []Assignment) Rejection { return failing })}},
			`placement: hook failed: PodGroup default/pg: Options.PlacementFilters[0] on placement "": lookup failed`},
		{"scorer", Options{Scorer: PlacementScorerFunc(func(*Snapshot, GroupView, *Placement, []Assignment) (int64, error) { return 0, errLookup })},
			`placement: hook failed: PodGroup default/pg: Options.Scorer.Score on placement "": lookup failed`},
		{"sum scorer", Options{Scorer: failingSums{}},
			`placement: hook failed: PodGroup default/pg: Options.Scorer.ScoreSums on placement "": lookup failed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, g := hookErrCase(t)
			d, err := Solve(s, g, c.opts)
			require.ErrorIs(t, err, ErrHook)
			require.ErrorIs(t, err, errLookup)
			require.EqualError(t, err, c.want)
			require.Equal(t, NoDecision, d.Status)
		})
	}
	// The generator and the reserver's constructor return errors: one of
	// their own is named likewise; a FieldError (bad input they found)
	// comes back as it is.
	s, g := hookErrCase(t)
	badInput := Errorf(ErrInvalid, "PodGroup \"default/pg\"", "spec.schedulingConstraints", "bound members in two racks")
	for _, c := range []struct {
		name string
		fail func(error) Options
		want string
	}{
		{"generator", func(err error) Options {
			return Options{Generator: PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) { return nil, err })}
		}, `placement: hook failed: PodGroup default/pg: Options.Generator: lookup failed`},
		{"reserver constructor", func(err error) Options {
			return Options{Reservers: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) { return nil, err }}}
		}, `placement: hook failed: PodGroup default/pg: Options.Reservers[0]: lookup failed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Solve(s, g, c.fail(errLookup))
			require.ErrorIs(t, err, ErrHook)
			require.ErrorIs(t, err, errLookup)
			require.EqualError(t, err, c.want)
			_, err = Solve(s, g, c.fail(badInput))
			require.Same(t, badInput, err)
		})
	}
}

// TestHooks_VerifyReportsAFilterError: Verify handed a filter that fails
// returns the hook's error, not a violation.
func TestHooks_VerifyReportsAFilterError(t *testing.T) {
	s, g := hookErrCase(t)
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	err = Verify(s, g, d, FilterFunc(func(*Pod, NodeInfo) Rejection { return Rejection{Err: errLookup} }))
	require.ErrorIs(t, err, ErrHook)
	require.ErrorIs(t, err, errLookup)
	require.NotErrorIs(t, err, ErrViolation)
	require.EqualError(t, err, `placement: hook failed: PodGroup default/pg: filters[0] on pod default/a, node "n0": lookup failed`)
}

// TestReserverFuncs_ReservesAndUnreserves: the adapter calls its
// functions, and its nil functions accept and do nothing. A reserver that
// holds one pod per node places the gang of two on two nodes.
func TestReserverFuncs_ReservesAndUnreserves(t *testing.T) {
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 4000}}, {Name: "n1", Allocatable: ResourceList{ResourceCPU: 4000}}}, nil)
	require.NoError(t, err)
	_, g := hookErrCase(t)
	var reserved, unreserved int
	opts := Options{Reservers: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) {
		taken := map[NodeID]bool{}
		return ReserverFuncs{
			FilterFunc: func(_ *Pod, ni NodeInfo) Rejection {
				if taken[ni.ID()] {
					return Rejection{Reason: "node taken"}
				}
				return Rejection{}
			},
			ReserveFunc:   func(_ *Pod, ni NodeInfo) { taken[ni.ID()] = true; reserved++ },
			UnreserveFunc: func(_ *Pod, ni NodeInfo) { delete(taken, ni.ID()); unreserved++ },
		}, nil
	}}}
	d, err := Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, []string{"n0", "n1"}, []string{d.Assignments[0].Node, d.Assignments[1].Node})
	require.Equal(t, reserved, unreserved, "every attempt ends with the reserver back in its initial state")
	require.Positive(t, reserved)
	var none ReserverFuncs
	require.True(t, none.Filter(&g.Members[0], NodeInfo{}).OK())
	none.Reserve(&g.Members[0], NodeInfo{})
	none.Unreserve(&g.Members[0], NodeInfo{})
}
