// Package dra accounts for devices under Kubernetes Dynamic Resource
// Allocation with structured parameters (resource.k8s.io/v1, KEP-4381)
// and shares ResourceClaims across the members of a PodGroup (KEP-5729),
// without Kubernetes.
//
// # Model
//
// An [Inventory] holds the [DeviceClass]es and the devices of every
// [ResourceSlice]: attributes, capacities in canonical units, where the
// device is reachable from (one node, the nodes a label selector matches,
// or every node), the counters partitionable devices share (KEP-4815), and
// whether a device allows multiple allocations, shared by several claims
// each consuming part of its capacities under the device's request
// policies (KEP-5075 consumable capacity: fractional GPUs).
// Selectors are Go predicates ([Selector]); the kube adapter compiles CEL
// into them, so this package never depends on CEL.
//
// Attributes are scalars or lists ([ListAttribute], e.g. the standard
// resource.kubernetes.io/numaNode of a device close to two NUMA nodes);
// constraints read a list as a set, a scalar as a set of one.
//
// A [ResourceClaim] asks for devices with requests — an exact count or all
// matching devices of a class, or a prioritized list of subrequests
// (KEP-4816), each perhaps naming the capacity it needs — and
// matchAttribute constraints, and tolerates device taints (KEP-5055: a
// taint of effect NoSchedule or NoExecute, published in a slice or added
// by a [DeviceTaintRule], keeps requests that do not tolerate it off the
// device; allocations made before stay). A request with admin access
// (KEP-5018) may be allocated devices other claims hold and holds none
// itself. Its status holds the
// [AllocationResult] (the devices, and the node or node selectors that
// follow from them) and reservedFor: pods, at most [MaxReservedFor], or
// one PodGroup entry standing for all its members.
//
// # Ledger
//
// A [Ledger] is the immutable record of claims and of which device each
// holds. Its operations (AddClaim, Allocate, Reserve, Unreserve, Release,
// DeleteClaim, DeletePod, DeletePodGroup) return a new ledger or an error
// naming the object and field, never panic, never half-apply, never give
// an exclusive device to two claims (a claim with admin access holds
// none), and never let the claims sharing a
// device consume more than its capacities. A claim is released when its reservedFor
// empties; a PodGroup's claim therefore stays allocated while the
// PodGroup exists, and goes with [Ledger.DeletePodGroup].
//
// # Placing a group
//
// For a gang cycle, the host passes [Ledger.Reserver] to placement.Solve
// and, when the decision is Scheduled, applies it with [Ledger.Commit],
// which returns the new ledger and the claims to write back (generated
// claims to create, allocations, reservedFor). The hook resolves each
// member's spec.resourceClaims entries: an entry equal to one of the
// PodGroup's uses the group's claim (generated once per PodGroup from a
// template), anything else is the pod's own. A shared claim is allocated
// once, with the first member that uses it, and pins later members to
// nodes that reach its devices. When a member does not fit only because
// of device choices made for earlier members, the hook searches again
// every claim that competes with its claims, directly or through a chain
// of claims: with the solver's backtracking over nodes the group is
// placed whenever its nodes and devices can be chosen together, and a
// device search cut short by the budget leaves the decision not Proven
// (placement.Rejection.Cut). Its rejections name the claim ([WaitsOnDevices] tells the host the group
// waits on devices). Before a topology domain's member search, the hook's
// CheckPlacement (placement.PlacementChecker) excludes a domain whose nodes
// reach fewer matching devices than the group's claims need, naming the
// claims and the counts: a 16 × 8-GPU gang that no rack can serve is then
// proven Unresolvable without searching any rack. [Ledger.Plan] allocates the claims of a single pod on
// one node.
//
// # Guarantees and cost
//
// Everything is deterministic: devices are numbered in driver, pool,
// device-name order, claims in namespace/name order, members in
// placement.MemberOrder, and searches try alternatives and devices in a
// fixed order, so the same input gives the same answer whatever the order
// of the caller's lists. Searches are bounded by [Options].SearchBudget,
// counted in device choices.
//
// A ledger operation costs O(log claims + devices of the claim), plus one
// page copy per 1,024 devices touched; DeletePod and DeletePodGroup cost
// O(claims in the namespace). The hook's Filter costs O(devices reachable
// from the node) for a member with unallocated claims and O(its claims)
// otherwise; a re-search is bounded by the budget. Each selector list (a
// class's, a request's) is evaluated at most once per device for as long
// as the inventory and the claim or template live, across every ledger
// derived from one another and every solve on them: a CEL selector may
// cost up to 0.1 s an evaluation, which the kube adapter bounds as the API
// server does. The hook's per-solve state (the claims it would generate,
// the assignment, its per-device arrays and maps) goes back to a
// sync.Pool on the inventory when the solve releases the hook
// ([placement.ReserverReleaser]), emptied, for the next solve on any
// goroutine; no answer depends on it, and no decision holds it.
//
// # Fields of resource.k8s.io/v1 (Kubernetes v1.37)
//
// What the model and the kube adapter take, and what they refuse. A
// refused field is an input error that names the object and the field
// (the kube adapter's ErrUnsupported), never silently dropped.
//
//	field                                               supported
//	DeviceClass spec.selectors (CEL, API-server cost)   yes (kube compiles CEL; over 1,000,000 estimated cost is refused)
//	DeviceClass spec.config                             ignored: driver configuration, no effect on allocation
//	DeviceClass spec.extendedResourceName (KEP-5004)    yes (kube): one device of the class per unit asked, in an implicit claim per pod
//	  device plugins and DRA for one resource           yes (kube, gangsched-scheduler): per node, as kube-scheduler; preemption frees a victim's plugin units
//	ResourceSlice driver, pool, nodeName, allNodes      yes (the adapter passes each pool's newest generation)
//	ResourceSlice nodeSelector, perDeviceNodeSelection  yes: one term of In, NotIn, Exists, DoesNotExist; other shapes refused
//	ResourceSlice sharedCounters, consumesCounters      yes (KEP-4815); not with allowMultipleAllocations
//	Device attributes                                   yes, scalar and list (ints, bools, strings, versions)
//	  list-valued, in constraints                       as sets (DRAListTypeAttributes): match shares an element, distinct none
//	  list-valued, in CEL selectors                     not seen: v1.37's environment without DRAListTypeAttributes
//	Device capacity value and requestPolicy             yes (KEP-5075: default, validValues, validRange)
//	Device allowMultipleAllocations                     yes (KEP-5075: shared within its capacities)
//	Device taints (KEP-5055)                            yes: NoSchedule, NoExecute keep new allocations off; None, unknown ignored
//	Device bindingConditions, bindsToNode               bindingConditions refused; bindsToNode ignored
//	DeviceTaintRule driver, pool, device, taint         yes (Inventory.WithTaintRules); status not read
//	request exactly: deviceClassName, selectors         yes
//	request allocationMode ExactCount / All, count      yes
//	request capacity.requests                           yes (KEP-5075)
//	request firstAvailable (KEP-4816)                   yes
//	request adminAccess (KEP-5018)                      yes: shares held devices, takes nothing; kube checks the namespace label
//	request tolerations (KEP-5055)                      yes; tolerationSeconds ignored (eviction is the host's)
//	constraints matchAttribute, distinctAttribute       yes, several per claim
//	claim spec.devices.config                           ignored, as for classes
//	status.allocation results, consumedCapacity         yes (shareID is written, derived from claim, request, device)
//	status.allocation results adminAccess               yes, derived from the request
//	status.allocation.nodeSelector                      derived from the devices
//	status.reservedFor (pods, one PodGroup, KEP-5729)   yes, at most 256 entries
//	PodGroup device constraints (no Kubernetes API)     yes: PodGroup.DeviceConstraints; kube reads annotation gangsched.io/device-constraints
//
// Beyond upstream, the hook re-searches the devices of every claim that
// competes with a member's, so a group is placed whenever its nodes and
// devices can be chosen together (within Options.SearchBudget), and
// [PodGroup].DeviceConstraints bind the devices of all the members' claims
// together: one attribute value for all (every NIC on one fabric), or a
// value each. A match constraint is searched value by value, so a member
// that reaches only one fabric moves every other member's claim there in
// one step.
package dra
