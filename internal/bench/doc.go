// Package bench holds the named workloads of gangsched's benchmarks and
// their floors, so that one run of
//
//	go test -run '^$' -bench . -benchmem ./internal/bench/
//
// gives every figure of BENCHMARKS.md. Each workload has two benchmarks
// with the same sub-benchmark name: BenchmarkDecision/<workload> times the
// library, BenchmarkFloor/<workload> times a plain pass that touches every
// node and every member once — the least any decision must do — so that
// the ratio of the two, measured in the same run, is comparable across
// machines. The command internal/bench/cmd/ratios turns the output into
// the tables of BENCHMARKS.md.
//
// The workloads (see the benchmarks in this package's tests):
//
//   - core: upstream scheduler_perf shapes ([Nodes], [Gang], [Bound]) with
//     [Floor] — gangs on 5,000 nodes, a snapshot of 10,000 nodes and
//     100,000 pods, forks with a what-if of 100 and 1,000 pods;
//   - the matrix on [GPUCluster] (blocks > racks > hosts of 8 GPUs),
//     named like n=10000/p=512/block/empty, with [GangFloor];
//   - the stream of 2,250 gangs of 4 pods with a required rack on 5,000
//     nodes ([TASCluster] and [GPUCluster]);
//   - workload-aware preemption on [PackedCluster];
//   - heterogeneous groups ([ShapedGang]) and the share of
//     generated instances ([HeteroInstance]) that the heuristic places
//     without the exhaustive search ([Settle]).
//
// Clusters are deterministic: fragmentation and generated instances come
// from fixed pseudo-random sequences, the same in every run.
package bench
