package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// releasing is a Reserver that counts its Release calls and records
// whether the solver called it after one.
type releasing struct {
	ReserverFuncs
	released  *int
	lateCalls *int
}

func (r releasing) Filter(p *Pod, n NodeInfo) Rejection {
	if *r.released > 0 {
		*r.lateCalls++
	}
	return r.ReserverFuncs.Filter(p, n)
}

func (r releasing) Release() { *r.released++ }

// TestSolve_ReleasesEachReserverOnce: Solve calls Release exactly once
// on every Reserver it created that is a ReserverReleaser, after its
// last call to it — when the decision is made, when a hook's error stops
// the solve, and when a later Reserver's constructor or the generator
// fails; a Reserver that is not one is left alone.
func TestSolve_ReleasesEachReserverOnce(t *testing.T) {
	failing := func(*Snapshot, GroupView) (Reserver, error) { return nil, errLookup }
	for _, c := range []struct {
		name     string
		filter   func(*Pod, NodeInfo) Rejection
		more     []NewReserverFunc
		gen      PlacementGenerator
		status   Status
		wantsErr bool
	}{
		{name: "scheduled", status: Scheduled},
		{name: "unschedulable", filter: func(*Pod, NodeInfo) Rejection { return Rejection{Reason: "no"} }, status: Unschedulable},
		{name: "hook error", filter: func(*Pod, NodeInfo) Rejection { return Rejection{Err: errLookup} }, wantsErr: true},
		{name: "later constructor fails", more: []NewReserverFunc{failing}, wantsErr: true},
		{name: "later constructor returns nil", more: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) { return nil, nil }}, wantsErr: true},
		{name: "generator fails", gen: PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) { return nil, errLookup }), wantsErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, g := hookErrCase(t)
			var released, late, plainMade int
			opts := Options{Generator: c.gen, Reservers: append([]NewReserverFunc{
				func(*Snapshot, GroupView) (Reserver, error) {
					return releasing{ReserverFuncs{FilterFunc: c.filter}, &released, &late}, nil
				},
				func(*Snapshot, GroupView) (Reserver, error) { plainMade++; return ReserverFuncs{}, nil },
			}, c.more...)}
			d, err := Solve(s, g, opts)
			if c.wantsErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				require.Equal(t, c.status, d.Status)
			}
			require.Equal(t, 1, released, "Release calls")
			require.Zero(t, late, "calls after Release")
			require.Equal(t, 1, plainMade)
		})
	}
}
