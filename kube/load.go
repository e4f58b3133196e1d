package kube

import (
	"reflect"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	kueueconfigv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	kueueconfigv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	kubev1beta1 "github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// Load converts manifest objects into a [Cluster]: PriorityClasses first
// (pods and PodGroups resolve their priorities through them), then Nodes,
// Workloads and PodGroups (scheduling.k8s.io v1alpha2 and v1beta1), Kueue
// Workloads, Topologies, ResourceFlavors, ClusterQueues, LocalQueues and
// Cohorts (kueue.x-k8s.io/v1beta2, see [ConvertKueueWorkload],
// [KueueTopologyLevels], [ConvertResourceFlavor], [ConvertClusterQueue],
// [ConvertLocalQueue] and [ConvertCohort]; two of one kind and name are
// refused),
// CompositePodGroups (v1alpha3, and v1.38's v1beta1), Jobs
// (see [StampJobAs]: their Workloads, PodGroups and pods are created as the
// Job controller of [LoadOptions].Profile's release would; Load's is the
// newest), and Pods. Pods that finished (phase Succeeded or
// Failed) are left out, as they hold no resources.
//
// Pods read pending (no spec.nodeName) and those the Job controller
// creates pass the API server's LimitRanger and RuntimeClass admission
// with the input's LimitRanges and RuntimeClasses ([Admission.AdmitPod]):
// what it adds is written into the input's pod, so that [Cluster.Objects]
// reads back the same; bound pods are taken as given. Kueue Workloads'
// templates are adjusted as Kueue does before charging them, and the
// resources of a Kueue Configuration's resources.excludeResourcePrefixes
// dropped from their requests ([KueueReadOptions]).
//
// Jobs follow the Job controller's rules (pkg/controller/job, v1.37): a
// Workload, PodGroup or pod of the input that the Job controls (a
// controller ownerReference to the Job, UIDs equal) is the Job's own and is
// not created again, so that Load reads back what [Cluster.Objects]
// writes; the controller creates a Workload and PodGroup only for a Job
// that never started (no pod of its own in the input, no status.startTime,
// status.succeeded and status.failed 0, no Suspended condition) and
// otherwise runs its pods pod by pod; and it creates only the pods the Job
// does not have yet. A Job's changed spec.scheduling gang minCount (the
// one mutable field, v1.37: elastic gangs) reaches the PodGroup it
// controls.
//
// Jobs that Kueue's Job integration manages are not the Job controller's
// (Kueue v0.17, default configuration; docs/kueue.md, Jobs): a Job that
// owns a Kueue Workload of the input ([ownedKueueWorkload]) keeps it; a
// Job labelled [KueueQueueNameLabel] without one, and without active pods
// (status.active 0: Kueue waits for them), gets the Workload Kueue
// builds for it ([KueueJobWorkload]), added to KueueWorkloads (its Job in
// [KueueWorkload].Job) and to [Cluster.Objects]; neither gets a
// scheduling.k8s.io Workload, PodGroup or pods, and their pods in the
// input are read only where Kueue lets them run outside their Workload's
// topologyAssignment (see [kueueJobs.dropPods]).
//
// Errors are located at the object's place in the input
// ([manifest.Object.Wrap]): a nil object; any conversion error; a
// LimitRange or RuntimeClass [NewAdmission] refuses; a pod admission
// refuses (located at its Job for a pod the Job controller creates); a PodGroup
// or pod that a Job would create and that the input already has without
// the Job controlling it ([placement.ErrDuplicate]); a Kueue Job
// [KueueJobWorkload] refuses, one whose prebuilt Workload the input lacks,
// or whose Workload's name a Workload of the input takes without being
// the Job's; two WorkloadPriorityClasses of one name; a pod bound to a node
// the input lacks; a pending pod or PodGroup naming a ResourceClaim or
// ResourceClaimTemplate the input lacks, or a template or unallocated claim
// naming a DeviceClass it lacks ([placement.ErrNotFound]); more pods than
// [DefaultMaxPods], located at the Job whose pods cross the bound
// ([ErrTooManyPods]); what [placement.NewSnapshot] reports. Nothing is
// returned with an error.
func Load(objs []manifest.Object) (*Cluster, error) { return LoadWithOptions(objs, LoadOptions{}) }

// LoadWithOptions is [Load] with the pod bound of opts (see [LoadOptions]).
func LoadWithOptions(objs []manifest.Object, opts LoadOptions) (*Cluster, error) {
	c := &Cluster{
		objs:   objs,
		where:  map[string]*manifest.Object{},
		pods:   map[placement.Key]*corev1.Pod{},
		groups: map[placement.Key]apiGroup{},
		cpgs:   map[placement.Key]apiComposite{},

		claims:    map[placement.Key]*resourcev1.ResourceClaim{},
		templates: map[placement.Key]*resourcev1.ResourceClaimTemplate{},
		uids:      map[placement.Key]string{},
	}
	pcs, err := c.indexObjects()
	if err != nil {
		return nil, err
	}
	in := inputs{wpcs: map[string]int32{}}
	if err := c.convertObjects(pcs, &in, opts); err != nil {
		return nil, err
	}
	if err := checkPodCount(objs, len(in.pods), opts.MaxPods); err != nil {
		return nil, err
	}
	kj, err := c.readKueueJobs(pcs, in.wpcs, opts)
	if err != nil {
		return nil, err
	}
	c.kueueJobs = kj
	in.pods = kj.dropPods(in.pods, c.KueueWorkloads)
	if len(c.KueueWorkloads) > 0 {
		c.KueueTASPods = kueueTASPods(in.pods)
	}
	if err := c.runJobController(pcs, &in, kj, opts.Profile, opts.PodGroupPreemptionPolicy); err != nil {
		return nil, err
	}
	bound, err := c.convertPods(pcs, in.pods)
	if err != nil {
		return nil, err
	}
	if err := c.convertBudgets(in.pdbs, bound); err != nil {
		return nil, err
	}
	if err := c.serveExtendedResources(&in, bound); err != nil {
		return nil, err
	}
	if err := c.loadClaims(&in); err != nil {
		return nil, err
	}
	c.KueueLevels, c.KueueQueues = in.queues.result()
	if err := checkAboveHostLevels(c.KueueWorkloads, c.KueueLevels, c.KueueQueues); err != nil {
		return nil, c.locateKueue(err)
	}
	c.KueueTopology = in.queues.topologyName()
	slices.SortFunc(c.PodGroups, func(a, b *gang.PodGroup) int { return a.Key().Compare(b.Key()) })
	slices.SortFunc(c.Workloads, func(a, b *gang.Workload) int { return a.Key().Compare(b.Key()) })
	slices.SortFunc(c.CompositePodGroups, func(a, b *gang.CompositePodGroup) int { return a.Key().Compare(b.Key()) })
	if opts.KueueNodePods && len(c.KueueWorkloads) > 0 {
		kueueNodePods(c.Nodes)
	}
	if c.Snapshot, err = placement.NewSnapshot(c.Nodes, bound); err != nil {
		return nil, c.locate(err)
	}
	return c, nil
}

// inputs are the objects one phase of [Load] collects for a later one.
type inputs struct {
	pods    []*corev1.Pod // the input's, then those the Job controller creates
	pdbs    []*manifest.Object
	classes []dra.DeviceClass
	// apiClasses are the DeviceClasses as the API has them, for the
	// extended resources they serve.
	apiClasses []*resourcev1.DeviceClass
	slices     []*resourcev1.ResourceSlice
	rules      []dra.DeviceTaintRule
	// pluginSlices are the devices that stand for device plugins' units of
	// resources DRA serves on other nodes ([PerNode]).
	pluginSlices []dra.ResourceSlice
	templates    []dra.ResourceClaimTemplate
	claims       []dra.ResourceClaim
	queues       kueueQueueInputs
	// wpcs are Kueue's WorkloadPriorityClasses' values by name.
	wpcs map[string]int32
}

// indexObjects refuses nil objects, indexes every object by name for
// locating errors, and resolves the PriorityClasses, the admission of pods
// (LimitRanges, RuntimeClasses: [NewAdmission]) and the resources Kueue's
// Configuration excludes, all of which objects before them in the input
// read.
func (c *Cluster) indexObjects() (*PriorityClasses, error) {
	var classes []schedulingv1.PriorityClass
	var limitRanges []*corev1.LimitRange
	var runtimeClasses []*nodev1.RuntimeClass
	for i := range c.objs {
		o := &c.objs[i]
		// Objects come from manifest.Decode, or from a caller who may
		// leave one nil.
		if v := reflect.ValueOf(o.Obj); v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "object", "is a nil %T", o.Obj))
		}
		c.where[o.String()] = o
		switch v := o.Obj.(type) {
		case *schedulingv1.PriorityClass:
			classes = append(classes, *v)
		case *corev1.LimitRange:
			limitRanges = append(limitRanges, v)
		case *nodev1.RuntimeClass:
			runtimeClasses = append(runtimeClasses, v)
		case *kueueconfigv1beta2.Configuration:
			if v.Resources != nil {
				c.kueueExcluded = v.Resources.ExcludeResourcePrefixes
			}
			if err := c.readTransformations(o, v); err != nil {
				return nil, err
			}
		case *kueueconfigv1beta1.Configuration:
			if v.Resources != nil {
				c.kueueExcluded = v.Resources.ExcludeResourcePrefixes
			}
			if err := c.readTransformations(o, v); err != nil {
				return nil, err
			}
		}
	}
	pcs, err := NewPriorityClasses(classes)
	if err != nil {
		return nil, c.locate(err)
	}
	if c.admission, err = NewAdmission(limitRanges, runtimeClasses); err != nil {
		return nil, c.locate(err)
	}
	return pcs, nil
}

