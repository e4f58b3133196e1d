// Package gang holds the API model of workload-aware scheduling
// (scheduling.k8s.io/v1alpha2 Workload and PodGroup, a pod's
// schedulingGroup), the Job integration, and the PodGroup scheduling queue
// and cycle of Kubernetes v1.36 (KEP-4671 gang scheduling, KEP-5832
// PodGroup API, KEP-5547 Job integration).
//
// # API model
//
// [Workload] is a pure template: spec.podGroupTemplates, each with a
// schedulingPolicy (gang with minCount, or basic), schedulingConstraints,
// resourceClaims, priority and disruptionMode. [PodGroup] is the runtime
// object the scheduler reads; [NewPodGroupFromTemplate] stamps one from a
// template. Pods join a PodGroup through spec.schedulingGroup, which
// [placement.Pod] carries as SchedulingGroup. [JobEligible] and [StampJob]
// decide which Jobs get a Workload and PodGroup, and build them with
// deterministic names. Validate methods return a [*placement.FieldError]
// naming the object and the field.
//
// # The scheduling cycle
//
// [Scheduler] is a pure state machine driven by its host, like etcd raft's
// RawNode: the host feeds it PodGroups and pending pods
// ([Scheduler.SetPodGroup], [Scheduler.AddPod]) and calls [Scheduler.Cycle]
// with a snapshot of the cluster and the current time; each call decides one
// PodGroup and returns a [Result]: the members to bind, all together, or
// none; the members back in the queue and when they are retried; the
// PodGroupScheduled condition to write; and the snapshot with the bindings
// applied, for the next cycle. The host does all I/O, timing and
// concurrency.
//
//	snap := buildSnapshot()
//	for {
//		r, ok := sched.Cycle(snap, now)
//		if !ok {
//			break // nothing ready; call again at sched.NextRetry() or on an event
//		}
//		bind(r.Bind); writeStatus(r.PodGroup, r.Condition)
//		snap = r.Snapshot
//	}
//
// Guarantees, each checked by a property test:
//   - all-or-nothing: after any sequence of cycles, a gang has either no
//     member bound by the scheduler or at least minCount bound;
//   - a pod the scheduler bound is never bound again or moved;
//   - PodGroupScheduled never goes from True back to False;
//   - the cycles' results depend on the pods' contents (priority, QueuedAt,
//     names), never on the order in which the host added them;
//   - no cycle is attempted for a gang with fewer than minCount members or
//     whose PodGroup does not exist (the quorum gate).
//
// # Hierarchies (KEP-6012)
//
// A PodGroup naming a parent (spec.parentCompositePodGroupName) is a leaf
// of a tree of [CompositePodGroup]s ([Scheduler.SetCompositePodGroup]).
// The cycle decides such a tree whole: popping any of its leaves pops the
// tree of its root, which waits, every leaf gated, until the root exists
// and the tree meets its quorum (a leaf: minCount members, pending or
// bound; a CompositePodGroup: minGroupCount ready children, as upstream's
// GangScheduling PreEnqueue counts), and is then solved at once with
// [placement.SolveHierarchy] — backtracking across siblings and domains
// where upstream is greedy. Its leaves bind together or not at all, get
// their conditions together ([Result].Hierarchy) and back off together.
// A changed minCount or minGroupCount (elastic gangs) re-evaluates a
// waiting group at the next cycle; bound members never move. A tree that
// does not fit preempts as one ([preemption.FindHierarchy]) at its root's
// priority, and every pod of a tree counts at that priority, as a victim
// and as a nominee holding room, as upstream ranks the pods of a
// hierarchy, and the tree queues at it (0 when the root sets none); since
// v1.37 a pod, pending or bound, whose priority differs from its root's
// (or, outside a hierarchy, its PodGroup's; 0 when unset) fails the cycle
// (see [Profile]). ResourceClaims in a tree are refused:
// the cycle fails with the profile's reason for an invalid configuration.
//
// [Options].Profile picks the Kubernetes version (v1.36, v1.37, v1.38)
// whose semantics the scheduler follows where they differ; see [Profile].
//
// # Where the other packages plug in
//
// The scheduler derives each group's solver options itself: a PodGroup's
// spec.schedulingConstraints.topology becomes a topology tree's
// PlacementGenerator and PlacementScorer (package topology; the tree is
// built once per node set, over [Options].TopologyLevels when given), and
// when the PodGroup or its members name ResourceClaims, the claim ledger
// given with [Scheduler.SetClaims] supplies the placement hook and, on
// commit, the claim allocations and reservedFor ([Result].ClaimUpdates;
// package dra). [Options].SolveOptions sees these defaults and may extend
// or replace them: the caller's own filters and placement filters (a
// quota, say). Workload-aware preemption, when [Options].Preemption is set
// (narrowed per group by [Options].PreemptionFor, as upstream runs the
// PostFilter of each pod's profile), runs after an Unschedulable decision
// (see [Scheduler.Cycle]) and nominates the preemptor's members to the nodes it freed: that room is
// held against groups of equal or lower priority until they bind, are
// deleted or stop preempting ([Result].Nominations; a host that read a
// pod's status.nominatedNodeName passes it with [Scheduler.Nominate]).
package gang
