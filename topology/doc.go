// Package topology places PodGroups inside topology domains (KEP-5732
// topology-aware workload scheduling): it builds a domain tree from node
// labels, keeps free-capacity aggregates per domain, and implements the
// solver's PlacementGenerate and PlacementScore hooks
// ([placement.PlacementGenerator], [placement.PlacementScorer]).
//
// # Usage
//
//	tree, err := topology.NewTree(snap, []string{"example.com/block", "topology.kubernetes.io/rack"})
//	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "topology.kubernetes.io/rack"}}, topology.MostAllocated)
//	decision, err := placement.Solve(snap, group, opts)
//
// A [Tree] is built once per node set and serves every snapshot derived
// from its snapshot with [placement.Snapshot.Apply]; the gang cycle solves a
// group, applies the decision, and solves the next group on the result with
// the same tree and options.
//
// # What to call
//
//   - A PodGroup of pods with topology keys: [NewTree], [Tree.SolverOptions],
//     then placement.Solve (as in Usage above).
//   - A batch system's pod sets (a template and a count each, Kueue's
//     Workload): [Tree.PlanPodSets] with one [PodSetRequest] per set; the
//     options of a [Profile] ([Profile.Options]) give gangsched's or Kueue's
//     answers. Commit a plan without pods with placement.PodSetUsageOf and
//     a Snapshot.Apply of Change.Reserve.
//   - An admitted set whose count changed: [Tree.ResizePodSet], the set's
//     reservation as Existing; swap the reservation for the answer's
//     Assignments in one Apply (Release, then Reserve).
//   - Pods lost with failed nodes: [Tree.ReplacePodSet], after reserving the
//     survivors alone; evict the workload when it is not Repairable. A node
//     that fails changes the node set, which no Change does: build a new
//     snapshot (the node tainted NoExecute, or gone) and a new Tree over it,
//     and reserve every set again there, the failed nodes' pods left out.
//     Pass the same PlanOptions as the plan (a Profile's): under
//     KueueProfile the replacement follows Kueue's node hot swap.
//   - A decision to check, ours or one's own scheduler's: [Tree.Verify]
//     with the group's constraints; for pod sets, [Tree.VerifyPodSets]
//     or [Tree.VerifyPlan] with their requests.
//
// The package's examples show each, with output.
//
// # Domains
//
// The keys are ordered widest first (zone > block > rack > hostname). A
// domain is identified by its path from the root — values joined by "/" —
// never by its value alone: rack r1 of block b1 and rack r1 of block b2 are
// two domains (TestScenario_T11). A node lacking a level's label is in no
// domain of that level or any narrower one (TestScenario_T9); the empty
// value is a value (TestScenario_T10). (TestScenario_Tn, in this package's
// tests, shows case n with its exact placements.)
//
// # Invariants
//
// With a required key, every member of a scheduled group, bound ones
// included, runs in one domain of that key (invariant 5 of DESIGN.md);
// bound members spread over two domains are reported as an error. The
// placements and scores depend only on the snapshot's contents and the
// group, never on input order or on which snapshot the tree served before.
//
// placement.Verify cannot check invariant 5: it never sees the
// constraints, and holds a decision only to the Placement the decision
// declares. [Tree.Verify] checks any decision — this package's or one
// from the caller's own scheduler — against the constraints it was asked
// to meet, on top of everything placement.Verify checks;
// [Tree.VerifyPodSets] checks a decision of pod sets against their
// [PodSetRequest]s (required level, whole slices per domain, PodSetGroups
// in one domain), and [Tree.VerifyPlan] a [Plan]'s rank order as well.
// This package's properties check every decision and plan with them
// (TestProp_VerifyPerturbedSolve, TestProp_VerifyPerturbedPlan).
//
// # Pod sets as Kueue plans them
//
// [Tree.PlanPodSets] decides a group's pod sets with Kueue's
// topology-aware scheduling algorithm (KEP-2724) instead of the solver:
// per set a [PodSetRequest] (required, preferred or unconstrained level,
// up to three slice layers, a PodSetGroup), Kueue's BestFit and
// LeastFreeCapacity choices, its widening of a preferred level, its
// balanced placement ([PlanOptions].KueueBalanced; gangsched's own even
// spread is [PlanOptions].Balanced), its placement of a PodSetGroup's
// leader and workers as one request, Kueue's leader ([KueueLeader]) on
// the workers' hosts ([PlanOptions].KueueLeaderAware; gangsched's own
// group search otherwise), its order of the sets, as the
// group lists them ([PlanOptions].InGroupOrder: Kueue's spec.podSets
// order; by name otherwise, whatever order the requests come in), and
// reasons that name the
// level that failed and by how much. Slices need it: the solver's
// placements are node sets, which cannot say "four pods per rack". The
// answer is a [placement.Decision] that [placement.Verify] accepts (but
// for a Kueue leader on a host only its own filters refuse), and
// each set's nodes in rank order: the set's pods taken in that order fill
// one domain after another at every level, each slice in one domain of
// its layer's level (TestProp_PodSetPlan). [Tree.ResizePodSet] grows or
// shrinks an elastic set the same way without moving its pods, every
// slice, old and new, kept whole (TestProp_ResizeSlicedSet); a shrink
// drops whole slices, the least filled domains first, re-picking among
// the pods when some slice is incomplete (shrink.go,
// TestProp_ShrinkSlicedSet). [Tree.ReplacePodSet] replaces the pods of
// failed nodes, gone or tainted alike, by growing the survivors back:
// the slices left incomplete are completed in their own domains, slices
// lost whole come back whole in the required domain, or the set cannot
// be repaired (replace.go, TestProp_ReplacePodSet). A [Profile] says which groups
// a host plans: the gang cycle plans groups with slice layers, and every
// constrained group under [KueueProfile].
//
// # State and sharing
//
// A [Tree]'s domains and levels are fixed when it is built. Beside them it
// keeps one mutable cache, under a mutex: the per-domain free-capacity
// aggregates of the snapshot it last served, moved to the next snapshot
// instead of recounted, and the bound members of the last group and
// snapshot it was asked about (the generator and then the scorer ask). Answers never depend on it — the same snapshot and
// group give the same placements and scores whichever snapshot came before —
// and a Tree, with its Generator and Scorer, is safe to share between
// goroutines; calls on one Tree take turns on the mutex.
//
// # Cost
//
// NewTree is O(nodes × levels) plus sorting domains. The aggregates
// (summed and largest free quantity per resource and domain, summed
// requests and allocatable) are computed once, then moved between
// snapshots in O(changed nodes × levels × resources) plus the child lists
// of the domains whose largest free must be recounted. A required-level
// decision then costs O(domains of that level × resources) to rank them,
// plus the nodes of the domains the solver actually tries — usually one.
package topology
