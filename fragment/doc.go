// Package fragment models GPU sharing as Weng et al. do in "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
// Gradient Descent" (USENIX ATC 2023), and provides its policies as
// plug-ins of placement's node-scoring hook: FGD and the baselines of its
// evaluation (random, best fit, dot product, GPU packing).
//
// # Model (§2.2, §3)
//
// A pod asks for CPU and either no GPU, a fraction of one GPU (1–999 GPU
// milli on one device) or whole GPUs ([Request]). A node has CPU and
// devices of one GPU model, each with 0–1000 free GPU milli ([Devices]).
// [Unusable] is the GPU milli of a node a pod of one shape cannot use
// (all of it when the pod cannot run there or asks no GPU, else the
// devices too small for its share); a node's fragmentation is its
// expectation over the target workload ([Workload.Expected]), the
// distribution of pod shapes the cluster serves ([NewWorkload]). FGD
// places each pod where that expectation grows least.
//
// # In a solve
//
// [NewPlugin] joins a [Policy] and the [Devices] for placement.Solve:
// [Plugin.Options] carries a Reserver, which filters nodes by their
// devices and books the devices of assumed members, and a NodeScorer,
// which scores by the policy. The snapshot carries GPU milli as the
// extended resource [ResourceGPUMilli] (node: devices × 1000; pod: its
// total), so the solver's resource fit is the aggregate check and the
// Reserver the per-device one. After a Scheduled decision the host
// books the pods' devices with [Devices.Allocate] and gives them back
// with [Devices.Release] when they end.
//
// # Why not the dra package
//
// Fractional GPUs are what DRA's shared devices with consumable capacity
// (KEP-5075, the dra package) express, and a claim of 500 milli on a
// device of 1000 places as it should there. It is not used here for two
// reasons. The policies choose the device a share goes to (FGD picks the
// device that grows fragmentation least, the baselines the best fit), while
// the dra allocator picks devices in a fixed order and offers no hook to
// choose; and it is slower for this workload: BenchmarkDRASharedGPU
// (this package's tests) solves and commits one 500-milli pod, a claim of
// its own, on an openb-sized cluster (1,523 nodes, 6,216 shared GPUs) in
// about 5.7 ms, close to a minute for the trace's 8,152 pods, against
// 0.24–0.41 ms per pod through a [Plugin] with a baseline policy and
// 2.7 ms with FGD (BenchmarkPluginSolve; medians of 5 runs on a loaded
// 2-core machine, 2026-12-01; BENCHMARKS.md).
//
// # Determinism and cost
//
// Every policy is a pure function of the pod, the node and the devices
// (Random hashes a seed with the pod's and node's names instead of
// drawing), computed in integers; scores are the artifact's 0–100
// integers, so nodes tie often, and ties go to the node first by name (as
// the artifact's scheduler breaks them), then to the lowest device.
// [Workload.Expected] costs O(shapes × devices); [FGD] remembers it per
// node state, as a cluster holds many nodes alike.
package fragment
