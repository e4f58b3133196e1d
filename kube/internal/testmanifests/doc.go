// Package testmanifests writes the upstream benchmark configurations that
// the adapter's golden tests run as Kubernetes manifests: kube-scheduler's
// scheduler_perf PodGroup workloads (test/integration/scheduler_perf/
// podgroup/{gangscheduling,tas}) and Kueue's topology-aware scheduling
// examples and performance configuration (site/static/examples/tas,
// test/performance/scheduler/configs/tas). Both are Apache-2.0; the
// manifests are translations, made by code so that each choice is stated
// once, here, and the committed files under kube/testdata can be checked
// against it (go test ./internal/testmanifests -update rewrites them).
// It also writes gangsim's own generated worlds for its benchmarks
// ([SetAside]), which are no upstream configuration.
package testmanifests
