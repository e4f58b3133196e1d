// Package e2e holds gangsched's end-to-end tests: gangsched-scheduler
// against a real etcd and kube-apiserver v1.37 started inside the test
// binary by package harness.
// No fakes: every test drives the cluster through its API and asserts the
// API objects' final state (pods' nodes, PodGroup conditions, deleted
// victims).
//
//	go test -vet=off ./e2e/...   # 10-20 minutes for the first build, then about 90 s
package e2e
