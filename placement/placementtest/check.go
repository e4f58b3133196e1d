package placementtest

import (
	"fmt"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// SolveFunc is a scheduler under test: it decides where g's pending members
// go on s, as [placement.Solve] does with fixed options.
type SolveFunc func(s *placement.Snapshot, g *placement.Group) (placement.Decision, error)

// Property returns a property for rapid.Check that draws a cluster from
// [Clusters] and a group from [Groups] and fails when solve returns an
// error for that valid input, when [CheckDecision] rejects the decision
// (DESIGN.md invariants 1–4: capacity, all-or-nothing, bound members kept,
// filters; and 5 as far as the decision's own placement goes), or when
// [CheckDeterministic] does (invariant 6). Topology constraints are not
// drawn or checked: see the package doc.
func Property(solve SolveFunc) func(*rapid.T) {
	return func(t *rapid.T) {
		c := Clusters().Draw(t, "cluster")
		s, err := c.Snapshot()
		if err != nil {
			t.Fatalf("generated cluster is invalid: %v", err)
		}
		g := Groups(s).Draw(t, "group")
		d, err := solve(s, g)
		if err != nil {
			t.Fatalf("solve: %v", err)
		}
		if err := CheckDecision(s, g, d); err != nil {
			t.Fatal(err)
		}
		if err := CheckDeterministic(t, solve, c, g); err != nil {
			t.Fatal(err)
		}
	}
}

// CheckDecision returns an error when d, decided for g on s, names another
// group or breaks an invariant that [placement.Verify] checks with the
// given caller filters.
func CheckDecision(s *placement.Snapshot, g *placement.Group, d placement.Decision, filters ...placement.Filter) error {
	if d.Group != g.Key() {
		return fmt.Errorf("decision for PodGroup %s, want %s", d.Group, g.Key())
	}
	return placement.Verify(s, g, d, filters...)
}

// CheckDeterministic solves c and g as given and again in an order drawn
// with [Shuffle], and returns an error unless both calls give byte-identical
// decisions (printed with %#v) or errors with the same message.
func CheckDeterministic(t *rapid.T, solve SolveFunc, c Cluster, g *placement.Group) error {
	run := func(c Cluster, g *placement.Group) (placement.Decision, error) {
		s, err := c.Snapshot()
		if err != nil {
			return placement.Decision{}, err
		}
		return solve(s, g)
	}
	d1, err1 := run(c, g)
	c2, g2 := Shuffle(t, c, g)
	d2, err2 := run(c2, g2)
	if fmt.Sprint(err1) != fmt.Sprint(err2) {
		return fmt.Errorf("reordered input changed the error: %v, then %v", err1, err2)
	}
	if a, b := fmt.Sprintf("%#v", d1), fmt.Sprintf("%#v", d2); a != b {
		return fmt.Errorf("reordered input changed the decision:\n%s\nthen\n%s", a, b)
	}
	return nil
}
