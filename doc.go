// Package gangsched is an embeddable, pure-Go library that makes the
// decisions of Kubernetes workload-aware scheduling without Kubernetes:
// gang (PodGroup) placement, topology-aware placement, workload-aware
// preemption and DRA claim sharing, on the Workload, PodGroup and
// CompositePodGroup API of v1.36 to v1.38 (gang.Profile says where the
// releases differ; v1.38 by default). A custom scheduler,
// a batch system, a simulator or a test suite hands it a snapshot of a
// cluster and a group of pods and gets back a deterministic,
// all-or-nothing decision.
//
// This package holds documentation only; the code lives in its
// subpackages.
//
// # Package map
//
//   - placement: the cluster model (resources in canonical units, nodes,
//     pods, the immutable Snapshot with cheap derivation), the group solver
//     Solve with its hooks (Filter, Reserver, PlacementGenerator,
//     PlacementScorer, PlacementFilter), the Decision, and the invariant
//     checker Verify.
//   - placement/placementtest: rapid generators and property helpers for
//     testing a scheduler against the same invariants.
//   - gang: the Workload, PodGroup and Job API model, stamping PodGroups
//     from Workload templates and Jobs, and the PodGroup scheduling queue
//     and cycle (quorum gate, member order, atomic commit, backoff,
//     PodGroupScheduled condition).
//   - topology: domains from node labels and the topology-aware placement
//     generators and scorers.
//   - preemption: the group-aware victim search.
//   - dra: device classes, claims, the per-PodGroup claim ledger and its
//     placement hook.
//   - examples/...: runnable programs, one per capability, each printing
//     its decisions with their reasons and checked against a golden file:
//     quickstart (the seed's gang, the place to start), topology (required
//     and preferred racks), preemption (workload-aware, whole victim
//     groups), dra (a ResourceClaim shared by a PodGroup) and heterogeneous
//     (leader and workers, sub-groups, placement.Solve directly).
//
// The Kubernetes adapter is a separate module, kube/, so that this one
// depends on nothing beyond the standard library and google/btree
// (pgregory.net/rapid too, for placementtest's generators, and testify in
// tests).
//
// # Principles
//
// Decisions are pure: no goroutines, clocks, randomness, global state or
// I/O; the host passes the time and drives the loop, as etcd's raft does.
// The same input gives the same output whatever the order of nodes, pods
// and groups. Bad input gets an error naming the object and the field
// (a *placement.FieldError), never a panic; "does not fit" is a decision
// with a reason a person can act on.
//
// # Example
//
// A gang of three, one cycle:
//
//	snap, _ := placement.NewSnapshot(nodes, boundPods)
//	s := gang.NewScheduler(gang.Options{})
//	_ = s.SetPodGroup(podGroup) // spec.schedulingPolicy.gang.minCount: 3
//	for _, p := range pendingPods {
//		_ = s.AddPod(p) // p.SchedulingGroup names the PodGroup
//	}
//	r, _ := s.Cycle(snap, now)
//	// r.Bind: all three members with NodeName set, or none;
//	// r.Condition: PodGroupScheduled True/Scheduled or False/Unschedulable.
package gangsched
