// Package kube adapts Kubernetes API objects (k8s.io/api v0.37) to
// gangsched, in both directions.
//
// # From objects to decisions
//
//   - Nodes and Pods become [placement.Node] and [placement.Pod]
//     ([ConvertNode], [ConvertPod]) with quantities in canonical int64
//     units (CPU millicores, bytes; [Quantity]) and pod requests summed as
//     kube-scheduler sums them ([PodRequests]: containers, init containers
//     and sidecars, pod-level resources, overhead). Priorities come from
//     PriorityClasses ([PriorityClasses]); required node affinity compiles
//     into a filter ([RequiredNodeAffinity], [AffinityFilter]), and a
//     pod set template's required and preferred node affinity into
//     placement's own ([PodSetNodeAffinity]); pod
//     (anti-)affinity is evaluated among a PodGroup's members;
//     DoNotSchedule topology spread constraints compile into a hook that
//     decides as kube-scheduler's PodTopologySpread filter
//     ([TopologySpread], [SpreadFilter], [Cluster.TopologySpreadFilter])
//     and re-checks a whole placement ([SpreadFilter.FilterPlacement]);
//     ScheduleAnyway ones into a node scorer as its score
//     ([SoftTopologySpread], [SpreadScorer],
//     [Cluster.TopologySpreadScorer]); a pod's non-zero requests feed an
//     upstream node score ([PodScoreRequests]); PreferNoSchedule taints
//     and preferred node affinity are scored as kube-scheduler's
//     TaintToleration and NodeAffinity scores ([TaintScorer],
//     [NodeAffinityScorer]), summed with the spread score by [SumScores].
//   - A KubeSchedulerConfiguration's profile gives the node scoring and
//     whether preemption runs ([ReadSchedulerConfiguration]), with a
//     warning for each field gangsched does not follow.
//   - Workloads and PodGroups of scheduling.k8s.io/v1alpha2 (Kubernetes
//     v1.36, mirrored in kube/api/scheduling/v1alpha2 since k8s.io/api
//     dropped it) and v1beta1 (v1.37) become the [gang] model
//     ([ConvertPodGroupV1alpha2], [ConvertPodGroupV1beta1], and the
//     Workload counterparts). KEP-6012 hierarchies: CompositePodGroups of
//     scheduling.k8s.io/v1alpha3 (v1.37 and v1.38; k8s.io/api v0.37's
//     only version, [ConvertCompositePodGroupV1alpha3]) and v1beta1 (v1.38,
//     mirrored in kube/api/scheduling/v1beta1 from k8s.io/api
//     v0.38.0-beta.0, whose Go version this module does not build with;
//     [ConvertCompositePodGroupV1beta1]), v1beta1 PodGroups'
//     parentCompositePodGroupName and v1beta1 Workloads'
//     compositePodGroupTemplates (stamped with [gang.StampHierarchy]).
//   - Jobs are stamped as the Job controller does ([StampJobAs]): v1.36's
//     eligibility rules (a gang for an Indexed Job whose completions equal
//     its parallelism above 1), or v1.37's (every Job a controller does not
//     own gets a Workload and PodGroup: spec.scheduling's policy, basic
//     without one), pods included; but a Job Kueue manages (labelled
//     kueue.x-k8s.io/queue-name, or owning a Kueue Workload of the input)
//     gets the Kueue Workload Kueue's Job integration builds for it
//     ([KueueJobWorkload]), or keeps its own, and no pods.
//   - DeviceClasses, ResourceSlices, ResourceClaimTemplates and
//     ResourceClaims (resource.k8s.io/v1) become the [dra] model, with CEL
//     selectors compiled by the Kubernetes DRA CEL environment
//     ([CompileSelector]); a PodGroup's annotation
//     gangsched.io/device-constraints ([DeviceConstraints]) binds the
//     devices of all its members' claims together (one fabric, distinct
//     NVLink domains), which no Kubernetes API can say.
//   - Extended resources backed by DRA (KEP-5004): a pod asking for a
//     resource a DeviceClass names ([NewExtendedResourceClasses]) in a
//     cluster where no node has it in allocatable gets an implicit claim,
//     one device of the class per unit ([ExtendedResourceClaim]), written
//     back as upstream does (the extended-resource-claim annotation, the
//     pod's status.extendedResourceClaimStatus); such a claim a pending
//     pod has from an earlier attempt is deleted before the first cycle,
//     as kube-scheduler deletes it ([Cluster.DeletedClaims]); a resource
//     that device plugins serve on some nodes and DRA on others is served
//     per node, as kube-scheduler does ([PerNode]): a node with it in
//     allocatable by its device plugin, with no claim for it, the units
//     checked as NodeResourcesFit checks them. So preemption frees a
//     victim's device-plugin units there, as v1.37's dry-run does by
//     removing the victim's requests, and frees no victim's DRA devices,
//     as v1.37's does not either (DynamicResources returns nil from
//     PreFilterExtensions, pkg/scheduler/framework/plugins/
//     dynamicresources/dynamicresources.go; KEP-5690, DRA preemption, is
//     a proposal).
//   - [Load] does all of it for a set of manifest objects (package
//     kube/manifest reads them) and builds the snapshot, running the Job
//     controller's rules (v1.37: objects a Job controls are its own; only
//     a Job that never started gets a Workload and PodGroup). [FillIn]
//     first adds what the API server and kubelet would (the hostname
//     label, creation and start times in input order); [Load] admits
//     the pods it reads pending or creates with the input's LimitRanges
//     and RuntimeClasses ([Admission]).
//
// # From decisions to objects
//
// [Bind] and [Binding] write a pod's node; [SetConditionV1alpha2] and
// [SetConditionV1beta1] write the PodGroup condition under each version's
// name (PodGroupScheduled, PodGroupInitiallyScheduled), and
// [SetConditionCompositePodGroupV1alpha3] a CompositePodGroup's; [ClaimStatus] and
// [NewClaim] write claim allocations and reservedFor; [PodGroupV1alpha2],
// [PodGroupV1beta1] and the Workload counterparts write stamped objects.
// A [Cluster] keeps the API objects and applies all of these
// ([Cluster.Bind], [Cluster.SetCondition], [Cluster.SetCompositeCondition], [Cluster.SetLedger],
// [Cluster.Evict], [Cluster.Recreate] for a Job's evicted pod,
// [Cluster.Objects]).
//
// # Errors
//
// Conversions validate what they read and return a [*placement.FieldError]
// that names the object and the API field (e.g. `pod "default/p1":
// spec.containers[0].resources.requests[cpu]: -1 is negative`); [Load]
// locates it in the input (file, document, line). Fields that change where
// a pod may run but that gangsched does not model yet fail with
// [ErrUnsupported] rather than being ignored. Nothing is half converted.
// A nil object is an error too ([placement.ErrInvalid], field
// "metadata"); the writers return nil, or do nothing, for nil. [Load]
// refuses an input whose pods, with those its Jobs would create, exceed
// [LoadOptions].MaxPods ([ErrTooManyPods]), before creating any: a Job's
// pods share its template, but each is still an object in memory.
package kube
