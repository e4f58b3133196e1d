package gang

import (
	"fmt"
	"time"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// APIVersion is the API group and version these types model. Upstream
// v1alpha1 is gone and nothing here is compatible with it.
const APIVersion = "scheduling.k8s.io/v1alpha2"

// ObjectMeta is the part of metav1.ObjectMeta this package reads: the
// namespace, the name and the controlling owners.
type ObjectMeta struct {
	// Namespace and Name identify the object; Name must not be empty.
	Namespace string
	Name      string
	// UID is metadata.uid; a PodGroup's appears in the reservedFor entry of
	// its shared ResourceClaims.
	UID string
	// OwnerReferences are metadata.ownerReferences; stamped objects carry
	// their owner here so that they are deleted with it (garbage collection).
	OwnerReferences []OwnerReference
	// CreationTimestamp is metadata.creationTimestamp (zero when unset, as
	// in a hand-written manifest). v1.38 walks a CompositePodGroup's
	// children in creation order, then by name, when it validates a tree
	// (see [Profile]); nothing else reads it.
	CreationTimestamp time.Time
}

// Key returns the object's namespace/name key.
func (m *ObjectMeta) Key() placement.Key { return placement.Key{Namespace: m.Namespace, Name: m.Name} }

// OwnerReference is metav1.OwnerReference without the UID-based matching,
// which needs an API server.
type OwnerReference struct {
	APIVersion string
	Kind       string
	Name       string
	UID        string
	// Controller marks the managing owner (at most one per object).
	Controller bool
}

// SchedulingPolicy is spec.schedulingPolicy of a PodGroup or of a Workload's
// PodGroupTemplate: exactly one of Gang and Basic is set (a one-of in the
// API).
type SchedulingPolicy struct {
	// Gang is all-or-nothing scheduling (KEP-4671).
	Gang *GangSchedulingPolicy
	// Basic is pod-by-pod scheduling with no barrier.
	Basic *BasicSchedulingPolicy
}

// GangSchedulingPolicy is schedulingPolicy.gang.
type GangSchedulingPolicy struct {
	// MinCount is how many members must be able to run at the same time for
	// any of them to be bound; at least 1.
	MinCount int32
}

// BasicSchedulingPolicy is schedulingPolicy.basic; it has no fields.
type BasicSchedulingPolicy struct{}

// SchedulingConstraints is spec.schedulingConstraints (KEP-5732
// topology-aware workload scheduling).
type SchedulingConstraints struct {
	// Topology lists the topology levels the members must share, e.g. one
	// entry with Key "topology.kubernetes.io/rack".
	Topology []TopologyConstraint
}

// TopologyConstraint is one entry of schedulingConstraints.topology.
type TopologyConstraint struct {
	// Key is a node label key; all members go to nodes with one value of it.
	Key string
	// Preferred makes the constraint soft (a gangsched extension ahead of
	// upstream's planned optional constraints, KEP-5732 "future
	// extensions"): the members share one domain of Key when some domain
	// holds them, else the search widens level by level through
	// Options.TopologyLevels using as few domains as possible.
	Preferred bool
	// SliceSize, when positive, makes the entry a slice layer (Kueue's
	// podset-slice-required-topology and podset-slice-size, a gangsched
	// extension of the PodGroup): the members are cut into slices of
	// SliceSize pods, each slice on nodes of one value of Key. Such a
	// group is planned as Kueue plans it (topology.Tree.PlanPodSets),
	// whatever Options.TopologyProfile says.
	SliceSize int32
}

// PodGroupResourceClaim is one entry of spec.resourceClaims (KEP-5729 DRA
// ResourceClaims per PodGroup): a name that member pods refer to and
// exactly one of an existing ResourceClaim's name or a
// ResourceClaimTemplate's name, from which one ResourceClaim is generated
// for the whole PodGroup.
type PodGroupResourceClaim struct {
	Name                      string
	ResourceClaimName         string
	ResourceClaimTemplateName string
}

// DisruptionMode is spec.disruptionMode: how workload-aware preemption may
// evict the group's pods.
type DisruptionMode string

// Disruption modes. The empty mode means Pod.
const (
	// DisruptionModePod evicts members one by one.
	DisruptionModePod DisruptionMode = "Pod"
	// DisruptionModePodGroup evicts all members together or none.
	DisruptionModePodGroup DisruptionMode = "PodGroup"
)

// Workload is a scheduling.k8s.io/v1alpha2 Workload: a pure template from
// which controllers stamp PodGroups. The scheduler never reads it.
type Workload struct {
	ObjectMeta
	Spec WorkloadSpec
}

// WorkloadSpec is a Workload's spec.
type WorkloadSpec struct {
	// PodGroupTemplates are the groups a workload is made of; names are
	// unique within the Workload. Exactly one of PodGroupTemplates and
	// CompositePodGroupTemplates is set.
	PodGroupTemplates []PodGroupTemplate
	// CompositePodGroupTemplates are the roots of the hierarchies a
	// workload is made of (KEP-6012; v1beta1 since v1.37); see
	// [StampHierarchy].
	CompositePodGroupTemplates []CompositePodGroupTemplate
}

// CompositePodGroupTemplate is one entry of compositePodGroupTemplates: a
// [CompositePodGroup] to stamp and the templates of its children (at
// least one of the two lists; up to 8 entries each upstream).
type CompositePodGroupTemplate struct {
	// Name identifies the template among its siblings.
	Name                  string
	SchedulingPolicy      CompositeSchedulingPolicy
	SchedulingConstraints SchedulingConstraints
	PriorityClassName     string
	Priority              *int32
	// PreemptionPolicy is preemptionPolicy (v1beta1 and v1alpha3 since
	// v1.37, behind the PodGroupPreemptionPolicy gate): PreemptLowerPriority,
	// Never, or "" when unset. [StampHierarchy] copies it under v1.38 only
	// ([Profile.StampsPreemptionPolicy]).
	PreemptionPolicy placement.PreemptionPolicy
	DisruptionMode   CompositeDisruptionMode
	// PodGroupTemplates are the leaf children; CompositePodGroupTemplates
	// the inner ones.
	PodGroupTemplates          []PodGroupTemplate
	CompositePodGroupTemplates []CompositePodGroupTemplate
}

// PodGroupTemplate is one entry of spec.podGroupTemplates: everything a
// PodGroup stamped from it carries (see [NewPodGroupFromTemplate]).
type PodGroupTemplate struct {
	// Name identifies the template within its Workload.
	Name string
	// SchedulingPolicy is schedulingPolicy: gang (with minCount, KEP-4671)
	// or basic.
	SchedulingPolicy SchedulingPolicy
	// SchedulingConstraints is schedulingConstraints: the topology keys
	// every member must share a domain of (KEP-5732).
	SchedulingConstraints SchedulingConstraints
	// ResourceClaims is resourceClaims: claims shared by all members, one
	// per PodGroup (KEP-5729).
	ResourceClaims []PodGroupResourceClaim
	// PriorityClassName names the PriorityClass of the group.
	PriorityClassName string
	// Priority is the resolved priority; nil when unset. During preemption
	// it overrides the priorities of the member pods; since v1.37 an
	// unset one overrides them with 0 ([Profile]). Since v1.37 every
	// member, pending or bound, must carry it, 0 when unset (see
	// [Profile]); a host's group for a lone pod sets it ([LonePodGroup]).
	Priority *int32
	// PreemptionPolicy is preemptionPolicy (v1beta1 and v1alpha3 since
	// v1.37, behind the PodGroupPreemptionPolicy gate): PreemptLowerPriority,
	// Never, or "" when unset. Stamping copies it onto the PodGroup under
	// v1.38 only, as upstream's builders do ([Profile.StampsPreemptionPolicy]).
	PreemptionPolicy placement.PreemptionPolicy
	// DisruptionMode is disruptionMode: how preemption may evict the
	// members, one by one or all together (KEP-5710); empty means Pod.
	DisruptionMode DisruptionMode
}

// PodGroup is a scheduling.k8s.io/v1alpha2 PodGroup: the runtime object the
// scheduler reads. Pods join it through spec.schedulingGroup.podGroupName
// ([placement.Pod].SchedulingGroup).
type PodGroup struct {
	ObjectMeta
	Spec   PodGroupSpec
	Status PodGroupStatus
	// lone marks a host's implicit group of one pod that belongs to no
	// PodGroup upstream ([LonePodGroup]): v1.36 preempts for such a pod
	// pod by pod ([Profile.perPodPreemptor]).
	lone bool
}

// PodGroupSpec is a PodGroup's spec. The fields after PodGroupTemplateRef
// mean what they mean in [PodGroupTemplate].
type PodGroupSpec struct {
	// PodGroupTemplateRef points back at the Workload template the group was
	// stamped from; nil for a PodGroup created on its own.
	PodGroupTemplateRef *PodGroupTemplateReference
	// ParentCompositePodGroupName names the [CompositePodGroup] of the
	// same namespace this group is a leaf of (KEP-6012); empty for a
	// standalone PodGroup. The cycle then decides the group only with
	// the rest of its hierarchy.
	ParentCompositePodGroupName string
	SchedulingPolicy            SchedulingPolicy
	SchedulingConstraints       SchedulingConstraints
	ResourceClaims              []PodGroupResourceClaim
	PriorityClassName           string
	Priority                    *int32
	// PreemptionPolicy is spec.preemptionPolicy (v1.37, alpha behind the
	// PodGroupPreemptionPolicy gate; v1.38 always), which admission sets
	// from the group's priority class; empty when unset. In v1.37 with
	// the gate on ([Options].PodGroupPreemptionPolicy) every member must
	// have it, PreemptLowerPriority when unset; with it off it is not
	// read. In v1.38 every member must have it when it is set (see
	// [Profile]).
	PreemptionPolicy placement.PreemptionPolicy
	DisruptionMode   DisruptionMode
	// DeviceConstraints bind the devices of all the members'
	// ResourceClaims together (gangsched's own, no Kubernetes field; the
	// kube adapter reads annotation gangsched.io/device-constraints); see
	// [dra.GroupDeviceConstraint].
	DeviceConstraints []dra.GroupDeviceConstraint
}

// PodGroupTemplateReference is spec.podGroupTemplateRef.
type PodGroupTemplateReference struct {
	Workload *WorkloadPodGroupTemplateReference
}

// WorkloadPodGroupTemplateReference is spec.podGroupTemplateRef.workload.
type WorkloadPodGroupTemplateReference struct {
	// WorkloadName names a Workload in the PodGroup's namespace.
	WorkloadName string
	// PodGroupTemplateName names one of its spec.podGroupTemplates.
	PodGroupTemplateName string
}

// PodGroupStatus is a PodGroup's status. Status is written per PodGroup
// (sharded), never on the Workload.
type PodGroupStatus struct {
	Conditions []Condition
}

// ConditionStatus is metav1.ConditionStatus.
type ConditionStatus string

// Condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// PodGroupScheduled is the condition type the scheduler maintains on a
// PodGroup: True once minCount members (bound ones included) are bound,
// False with a reason while the group cannot be scheduled. It never goes
// from True back to False (upstream updatePodGroupCondition).
const PodGroupScheduled = "PodGroupScheduled"

// Reasons of the PodGroupScheduled condition, as upstream sets them.
const (
	// ReasonScheduled: the group reached minCount and its members were
	// sent to binding.
	ReasonScheduled = "Scheduled"
	// ReasonUnschedulable: no placement satisfies the group now; the message
	// says how many members fit at best and what was short.
	ReasonUnschedulable = "Unschedulable"
	// ReasonSchedulerError: the cycle failed on bad input (e.g. an error
	// from a hook); the message carries the error.
	ReasonSchedulerError = "SchedulerError"
)

// Condition is metav1.Condition without observedGeneration.
type Condition struct {
	// Type is the condition type, e.g. [PodGroupScheduled].
	Type string
	// Status is True, False or Unknown.
	Status ConditionStatus
	// Reason is a CamelCase word, e.g. [ReasonUnschedulable].
	Reason string
	// Message is a one-line explanation a person can act on.
	Message string
	// LastTransitionTime is the time the caller passed to the cycle in which
	// Status last changed.
	LastTransitionTime time.Time
}

// Condition returns the PodGroup's condition of type t and whether it has
// one.
func (pg *PodGroup) Condition(t string) (Condition, bool) {
	for _, c := range pg.Status.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return Condition{}, false
}

// Group converts the PodGroup into the input of [placement.Solve] with the
// given pending members. A PodGroup with the basic policy maps to
// [placement.PolicyBasic]; otherwise the gang minCount is carried.
func (pg *PodGroup) Group(members []placement.Pod) *placement.Group {
	g := &placement.Group{Namespace: pg.Namespace, Name: pg.Name, Members: members}
	if pg.Spec.SchedulingPolicy.Basic != nil {
		g.Policy = placement.PolicyBasic
	} else {
		g.Policy = placement.PolicyGang
		if pg.Spec.SchedulingPolicy.Gang != nil {
			g.MinCount = pg.Spec.SchedulingPolicy.Gang.MinCount
		}
	}
	return g
}

// minCount is how many members must exist before a cycle is attempted: the
// gang's minCount, or 1 for a basic group.
func (pg *PodGroup) minCount() int {
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
		return int(g.MinCount)
	}
	return 1
}

// PodSchedulingGroup is a pod's spec.schedulingGroup (it replaces the older
// workloadRef). In a [placement.Pod] it is flattened to SchedulingGroup.
type PodSchedulingGroup struct {
	// PodGroupName names a PodGroup in the pod's namespace.
	PodGroupName string
}

func objRef(kind string, m *ObjectMeta) string {
	return fmt.Sprintf("%s %q", kind, m.Key().String())
}
