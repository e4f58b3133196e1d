package kube

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	kubev1beta1 "github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// Cluster is a set of Kubernetes objects converted for gangsched, with the
// API objects kept so that decisions can be written back. Build one with
// [Load].
type Cluster struct {
	// Nodes are the converted Nodes, in input order; a node without a
	// device plugin for a resource served per node has no limit on it
	// (math.MaxInt64, [PerNode.Nodes]).
	Nodes []placement.Node
	// NotReady are the Nodes whose Ready condition is not True
	// ([NodeNotReady]), by name; nil when none. kube-scheduler does not
	// read it; Kueue's topology-aware scheduling does
	// ([KueueOptions].NotReady).
	NotReady map[string]NotReadyNode
	// Snapshot holds Nodes and the pods bound to them.
	Snapshot *placement.Snapshot
	// Pending are the pods waiting to be scheduled, in input order (pods
	// the Job controller creates come after the input's): pods with no
	// spec.nodeName, no scheduling gates and not finished.
	Pending []placement.Pod
	// Gated are pending pods held back by spec.schedulingGates; the
	// scheduler does not see them until the gates are removed.
	Gated []placement.Key
	// PodGroups are the PodGroups of the input and those stamped for Jobs,
	// sorted by key.
	PodGroups []*gang.PodGroup
	// Workloads likewise.
	Workloads []*gang.Workload
	// CompositePodGroups are the inner nodes of KEP-6012 hierarchies
	// (scheduling.k8s.io/v1alpha3), sorted by key.
	CompositePodGroups []*gang.CompositePodGroup
	// NodeAffinity enforces the required node affinity of the pods that
	// have one; nil when none does. Pass it among the solver's filters.
	NodeAffinity AffinityFilter
	// Jobs are the Jobs of the input with what the Job controller made for
	// each, in input order.
	Jobs []JobInfo
	// Ledger holds the DRA inventory (DeviceClasses, the newest
	// ResourceSlices of each pool), ResourceClaimTemplates and
	// ResourceClaims; nil when the input has none of them and no pod or
	// PodGroup names a claim.
	Ledger *dra.Ledger
	// Budgets are the PodDisruptionBudgets, for workload-aware preemption
	// (see [ConvertPodDisruptionBudget]).
	Budgets []preemption.DisruptionBudget
	// KueueWorkloads are the Kueue Workloads (kueue.x-k8s.io/v1beta2), in
	// input order, for [AdmitKueueWorkloads].
	KueueWorkloads []*KueueWorkload
	// KueueTASPods are the bound pods, in input order, that carry one of
	// Kueue's topology annotations (required, preferred, unconstrained)
	// and so are not charged by Kueue's TAS cache ([KueueOptions].TASPods);
	// nil without Kueue Workloads.
	KueueTASPods []placement.Key
	// KueueLevels are the levels of the input's Kueue Topology, widest
	// first ([KueueTopologyLevels]); nil without one, or with several.
	KueueLevels []string
	// KueueTopology is the name of the input's Kueue Topology, "" without
	// one or with several ([KueueOptions].Topology).
	KueueTopology string
	// KueueQueues are the input's Kueue ResourceFlavors, ClusterQueues
	// and LocalQueues with its Topologies and Namespaces' labels; nil
	// when the input has no ResourceFlavor, ClusterQueue or LocalQueue
	// (Workloads are then admitted over KueueLevels without quota).
	KueueQueues *KueueQueues
	// DeletedClaims are the implicit claims of pending pods that Load
	// deleted as stale, by claim name ([Cluster.deleteStaleExtendedClaims]).
	DeletedClaims []DeletedClaim
	// Unused are input objects that take no part in scheduling here: kinds
	// the manifest reader does not decode (a Service, a Kueue Cohort)
	// and decoded kinds this adapter does not use yet.
	Unused []*manifest.Object

	objs    []manifest.Object
	where   map[string]*manifest.Object // manifest.ObjectName → input object
	pods    map[placement.Key]*corev1.Pod
	groups  map[placement.Key]apiGroup
	cpgs    map[placement.Key]apiComposite
	created []any // API objects made by the Job controller, in order
	// kueueJobs are the Jobs Kueue's Job integration manages, with their
	// Workloads, for writing them as Kueue leaves them ([Cluster.Objects]).
	kueueJobs kueueJobs

	admission     *Admission // what pods created or read pending, and Kueue's pod sets, are admitted with
	kueueExcluded []string   // Kueue Configuration resources.excludeResourcePrefixes
	// kueueTransforms are Kueue Configuration resources.transformations.
	kueueTransforms map[placement.ResourceName]*KueueTransformation

	claims    map[placement.Key]*resourcev1.ResourceClaim
	templates map[placement.Key]*resourcev1.ResourceClaimTemplate
	uids      map[placement.Key]string        // PodGroup UIDs, for reservedFor
	extended  map[placement.Key]extendedClaim // per pending pod, its implicit claim for extended resources
	evicted   map[placement.Key]bool
	deleted   map[*resourcev1.ResourceClaim]bool // claims Load deleted, left out of Objects
}

