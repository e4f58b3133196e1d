// Package placement holds the cluster model and the PodGroup solver of
// gangsched: resources in Kubernetes canonical units, nodes and pods, the
// immutable [Snapshot], the hook interfaces that other packages and users
// implement, the [Decision], and the invariant checker [Verify].
//
// # Model
//
// A [Snapshot] is built once from nodes and bound pods with [NewSnapshot]
// and never changes; [Snapshot.Apply] derives a new snapshot (bind, remove)
// that shares every unchanged part with its parent, so what-if work — assume
// a placement, remove preemption victims — costs O(changes), and dropping
// the result is the rollback. Nodes are addressed by dense [NodeID]s in name
// order, so everything the library derives is independent of input order.
//
// # Solving a group
//
// [Solve] takes a snapshot and a [Group] (a PodGroup's policy and pending
// members; bound members come from the snapshot) and returns a [Decision]:
// Scheduled with pod→node assignments, or Unschedulable / Unresolvable /
// BudgetExhausted with a group-level reason ("2 of min 3 members fit;
// default/p3 fits on none of 1 nodes: 1 Insufficient cpu"). A gang places
// at least MinCount members, bound ones included, or nothing.
//
// The solver follows KEP-5732's three phases. A [PlacementGenerator]
// (upstream PlacementGenerate) proposes candidate node sets, e.g. one per
// rack; in each, members are placed one by one in [MemberOrder] on the
// best-scoring node that fits (built-in resource fit, nodeSelector and
// required [NodeAffinity], taints, unschedulable, then the caller's
// [Filter]s and [Reserver]s) — by default
// the most allocated, which packs, or kube-scheduler's per-pod resource
// scores when [Options].NodeScoring asks (its default profile spreads,
// [UpstreamNodeScoring]), or the caller's [NodeScorer] (kube-scheduler's
// Score extension point; package fragment's GPU-sharing policies are such
// scorers; a [NodeScoreNormalizer] also sees every candidate at once, as
// upstream's PreScore and NormalizeScore); feasible placements pass the caller's [PlacementFilter]s and
// are ranked by the pending pods' preferred node affinity, summed over the
// placement's nodes (Kueue's TASRespectNodeAffinityPreferred;
// [NodeAffinity]), then by a [PlacementScorer] (upstream PlacementScore;
// [DefaultScorer] by default), ties broken by placement name; a
// [SumScorer] is handed the placed pods' summed requests instead of the
// list of assignments. Members of one shape are placed as a batch over a
// heap of nodes, which gives exactly the one-by-one result; under
// Reservers, only when every one is a [ClassReserver] that cannot tell
// the members apart either (hookruns.go). A Reserver that is a
// [RunUnreserver] gets a node's members back in one call, and one that is
// a [ReserverReleaser] is told when the solve is done with it, so that it
// can keep its memory for the next solve; a generator and scorer that are
// [ViewForgetter]s keep nothing of the views they are handed, so that the
// solve lends them its pooled memory (viewforgetter.go).
//
// Identical pods need not be listed one by one: a [PodSet] (Kueue's PodSet,
// a template and a count) stands for Count pending pods, is read once, and
// is answered with pods per node ([Decision].PodSetAssignments), so a
// 4,096-pod gang costs little more than the nodes it lands on. A group may
// mix members and pod sets; it decides exactly as with the pods listed.
// A decided set can be committed without pods, as usage per node
// ([Change].Reserve, [PodSetUsage]; podsetusage.go), and released exactly;
// a running set can grow or shrink without moving a pod ([SolveResize],
// elastic.go), and have the pods of failed nodes replaced inside their
// domains, or be declared beyond repair ([SolveRepair], repair.go).
//
// # The solve pipeline, file by file
//
// A newcomer's map of one call of [Solve], each stage with its file and,
// for each fast path, the property test that holds it equal to its plain
// reference:
//
//	Solve, Options                     solve.go (arguments: args.go)
//	 └ member preparation              members.go: validate (group.go), sort
//	   │                               into member order, compile requests
//	   │                               into vectors, member classes
//	   │                               (constraints: constraints.go)
//	 └ per placement (generator's      attempt.go: solver.solve, usable,
//	   order), one attempt             attempt, better
//	   ├ classes: a short group of     classes.go shortByClasses; node
//	   │ one class, from node classes  classes in classes.go, freeclasses.go
//	   ├ greedy in member order        greedy.go (batched runs over heap.go,
//	   │                               scratch usage in work.go; a short
//	   │                               group of one class on a small
//	   │                               placement: shortgroups.go); node
//	   │                               scores other than packing:
//	   │                               nodescore.go, nodescorer.go
//	   ├ first-fit decreasing          greedy.go with members.go ffdOrder
//	   └ complete search               search.go
//	 └ placement filters and score     attempt.go; score.go (DefaultScorer)
//	 └ what hooks see of the group     groupview.go (GroupView; the hook
//	                                   interfaces: hooks.go)
//	 └ outputs                         outputs.go, decision.go
//	   or diagnosis                    diagnose.go (a short attempt: per
//	                                   class or group of alike nodes)
//	SolveHierarchy (KEP-6012 trees)    hierarchy.go (API, entry)
//	 └ tree checked and compiled       hierarchy_build.go
//	 └ domains, siblings, leaves       hierarchy_search.go: backtracking
//	                                   over Solve; hierarchy_overlay.go
//	                                   (usage undone on backtrack),
//	                                   hierarchy_prune.go, hierarchy_twins.go
//	   └ leaves of the usual shape     hierarchy_fastleaf.go, without Solve
//	                                   (TestHierarchy_PropFastLeafIsSolve)
//	 └ decision level by level         hierarchy_result.go
//
// Equivalence tests: batched runs equal one-by-one placement
// (TestProp_BatchedEqualsOneByOne, TestProp_GroupedSourcesEqualOneByOne,
// TestProp_WildGroupedEqualsOneByOne, TestProp_NoopFilterEqualsBatched);
// class runs equal one-by-one (TestProp_ClassRunsEqualOneByOne), and so
// do runs under ClassReservers (TestProp_HookRunsSameAsOneByOne); pod sets
// equal their listed pods (TestProp_BatchPodSetsEqualExpandedMembers);
// the search equals a brute-force oracle (TestProp_CompleteAgainstOracle);
// a [SumScorer]'s sums equal scoring the list (TestDefaultScorer_ScoreOfLists).
// The snapshot's files: snapshot.go (the model and its accessors),
// snapshot_build.go ([NewSnapshot]), keyindex.go (the lookup by pod key),
// apply.go ([Snapshot.Apply]), boundgroups.go; checking decisions:
// verify.go.
//
// # Guarantees
//
// Solve is pure: no goroutines, clocks, randomness or I/O; work is bounded by
// [Options].Budget, counted in steps (node visits; [Decision].Steps reports
// them). The same snapshot contents and group give the same decision whatever
// the order of the inputs. [Verify] checks invariants 1–4 of DESIGN.md (in
// the repository's root), plus the group's affinity and sub-group
// constraints, on any decision — ours or one from the caller's own
// scheduler; invariant 5 only as far as the decision's own Placement goes
// (every member on its nodes), since Verify never sees the topology
// constraints: topology's Tree.Verify checks a decision against them.
//
// # Hidden state and sharing
//
// A [Snapshot] is immutable as far as any answer can tell, but builds some
// indexes on first use, each once (sync.Once): node names, pods by key,
// by node, by group and by priority, the bound groups' summaries, and, behind an atomic
// pointer, its classes of identical nodes; a mutex guards the overlay trees
// while Apply clones them. Solve and SolveHierarchy draw their working
// memory from package-level sync.Pools and return it before they return;
// nothing in that memory reaches a decision or carries from one solve to
// the next. None of this changes an answer: a snapshot may be read, solved
// on and applied to from any number of goroutines at once, and the same
// input gives the same decision whatever ran before (the concurrency and equivalence tests check
// both). A [Group] is the caller's and is only read; Solve works on a copy,
// and its methods compute from its fields alone. Hooks receive a
// [GroupView] of that copy, whose methods answer the same from what Solve
// compiled of the members once. A Reserver that is a [ReserverReleaser]
// is told when the solve is done with it, and may then hand its memory to
// the next solve (dra's hook returns its state to a pool on its device
// inventory).
//
// Cost: building a snapshot is O((nodes + pods) log pods). A solve with no
// caller filters is O(P·(N + k log N)) for P placements over N nodes in all
// and k members; with caller filters, O(k·N) filter calls.
package placement
