// Package v1alpha2 mirrors the scheduling.k8s.io/v1alpha2 Workload and
// PodGroup types of Kubernetes v1.36 (KEP-4671 gang scheduling, KEP-5732
// topology-aware workload scheduling, KEP-5729 workload resource claims).
// k8s.io/api dropped the version in v0.37, but v1.36 clusters serve it and
// users have manifests in it, so the adapter keeps the few types it reads.
// Field names and JSON keys are the API's; only what the scheduler and the
// Job controller read is mirrored.
package v1alpha2