// JobInfo is one Job and what the Job controller made for it.
type JobInfo struct {
	Key placement.Key
	JobObjects
}

// apiGroup is a PodGroup as the API has it, one version or the other.
type apiGroup struct {
	v1alpha2 *v1alpha2.PodGroup
	v1beta1  *schedulingv1beta1.PodGroup
}

// apiComposite is a CompositePodGroup's API object, in the one version the
// input had it in: scheduling.k8s.io/v1alpha3 (Kubernetes v1.37 and v1.38)
// or v1beta1 (v1.38).
type apiComposite struct {
	v1alpha3 *schedulingv1alpha3.CompositePodGroup
	v1beta1  *kubev1beta1.CompositePodGroup
}

// addComposite records cg, converted (with err) from the API object o;
// errors: err, or a second CompositePodGroup of cg's name.
func (c *Cluster) addComposite(cg *gang.CompositePodGroup, err error, o apiComposite) error {
	if err != nil {
		return err
	}
	if _, dup := c.cpgs[cg.Key()]; dup {
		return placement.Errorf(placement.ErrDuplicate, compositeObj(cg.Namespace, cg.Name), "metadata.name", "appears twice")
	}
	c.CompositePodGroups = append(c.CompositePodGroups, cg)
	c.cpgs[cg.Key()] = o
	return nil
}

// Locate wraps err, when it is a [*placement.FieldError], with the input
// location of the object it names (see [manifest.Object.Wrap]); objects
// the Job controller created are located at their Job. Other errors are
// returned as they are.
func (c *Cluster) Locate(err error) error { return c.locate(err) }

func (c *Cluster) locate(err error) error {
	var fe *placement.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	if o, ok := c.where[fe.Object]; ok {
		return o.Wrap(err)
	}
	for _, j := range c.Jobs {
		made := false
		if pg := j.PodGroup; pg != nil {
			made = podGroupObj(pg.Namespace, pg.Name) == fe.Object
		}
		for _, p := range j.Pods {
			made = made || podObj(p.Namespace, p.Name) == fe.Object
		}
		if o, ok := c.where[manifest.ObjectName("Job", j.Key.Namespace, j.Key.Name)]; made && ok {
			return o.Wrap(err)
		}
	}
	return err
}

// locateKueue wraps err, a [*placement.FieldError] about a Kueue Workload
// of c, with the Workload's place in the input.
func (c *Cluster) locateKueue(err error) error {
	var fe *placement.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	for i := range c.objs {
		if w, ok := c.objs[i].Obj.(*kueue.Workload); ok && kueueWorkloadObj(w.Namespace, w.Name) == fe.Object {
			return c.objs[i].Wrap(err)
		}
	}
	return err
}