// convertObjects converts Nodes, Workloads, PodGroups, DeviceClasses and
// claim templates and claims, and collects the pods, budgets and slices
// for the later phases. opts.Profile is the release whose API server
// validates the Workloads, PodGroups and CompositePodGroups (v1.38 refuses
// more: [gang.Workload.ValidateV138], [allNeedsGangV138]); Kueue Workloads
// are read with opts' Kueue gate.
func (c *Cluster) convertObjects(pcs *PriorityClasses, in *inputs, opts LoadOptions) error {
	p := opts.Profile
	for i := range c.objs {
		o := &c.objs[i]
		switch v := o.Obj.(type) {
		case *corev1.Node:
			n, err := ConvertNode(v)
			if err != nil {
				return o.Wrap(err)
			}
			c.Nodes = append(c.Nodes, n)
			if nr, ok := NodeNotReady(v); ok {
				if c.NotReady == nil {
					c.NotReady = map[string]NotReadyNode{}
				}
				c.NotReady[n.Name] = nr
			}
		case *v1alpha2.Workload:
			w, err := ConvertWorkloadV1alpha2(v, pcs)
			if err != nil {
				return o.Wrap(err)
			}
			c.Workloads = append(c.Workloads, w)
		case *schedulingv1beta1.Workload:
			w, err := ConvertWorkloadV1beta1(v, pcs)
			if err == nil && refusesAsV138(p) {
				err = w.ValidateV138() // v1.38's API server refuses more
			}
			if err != nil {
				return o.Wrap(err)
			}
			c.Workloads = append(c.Workloads, w)
		case *v1alpha2.PodGroup:
			pg, err := ConvertPodGroupV1alpha2(v, pcs)
			if err != nil {
				return o.Wrap(err)
			}
			c.PodGroups = append(c.PodGroups, pg)
			c.groups[pg.Key()] = apiGroup{v1alpha2: v}
			c.uids[pg.Key()] = string(v.UID)
		case *schedulingv1beta1.PodGroup:
			pg, err := podGroupAs(p, v, pcs)
			if err != nil {
				return o.Wrap(err)
			}
			c.PodGroups = append(c.PodGroups, pg)
			c.groups[pg.Key()] = apiGroup{v1beta1: v}
			c.uids[pg.Key()] = string(v.UID)
		case *schedulingv1alpha3.CompositePodGroup:
			cg, err := compositeV1alpha3As(p, v, pcs)
			if err := c.addComposite(cg, err, apiComposite{v1alpha3: v}); err != nil {
				return o.Wrap(err)
			}
		case *kubev1beta1.CompositePodGroup:
			cg, err := compositeV1beta1As(p, v, pcs)
			if err := c.addComposite(cg, err, apiComposite{v1beta1: v}); err != nil {
				return o.Wrap(err)
			}
		case *corev1.Pod:
			if v.Spec.NodeName == "" {
				// A pending pod is read as admission created it; a
				// bound one was, and is taken as given.
				p, err := c.admission.AdmitPod(v)
				if err != nil {
					return o.Wrap(err)
				}
				if p != v {
					*v = *p
				}
			}
			in.pods = append(in.pods, v)
		case *policyv1.PodDisruptionBudget:
			in.pdbs = append(in.pdbs, o)
		case *resourcev1.DeviceClass:
			dc, err := ConvertDeviceClass(v)
			if err != nil {
				return o.Wrap(err)
			}
			in.classes, in.apiClasses = append(in.classes, dc), append(in.apiClasses, v)
		case *resourcev1.ResourceSlice:
			in.slices = append(in.slices, v)
		case *resourcev1.DeviceTaintRule:
			r, err := ConvertDeviceTaintRule(v)
			if err != nil {
				return o.Wrap(err)
			}
			in.rules = append(in.rules, r)
		case *resourcev1.ResourceClaimTemplate:
			t, err := ConvertResourceClaimTemplate(v)
			if err != nil {
				return o.Wrap(err)
			}
			in.templates = append(in.templates, t)
			c.templates[keyOf(v)] = v
		case *resourcev1.ResourceClaim:
			cl, err := ConvertResourceClaim(v)
			if err != nil {
				return o.Wrap(err)
			}
			in.claims = append(in.claims, cl)
			c.claims[keyOf(v)] = v
		case *kueue.Workload:
			w, err := ConvertKueueWorkloadWith(v, pcs, KueueReadOptions{MultiLayerTopology: opts.KueueMultiLayerTopology,
				Admission: c.admission, ExcludeResourcePrefixes: c.kueueExcluded, Transformations: c.kueueTransforms})
			if err != nil {
				return o.Wrap(err)
			}
			c.KueueWorkloads = append(c.KueueWorkloads, w)
		case *kueue.WorkloadPriorityClass:
			if err := addWorkloadPriorityClass(in.wpcs, v); err != nil {
				return o.Wrap(err)
			}
		case *kueue.Topology, *kueue.ResourceFlavor, *kueue.ClusterQueue, *kueue.LocalQueue, *kueue.Cohort, *kueue.AdmissionCheck, *corev1.Namespace,
			*kueueconfigv1beta1.Configuration, *kueueconfigv1beta2.Configuration:
			if err := in.queues.add(v); err != nil {
				return o.Wrap(err)
			}
		case *schedulingv1.PriorityClass, *batchv1.Job, *corev1.LimitRange, *nodev1.RuntimeClass:
		default:
			c.Unused = append(c.Unused, o)
		}
	}
	return nil
}

