// Package kube adapts Kubernetes API objects (k8s.io/api) to gangsched: it
// converts Nodes and Pods into the [placement] model, with quantities in
// canonical int64 units (CPU in millicores, memory in bytes) and pod
// requests summed as kube-scheduler sums them.
//
// Conversions validate what they read and return a
// [*placement.FieldError] that names the object and the API field
// (e.g. `pod "default/p1": spec.containers[0].resources.requests[cpu]:
// -1 is negative`); nothing is half converted.
package kube