// Pod returns the API object of a pod (given or created for a Job).
func (c *Cluster) Pod(k placement.Key) (*corev1.Pod, bool) {
	p, ok := c.pods[k]
	return p, ok
}

// Bind records that pod k was bound to node: its API object gets
// spec.nodeName (see [Bind]). It reports whether the pod is known.
func (c *Cluster) Bind(k placement.Key, node string) bool {
	p, ok := c.pods[k]
	if !ok {
		return false
	}
	p.Spec.NodeName = node
	return true
}

// Nominate writes a nominated node from a cycle ([gang.Result].Nominations)
// into pod k's status.nominatedNodeName; node "" clears it (a preemptor
// that bound, or no longer preempts). It reports whether the pod is known.
func (c *Cluster) Nominate(k placement.Key, node string) bool {
	p, ok := c.pods[k]
	if ok {
		p.Status.NominatedNodeName = node
	}
	return ok
}

// SetCondition writes a PodGroupScheduled condition from a cycle into the
// PodGroup's API object, under the name of its version (see
// [SetConditionV1alpha2], [SetConditionV1beta1]). It reports whether the
// PodGroup is known.
func (c *Cluster) SetCondition(k placement.Key, cond gang.Condition) bool {
	g, ok := c.groups[k]
	switch {
	case !ok:
		return false
	case g.v1alpha2 != nil:
		SetConditionV1alpha2(g.v1alpha2, cond)
	default:
		SetConditionV1beta1(g.v1beta1, cond)
	}
	return true
}

// SetCompositeCondition writes a condition from a cycle
// ([gang.CompositePodGroupScheduled]) into CompositePodGroup k's API
// object; it reports whether the CompositePodGroup is known.
func (c *Cluster) SetCompositeCondition(k placement.Key, cond gang.Condition) bool {
	o, ok := c.cpgs[k]
	switch {
	case o.v1alpha3 != nil:
		SetConditionCompositePodGroupV1alpha3(o.v1alpha3, cond)
	case o.v1beta1 != nil:
		SetConditionCompositePodGroupV1beta1(o.v1beta1, cond)
	}
	return ok
}

// ConditionType returns the type under which PodGroup k's API object
// carries a condition of type t: a v1beta1 PodGroup names
// PodGroupScheduled PodGroupInitiallyScheduled (see
// [SetConditionV1beta1]); anything else keeps t.
func (c *Cluster) ConditionType(k placement.Key, t string) string {
	if g, ok := c.groups[k]; ok && g.v1beta1 != nil && t == gang.PodGroupScheduled {
		return PodGroupInitiallyScheduled
	}
	return t
}

// Evict records that pod k was evicted by preemption: its API object
// leaves [Cluster.Objects]. It reports whether the pod is known.
func (c *Cluster) Evict(k placement.Key) bool {
	if _, ok := c.pods[k]; !ok {
		return false
	}
	if c.evicted == nil {
		c.evicted = map[placement.Key]bool{}
	}
	c.evicted[k] = true
	return true
}

// Objects returns the API objects after write-back: the input's typed
// objects in input order (pods with the nodes they were bound to, PodGroups
// with their conditions, the Jobs Kueue manages as its Job reconciler
// leaves them: [KueueJobStarted], [KueueJobStopped]), then the objects the
// Job controller created;
// pods evicted by preemption and claims Load deleted are left out. The objects are the Cluster's
// own; callers must not modify them.
func (c *Cluster) Objects() []any {
	var out []any
	keep := func(o any) bool {
		if cl, ok := o.(*resourcev1.ResourceClaim); ok && c.deleted[cl] {
			return false
		}
		p, ok := o.(*corev1.Pod)
		return !ok || !c.evicted[placement.Key{Namespace: p.Namespace, Name: p.Name}]
	}
	for _, o := range c.objs {
		if o.Obj != nil && keep(o.Obj) {
			out = append(out, c.kueueJobAfter(o.Obj))
		}
	}
	for _, o := range c.created {
		if keep(o) {
			out = append(out, o)
		}
	}
	return out
}

