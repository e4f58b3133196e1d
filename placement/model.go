package placement

import (
	"cmp"
	"time"
)

// ResourceName names a resource as the Kubernetes API does (core/v1
// ResourceName): "cpu", "memory", "pods", "ephemeral-storage", or an extended
// resource such as "nvidia.com/gpu".
type ResourceName string

// Well-known resource names and their canonical units.
const (
	// ResourceCPU is measured in millicores: 1 CPU is 1000.
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is measured in bytes.
	ResourceMemory ResourceName = "memory"
	// ResourceEphemeralStorage is measured in bytes.
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
	// ResourcePods is the number of pods a node may run (node
	// status.allocatable["pods"]). Every pod counts 1 against it; a pod
	// never lists it among its requests. A node that does not list it has
	// no pod-count limit.
	ResourcePods ResourceName = "pods"
	// ResourceGPU is the extended resource of the NVIDIA device plugin,
	// counted in whole devices.
	ResourceGPU ResourceName = "nvidia.com/gpu"
)

// ResourceList maps resource names to quantities in Kubernetes canonical
// units (core/v1 ResourceList after resource.Quantity is resolved): CPU in
// millicores, memory and storage in bytes, everything else in whole units.
// Quantities must not be negative. A resource absent from a node's
// allocatable is zero on that node (except [ResourcePods], see there).
type ResourceList map[ResourceName]int64

// Key identifies a namespaced object (a pod or a PodGroup) by namespace and
// name, as types.NamespacedName does in Kubernetes. Keys order by namespace,
// then name; every tie in this library breaks on that order.
type Key struct {
	Namespace string
	Name      string
}

// String returns "namespace/name", or "name" when the namespace is empty.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// Compare orders keys by namespace, then name; it returns -1, 0 or +1.
func (k Key) Compare(o Key) int {
	if c := cmp.Compare(k.Namespace, o.Namespace); c != 0 {
		return c
	}
	return cmp.Compare(k.Name, o.Name)
}

// TaintEffect is a taint's effect (core/v1 TaintEffect).
type TaintEffect string

// Taint effects. NoSchedule and NoExecute keep untolerating pods off a node;
// PreferNoSchedule is a preference and never filters.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint is a node taint (core/v1 Taint).
type Taint struct {
	Key    string
	Value  string
	Effect TaintEffect
}

// TolerationOperator is core/v1 TolerationOperator.
type TolerationOperator string

// Toleration operators. The empty operator means Equal, as in Kubernetes.
const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
)

// Toleration is a pod's toleration (core/v1 Toleration, without
// tolerationSeconds, which does not affect scheduling). An empty Key with
// operator Exists tolerates every taint; an empty Effect matches every
// effect.
type Toleration struct {
	Key      string
	Operator TolerationOperator
	Value    string
	Effect   TaintEffect
}

// Tolerates reports whether t tolerates taint, with the matching rules of
// core/v1 Toleration.ToleratesTaint.
func (t Toleration) Tolerates(taint Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case TolerationOpExists:
		return true
	case TolerationOpEqual, "":
		return t.Value == taint.Value
	}
	return false
}

// Node is a cluster node as the scheduler sees it (core/v1 Node: metadata
// name and labels, spec taints and unschedulable, status allocatable).
type Node struct {
	// Name is unique in a snapshot and must not be empty.
	Name string
	// Labels carry the topology keys (e.g. topology.kubernetes.io/rack).
	Labels map[string]string
	// Allocatable is status.allocatable in canonical units.
	Allocatable ResourceList
	// Taints are spec.taints.
	Taints []Taint
	// Unschedulable is spec.unschedulable (cordoned): no new pod lands here.
	Unschedulable bool
}

// PreemptionPolicy is core/v1 PreemptionPolicy.
type PreemptionPolicy string

// Preemption policies. The empty policy means PreemptLowerPriority.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// PodResourceClaim is one entry of a pod's spec.resourceClaims (DRA): the
// name the pod's containers use, and either an existing ResourceClaim's name
// or a ResourceClaimTemplate's name. The dra package decides which claim it
// resolves to; placement only carries it.
type PodResourceClaim struct {
	Name                      string
	ResourceClaimName         string
	ResourceClaimTemplateName string
}

