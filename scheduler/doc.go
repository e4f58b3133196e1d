// Package scheduler is gangsched-scheduler: a secondary Kubernetes
// scheduler, built on the gangsched library, that serves the pods whose
// spec.schedulerName it is configured with.
//
// It is a host of the pure core, as raft's users host raft: it owns the
// clock, the goroutines and the I/O, and package gang decides.
//
//   - Watching: client-go shared informers for Nodes, Pods, PodGroups
//     (scheduling.k8s.io/v1beta1), CompositePodGroups (through a dynamic
//     informer, in scheduling.k8s.io/v1beta1 when discovery shows the API
//     server serves them there, as v1.38 does, else in v1alpha3, as v1.37
//     with its gate does; served in neither, a log line says the scheduler
//     runs without) and PriorityClasses feed a gang.Scheduler
//     and a placement.Snapshot kept in step incrementally (Snapshot.Apply
//     per changed pod; a node change rebuilds it). Informers for
//     DeviceClasses, ResourceSlices and ResourceClaims (resource.k8s.io/v1)
//     feed the gang cycle's DRA claim ledger, rebuilt when they change.
//     Objects are converted by package kube of this repository. A pod
//     whose claims the scheduler cannot see yet (one from a template that
//     the resourceclaim controller has not created) waits unqueued, as in
//     kube-scheduler.
//   - Deciding: each round runs gang cycles until no group is ready; a pod
//     in no PodGroup is scheduled as a basic group of one.
//   - Writing, as kube-scheduler does: bindings through the pods/binding
//     subresource, each gang's after the ResourceClaims its cycle
//     allocated and reserved (status.allocation, status.reservedFor, and
//     the delete-protection finalizer, as kube-scheduler's DRA plugin
//     writes them; a pod's implicit claim for extended resources a
//     DeviceClass serves, KEP-5004, created first and named in the pod's
//     status.extendedResourceClaimStatus after; such a claim a pending
//     pod has from an earlier attempt is not reused but deleted, finalizer
//     first, and the pod waits for the deletion, as kube-scheduler's
//     PostFilter does; one an earlier pod of the same name left is not the
//     pod's; a resource that device plugins serve on some nodes and DRA on
//     others is served per node, as kube-scheduler does (kube.PerNode): a
//     node with it in allocatable by its device plugin, the claim asking
//     nothing for it there, and preemption frees a victim's units there
//     but, as upstream's, no victim's DRA devices; a gang whose claims cannot
//     all be written has what was written undone and is queued again); the PodGroupInitiallyScheduled
//     condition of the
//     PodGroup's status, and for a KEP-6012 tree (decided whole, all its
//     leaves bound together) each leaf's and each CompositePodGroup's
//     condition (CompositePodGroupInitiallyScheduled); preemption victims marked with the
//     DisruptionTarget condition, then deleted, and the preemptor's
//     members' status.nominatedNodeName. Conflicts (409) and transient
//     errors are retried with backoff.
//   - Consistency: a pod this scheduler bound is assumed bound (it holds
//     its node in the snapshot) until the watch shows it, so no node is
//     double-booked between cycles; a binding answered with a conflict is
//     bound already, and the watch says where. Nothing is kept on disk:
//     a restarted scheduler rebuilds its state from the API before it
//     binds anything, and never binds a pod that has a node.
//   - Operating: [RunElected] holds a coordination.k8s.io Lease so that only
//     one replica schedules; [Scheduler.Ready] backs /readyz; [Metrics]
//     are registered with Prometheus; logs are structured (log/slog);
//     [LoadConfig] reads a GangSchedulerConfiguration file.
//
// The command is cmd/gangsched-scheduler; deploy/ holds a Deployment with
// its RBAC, and the e2e module of this repository runs it against a real
// kube-apiserver.
package scheduler
