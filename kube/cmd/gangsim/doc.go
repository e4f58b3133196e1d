// Command gangsim runs kube-scheduler's PodGroup scheduling cycles
// (Kubernetes v1.36 workload-aware scheduling: gang placement, KEP-4671;
// topology, KEP-5732; workload-aware preemption, KEP-5710; DRA claims per
// PodGroup, KEP-5729) over Kubernetes manifests, without a cluster, until
// nothing changes, and prints what bound where, what waited and why, and
// what was preempted.
//
// Usage:
//
//	gangsim -f FILE|DIR|- [-f ...] [-o text|yaml|json] [flags]
//	gangsim -estimate [-now TIME] -f DUMP [-f ...] [-o text|json]
//	gangsim -what-if WORKLOAD -f DUMP [-f ...] [-o text|json]
//	gangsim -trace KIND=PATH [-trace ...] [-policy packing,upstream] [-o text|json] [-report FILE.html]
//	gangsim -trace openb=DIR -fgd-experiment [-fgd-seeds N]
//
// -estimate replays the manifests as a cluster dump in simulated time
// (package kube/replay) from its moment (-now, else its latest
// creationTimestamp or status.startTime): running pods end at
// status.startTime plus their annotation gangsched.io/expected-duration
// (a pod without one runs for good), bound pods free their room and
// claims, and the queue runs as kube-scheduler's would. For every pending
// group it prints when it would start, in which domain, on which nodes and
// what it would evict on the way — or that it never starts, and why (a
// group that would not fit even on the empty cluster says so). -what-if
// adds a workload (a Job, or a PodGroup with its pods) to the dump and
// answers for it alone: fits now, starts at T, or never. Exit status 3
// when some group never starts.
//
// -trace replays a trace instead of manifests: openb=DIR (Alibaba's openb
// GPU trace, research use only), pai=FILE (the PAI machines as nodes),
// dlrm=FILE (DLRM instances as gangs), day=NODESxPODS (a generated day);
// nodes come from the first source that has them, pods from all. Each
// -policy (see kube/replay.Policies) is one replay; the report gives
// per policy the queueing delay by group size, utilisation per resource,
// stranded GPUs and preemptions, then their comparison; -o json writes the
// results whole (time series with their sample times); -report FILE
// also writes them as one self-contained HTML page (package kube/report).
// On a terminal a progress bar shows on standard error.
//
// -fgd-experiment runs the experiment of the FGD paper (Weng et al.,
// "Beware of Fragmentation", ATC'23, Fig. 9) on the trace instead: its
// pods inflated to 130% of the cluster's GPUs, each tried once, nothing
// ending, under the paper's policies (random, dotprod, gpupacking,
// bestfit, fgd); it prints the GPUs allocated at the end per seed, their
// mean and the GPUs left unallocated. kube/replay/FGD.md has the table on
// openb beside the paper's.
//
// Each -f names a multi-document YAML file, a JSON stream (objects one a
// line or back to back, or the List `kubectl get -o json` writes; read
// three to five times faster a document than YAML), a directory (its
// .yaml, .yml and .json files, not recursively, in name order) or - for
// standard input. Objects of kinds gangsim does not use (a Service, a
// ConfigMap) are listed as "not used" and otherwise ignored.
// Nodes, Pods, Jobs (stamped as the Job controller does, gate
// WorkloadWithJob), Workloads and PodGroups (scheduling.k8s.io v1alpha2 and
// v1beta1), PriorityClasses, PodDisruptionBudgets, LimitRanges,
// RuntimeClasses and the DRA objects (DeviceClass, ResourceSlice,
// DeviceTaintRule, ResourceClaimTemplate, ResourceClaim of
// resource.k8s.io/v1) take part, and so do Kueue's objects (Topology,
// ResourceFlavor, ClusterQueue, LocalQueue, Cohort, AdmissionCheck,
// WorkloadPriorityClass, Workload of kueue.x-k8s.io/v1beta2, and its
// Configuration; docs/kueue.md).
//
// What a cluster adds is filled in first, as the API server and the
// kubelet would for objects created with kubectl apply -f in input order
// (kube.FillIn); -fill-in=false turns it off. Where the input leaves them
// out: a Node gets the label kubernetes.io/hostname = its name; a Pod, Job
// or Kueue Workload gets metadata.creationTimestamp of 2026-01-01T00:00:00Z plus its
// index among the input's objects in seconds (a Job's pods take the Job's);
// a bound Pod gets status.startTime likewise, and a pod bound in the run
// the time of its cycle. -o yaml writes these values. Pods read pending,
// and those created for Jobs, pass the API server's LimitRanger and
// RuntimeClass admission whatever -fill-in (kube.Admission.AdmitPod: the
// namespace's LimitRange defaults, the RuntimeClass's overhead, node
// selector and tolerations), and -o yaml writes what they add; a Kueue
// Workload's templates are adjusted as Kueue does before charging them.
//
// Jobs are run as the Job controller of the -profile release runs them
// (kube.StampJobAs): a Job that never started gets its Workload, PodGroup
// and pods — under v1.37 and v1.38 (the default) every Job whose pod
// template names no schedulingGroup and that no other object controls,
// with spec.scheduling's policy or else a basic one, in
// scheduling.k8s.io/v1beta1, its pods naming the PodGroup as a second
// owner; under v1.36 only an Indexed Job whose completions equal its
// parallelism above 1, as a gang of minCount parallelism in v1alpha2 (a
// Job with spec.scheduling as v1.37). A Workload, PodGroup or pod that a
// Job controls (its controller ownerReference) is the Job's own and is
// not made again, so -o yaml output reads back; a Job's pod evicted by
// preemption is created again, pending, under the same name.
// Kueue's pod template annotations on a Job are read: the required and
// preferred topology, and the slice layers (podset-slice-required-topology
// with podset-slice-size, or podset-slice-required-topology-constraints),
// checked as Kueue checks them. A group with slice layers is planned by
// Kueue's algorithm (topology.Tree.PlanPodSets), each slice packed by
// best fit below its slice level (Kueue fills those domains least free
// first); -topology-profile kueue (Kueue's fill; or kueue-balanced, with
// Kueue v0.17's TASBalancedPlacement, its map-order ties taken by path)
// plans every topology-constrained group so, and such groups never
// preempt. Kueue Workloads are planned with -topology-profile kueue
// unless the flag is given (then with the profile it names: gangsched
// packs a slice by best fit and places a PodSetGroup with gangsched's
// group search).
//
// Kueue Workloads (kueue.x-k8s.io/v1beta2; v1beta1 is refused, naming
// v1beta2) are admitted before the first cycle, over the levels of the
// input's Kueue Topology (kubernetes.io/hostname appended below a lowest
// level that is not, the assignment then written at the Topology's own
// levels as Kueue writes it; else -topology-keys ending in the hostname;
// with ResourceFlavors, the Topology each topology flavor names), by
// kube.AdmitKueueWorkloads: queued by
// spec.priority, creationTimestamp, then name; the Workloads that hold
// quota first, their status.admission reserved as usage per node (no
// pods), resized in place when a pod set's count changed (elastic) —
// planned anew for its whole count instead, beside its old pods, when a
// pod of the set runs on a cordoned node or one not ready for less than
// 30s, as Kueue plans such a "stale" assignment (a set sharing a
// PodSetGroup, which Kueue does not resize, is still resized in place)
// — and
// repaired alike when a node of theirs is gone, tainted NoExecute, or not
// ready as Kueue's TAS counts it (Ready False or Unknown for at least 30s
// before now, or conditions listed without Ready; now is the latest
// creationTimestamp or Ready lastTransitionTime of the input; a node
// without status.conditions is ready, and one not ready for less keeps
// its pods but takes no new pod)
// (topology.Tree.ReplacePodSet: incomplete slices completed in their
// domains, slices lost whole anywhere in the required domain) — or evicted
// whole (Evicted True, NodeFailures; the reason says why each node
// failed) and queued again, as is one whose other pods of the set run on a
// node Kueue's topology snapshot leaves out (cordoned, or not ready for
// less than 30s), which Kueue does not repair. As Kueue, one failed node
// is replaced at a time: status.unhealthyNodes is read and written, and a
// Workload with two failed nodes (together, or one while another is
// recorded) is evicted whole. With -kueue-failed-node-replacement-fail-fast=false
// (Kueue's TASFailedNodeReplacementFailFast gate off; on by default in
// v0.17) a Workload whose failed node finds no replacement stays admitted
// as it is, the node in status.unhealthyNodes, and waits
// (ReplacementWaits); then the pending
// ones, each pod set planned with topology.Tree.PlanPodSets from its
// topologyRequest or its template's Kueue annotations (required,
// preferred or unconstrained level, slices, PodSetGroup; balanced under
// -topology-profile kueue-balanced) and the template's nodeSelector,
// tolerations and node affinity (a node with a NoSchedule or NoExecute
// taint the template does not tolerate holds nothing for the set, and a
// cordoned or not-ready node holds nothing for any, whatever the
// template tolerates, as Kueue's TAS leaves both out of its snapshot;
// a pod set of count 0 places nothing and
// is written with count 0 and no slices, as Kueue writes it); its
// preferred node affinity orders
// domains and nodes only under -kueue-node-affinity-preferred (Kueue's
// TASRespectNodeAffinityPreferred gate, off by default); slices in
// several layers (the podset-slice-required-topology-constraints
// annotation, or topologyRequest.podsetSliceRequiredTopologyConstraints)
// only under -kueue-multi-layer-topology (Kueue's TASMultiLayerTopology
// gate, alpha, off by default in v0.17): without it the annotation is
// ignored, unread, and only the field's first layer is read, as Kueue
// reads them; -topology-profile gangsched reads every layer either way.
// -o yaml writes each Workload's
// status.admission (clusterQueue named by spec.queueName without
// ClusterQueues in the input; per pod set its
// count and compact topologyAssignment at the hostname level, or the
// Topology's lowest when that is above the host, in rank
// order) and the QuotaReserved and Admitted conditions, or QuotaReserved
// False, reason Pending, with the plan's reason — under the kueue profiles
// in Kueue v0.17's own words ("couldn't assign flavors to pod set main:
// topology "t" allows to fit only 8 out of 12 pod(s). Total nodes: …"),
// gangsim's own explanation (the level, the best domain and what it
// holds) then given beside it as the Workload's detail, never written
// into it; -o text ("gangsim: …") and json ("detail") list each
// Workload's action, reason, detail and pods per node. A Workload naming a
// level the Topology lacks waits with Kueue's "no requested topology
// level" reason; two nodes sharing a kubernetes.io/hostname value are an
// input error (an assignment could not say which node it means). A
// Workload left pending, evicted, with a pod set unable to be resized,
// waiting for a replacement, or holding quota while the admission checks
// of its ClusterQueue are not all Ready (AwaitingChecks: Admitted False,
// so its pods do not start) makes the exit status 3. The usage of
// the admitted Workloads stays for the cycles that follow.
//
// With ResourceFlavors, ClusterQueues, LocalQueues or Cohorts in the
// input, a pending Workload is routed spec.queueName → LocalQueue (its
// namespace) → ClusterQueue and waits, with Kueue's reason, when either is
// missing or stopped (spec.stopPolicy Hold or HoldAndDrain), the
// ClusterQueue is inactive (a missing flavor, a flavor whose Topology is
// missing, or a cycle of Cohorts' spec.parentName above it) or its
// namespaceSelector (unset: none) leaves the namespace out. A Workload
// holding quota in a stopped queue is drained as Kueue's workload
// controller drains it: evicted when admitted and the queue's policy is
// HoldAndDrain (reason LocalQueueStopped, or ClusterQueueStopped while the
// LocalQueue is not stopped), its
// reservation cancelled when it still awaits admission checks (either
// policy), its quota and nodes released; it then waits. A growth of an
// admitted pod set must fit what its ClusterQueue may still take in its
// flavors (unused nominal quota, and what its cohort lends).
// Each pod set (a PodSetGroup's together) takes per resource group the
// first flavor it may use (a topology flavor for a set with a topology
// request, or in a ClusterQueue of topology flavors only; the flavor's
// nodeTaints tolerated by the template's and the flavor's tolerations; the
// template's nodeSelector and required node affinity on the flavors' label
// keys matching its nodeLabels) whose nominal quota, less what admitted
// Workloads hold there (their status.admission flavors), holds it — in a
// cohort (spec.cohortName; Cohort objects with a parentName and quota of
// their own form a tree, a cohort named but not given has neither), with
// what the cohort tree leaves unused, within borrowingLimit and the
// others' lendingLimit, as Kueue's available() computes it; a flavor that
// fits only by borrowing is taken at once, as Kueue's default
// whenCanBorrow (MayStopSearch); -o text says what a Workload borrows.
// Admission runs in Kueue's scheduling cycles: one head per ClusterQueue
// a cycle, heads within nominal quota before borrowing ones, a
// StrictFIFO head that does not fit keeping its queue waiting
// (docs/kueue.md, Cohorts). Sets in a topology flavor are planned over its
// Topology on its nodes (nodeLabels, tolerations added), the next flavor
// tried when that plan does not fit;
// others are admitted on quota alone (flavors and resourceUsage, no
// topologyAssignment). -o yaml writes the ClusterQueue, flavors and
// resourceUsage; -o text names each set's flavor. A Kueue Configuration
// (config.kueue.x-k8s.io) with fairSharing takes each scheduling cycle's
// heads in Kueue's fair-sharing order, by the cohort trees' dominant
// resource shares and spec.fairSharing.weight, and preempts by Kueue's
// fair-sharing rules and preemptionStrategies (docs/kueue.md, Fair
// sharing); its resources.excludeResourcePrefixes drops those resources
// from what Workloads are charged, and its resources.transformations turn
// requests into the resources charged (docs/kueue.md, Requests), the
// topology placement reading the template's own requests either way, and
// the hosts holding an admitted Workload's charge, which Kueue re-checks
// there before it admits; each other field it sets that could change a
// decision is a warning naming it.
// A Workload whose requests exceed its limits, or its namespace's
// LimitRanges' max or min, waits with Kueue's reason. A ClusterQueue's
// spec.flavorFungibility (whenCanBorrow, whenCanPreempt, preference)
// chooses among its flavors as Kueue's flavor assigner does
// (docs/kueue.md, Flavor fungibility). A head that does not fit preempts
// as the ClusterQueue's spec.preemption allows (within it, reclaiming
// from its cohort, while borrowing; docs/kueue.md, Preemption), and
// spec.admissionChecks keep an admitted Workload QuotaReserved until
// every check is Ready (docs/kueue.md, Admission checks). Not modelled
// (docs/kueue.md, Not modelled): among others, admission fair sharing,
// the checks' controllers, and an eviction taking time (gangsim releases
// a victim's quota at once).
//
// Partial admission (spec.podSets[].minCount; Kueue's PartialAdmission
// gate, on by default): a pending Workload that does not fit whole is
// tried at the smaller counts of Kueue's binary search (quota and
// topology, or topology alone, decide each try; with queues, in the same
// flavors before the next) and admitted at the last that fit, its
// status.admission counts, topologyAssignment and resourceUsage for them
// and its reason naming the sets reduced ("partially admitted: pod set
// "main" with 4 of 8 pods (minCount 2)"); spec.podSets keep their counts,
// and the admitted count stays: it is not grown back. A sliced set is
// tried at whole slices of each count (Kueue writes the count itself over
// fewer pods placed), and its minCount must be a multiple of the slice
// size. A minCount below 1, above the count or on two pod sets is an input
// error, as Kueue's API says.
//
// Scheduler configuration: a KubeSchedulerConfiguration document
// (kubescheduler.config.k8s.io/v1, at most one) among the manifests is
// read profile by profile, and each group (tree) is decided with the
// profile its pods' spec.schedulerName names, as kube-scheduler decides
// each pod with its profile's framework: NodeResourcesFit's scoring strategy (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio with its shape, resources and weights) and
// weight, NodeResourcesBalancedAllocation's resources and weight, and
// the score weights of PodTopologySpread, TaintToleration and
// NodeAffinity, which then choose each member's node
// inside a placement as kube-scheduler scores nodes; and
// DefaultPreemption (disabled there, nothing is preempted for the groups
// of that profile, as with -preemption=false, while the groups of a
// profile that keeps it preempt, as kube-scheduler runs the PostFilter
// plugins of the pod's own profile). Everything else a profile asks
// that gangsched does not do — other plugins enabled or re-weighted,
// filters disabled, other plugins' args, extenders,
// percentageOfNodesToScore — is a warning on standard error naming the
// field; leaderElection, clientConnection and the like take no part. A
// configuration kube-scheduler would refuse is bad input.
//
// Scheduler names: the run serves the schedulerNames of the
// configuration's profiles, or without one the name the pending pods and
// Job templates use (default-scheduler when they name none or several). A
// pending pod that names another is left pending, with a warning naming
// the pod and spec.schedulerName, as kube-scheduler never queues it: it
// counts neither toward its group's minCount nor in the group's one-name
// rule, and the summary lists it as not served (exit status 3: not every
// pod is bound). Under -profile v1.37 and v1.38 the pods of a group or tree,
// pending or bound, must name one scheduler (a bound member another
// scheduler placed fails the cycle: SchedulerError, v1.38 PodGroupError).
//
// -node-scoring chooses a member's node inside a placement: packing
// (gangsched's default without a configuration: the most allocated node,
// which keeps room together), or upstream (kube-scheduler's default
// profile, LeastAllocated plus BalancedAllocation, which spreads). Either
// overrides the configuration's scoring. The placement score — which rack
// or block a group takes — is MostAllocated in both, as upstream. See
// placement.NodeScoring for what still differs from kube-scheduler.
//
// CompositePodGroups (scheduling.k8s.io/v1alpha3, or v1.38's v1beta1;
// KEP-6012) and the
// PodGroups naming them as parent form hierarchies: a cycle decides a tree
// whole and prints it level by level (each object, its domain, status and
// reason) with the conditions it wrote. -profile v1.36, v1.37 or v1.38
// decides as that release where they differ (gang.Profile; v1.38 when
// unset) and, given explicitly, refuses Workloads, PodGroups and
// CompositePodGroups of API versions that release does not serve.
// -feature-gates PodGroupPreemptionPolicy=true (v1.37 only, off by
// default as in v1.37.2; refused under v1.36 and v1.38, which have no
// such gate) holds every pod of a group or tree to the group's (root's)
// spec.preemptionPolicy, PreemptLowerPriority when unset, instead of to
// the first pod's (gang.Options.PodGroupPreemptionPolicy); no other gate
// is modelled. v1.38 holds them to the group's (root's) when set, else
// to the first pod's. With the gate on (v1.37) and always under v1.38, a
// PodGroup the Job controller creates gets its class's preemptionPolicy,
// as the Priority admission plugin sets it on create; PodGroups and
// CompositePodGroups of the input are read as written.
//
// Pod topology spread: a pending pod's DoNotSchedule
// topologySpreadConstraints (maxSkew, topologyKey, labelSelector,
// matchLabelKeys, minDomains, nodeAffinityPolicy, nodeTaintsPolicy, with
// upstream's defaults) are enforced as kube-scheduler's PodTopologySpread
// filter does, over the bound pods and the group's members placed so far;
// preemption counts its candidate victims as removed; before a group
// binds, its whole placement is checked against them again. ScheduleAnyway
// constraints are scored as kube-scheduler's PodTopologySpread score does
// (kube.SpreadScorer), with the profile's weight (2 in the default
// profile; 0 when the configuration disables the plugin's score), wherever
// nodes are scored as upstream: -node-scoring upstream, or a
// KubeSchedulerConfiguration without -node-scoring. With packing they are
// validated but change no choice, since packing's score is not on
// upstream's scale. Upstream-compatible scoring also reads each pod's
// non-zero requests (a container without a cpu or memory request counts
// as 100m / 200 MiB in NodeResourcesFit's score, never in fit).
//
// Where nodes are scored as upstream, a node's PreferNoSchedule taints
// the pod does not tolerate and the pod's preferred node affinity are
// scored too, as kube-scheduler's TaintToleration score (kube.TaintScorer:
// fewer intolerable taints score higher, weight 3) and NodeAffinity score
// (kube.NodeAffinityScorer: the sum of the weights of the matching
// preferred terms, weight 2) do, each normalised over the candidate
// nodes and added to the others (kube.SumScores), with the profile's
// weights (0 when the configuration disables the score). Of the default
// profile's scores, InterPodAffinity between groups (a member's
// preferred pod affinity ranks nodes before the other scores instead of
// being added with weight 2) and ImageLocality are not scored.
//
// Cycles take the groups in kube-scheduler's queue order: by the first
// member in member order — priority, then metadata.creationTimestamp,
// then namespace/name — so pods go in file order (with -fill-in=false,
// pods without timestamps go by name, as strings: "w-10" before "w-2").
// The run ends at a fixed point: when no further cycle of any waiting
// group could bind or evict anything (a group that bound some members is
// tried again, and may preempt for the rest).
//
// Preemption nominates: a group that evicts victims gets each member's
// node as its nominated node (status.nominatedNodeName in -o yaml, a
// "nominated" line in the text), and the room freed there is held for it
// as kube-scheduler's nominator holds it — a later cycle of a group of
// equal or lower priority decides as if the nominees were bound there; a
// group of higher priority may take the room. A nomination is cleared
// when the pod binds, is deleted, or has a cycle that does not preempt
// again. An input pod's status.nominatedNodeName is read, so a run
// stopped by -max-cycles continues where it stopped.
//
// Output: -o text (the default) prints one block per cycle and a summary;
// -o yaml writes the resulting objects — the input's in input order (pods
// with spec.nodeName, PodGroups with their condition, claims with their
// allocation; pods evicted by preemption left out), then those created
// (the Job controller's Workloads, PodGroups and pods, generated claims) —
// with a one-line summary on standard error; -o json writes the report.
// The input's order is the order objects arrive in, as with kubectl apply
// -f: pods without creationTimestamp queue in it. With -fill-in=false, or
// when every pod carries a timestamp, decisions do not depend on the order
// of the files or of the documents in them, so the text and json outputs
// do not either; -o yaml follows the input's order.
//
// What would make it fit: with -suggest-nodes, each group left waiting
// gets, after the summary (and under "suggestions" in -o json), the fewest
// nodes of one shape the cluster already has — nodes alike in labels other
// than the topology levels, allocatable and taints, named after the first
// of them — to add, and the domain of its required topology key to add
// them to, so that it fits (scaleup.Suggest), or why none would. The
// running pods stay where the run left them. -suggest-domain-nodes caps a
// domain's nodes (a rack's slots); -suggest-new-domain lets the nodes form
// a new domain of that value; both, like -policy, -speed-up, -sample-every
// and -openb-pods without -trace, are refused without the flag they
// qualify. Groups that use ResourceClaims or DoNotSchedule
// topology spread are not searched (added nodes carry no devices; spread is
// not checked there). Suggestions are gangsched's solver's answer, whatever
// -topology-profile chose for the run. Kueue Workloads get none yet: a
// warning on stderr says so when the input has any.
//
// Memory: every pod, given or created for a Job, is an object in memory
// (about 6 KB through a run), so an input whose pods exceed -max-pods
// (default 500,000) is refused as bad input before any Job's pods are
// created: 50 Jobs of parallelism 100,000 are 16 KB of YAML.
//
// Exit status:
//
//	0  every pod and PodGroup was placed
//	1  bad input or usage: the message on standard error names the file,
//	   the document (and its line), the object and the field, and nothing
//	   is written on standard output
//	3  some pods or PodGroups still wait
//	4  internal error: gangsim panicked (a bug); the panic's value and
//	   stack are on standard error
//
// gangsim itself never exits 2: that is the Go runtime's code for a crash
// it cannot report otherwise (a fatal error such as running out of
// memory), so a script can tell a crash from a run that left pods waiting.
package main
