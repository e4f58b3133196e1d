// Package replay runs the PodGroup scheduling cycle of package gang in
// simulated time: pods arrive at their creationTimestamp, run for an
// expected duration and end, freeing their resources and claims; a cycle
// runs at each event (an arrival, an end, a group's backoff expiring). It
// answers when each pending group would start, where, and what it would
// evict on the way (the what-if of Slurm's squeue --start and sbatch
// --test-only), and replays traces under a node-scoring policy with the
// metrics a comparison needs: utilisation over time per resource,
// queueing delay per group size, GPUs stranded by fragmentation,
// preemptions.
//
// [Run] takes an [Input] (nodes, pods with their durations, PodGroups and
// the CompositePodGroups of KEP-6012 hierarchies, optionally DRA claims and
// disruption budgets) and [Options] (the start,
// a [Policy], preemption, the host's solver options) and returns a
// [Result]. [FromCluster] builds the input from Kubernetes objects (a
// cluster dump), reading each pod's expected run time from the annotation
// gangsched.io/expected-duration; package replay/trace reads public
// traces. [Policies] is the table of built-in policies; a caller plugs in
// its own scorer as a Policy of its own. [Compare] tabulates results of
// several policies.
//
// Like the core, a replay is pure: the time is simulated, there are no
// goroutines, clocks or I/O, and the same input in any order gives the
// same Result. The host's part that kube-scheduler's queueing hints play
// upstream — when a group that did not fit is worth a cycle again — is
// described at [Run].
//
// Cost: one cycle per arrival and per group woken, plus one Snapshot.Apply
// per moment with ends; the samples are bounded (at most 4,096 per series).
package replay
