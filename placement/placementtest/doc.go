// Package placementtest generates small clusters, PodGroups and hooks with
// rapid (pgregory.net/rapid) and checks schedulers against the invariants
// of gangsched's DESIGN.md, so that a user can property-test their own
// scheduler the way the placement package tests [placement.Solve].
//
// Generators: [Clusters] and [Snapshots] (1–8 nodes, up to 12 bound pods,
// some of them bound PodGroup members), [Groups] (a valid gang or basic
// group for a given snapshot), [Filters] (a caller [placement.Filter]) and
// [Quotas] (a [placement.PlacementFilter]). Domains are small so that
// collisions happen: capacities 0–8, two zones, three racks, a few taints,
// names from indices (n03, p07, m02), timestamps within two seconds. Nothing
// reads a clock or global randomness: every value comes from rapid, so a
// failure shrinks and replays.
//
// Checks: [Property] is a ready property for rapid.Check over a
// [SolveFunc]; it runs [placement.Verify] (invariants 1–5) and
// [CheckDeterministic] (invariant 6: reordering nodes, pods and members
// changes nothing). [Shuffle] reorders an input for checks of one's own.
//
// A typical test:
//
//	func TestMyScheduler(t *testing.T) {
//		rapid.Check(t, placementtest.Property(mySolve))
//	}
package placementtest
