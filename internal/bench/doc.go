// Package bench holds the named workloads of gangsched's benchmarks and
// their floor, so that one run of
//
//	go test -run '^$' -bench . -benchmem ./internal/bench/
//
// gives every figure of BENCHMARKS.md. Each workload has two benchmarks
// with the same sub-benchmark name: BenchmarkDecision/<workload> times the
// library, BenchmarkFloor/<workload> times [Floor], one plain pass that
// touches every node and every member once — the least any decision must
// do — so that the ratio of the two is comparable across machines.
//
// The sizes are upstream scheduler_perf's: nodes with cpu 4, memory 32Gi
// and pods 110; pods requesting 100m cpu and 100Mi memory.
package bench
