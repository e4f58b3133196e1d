// Package preemption is gangsched's workload-aware preemption (KEP-5710,
// DESIGN.md capability 3): when a PodGroup does not fit, [Find] searches the
// whole cluster at once for victims whose removal lets the whole group fit,
// and returns a [Plan] — the victims, the group's placement once they are
// gone (one that [placement.Verify] accepts) and so the nodes to nominate — or
// says why preemption cannot help.
//
// # Semantics
//
//   - A victim is a pod, or a whole PodGroup whose disruptionMode is
//     PodGroup: all of its bound pods, on every node, or none of them.
//   - A PodGroup's spec.priority overrides its pods' own priorities, for the
//     preemptor and for victims. Only victims of strictly lower priority
//     than the preemptor are candidates; a member with preemptionPolicy
//     Never forbids preemption.
//   - Victim sets are compared by their [Cost], the order kube-scheduler
//     ranks preemption candidates by (pickOneNodeForPreemption in
//     pkg/scheduler/framework/preemption), applied to whole victim sets
//     across the cluster as KEP-5710's workload-aware preemption does: fewest
//     disruption-budget violations, then the lowest highest victim priority,
//     then the smallest sum of victim priorities, then the fewest victim
//     pods, then the most recently started; ties by name: of sets that
//     cost the same, the one whose victims' names, sorted, come first,
//     and of the same set in two placements, the placement ranked first,
//     then by name (for a group that needs one more member, the node's
//     name; see [Cost] for the exact rule). A whole disruptionMode-PodGroup group counts as its
//     pods and is named by the group.
//     Budgets are soft, as upstream: a set that goes beyond one is only
//     dearer. The plan's victims are the cheapest set found; no single victim
//     of a plan can be given back.
//   - Exact when small: a placement with at most [MaxExactUnits] (20)
//     candidate victim units is searched by a branch-and-bound over their
//     subsets, within the caller's budget (Options.Budget, in solver
//     steps), and [Plan.Proven] says the set is the cheapest one, ties
//     broken by name. Above the bound, or when the budget runs out, a
//     heuristic chooses (evict the least important candidates in
//     [VictimOrder], then give back the most important that are not
//     needed), Plan.Proven is false and [Plan.Limit] says why.
//   - A group that needs one more member placed (a single pod, a 1-member
//     PodGroup) is searched node by node, as upstream preempts for a pod:
//     its victims are the cheapest of any node's, which is never dearer
//     than upstream's own per-node choice (whose reprieve order can keep a
//     dearer set).
//   - Groups given as pod sets (Group.PodSets, a template and a count)
//     preempt as the same pods listed would.
//   - Never evict in vain: if the group does not fit even with every
//     candidate removed, the plan evicts nothing and says the most a node
//     could offer ([Freeable]).
//   - Every resource counts, the pod-count limit included, and free room
//     combines with the room victims leave.
//   - With a topology generator in the options (a required topology key,
//     beyond upstream v1.36, which does not preempt for topology), each
//     domain is searched with its own victims and the cheapest set wins.
//   - Each victim says which pending members it makes room for
//     ([Plan.MakesRoomFor]).
//
// # Invariants
//
// DESIGN.md invariant 7: no victim has a priority ≥ the preemptor's; a
// disruptionMode-PodGroup victim is evicted whole or not at all; after the
// victims are removed the preemptor's placement verifies; giving back any
// single victim makes the group not fit; and a proven plan's victims cost
// no more than any other set's, and come first by name among those that
// cost as much. The package's property tests check each
// (the last against a brute-force oracle over every subset of candidates
// on small clusters, and against classic per-node preemption for one
// member), and that a plan does not depend on input order.
//
// # Complexity
//
// The exact search visits at most 2^(units+1) branches, pruned by cost
// (a set is never extended once it costs as much as the best: adding a
// victim always costs more), by member slots (below) and by a lower bound
// (the cheapest one-victim extension); each branch costs one budget step
// per undecided unit and each solve its own steps. Placements are searched
// cheapest lower bound first and skipped once none can beat the best.
// Ties cost a second pass in name order, only when the first met a set
// or bound of the best's cost; it stops at the first set of that cost
// that fits, or at the first set whose names come after the best's.
//
// The candidates come from the bound pods below the preemptor's priority
// ([placement.Snapshot.PodsBelowPriority], kept in priority order by the
// snapshot) and the PodGroups whose spec.priority is below it, so that
// the bound groups that cannot be victims cost nothing; when those pods
// are many, from the snapshot's per-PodGroup summaries
// ([placement.Snapshot.BoundGroups]), not from a walk of every bound pod.
// They are kept in a heap: only those the search reads are put in eviction order
// and made into victims. Without a generator Find never removes every
// candidate up front (removing 40,000 pods from a snapshot costs tens of
// milliseconds). A per-node bound on how many members could fit ("member
// slots") gives the shortest prefix of the candidates, in eviction order,
// that could let the group fit; the prefix that does is found from there with
// O(log k) solves for a prefix of k candidates (usually one); the member
// slots of every node are summed over the solver's classes of identical nodes
// ([placement.Snapshot.FreeRows]), and solves whose failure nobody reads skip
// its explanation ([placement.Options.StatusOnly]). Candidates are given back
// with a per-node capacity check of each member on its chosen node, and
// re-solved only when enough member slots remain. With a generator, the
// snapshot without every candidate is built once for it, and each placement
// it yields is searched the same way; placements whose bound already proves
// them more disruptive than the best found are skipped. See [Find] for
// details and BENCHMARKS.md for figures.
//
// A host that searches every cycle keeps an [Index] while its Input stays
// the same: [Index.Find] answers as Find does, without validating the input
// again, and joins the PodGroups of a snapshot's base with their specs
// once — sorted in eviction order, with what a search reads of each
// group's pods — so that a snapshot derived with Apply costs lookups only
// for the groups it changed.
//
// Find is pure: no goroutines, clocks, randomness or I/O; the caller
// evicts the victims and nominates the members. An Index's cache never
// changes an answer and is safe for concurrent searches.
package preemption
