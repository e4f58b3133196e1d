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
// [SolveFunc]; it runs [placement.Verify] (invariants 1–4, and 5 as far
// as the decision's own Placement goes) and [CheckDeterministic]
// (invariant 6: reordering nodes, pods and members changes nothing).
// [Shuffle] reorders an input for checks of one's own. Capacity counts
// the implicit "pods" resource too: a node's allocatable may cap its pod
// count, and a scheduler under test must count its members against it
// (placement.Pod.Requests never lists it).
//
// A typical test:
//
//	func TestMyScheduler(t *testing.T) {
//		rapid.Check(t, placementtest.Property(mySolve))
//	}
//
// # Topology-aware schedulers
//
// placement.Verify holds the members only to the Placement the decision
// declares itself (nil Nodes: every node); it never sees a PodGroup's
// topology constraints, and the generators here draw none (nor pod sets
// or sub-groups). To property-test a topology-aware scheduler, draw the
// constraints yourself and check each decision with package topology's
// Tree.Verify, which knows them (Tree.VerifyPodSets and Tree.VerifyPlan
// for pod sets planned as Kueue plans them, against their requests). The
// clusters carry [ZoneLabel] and [RackLabel]:
//
//	rapid.Check(t, func(t *rapid.T) {
//		s, _ := placementtest.Clusters().Draw(t, "cluster").Snapshot()
//		g := placementtest.Groups(s).Draw(t, "group")
//		tree, _ := topology.NewTree(s, []string{placementtest.ZoneLabel, placementtest.RackLabel})
//		key := rapid.SampledFrom([]string{placementtest.ZoneLabel, placementtest.RackLabel}).Draw(t, "key")
//		cs := []topology.Constraint{{Key: key}}
//		d, err := myTopologySolve(s, g, cs)
//		// … an error only for input the tree rejects (topology.ErrNoDomain,
//		// bound members already in two domains)
//		if err := tree.Verify(s, g, d, cs); err != nil {
//			t.Fatal(err)
//		}
//	})
//
// This package's TestProp_TopologyAwareScheduler runs it on the solver
// with the tree's options, and TestProp_TopologyBlindSchedulerCaught shows
// it failing a scheduler that ignores the constraint. (The package does
// not import topology itself: its generators serve every scheduler.)
package placementtest