// convertPods converts the pods (the input's and the Job controller's) and
// sorts them into bound, gated and pending; it returns the bound ones.
func (c *Cluster) convertPods(pcs *PriorityClasses, pods []*corev1.Pod) ([]placement.Pod, error) {
	var bound []placement.Pod
	for _, p := range pods {
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
	return bound, nil
}

// convertBudgets converts the PodDisruptionBudgets against the bound pods.
func (c *Cluster) convertBudgets(pdbs []*manifest.Object, bound []placement.Pod) error {
	for _, o := range pdbs {
		b, ok, err := ConvertPodDisruptionBudget(o.Obj.(*policyv1.PodDisruptionBudget), bound)
		if err != nil {
			return o.Wrap(err)
		}
		if ok {
			c.Budgets = append(c.Budgets, b)
		}
	}
	return nil
}

// loadClaims builds the DRA inventory and claim ledger when the input has
// DRA objects or anything names a claim, and checks the references.
func (c *Cluster) loadClaims(in *inputs) error {
	usesClaims := len(in.classes)+len(in.slices)+len(in.templates)+len(in.claims) > 0
	for _, pg := range c.PodGroups {
		usesClaims = usesClaims || len(pg.Spec.ResourceClaims) > 0
	}
	for _, p := range c.Pending {
		usesClaims = usesClaims || len(p.ResourceClaims) > 0
	}
	if !usesClaims {
		return nil
	}
	var ds []dra.ResourceSlice
	for _, s := range newestSlices(in.slices) {
		d, err := ConvertResourceSlice(s)
		if err != nil {
			return c.locate(err)
		}
		ds = append(ds, d)
	}
	ds = append(ds, in.pluginSlices...)
	if err := c.checkAdminAccess(in); err != nil {
		return err
	}
	inv, err := dra.NewInventory(in.classes, ds)
	if err != nil {
		return c.locate(err)
	}
	if inv, err = inv.WithTaintRules(in.rules); err != nil {
		return c.locate(err)
	}
	if c.Ledger, err = dra.NewLedger(inv, in.templates, in.claims); err != nil {
		return c.locate(err)
	}
	if err := c.checkClaimRefs(); err != nil {
		return err
	}
	return c.checkDeviceClasses()
}
