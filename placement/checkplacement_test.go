package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// checker is a Reserver that excludes the placements named in no, with
// the rejection given, and counts the placements it was asked about.
type checker struct {
	ReserverFuncs
	no    map[string]Rejection
	asked *[]string
}

func (c checker) CheckPlacement(p *Placement) Rejection {
	*c.asked = append(*c.asked, p.Name)
	return c.no[p.Name]
}

// TestSolve_PlacementChecker: two racks of one node each; a checker that
// excludes rack-a sends the gang to rack-b without trying rack-a, and one
// that excludes both makes the decision quote its reasons, Unresolvable
// only when every exclusion is. The default placement is never asked.
func TestSolve_PlacementChecker(t *testing.T) {
	s, g := hookErrCase(t)
	racks := PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) {
		return []Placement{{Name: "rack-a", Nodes: []NodeID{0}}, {Name: "rack-b", Nodes: []NodeID{0}}}, nil
	})
	solve := func(gen PlacementGenerator, no map[string]Rejection) (Decision, []string) {
		var asked []string
		opts := Options{Generator: gen, Reservers: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) {
			return checker{no: no, asked: &asked}, nil
		}}}
		d, err := Solve(s, g, opts)
		require.NoError(t, err)
		return d, asked
	}
	noDevices := Rejection{Reason: "ResourceClaims need 16 devices, the nodes reach 8", Unresolvable: true}

	d, asked := solve(nil, map[string]Rejection{"": noDevices})
	require.Equal(t, Scheduled, d.Status)
	require.Empty(t, asked)

	d, asked = solve(racks, map[string]Rejection{"rack-a": noDevices})
	require.Equal(t, Scheduled, d.Status)
	require.Equal(t, "rack-b", d.Placement.Name)
	require.Equal(t, []string{"rack-a", "rack-b"}, asked)

	d, _ = solve(racks, map[string]Rejection{"rack-a": noDevices, "rack-b": noDevices})
	require.Equal(t, Unresolvable, d.Status)
	require.True(t, d.Proven)
	require.Equal(t, []ReasonCount{{Reason: noDevices.Reason, Nodes: 2}}, d.Reasons)
	require.Equal(t, "0 of min 2 members fit: every placement was excluded before its members were tried: 2 ResourceClaims need 16 devices, the nodes reach 8", d.Message)

	busy := Rejection{Reason: "devices held by other claims"}
	d, _ = solve(racks, map[string]Rejection{"rack-a": noDevices, "rack-b": busy})
	require.Equal(t, Unschedulable, d.Status)
	require.Equal(t, []ReasonCount{{Reason: noDevices.Reason, Nodes: 1}, {Reason: busy.Reason, Nodes: 1}}, d.Reasons)

	d, _ = solve(racks, map[string]Rejection{"rack-a": noDevices, "rack-b": {Reason: "search cut", Cut: true}})
	require.False(t, d.Proven)
	require.Equal(t, Unschedulable, d.Status)

	_, err := Solve(s, g, Options{Generator: racks, Reservers: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) {
		return checker{no: map[string]Rejection{"rack-a": {Err: errLookup}}, asked: new([]string)}, nil
	}}})
	require.ErrorIs(t, err, errLookup)
	require.ErrorContains(t, err, `Options.Reservers[0].CheckPlacement on placement "rack-a"`)
}
