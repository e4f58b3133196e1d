// Package kubeplugin puts gangsched's topology placement into the upstream
// kube-scheduler (v1.37): [Plugin] is a PlacementGenerate and
// PlacementScore plugin (KEP-5732, k8s.io/kube-scheduler/framework
// PlacementGeneratePlugin and PlacementScorePlugin) whose candidate
// placements come from gangsched's topology Generator and whose ranking is
// gangsched's topology Scorer. It adds to upstream's
// TopologyPlacementGenerator multi-level topology (a tree of levels, widest
// first, in which rack r1 of block b1 and rack r1 of block b2 are two
// domains), a preferred key (a soft constraint: one rack if one fits, else
// the fewest racks of one block), and BestFit packing.
//
// # Use
//
// Build a kube-scheduler with the plugin registered, as
// cmd/gangsched-kube-scheduler does:
//
//	command := app.NewSchedulerCommand(app.WithPlugin(kubeplugin.Name, kubeplugin.New))
//
// and enable it in a profile at placementGenerate (in place of
// TopologyPlacementGenerator: the framework runs only the first
// PlacementGenerate plugin) and placementScore (in place of
// NodeResourcesFit and PodGroupPodsCount, whose MostAllocated and pod
// count gangsched's MostAllocated score already contains). The scheduler
// needs the GenericWorkload and TopologyAwareWorkloadScheduling feature
// gates: without the second it never calls placement plugins.
// deploy/kube-scheduler-config.yaml is a complete configuration; [Args]
// documents the plugin's arguments.
//
// # How a PodGroup cycle uses it
//
// GeneratePlacements brings the gangsched snapshot it keeps across cycles
// in step with the parent placement's nodes (a generation comparison per
// node; the nodes whose NodeInfo changed have their pods put back with
// Snapshot.Apply; a changed node set or node rebuilds it and its domain
// trees), converts the PodGroup's unscheduled pods into a group, and
// returns gangsched's placements. The framework then tries each placement with
// its Filter and Score plugins, pod by pod, and scores the feasible ones;
// NormalizePlacementScore makes gangsched's choice the single best score,
// so the scheduler takes the placement gangsched's solver would take among
// those its own filters found feasible. A PodGroup without a topology key
// (and no preferred key in the args) gets the parent placement unchanged.
package kubeplugin
