// Command gangsim runs kube-scheduler's PodGroup scheduling cycles
// (Kubernetes v1.36 workload-aware scheduling: gang placement, KEP-4671;
// topology, KEP-5732; workload-aware preemption, KEP-5710; DRA claims per
// PodGroup, KEP-5729) over Kubernetes manifests, without a cluster, until
// nothing changes, and prints what bound where, what waited and why, and
// what was preempted.
//
// Usage:
//
//	gangsim -f FILE|DIR|- [-f ...] [-o text|yaml|json] [flags]
//
// Each -f names a multi-document YAML (or JSON) file, a directory (its
// .yaml, .yml and .json files, not recursively, in name order) or - for
// standard input. Objects of kinds gangsim does not use (a Service, a
// Kueue ClusterQueue) are listed as "not used" and otherwise ignored.
// Nodes, Pods, Jobs (stamped as the Job controller does, gate
// WorkloadWithJob), Workloads and PodGroups (scheduling.k8s.io v1alpha2 and
// v1beta1), PriorityClasses, PodDisruptionBudgets and the DRA objects
// (DeviceClass, ResourceSlice, ResourceClaimTemplate, ResourceClaim of
// resource.k8s.io/v1) take part.
//
// Cycles take the groups in kube-scheduler's queue order: by the first
// member in member order — priority, then metadata.creationTimestamp,
// then namespace/name — so pods without timestamps go by name, as strings
// ("w-10" before "w-2").
//
// Output: -o text (the default) prints one block per cycle and a summary;
// -o yaml writes the resulting objects — the input's in input order (pods
// with spec.nodeName, PodGroups with their condition, claims with their
// allocation; pods evicted by preemption left out), then those created
// (the Job controller's Workloads, PodGroups and pods, generated claims) —
// with a one-line summary on standard error; -o json writes the report.
// Decisions do not depend on the order of the files or of the documents
// in them, so the text and json outputs do not either; -o yaml follows
// the input's order.
//
// Memory: every pod, given or created for a Job, is an object in memory
// (about 6 KB through a run), so an input whose pods exceed -max-pods
// (default 500,000) is refused as bad input before any Job's pods are
// created: 50 Jobs of parallelism 100,000 are 16 KB of YAML.
//
// Exit status:
//
//	0  every pod and PodGroup was placed
//	1  bad input or usage: the message on standard error names the file,
//	   the document (and its line), the object and the field, and nothing
//	   is written on standard output
//	3  some pods or PodGroups still wait
//	4  internal error: gangsim panicked (a bug); the panic's value and
//	   stack are on standard error
//
// gangsim itself never exits 2: that is the Go runtime's code for a crash
// it cannot report otherwise (a fatal error such as running out of
// memory), so a script can tell a crash from a run that left pods waiting.
package main
