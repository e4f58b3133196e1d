package replay

import (
	"time"

	"github.com/gangsched/gangsched/placement"
)

// Result is what a replay did and how the cluster fared, in the shapes a
// report plots: time series with explicit sample times, queueing-delay
// samples per group-size bucket, per-domain occupancy over time; [Compare]
// makes the policy × metric table of several.
type Result struct {
	// Policy is Options.Policy.Name ("" for the options as given).
	Policy string `json:"policy"`
	// Start and End are the first and the last moment of the replay.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Cycles counts scheduling cycles.
	Cycles int `json:"cycles"`
	// Stopped says why the replay stopped before its last event; "" when
	// it did not.
	Stopped string `json:"stopped,omitempty"`
	// Groups are the PodGroups and lone pods, PodGroups first, each by
	// namespace/name.
	Groups []GroupOutcome `json:"groups"`
	// GroupsWaiting counts the groups that never started.
	GroupsWaiting int `json:"groupsWaiting"`
	// Utilisation is, per resource the nodes have (by name), the share of
	// the cluster's allocatable that running pods request.
	Utilisation []Series `json:"utilisation"`
	// StrandedGPUs is the number of GPUs left free by fragmentation: free
	// GPUs (Input.GPU) on nodes where no pending pod that requests a GPU
	// fits by resources and nodeSelector; 0 while no such pod waits.
	StrandedGPUs Series `json:"strandedGPUs"`
	// Delay is the queueing delay of every group that started in the
	// replay: from its first member's arrival to its first binding.
	Delay DelayBucket `json:"delay"`
	// Delays split Delay by group size (pods in the group): 1, 2, 3–4,
	// 5–8, …; only buckets with groups are listed.
	Delays []DelayBucket `json:"delays"`
	// Domains is the occupancy of each domain of DomainKey (Options or
	// Input), by domain name: the share of its GPUs requested, or of its
	// CPU when the cluster has no GPU.
	Domains []DomainSeries `json:"domains,omitempty"`
	// Preemptions are the evictions, in the order they happened.
	Preemptions []Preemption `json:"preemptions"`
	// PodsEvicted counts the pods evicted by preemption.
	PodsEvicted int `json:"podsEvicted"`
	// Runs are the runs of pods, in the order they started (by pod name
	// for those running at the start), with Options.RecordRuns.
	Runs []PodRun `json:"runs,omitempty"`
}

// PodRun is one run of a pod on a node: from Start until End, when it ended
// or was evicted; End is zero for a run still going when the replay ends.
type PodRun struct {
	Pod   string    `json:"pod"`
	Node  string    `json:"node"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitzero"`
}

// GroupOutcome is what became of one PodGroup (or of a pod in none).
type GroupOutcome struct {
	// Kind is "PodGroup", or "Pod" for a pod in no PodGroup; Name is
	// namespace/name.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Policy is "gang" or "basic"; MinCount is the gang's.
	Policy   string `json:"policy"`
	MinCount int    `json:"minCount,omitempty"`
	// Tree is the root CompositePodGroup (namespace/name) of the
	// KEP-6012 hierarchy the PodGroup is a leaf of; "" outside one. A
	// tree is decided whole, so its leaves share their attempts and what
	// preemption evicted for the tree.
	Tree string `json:"tree,omitempty"`
	// Size is the number of pods in the group.
	Size int `json:"size"`
	// Arrival is its first pod's creationTimestamp.
	Arrival time.Time `json:"arrival"`
	// Started is set once members of the group run; Start is then when the
	// first of them started (in the replay: the cycle that bound them).
	Started bool      `json:"started"`
	Start   time.Time `json:"start,omitzero"`
	// Placement is the domain the starting cycle chose ("" without a
	// topology constraint; a tree's leaf: the path of its tree's domains
	// down to its own, e.g. "b/r1") and Nodes the nodes it bound members
	// to, by name.
	Placement string   `json:"placement,omitempty"`
	Nodes     []string `json:"nodes,omitempty"`
	// Evicts are the pods preemption evicted for the group before it
	// started, by namespace/name.
	Evicts []string `json:"evicts,omitempty"`
	// Evicted counts how often the group's pods were evicted as victims.
	Evicted int `json:"evicted,omitempty"`
	// Attempts counts the group's cycles.
	Attempts int `json:"attempts"`
	// Reason says why the group's last cycle that left members waiting
	// did: the decision's message, and preemption's verdict when it found
	// nothing to evict. For a group that never started, it is why.
	Reason string `json:"reason,omitempty"`
	// FirstReason is the Reason of the group's first cycle that left
	// members waiting: why it waits at the start of the replay (retries
	// in vain may say it otherwise later).
	FirstReason string `json:"firstReason,omitempty"`
	// Failed is set when that cycle failed (Reason is its error: an
	// invalid configuration found at runtime, such as a member whose
	// priority differs from its group's), which no freed room can help.
	Failed bool `json:"failed,omitempty"`

	key placement.Key
}

// Sample is one value of a time series at an explicit time.
type Sample struct {
	At    time.Time `json:"at"`
	Value float64   `json:"value"`
}

// Series is a time series of one quantity, sampled every
// Options.SampleEvery from Result.Start, and at Result.End.
type Series struct {
	// Name is the resource (e.g. "cpu", "nvidia.com/gpu") or the metric.
	Name string `json:"name"`
	// Total is the cluster's allocatable of the resource, in canonical
	// units (CPU in millicores, memory in bytes); 0 for a count.
	Total   int64    `json:"total,omitempty"`
	Samples []Sample `json:"samples"`
}

// DomainSeries is the occupancy (0–1) of one domain over time.
type DomainSeries struct {
	Key      string `json:"key"`
	Domain   string `json:"domain"`
	Resource string `json:"resource"`
	// Allocatable is the domain's total of Resource, in canonical units.
	Allocatable int64    `json:"allocatable"`
	Samples     []Sample `json:"samples"`
}

// DelayBucket is the queueing delay of groups of MinSize to MaxSize pods.
type DelayBucket struct {
	Label   string `json:"label"`
	MinSize int    `json:"minSize"`
	MaxSize int    `json:"maxSize"`
	// Seconds are the delays of the groups that started, ascending.
	Seconds []float64 `json:"seconds"`
	// Waiting counts the groups of the bucket that never started.
	Waiting int `json:"waiting"`
	// P50, P90, P99 and Max are nearest-rank percentiles of Seconds; 0
	// when it is empty.
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Preemption is one workload-aware preemption: the victims evicted so that
// the preemptor (a PodGroup or pod, namespace/name) fits.
type Preemption struct {
	At        time.Time `json:"at"`
	Preemptor string    `json:"preemptor"`
	Victims   []string  `json:"victims"`
}