// Pod is a pod as the scheduler sees it (core/v1 Pod, reduced to what
// scheduling reads).
type Pod struct {
	// Namespace and Name identify the pod; the pair is unique in a snapshot.
	Namespace string
	Name      string
	// UID is metadata.uid; it is carried, not interpreted.
	UID string
	// Labels are metadata.labels (disruption budgets select on them).
	Labels map[string]string
	// Requests are the effective requests the scheduler computes (the larger
	// of the sum over containers and the largest init container, plus pod
	// overhead), in canonical units. The implicit pod count is not listed.
	Requests ResourceList
	// ScoreRequests, when not nil, are the cpu and memory that an
	// upstream-compatible node score ([NodeScoring] with a Strategy) reads
	// for this pod instead of Requests: kube-scheduler's NodeResourcesFit
	// score counts a container that requests no cpu as 100m and one that
	// requests no memory as 200 MiB (pkg/scheduler/util non-zero requests;
	// [github.com/gangsched/gangsched/kube.PodScoreRequests] computes
	// them), both for the pod it places and for the pods already on a
	// node. Only [ResourceCPU] and [ResourceMemory] may appear; one left
	// out reads Requests. Fit, BalancedAllocation, gangsched's packing and
	// preemption read Requests only.
	ScoreRequests ResourceList
	// Priority is spec.priority, resolved from the PriorityClass.
	Priority int32
	// PreemptionPolicy is spec.preemptionPolicy.
	PreemptionPolicy PreemptionPolicy
	// SchedulerName is spec.schedulerName (the API server defaults it to
	// default-scheduler; "" is a name like any other here). Placement does
	// not read it; since v1.37 the gang cycle requires one across the pods
	// of a PodGroup or CompositePodGroup tree, pending and bound (see
	// gang.Profile).
	SchedulerName string
	// NodeSelector is spec.nodeSelector: every pair must match a node label.
	NodeSelector map[string]string
	// Tolerations are spec.tolerations.
	Tolerations []Toleration
	// NodeAffinity is spec.affinity.nodeAffinity, or nil for none: its
	// required terms filter nodes beside NodeSelector, and its preferred
	// terms rank placements (see [NodeAffinity]). Read for pending pods
	// (members and pod set templates) only.
	NodeAffinity *NodeAffinity
	// SchedulingGroup is spec.schedulingGroup.podGroupName: the PodGroup in
	// the pod's namespace that the pod belongs to, or "" for none.
	SchedulingGroup string
	// NodeName is spec.nodeName: the node the pod is bound to, or "" while
	// it is pending.
	NodeName string
	// QueuedAt is when the pod first entered the scheduling queue; it orders
	// members inside a cycle (after priority).
	QueuedAt time.Time
	// StartTime is status.startTime; preemption prefers to keep pods that
	// started earlier.
	StartTime time.Time
	// ResourceClaims is spec.resourceClaims.
	ResourceClaims []PodResourceClaim
	// Affinity holds spec.affinity's podAffinity and podAntiAffinity terms.
	// The solver evaluates them among the members of the pod's own
	// PodGroup (bound and pending), which is where gang scheduling needs
	// them; terms about pods outside the group are the host's concern.
	Affinity *Affinity
}

// Affinity is the pod-to-pod part of core/v1 Affinity.
type Affinity struct {
	PodAffinity     *PodAffinity
	PodAntiAffinity *PodAffinity
}

// PodAffinity lists required and preferred terms (core/v1 PodAffinity and
// PodAntiAffinity: requiredDuringSchedulingIgnoredDuringExecution and
// preferredDuringSchedulingIgnoredDuringExecution).
type PodAffinity struct {
	Required  []PodAffinityTerm
	Preferred []WeightedPodAffinityTerm
}

// PodAffinityTerm is core/v1 PodAffinityTerm restricted to the pod's
// PodGroup: the members whose labels match LabelSelector, and the node
// label TopologyKey that defines "the same domain" (kubernetes.io/hostname
// for one node, a rack key for one rack).
type PodAffinityTerm struct {
	LabelSelector LabelSelector
	TopologyKey   string
}

// WeightedPodAffinityTerm is a preferred term; Weight is 1..100 and adds to
// the assignment's preference score when the term holds.
type WeightedPodAffinityTerm struct {
	Weight int32
	Term   PodAffinityTerm
}

// Key returns the pod's namespace/name key.
func (p *Pod) Key() Key { return Key{p.Namespace, p.Name} }

// GroupKey returns the key of the pod's PodGroup and whether it has one.
func (p *Pod) GroupKey() (Key, bool) {
	if p.SchedulingGroup == "" {
		return Key{}, false
	}
	return Key{p.Namespace, p.SchedulingGroup}, true
}

// MemberOrder is the order of members inside a PodGroup scheduling cycle:
// priority descending, then QueuedAt ascending, then namespace/name
// ascending. It is a total order over distinct pods (upstream: the
// scheduling queue's default QueueSort plus a name tie-break). It returns a
// negative number when a goes first.
func MemberOrder(a, b *Pod) int {
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	if c := a.QueuedAt.Compare(b.QueuedAt); c != 0 {
		return c
	}
	return a.Key().Compare(b.Key())
}
