// Package v1beta1 mirrors the scheduling.k8s.io/v1beta1 CompositePodGroup
// of Kubernetes v1.38 (KEP-6012 beta; k8s.io/api v0.38.0-beta.0
// scheduling/v1beta1 types.go). k8s.io/api v0.37 carries v1beta1 Workload
// and PodGroup but CompositePodGroup only in v1alpha3, and v0.38 needs a
// newer Go than this module builds with, so the adapter keeps the one
// type it reads. Its spec and status have the same fields and JSON keys
// as v1alpha3's; the nested types are v0.37's v1beta1 ones (the Workload's
// compositePodGroupTemplates use them), whose JSON shape v0.38 keeps.
package v1beta1