// checkClaimRefs reports, at the object, a pending pod or a PodGroup whose
// spec.resourceClaims names a ResourceClaim or ResourceClaimTemplate the
// input lacks: such a pod could never be scheduled.
func (c *Cluster) checkClaimRefs() error {
	check := func(obj, field, ns, claim, tmpl string) error {
		switch {
		case claim != "":
			if _, ok := c.Ledger.Claim(placement.Key{Namespace: ns, Name: claim}); !ok {
				return c.locate(placement.Errorf(placement.ErrNotFound, obj, field+".resourceClaimName", "no ResourceClaim %q in namespace %q", claim, ns))
			}
		case tmpl != "":
			if _, ok := c.Ledger.Template(placement.Key{Namespace: ns, Name: tmpl}); !ok {
				return c.locate(placement.Errorf(placement.ErrNotFound, obj, field+".resourceClaimTemplateName", "no ResourceClaimTemplate %q in namespace %q", tmpl, ns))
			}
		}
		return nil
	}
	for _, p := range c.Pending {
		for i, rc := range p.ResourceClaims {
			if err := check(podObj(p.Namespace, p.Name), fmt.Sprintf("spec.resourceClaims[%d]", i), p.Namespace, rc.ResourceClaimName, rc.ResourceClaimTemplateName); err != nil {
				return err
			}
		}
	}
	for _, pg := range c.PodGroups {
		for i, rc := range pg.Spec.ResourceClaims {
			if err := check(podGroupObj(pg.Namespace, pg.Name), fmt.Sprintf("spec.resourceClaims[%d]", i), pg.Namespace, rc.ResourceClaimName, rc.ResourceClaimTemplateName); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDeviceClasses reports, at the object, a ResourceClaimTemplate or an
// unallocated ResourceClaim whose request names a DeviceClass the input
// lacks. The API server accepts one (the class may come later), but in a
// fixed set of manifests it never will: every cycle would fail on it.
func (c *Cluster) checkDeviceClasses() error {
	inv := c.Ledger.Inventory()
	check := func(obj, field string, spec *resourcev1.ResourceClaimSpec) error {
		for i, r := range spec.Devices.Requests {
			f := fmt.Sprintf("%s.devices.requests[%d]", field, i)
			var names, fields []string
			if r.Exactly != nil {
				names, fields = append(names, r.Exactly.DeviceClassName), append(fields, f+".exactly.deviceClassName")
			}
			for j, sr := range r.FirstAvailable {
				names, fields = append(names, sr.DeviceClassName), append(fields, fmt.Sprintf("%s.firstAvailable[%d].deviceClassName", f, j))
			}
			for k, name := range names {
				if _, ok := inv.Class(name); !ok {
					return c.locate(placement.Errorf(placement.ErrNotFound, obj, fields[k], "no DeviceClass %q", name))
				}
			}
		}
		return nil
	}
	// Maps are walked in key order, so that the error reported does not
	// depend on map order.
	for _, k := range slices.SortedFunc(maps.Keys(c.templates), placement.Key.Compare) {
		if err := check(objName("ResourceClaimTemplate", k.Namespace, k.Name), "spec.spec", &c.templates[k].Spec.Spec); err != nil {
			return err
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(c.claims), placement.Key.Compare) {
		if cl := c.claims[k]; cl.Status.Allocation == nil {
			if err := check(objName("ResourceClaim", k.Namespace, k.Name), "spec", &cl.Spec); err != nil {
				return err
			}
		}
	}
	return nil
}

// DRAPodGroup returns what package dra reads of a PodGroup: its identity,
// UID (for reservedFor), spec.resourceClaims and the device constraints
// of its annotation.
func (c *Cluster) DRAPodGroup(pg *gang.PodGroup) dra.PodGroup {
	out := dra.PodGroup{Namespace: pg.Namespace, Name: pg.Name, UID: c.uids[pg.Key()], DeviceConstraints: pg.Spec.DeviceConstraints}
	for _, rc := range pg.Spec.ResourceClaims {
		out.ResourceClaims = append(out.ResourceClaims, dra.PodGroupResourceClaim{Name: rc.Name, ResourceClaimName: rc.ResourceClaimName, ResourceClaimTemplateName: rc.ResourceClaimTemplateName})
	}
	return out
}

// SetLedger records the ledger after a [dra.Ledger.Commit] and writes its
// claim updates back, as [VisibleUpdate] shows them: an input claim gets
// the new status.allocation and status.reservedFor; a generated claim
// becomes a new ResourceClaim with the spec of the template its owner's
// entry names (see [NewClaim]).
func (c *Cluster) SetLedger(l *dra.Ledger, updates []dra.ClaimUpdate) {
	c.Ledger = l
	for i := range updates {
		vis, ok := VisibleUpdate(updates[i])
		if !ok {
			continue
		}
		u := &vis.Claim
		k := u.Key()
		// gang's PodGroup model has no UID; the API objects do. The owner
		// and reservedFor are the ledger's: copy before filling in.
		if o := u.Owner; o != nil && o.Kind == dra.OwnerPodGroup && o.UID == "" {
			ow := *o
			ow.UID = c.uids[placement.Key{Namespace: u.Namespace, Name: o.Name}]
			u.Owner = &ow
		}
		u.Status.ReservedFor = slices.Clone(u.Status.ReservedFor)
		for j, r := range u.Status.ReservedFor {
			if !r.IsPod() && r.UID == "" {
				u.Status.ReservedFor[j].UID = c.uids[placement.Key{Namespace: u.Namespace, Name: r.Name}]
			}
		}
		if api, ok := c.claims[k]; ok {
			api.Status = ClaimStatus(u)
			continue
		}
		api := NewClaim(u, c.templateOf(u))
		if o := u.Owner; o != nil && o.Kind == dra.OwnerPod && o.ClaimName == ExtendedResourceClaimName {
			c.writeExtendedClaim(api, placement.Key{Namespace: u.Namespace, Name: o.Name}, servedRequests(u.Status.Allocation))
		}
		if o := u.Owner; o != nil && o.Kind == dra.OwnerPodGroup {
			if g, ok := c.groups[placement.Key{Namespace: u.Namespace, Name: o.Name}]; ok && g.v1alpha2 != nil {
				api.OwnerReferences[0].APIVersion = v1alpha2.GroupVersion
			}
		}
		c.claims[k] = api
		c.created = append(c.created, api)
	}
}

// templateOf finds the template a generated claim was made from, through
// its owner's spec.resourceClaims entry.
func (c *Cluster) templateOf(cl *dra.ResourceClaim) *resourcev1.ResourceClaimTemplate {
	o := cl.Owner
	if o == nil {
		return nil
	}
	ok := placement.Key{Namespace: cl.Namespace, Name: o.Name}
	var tmpl string
	switch o.Kind {
	case dra.OwnerPod:
		if x, found := c.extended[ok]; found && o.ClaimName == ExtendedResourceClaimName {
			return &resourcev1.ResourceClaimTemplate{Spec: resourcev1.ResourceClaimTemplateSpec{Spec: x.spec}}
		}
		if p, found := c.pods[ok]; found {
			for _, rc := range p.Spec.ResourceClaims {
				if rc.Name == o.ClaimName && rc.ResourceClaimTemplateName != nil {
					tmpl = *rc.ResourceClaimTemplateName
				}
			}
		}
	case dra.OwnerPodGroup:
		for _, pg := range c.PodGroups {
			if pg.Key() == ok {
				for _, rc := range pg.Spec.ResourceClaims {
					if rc.Name == o.ClaimName {
						tmpl = rc.ResourceClaimTemplateName
					}
				}
			}
		}
	}
	return c.templates[placement.Key{Namespace: cl.Namespace, Name: tmpl}]
}
