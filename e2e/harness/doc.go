// Package harness runs a real Kubernetes control plane — etcd and
// kube-apiserver v1.37, built from k8s.io/kubernetes — inside a Go test
// binary, for gangsched's end-to-end tests.
//
// [Start] runs an embedded etcd and kube-apiserver's own test server with
// the workload API groups and feature gates enabled ([FeatureGates],
// [RuntimeConfig]), RBAC authorization, and no admission of service
// accounts (no controller-manager runs to create them). Both stop when the
// test ends. The apiserver can be stopped and started again on the same
// etcd ([Cluster.RestartAPIServer]) while clients made from
// [Cluster.Config] keep their address.
//
// No kubelet runs: [RunKubelet] stands in for the one thing the tests need
// of it, finishing the graceful deletion of bound pods.
//
// Starting a cluster takes a few seconds; the first build of this package
// takes several minutes (it compiles kube-apiserver).
package harness
