package kube

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// Cluster is a set of Kubernetes objects converted for gangsched, with the
// API objects kept so that decisions can be written back. Build one with
// [Load].
type Cluster struct {
	// Nodes are the converted Nodes, in input order.
	Nodes []placement.Node
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
	// Unused are input objects that take no part in scheduling here: kinds
	// the manifest reader does not decode (a Service, a Kueue ClusterQueue)
	// and decoded kinds this adapter does not use yet.
	Unused []*manifest.Object

	objs    []manifest.Object
	where   map[string]*manifest.Object // manifest.ObjectName → input object
	pods    map[placement.Key]*corev1.Pod
	groups  map[placement.Key]apiGroup
	created []any // API objects made by the Job controller, in order

	claims    map[placement.Key]*resourcev1.ResourceClaim
	templates map[placement.Key]*resourcev1.ResourceClaimTemplate
	uids      map[placement.Key]string // PodGroup UIDs, for reservedFor
	evicted   map[placement.Key]bool
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

// Load is [LoadWithOptions] with the zero [LoadOptions].
func Load(objs []manifest.Object) (*Cluster, error) { return LoadWithOptions(objs, LoadOptions{}) }

// LoadWithOptions converts manifest objects into a [Cluster]: PriorityClasses first
// (pods and PodGroups resolve their priorities through them), then Nodes,
// Workloads and PodGroups (scheduling.k8s.io v1alpha2 and v1beta1), Jobs
// (see [StampJob]: their Workloads, PodGroups and pods are created as the
// Job controller would), and Pods. Pods that finished (phase Succeeded or
// Failed) are left out, as they hold no resources.
//
// Errors are located at the object's place in the input
// ([manifest.Object.Wrap]): a nil object; any conversion error; a PodGroup
// or pod that a Job would create and that the input already has
// ([placement.ErrDuplicate]); a pod bound to a node the input lacks; a
// pending pod or PodGroup naming a ResourceClaim or ResourceClaimTemplate
// the input lacks, or a template or unallocated claim naming a DeviceClass
// it lacks ([placement.ErrNotFound]); more pods than opts.MaxPods, located
// at the Job whose pods cross the bound ([ErrTooManyPods]); what
// [placement.NewSnapshot] reports. Nothing is returned with an error.
func LoadWithOptions(objs []manifest.Object, opts LoadOptions) (*Cluster, error) {
	c := &Cluster{
		objs:   objs,
		where:  map[string]*manifest.Object{},
		pods:   map[placement.Key]*corev1.Pod{},
		groups: map[placement.Key]apiGroup{},

		claims:    map[placement.Key]*resourcev1.ResourceClaim{},
		templates: map[placement.Key]*resourcev1.ResourceClaimTemplate{},
		uids:      map[placement.Key]string{},
	}
	var classes2 []dra.DeviceClass
	var rslices []*resourcev1.ResourceSlice
	var templates []dra.ResourceClaimTemplate
	var claims []dra.ResourceClaim
	var pdbs []*manifest.Object
	var classes []schedulingv1.PriorityClass
	for i := range objs {
		o := &objs[i]
		// Objects come from manifest.Decode, or from a caller who may
		// leave one nil.
		if v := reflect.ValueOf(o.Obj); v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "object", "is a nil %T", o.Obj))
		}
		c.where[o.String()] = o
		if pc, ok := o.Obj.(*schedulingv1.PriorityClass); ok {
			classes = append(classes, *pc)
		}
	}
	pcs, err := NewPriorityClasses(classes)
	if err != nil {
		return nil, c.locate(err)
	}
	var bound []placement.Pod
	var apiPods []*corev1.Pod
	for i := range objs {
		o := &objs[i]
		switch v := o.Obj.(type) {
		case *corev1.Node:
			n, err := ConvertNode(v)
			if err != nil {
				return nil, o.Wrap(err)
			}
			c.Nodes = append(c.Nodes, n)
		case *v1alpha2.Workload:
			w, err := ConvertWorkloadV1alpha2(v, pcs)
			if err != nil {
				return nil, o.Wrap(err)
			}
			c.Workloads = append(c.Workloads, w)
		case *schedulingv1beta1.Workload:
			w, err := ConvertWorkloadV1beta1(v, pcs)
			if err != nil {
				return nil, o.Wrap(err)
			}
			c.Workloads = append(c.Workloads, w)
		case *v1alpha2.PodGroup:
			pg, err := ConvertPodGroupV1alpha2(v, pcs)
			if err != nil {
				return nil, o.Wrap(err)
			}
			c.PodGroups = append(c.PodGroups, pg)
			c.groups[pg.Key()] = apiGroup{v1alpha2: v}
			c.uids[pg.Key()] = string(v.UID)
		case *schedulingv1beta1.PodGroup:
			pg, err := ConvertPodGroupV1beta1(v, pcs)
			if err != nil {
				return nil, o.Wrap(err)
			}
			c.PodGroups = append(c.PodGroups, pg)
			c.groups[pg.Key()] = apiGroup{v1beta1: v}
			c.uids[pg.Key()] = string(v.UID)
		case *corev1.Pod:
			apiPods = append(apiPods, v)
		case *policyv1.PodDisruptionBudget:
			pdbs = append(pdbs, o)
		case *resourcev1.DeviceClass:
			dc, err := ConvertDeviceClass(v)
			if err != nil {
				return nil, o.Wrap(err)
			}
			classes2 = append(classes2, dc)
		case *resourcev1.ResourceSlice:
			rslices = append(rslices, v)
		case *resourcev1.ResourceClaimTemplate:
			t, err := ConvertResourceClaimTemplate(v)
			if err != nil {
				return nil, o.Wrap(err)
			}
			templates = append(templates, t)
			c.templates[keyOf(v)] = v
		case *resourcev1.ResourceClaim:
			cl, err := ConvertResourceClaim(v)
			if err != nil {
				return nil, o.Wrap(err)
			}
			claims = append(claims, cl)
			c.claims[keyOf(v)] = v
		case *schedulingv1.PriorityClass, *corev1.Namespace, *batchv1.Job:
		default:
			c.Unused = append(c.Unused, o)
		}
	}
	if err := checkPodCount(objs, len(apiPods), opts.MaxPods); err != nil {
		return nil, err
	}
	for i := range objs {
		o := &objs[i]
		j, ok := o.Obj.(*batchv1.Job)
		if !ok {
			continue
		}
		jo, err := StampJob(j, pcs)
		if err != nil {
			return nil, o.Wrap(err)
		}
		if jo.PodGroup != nil {
			k := jo.PodGroup.Key()
			if _, dup := c.groups[k]; dup {
				return nil, o.Wrap(placement.Errorf(placement.ErrDuplicate, jobObj(j.Namespace, j.Name), "spec", "the Job controller would create %s, which the input already has", podGroupObj(k.Namespace, k.Name)))
			}
			c.Workloads = append(c.Workloads, jo.Workload)
			c.PodGroups = append(c.PodGroups, jo.PodGroup)
			if jo.V1beta1 {
				api := PodGroupV1beta1(jo.PodGroup)
				c.groups[k] = apiGroup{v1beta1: api}
				c.created = append(c.created, WorkloadV1beta1(jo.Workload), api)
			} else {
				api := PodGroupV1alpha2(jo.PodGroup)
				c.groups[k] = apiGroup{v1alpha2: api}
				c.created = append(c.created, WorkloadV1alpha2(jo.Workload), api)
			}
		}
		for _, p := range jo.Pods {
			k := placement.Key{Namespace: p.Namespace, Name: p.Name}
			if _, dup := c.where[manifest.ObjectName("Pod", k.Namespace, k.Name)]; dup {
				return nil, o.Wrap(placement.Errorf(placement.ErrDuplicate, jobObj(j.Namespace, j.Name), "spec", "the Job controller would create %s, which the input already has", podObj(k.Namespace, k.Name)))
			}
			c.created = append(c.created, p)
		}
		c.Jobs = append(c.Jobs, JobInfo{Key: placement.Key{Namespace: j.Namespace, Name: j.Name}, JobObjects: jo})
		apiPods = append(apiPods, jo.Pods...)
	}
	for _, p := range apiPods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		pp, err := ConvertPod(p, pcs)
		if err != nil {
			return nil, c.locate(err)
		}
		na, err := RequiredNodeAffinity(p)
		if err != nil {
			return nil, c.locate(err)
		}
		if na != nil {
			if c.NodeAffinity == nil {
				c.NodeAffinity = AffinityFilter{}
			}
			c.NodeAffinity[pp.Key()] = na
		}
		c.pods[pp.Key()] = p
		switch {
		case pp.NodeName != "":
			bound = append(bound, pp)
		case len(p.Spec.SchedulingGates) > 0:
			c.Gated = append(c.Gated, pp.Key())
		default:
			c.Pending = append(c.Pending, pp)
		}
	}
	for _, o := range pdbs {
		b, ok, err := ConvertPodDisruptionBudget(o.Obj.(*policyv1.PodDisruptionBudget), bound)
		if err != nil {
			return nil, o.Wrap(err)
		}
		if ok {
			c.Budgets = append(c.Budgets, b)
		}
	}
	usesClaims := len(classes2)+len(rslices)+len(templates)+len(claims) > 0
	for _, pg := range c.PodGroups {
		usesClaims = usesClaims || len(pg.Spec.ResourceClaims) > 0
	}
	for _, p := range c.Pending {
		usesClaims = usesClaims || len(p.ResourceClaims) > 0
	}
	if usesClaims {
		var ds []dra.ResourceSlice
		for _, s := range newestSlices(rslices) {
			d, err := ConvertResourceSlice(s)
			if err != nil {
				return nil, c.locate(err)
			}
			ds = append(ds, d)
		}
		inv, err := dra.NewInventory(classes2, ds)
		if err != nil {
			return nil, c.locate(err)
		}
		if c.Ledger, err = dra.NewLedger(inv, templates, claims); err != nil {
			return nil, c.locate(err)
		}
		if err := c.checkClaimRefs(); err != nil {
			return nil, err
		}
		if err := c.checkDeviceClasses(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(c.PodGroups, func(a, b *gang.PodGroup) int { return a.Key().Compare(b.Key()) })
	slices.SortFunc(c.Workloads, func(a, b *gang.Workload) int { return a.Key().Compare(b.Key()) })
	if c.Snapshot, err = placement.NewSnapshot(c.Nodes, bound); err != nil {
		return nil, c.locate(err)
	}
	return c, nil
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
// with their conditions), then the objects the Job controller created;
// pods evicted by preemption are left out. The objects are the Cluster's
// own; callers must not modify them.
func (c *Cluster) Objects() []any {
	var out []any
	keep := func(o any) bool {
		p, ok := o.(*corev1.Pod)
		return !ok || !c.evicted[placement.Key{Namespace: p.Namespace, Name: p.Name}]
	}
	for _, o := range c.objs {
		if o.Obj != nil && keep(o.Obj) {
			out = append(out, o.Obj)
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
// UID (for reservedFor) and spec.resourceClaims.
func (c *Cluster) DRAPodGroup(pg *gang.PodGroup) dra.PodGroup {
	out := dra.PodGroup{Namespace: pg.Namespace, Name: pg.Name, UID: c.uids[pg.Key()]}
	for _, rc := range pg.Spec.ResourceClaims {
		out.ResourceClaims = append(out.ResourceClaims, dra.PodGroupResourceClaim{Name: rc.Name, ResourceClaimName: rc.ResourceClaimName, ResourceClaimTemplateName: rc.ResourceClaimTemplateName})
	}
	return out
}

// SetLedger records the ledger after a [dra.Ledger.Commit] and writes its
// claim updates back: an input claim gets the new status.allocation and
// status.reservedFor; a generated claim becomes a new ResourceClaim with
// the spec of the template its owner's entry names (see [NewClaim]).
func (c *Cluster) SetLedger(l *dra.Ledger, updates []dra.ClaimUpdate) {
	c.Ledger = l
	for i := range updates {
		u := &updates[i].Claim
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
