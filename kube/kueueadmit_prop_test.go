package kube

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// propNow is the moment of every admission pass of the properties below.
var propNow = time.Date(2026, 1, 1, 10, 0, 10, 0, time.UTC)

const propGPU = corev1.ResourceName("nvidia.com/gpu")

// propWorld is a random Kueue world as API objects: a block > rack > host
// cluster, its Topologies, ResourceFlavors, ClusterQueues, LocalQueues,
// Namespaces and Workloads. Admission writes the Workloads' status in
// place; clone copies what a pass or a perturbation changes.
type propWorld struct {
	nodes []*corev1.Node
	rest  []any // Topologies, ResourceFlavors, ClusterQueues, LocalQueues, Namespaces, Pods
	wls   []*kueue.Workload
	late  []*kueue.Workload // queued only after the first pass
	// levels are each Topology's levels, and nominal each ClusterQueue's
	// nominal quota per flavor and resource (cpu in millicores): the
	// model the invariants are checked against, apart from the converters.
	levels  map[string][]string
	nominal map[string]map[flavorResource]int64
	covers  map[string][]corev1.ResourceName // each ClusterQueue's covered resources
	// cohort is each ClusterQueue's spec.cohortName ("" for none), and
	// preemption its spec.preemption.
	cohort     map[string]string
	preemption map[string]kueue.ClusterQueuePreemption
	opts       KueueOptions
}

// clone copies the nodes and Workloads deeply; the queue objects are not
// changed by admission and are shared.
func (w *propWorld) clone() *propWorld {
	c := *w
	c.nodes, c.wls, c.late = nil, nil, nil
	for _, n := range w.nodes {
		c.nodes = append(c.nodes, n.DeepCopy())
	}
	for _, x := range w.wls {
		c.wls = append(c.wls, x.DeepCopy())
	}
	for _, x := range w.late {
		c.late = append(c.late, x.DeepCopy())
	}
	return &c
}

// objects are the world's objects as a caller hands them to [Load].
func (w *propWorld) objects() []manifest.Object {
	var objs []manifest.Object
	add := func(kind, ns, name string, o any) {
		objs = append(objs, manifest.Object{Source: "gen", Doc: len(objs) + 1, Line: 1, Item: -1, Kind: kind, Namespace: ns, Name: name, Obj: o})
	}
	for _, n := range w.nodes {
		add("Node", "", n.Name, n)
	}
	for _, o := range w.rest {
		switch v := o.(type) {
		case *kueue.Topology:
			add("Topology", "", v.Name, v)
		case *kueue.ResourceFlavor:
			add("ResourceFlavor", "", v.Name, v)
		case *kueue.ClusterQueue:
			add("ClusterQueue", "", v.Name, v)
		case *kueue.LocalQueue:
			add("LocalQueue", v.Namespace, v.Name, v)
		case *corev1.Namespace:
			add("Namespace", "", v.Name, v)
		case *configv1beta2.Configuration:
			add("Configuration", "", "", v)
		case *corev1.Pod:
			add("Pod", v.Namespace, v.Name, v)
		}
	}
	for _, x := range w.wls {
		add("Workload", x.Namespace, x.Name, x)
	}
	return objs
}

// admit loads the world and admits its Workloads as gangsim does: over
// the one Topology's tree, or none with several.
func (w *propWorld) admit(t require.TestingT) (*Cluster, *placement.Snapshot, []KueueOutcome) {
	c, err := Load(w.objects())
	require.NoError(t, err)
	var tree *topology.Tree
	if c.KueueLevels != nil {
		tree, err = topology.NewTree(c.Snapshot, c.KueueLevels)
		require.NoError(t, err)
	}
	opts := w.opts
	opts.NotReady, opts.Queues = c.NotReady, c.KueueQueues
	s, outs, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, opts)
	requireInputError(t, err)
	require.NoError(t, err, "a generated world is valid input")
	return c, s, outs
}

// requireInputError fails unless err is nil or an input error: a
// [*placement.FieldError] naming its object and field.
func requireInputError(t require.TestingT, err error) {
	if err == nil {
		return
	}
	var fe *placement.FieldError
	require.True(t, errors.As(err, &fe), "not an input error: %T %v", err, err)
	require.NotEmpty(t, fe.Object, "%v", err)
	require.NotEmpty(t, fe.Field, "%v", err)
}

// genPropWorld draws a world of all pending Workloads: most often one of
// every kind of object, else a crowded one ([genPreemptWorld]); in one of
// four, with Kueue's fair sharing on ([propWorld.withFairSharing]).
func genPropWorld(t *rapid.T) *propWorld {
	w := genVariedWorld
	if rapid.IntRange(0, 2).Draw(t, "crowded") == 0 {
		w = genPreemptWorld
	}
	if rapid.IntRange(0, 3).Draw(t, "fair sharing") == 0 {
		return w(t).withFairSharing(t)
	}
	return w(t)
}

// genPreemptWorld draws a crowded world, where admitted Workloads are
// often preempted: one rack > host Topology over 2–6 hosts, one topology
// flavor over all of them, one or two ClusterQueues of CPUs alone (a
// cohort or not, preemption policies drawn) reached from ns1 and ns2, and
// 2–6 Workloads then 1–3 late ones of a priority as high or higher.
func genPreemptWorld(t *rapid.T) *propWorld {
	w := &propWorld{levels: map[string][]string{"t1": {"block", "rack", corev1.LabelHostname}}, nominal: map[string]map[flavorResource]int64{}, covers: map[string][]corev1.ResourceName{},
		cohort: map[string]string{}, preemption: map[string]kueue.ClusterQueuePreemption{}}
	for r := range rapid.IntRange(1, 2).Draw(t, "racks") {
		for h := range rapid.IntRange(1, 3).Draw(t, "hosts") {
			n := genPropNode(t, fmt.Sprintf("b0-r%d-h%d", r, h), 0, r)
			n.Labels["pool"] = "a"
			w.nodes = append(w.nodes, n)
		}
	}
	ref := kueue.TopologyReference("t1")
	w.rest = append(w.rest, propTopology("t1"), &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f0"},
		Spec: kueue.ResourceFlavorSpec{NodeLabels: map[string]string{"pool": "a"}, TopologyName: &ref, Tolerations: []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}}}})
	cohort := rapid.Bool().Draw(t, "cohort")
	queues := 2 // a cohort of one reclaims from none
	if !cohort {
		queues = rapid.IntRange(1, 2).Draw(t, "clusterQueues")
	}
	for q := range queues {
		name := fmt.Sprintf("cq%d", q)
		v := int64(rapid.IntRange(1, 12).Draw(t, "nominal"))
		cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.ClusterQueueSpec{NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: "f0", Resources: []kueue.ResourceQuota{{Name: corev1.ResourceCPU, NominalQuota: *resource.NewQuantity(v, resource.DecimalSI)}}}}}}}}
		w.nominal[name] = map[flavorResource]int64{frOf("f0", placement.ResourceCPU): v * 1000}
		w.covers[name] = []corev1.ResourceName{corev1.ResourceCPU}
		pre := kueue.ClusterQueuePreemption{
			WithinClusterQueue:  rapid.SampledFrom([]kueue.PreemptionPolicy{kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority}).Draw(t, "withinClusterQueue"),
			ReclaimWithinCohort: rapid.SampledFrom([]kueue.PreemptionPolicy{kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyAny}).Draw(t, "reclaimWithinCohort"),
		}
		drawBorrowWithinCohort(t, &pre)
		cq.Spec.Preemption, w.preemption[name] = &pre, pre
		cq.Spec.QueueingStrategy = drawQueueingStrategy(t)
		if cohort {
			cq.Spec.CohortName, w.cohort[name] = "org", "org"
		}
		w.rest = append(w.rest, cq)
	}
	w.rest = append(w.rest, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1"}}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns2"}},
		&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq0"}},
		&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns2", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(fmt.Sprintf("cq%d", queues-1))}})
	n := rapid.IntRange(2, 6).Draw(t, "workloads")
	for i := range n + rapid.IntRange(1, 3).Draw(t, "late workloads") {
		x := genPropWorkload(t, fmt.Sprintf("w%d", i))
		x.Spec.QueueName = "lq"
		// One or two small sets, so that several Workloads fit at once.
		x.Spec.PodSets = x.Spec.PodSets[:min(len(x.Spec.PodSets), 2)]
		for k := range x.Spec.PodSets {
			ps := &x.Spec.PodSets[k]
			ps.Count = min(ps.Count, 4) // a slice of 2 stays whole
			if ps.MinCount != nil && *ps.MinCount > ps.Count {
				ps.MinCount = &ps.Count
			}
			delete(x.Spec.PodSets[k].Template.Spec.Containers[0].Resources.Requests, propGPU)
			x.Spec.PodSets[k].Template.Spec.NodeSelector = nil
		}
		if i < n {
			w.wls = append(w.wls, x)
			continue
		}
		p := int32(rapid.IntRange(2, 4).Draw(t, "late priority")) // the early ones' are up to 2
		x.Spec.Priority = &p
		w.late = append(w.late, x)
	}
	w.opts = KueueOptions{Now: propNow, Plan: drawPlan(t), WaitForReplacement: rapid.Bool().Draw(t, "wait for replacement")}
	return w
}

// genVariedWorld draws a world with objects of every kind.
func genVariedWorld(t *rapid.T) *propWorld {
	w := &propWorld{levels: map[string][]string{}, nominal: map[string]map[flavorResource]int64{}, covers: map[string][]corev1.ResourceName{},
		cohort: map[string]string{}, preemption: map[string]kueue.ClusterQueuePreemption{}}
	for b := range rapid.IntRange(1, 2).Draw(t, "blocks") {
		for r := range rapid.IntRange(1, 3).Draw(t, "racks") {
			for h := range rapid.IntRange(1, 3).Draw(t, "hosts") {
				w.nodes = append(w.nodes, genPropNode(t, fmt.Sprintf("b%d-r%d-h%d", b, r, h), b, r))
			}
		}
	}
	w.levels["t1"] = []string{"block", "rack", corev1.LabelHostname}
	w.rest = append(w.rest, propTopology("t1"))
	if rapid.Bool().Draw(t, "t2") {
		// Racks are named r0, r1, … in every block: over t2 a rack spans
		// the blocks, as Kueue's domain is the values of the levels down
		// to it.
		w.levels["t2"] = []string{"rack", corev1.LabelHostname}
		w.rest = append(w.rest, propTopology("t2"))
	}
	flavors := genPropFlavors(t, w)
	cohort := rapid.Bool().Draw(t, "cohort")
	for q := range rapid.IntRange(1, 2).Draw(t, "clusterQueues") {
		cq := genPropClusterQueue(t, w, fmt.Sprintf("cq%d", q), flavors)
		if cohort {
			// A flat cohort without limits: its members lend each
			// other all their unused quota.
			cq.Spec.CohortName, w.cohort[cq.Name] = "org", "org"
		}
		w.rest = append(w.rest, cq)
	}
	w.rest = append(w.rest, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1", Labels: map[string]string{"team": "x"}}},
		&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq0"}})
	if rapid.Bool().Draw(t, "ns2 labelled") {
		w.rest = append(w.rest, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns2", Labels: map[string]string{"team": "y"}}})
	}
	if cq := rapid.SampledFrom([]string{"", "cq0", "cq1"}).Draw(t, "ns2 queue"); cq != "" {
		w.rest = append(w.rest, &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns2", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq)}})
	}
	n := rapid.IntRange(1, 6).Draw(t, "workloads")
	for i := range n + rapid.IntRange(0, 2).Draw(t, "late workloads") {
		x := genPropWorkload(t, fmt.Sprintf("w%d", i))
		if i < n {
			w.wls = append(w.wls, x)
		} else {
			// Late Workloads are often above the admitted ones, which may
			// then be preempted.
			p := deref(x.Spec.Priority) + int32(rapid.IntRange(0, 2).Draw(t, "late priority"))
			x.Spec.Priority = &p
			w.late = append(w.late, x)
		}
	}
	w.opts = KueueOptions{Now: propNow, Plan: drawPlan(t), WaitForReplacement: rapid.Bool().Draw(t, "wait for replacement")}
	return w
}

// drawPlan draws the planner's options as gangsim may plan Kueue
// Workloads: one of the kueue profiles (its default for them, with the
// leader-aware search, spec order and negative counts) or gangsched's,
// with or without balancing.
func drawPlan(t *rapid.T) topology.PlanOptions {
	switch rapid.IntRange(0, 3).Draw(t, "profile") {
	case 0:
		return topology.KueueProfile.Options()
	case 1:
		return topology.KueueBalancedProfile.Options()
	}
	return topology.PlanOptions{Balanced: rapid.Bool().Draw(t, "balanced"), KueueBalanced: rapid.Bool().Draw(t, "kueue balanced")}
}

func propTopology(name string) *kueue.Topology {
	t := &kueue.Topology{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, l := range map[string][]string{"t1": {"block", "rack", corev1.LabelHostname}, "t2": {"rack", corev1.LabelHostname}}[name] {
		t.Spec.Levels = append(t.Spec.Levels, kueue.TopologyLevel{NodeLabel: l})
	}
	return t
}

// genPropNode draws a node of 2–8 CPUs, some with 4 GPUs, in pool a or b,
// some tainted spot=yes:NoSchedule, cordoned, or not ready for a second
// (not failed yet).
func genPropNode(t *rapid.T, name string, b, r int) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		corev1.LabelHostname: name, "block": fmt.Sprintf("b%d", b), "rack": fmt.Sprintf("r%d", r), "pool": rapid.SampledFrom([]string{"a", "b"}).Draw(t, "pool")}}}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(rapid.IntRange(2, 8).Draw(t, "cpu")), resource.DecimalSI),
		corev1.ResourcePods: resource.MustParse("110")}
	if rapid.IntRange(0, 2).Draw(t, "gpus") == 0 {
		n.Status.Allocatable[propGPU] = resource.MustParse("4")
	}
	switch rapid.IntRange(0, 11).Draw(t, "node state") { // rapid draws low values most
	case 9:
		n.Spec.Taints = []corev1.Taint{{Key: "spot", Value: "yes", Effect: corev1.TaintEffectNoSchedule}}
	case 10:
		n.Spec.Unschedulable = true
	case 11:
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(propNow.Add(-time.Second))}}
	}
	return n
}

// genPropFlavors draws 1–3 ResourceFlavors over pools, a block, or every
// node; with a Topology or without; some tainted spot=yes:NoSchedule,
// some tolerating it. Their names are returned.
func genPropFlavors(t *rapid.T, w *propWorld) []string {
	var names []string
	for i := range rapid.IntRange(1, 3).Draw(t, "flavors") {
		name := fmt.Sprintf("f%d", i)
		f := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: name}}
		f.Spec.NodeLabels = rapid.SampledFrom([]map[string]string{{"pool": "a"}, {"pool": "b"}, {"block": "b0"}, {"block": "b0"}, nil}).Draw(t, "nodeLabels")
		topos := []string{""} // a topology flavor needs nodeLabels
		if f.Spec.NodeLabels != nil {
			topos = append(slices.Sorted(maps.Keys(w.levels)), "")
		}
		if topo := rapid.SampledFrom(topos).Draw(t, "topologyName"); topo != "" {
			ref := kueue.TopologyReference(topo)
			f.Spec.TopologyName = &ref
		}
		if rapid.IntRange(0, 3).Draw(t, "flavor taint") == 3 {
			f.Spec.NodeTaints = []corev1.Taint{{Key: "spot", Value: "yes", Effect: corev1.TaintEffectNoSchedule}}
		}
		if rapid.IntRange(0, 3).Draw(t, "flavor toleration") == 0 {
			f.Spec.Tolerations = []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}}
		}
		w.rest = append(w.rest, f)
		names = append(names, name)
	}
	return names
}

// genPropClusterQueue draws a ClusterQueue of 1–3 resource groups, the
// flavors shared out among them, nominal quotas from 0, and a
// namespaceSelector of every namespace, team x, or none.
func genPropClusterQueue(t *rapid.T, w *propWorld, name string, flavors []string) *kueue.ClusterQueue {
	layouts := [][][]corev1.ResourceName{{{corev1.ResourceCPU}}, {{corev1.ResourceCPU, corev1.ResourcePods}}, {{corev1.ResourceCPU, propGPU}},
		{{corev1.ResourceCPU}, {propGPU}}, {{corev1.ResourceCPU}, {propGPU}, {corev1.ResourcePods}}}
	layout := rapid.SampledFrom(layouts).Draw(t, "layout")
	fs := rapid.Permutation(flavors).Draw(t, "flavor order")
	if len(layout) > len(fs) {
		layout = layout[:len(fs)]
	}
	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}}
	w.nominal[name] = map[flavorResource]int64{}
	for g, covered := range layout {
		// Each group takes one flavor, the last the rest.
		take := fs[g : g+1]
		if g == len(layout)-1 {
			take = fs[g:]
		}
		rg := kueue.ResourceGroup{CoveredResources: covered}
		for _, f := range take {
			fq := kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(f)}
			for _, r := range covered {
				v := int64(rapid.IntRange(2, 40).Draw(t, "nominal"))
				if rapid.IntRange(0, 7).Draw(t, "zero quota") == 7 {
					v = 0
				}
				fq.Resources = append(fq.Resources, kueue.ResourceQuota{Name: r, NominalQuota: *resource.NewQuantity(v, resource.DecimalSI)})
				if r == corev1.ResourceCPU {
					v *= 1000
				}
				w.nominal[name][frOf(f, placement.ResourceName(r))] = v
			}
			rg.Flavors = append(rg.Flavors, fq)
		}
		cq.Spec.ResourceGroups = append(cq.Spec.ResourceGroups, rg)
		w.covers[name] = append(w.covers[name], covered...)
	}
	cq.Spec.NamespaceSelector = []*metav1.LabelSelector{{}, {MatchLabels: map[string]string{"team": "x"}}, nil}[[]int{0, 0, 0, 0, 0, 0, 1, 1, 2}[rapid.IntRange(0, 8).Draw(t, "namespaceSelector")]]
	pre := kueue.ClusterQueuePreemption{
		WithinClusterQueue:  rapid.SampledFrom([]kueue.PreemptionPolicy{kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority, ""}).Draw(t, "withinClusterQueue"),
		ReclaimWithinCohort: rapid.SampledFrom([]kueue.PreemptionPolicy{kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyAny, ""}).Draw(t, "reclaimWithinCohort"),
	}
	drawBorrowWithinCohort(t, &pre)
	if pre != (kueue.ClusterQueuePreemption{}) {
		cq.Spec.Preemption = &pre
	}
	w.preemption[name] = pre
	cq.Spec.QueueingStrategy = drawQueueingStrategy(t)
	cq.Spec.FlavorFungibility = drawFlavorFungibility(t)
	return cq
}

// drawFlavorFungibility draws a spec.flavorFungibility Kueue's API
// accepts: unset (half the time, Kueue's default), empty, either policy or
// both changed, or both TryNextFlavor with a preference.
func drawFlavorFungibility(t *rapid.T) *kueue.FlavorFungibility {
	pob, bop := kueue.PreemptionOverBorrowing, kueue.BorrowingOverPreemption
	return []*kueue.FlavorFungibility{nil, nil, nil, nil, nil, {},
		{WhenCanBorrow: kueue.TryNextFlavor},
		{WhenCanPreempt: kueue.MayStopSearch},
		{WhenCanBorrow: kueue.TryNextFlavor, WhenCanPreempt: kueue.MayStopSearch},
		{WhenCanBorrow: kueue.TryNextFlavor, WhenCanPreempt: kueue.TryNextFlavor, Preference: &pob},
		{WhenCanBorrow: kueue.TryNextFlavor, WhenCanPreempt: kueue.TryNextFlavor, Preference: &bop},
	}[rapid.IntRange(0, 10).Draw(t, "flavorFungibility")]
}

// drawBorrowWithinCohort draws pre's borrowWithinCohort where Kueue's
// webhook allows one (reclaimWithinCohort not Never): none, Never, or
// LowerPriority with or without a maxPriorityThreshold within the drawn
// priorities (0–4).
func drawBorrowWithinCohort(t *rapid.T, pre *kueue.ClusterQueuePreemption) {
	if pre.ReclaimWithinCohort == "" || pre.ReclaimWithinCohort == kueue.PreemptionPolicyNever {
		return
	}
	switch rapid.IntRange(0, 3).Draw(t, "borrowWithinCohort") {
	case 1:
		pre.BorrowWithinCohort = &kueue.BorrowWithinCohort{Policy: kueue.BorrowWithinCohortPolicyNever}
	case 2:
		pre.BorrowWithinCohort = &kueue.BorrowWithinCohort{Policy: kueue.BorrowWithinCohortPolicyLowerPriority}
	case 3:
		pre.BorrowWithinCohort = &kueue.BorrowWithinCohort{Policy: kueue.BorrowWithinCohortPolicyLowerPriority,
			MaxPriorityThreshold: new(int32(rapid.IntRange(0, 3).Draw(t, "maxPriorityThreshold")))}
	}
}

// drawQueueingStrategy draws a spec.queueingStrategy: unset,
// BestEffortFIFO or StrictFIFO.
func drawQueueingStrategy(t *rapid.T) kueue.QueueingStrategy {
	return rapid.SampledFrom([]kueue.QueueingStrategy{"", kueue.BestEffortFIFO, kueue.StrictFIFO}).Draw(t, "queueingStrategy")
}

// genPropWorkload draws a pending Workload of 1–3 pod sets (counts from
// 0; the first set with pods may have a minCount; a required block, rack
// or host, a preferred rack, unconstrained, or none; rack or host slices
// of 2), in ns1 or ns2 through LocalQueue lq (or a missing one). In some,
// two of the sets are a PodSetGroup ([drawPropGroup]).
func genPropWorkload(t *rapid.T, name string) *kueue.Workload {
	x := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: []string{"ns1", "ns2"}[rapid.IntRange(0, 3).Draw(t, "ns2")/3], Name: name,
		CreationTimestamp: metav1.NewTime(propNow.Add(-time.Duration(rapid.IntRange(1, 4).Draw(t, "age")) * time.Second))}}
	x.Spec.QueueName = kueue.LocalQueueName([]string{"lq", "none"}[rapid.IntRange(0, 9).Draw(t, "no queue")/9])
	if p := int32(rapid.IntRange(-1, 2).Draw(t, "priority")); p >= 0 {
		x.Spec.Priority = &p
	}
	minCount := false
	sets := rapid.IntRange(1, 3).Draw(t, "pod sets")
	g := drawPropGroup(t, &sets)
	for s := range sets {
		ann := map[string]string{}
		unit := int32(1)
		request := rapid.IntRange(0, 8).Draw(t, "request")
		if g != nil && (s == g.leader || s == g.workers) {
			request = -1 // the group's level, below
		}
		switch request {
		case 0, 8:
			ann[KueueRequiredTopology] = "rack"
		case 1:
			ann[KueueRequiredTopology] = "block"
		case 2:
			// No request: in a ClusterQueue of topology flavors alone,
			// Kueue's implied one.
		case 3:
			ann[KueueRequiredTopology] = corev1.LabelHostname
		case 4:
			ann[KueuePreferredTopology] = "rack"
		case 5:
			ann[KueueUnconstrainedTopology] = "true"
		case 6:
			ann[KueueRequiredTopology], ann[KueueSliceRequiredTopology], ann[KueueSliceSize], unit = "block", "rack", "2", 2
		case 7:
			ann[KueueRequiredTopology], ann[KueueSliceRequiredTopology], ann[KueueSliceSize], unit = "rack", corev1.LabelHostname, "2", 2
		}
		// A sliced set holds a slice at least (as Kueue's validation
		// wants the slice size at most the count).
		count := unit * int32(rapid.IntRange(1, 6).Draw(t, "count"))
		if unit == 1 && request >= 0 && rapid.IntRange(0, 7).Draw(t, "zero") == 7 {
			count = 0
		}
		if g != nil && s == g.leader {
			count = int32(rapid.SampledFrom([]int{1, 1, 1, 2}).Draw(t, "leader count"))
		}
		ps := kueue.PodSet{Name: kueue.PodSetReference(fmt.Sprintf("s%d", s)), Count: count}
		if count > 0 && !minCount && rapid.IntRange(0, 2).Draw(t, "partial") == 0 {
			m := unit * int32(rapid.IntRange(1, int(count/unit)).Draw(t, "minCount"))
			ps.MinCount, minCount = &m, true
		}
		cpus := []resource.Quantity{resource.MustParse("500m"), resource.MustParse("1"), resource.MustParse("2")}
		if g != nil && s == g.leader {
			cpus = append(cpus, resource.MustParse("3")) // a leader often asks more than a worker
		}
		req := corev1.ResourceList{corev1.ResourceCPU: rapid.SampledFrom(cpus).Draw(t, "cpu")}
		if rapid.IntRange(0, 9).Draw(t, "cpu 0") == 9 {
			// Written out at 0: Kueue gives it a flavor all the same
			// (kueuezerorequest.go), and its pods take pod slots alone.
			req[corev1.ResourceCPU] = resource.MustParse("0")
		}
		if rapid.IntRange(0, 3).Draw(t, "gpu") == 3 {
			req[propGPU] = resource.MustParse("1")
		}
		ps.Template = corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: ann},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: req}}}}}
		if rapid.IntRange(0, 2).Draw(t, "tolerates spot") == 0 {
			ps.Template.Spec.Tolerations = []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}}
		}
		if rapid.IntRange(0, 5).Draw(t, "nodeSelector") == 5 {
			ps.Template.Spec.NodeSelector = map[string]string{"pool": rapid.SampledFrom([]string{"a", "b"}).Draw(t, "selected pool")}
		}
		if g != nil && (s == g.leader || s == g.workers) {
			g.apply(&ps)
		}
		x.Spec.PodSets = append(x.Spec.PodSets, ps)
	}
	if n := len(x.Spec.PodSets); g == nil && n >= 2 && rapid.IntRange(0, 3).Draw(t, "grouped") == 0 {
		groupLastTwo(t, x)
	}
	return x
}

// groupLastTwo makes the last two pod sets of x a PodSetGroup: both
// take the first's level (a required rack when it has none), without
// slices, and one of them (drawn) may be
// of count 0, which Kueue places as a phantom leader.
func groupLastTwo(t *rapid.T, x *kueue.Workload) {
	n := len(x.Spec.PodSets)
	a, b := &x.Spec.PodSets[n-2], &x.Spec.PodSets[n-1]
	ann := map[string]string{KueuePodSetGroup: "g"}
	for _, k := range []string{KueueRequiredTopology, KueuePreferredTopology} {
		if v, ok := a.Template.Annotations[k]; ok {
			ann[k] = v
		}
	}
	if len(ann) == 1 {
		ann[KueueRequiredTopology] = "rack" // a group asks for a level
	}
	for _, ps := range []*kueue.PodSet{a, b} {
		if ps.Template.Annotations[KueueSliceSize] != "" {
			// Its count was drawn in slices of 2: halved, it stays a
			// whole number of pods.
			ps.Count /= 2
			if ps.MinCount != nil {
				m := max(*ps.MinCount/2, 1)
				ps.MinCount = &m
			}
		}
		ps.Template.Annotations = maps.Clone(ann)
	}
	if z := rapid.IntRange(0, 2).Draw(t, "group zero"); z < 2 {
		ps := []*kueue.PodSet{a, b}[z]
		ps.Count, ps.MinCount = 0, nil
	}
}

// propGroup is a PodSetGroup drawn for a Workload: the spec.podSets
// indexes of its leader and workers, their one level, and where the
// group is named.
type propGroup struct {
	leader, workers int
	level           string
	preferred       bool
	// field names the group, and gives the level, in topologyRequest
	// rather than in the template's annotations.
	field bool
}

// drawPropGroup draws, in one Workload of three, a PodSetGroup of a
// leader and workers among its *sets sets (made two at least), as Kueue's
// job webhook accepts one (jobframework ValidatePodSetGroupingTopology):
// two sets, one level for both, both required or both preferred, no
// slices, a name that is not a number. The leader, of one pod mostly, may
// come before or after its workers in spec.podSets; the level is a
// required block, rack or host or a preferred block or rack.
func drawPropGroup(t *rapid.T, sets *int) *propGroup {
	if rapid.IntRange(0, 2).Draw(t, "podSetGroup") != 1 {
		return nil
	}
	*sets = max(*sets, 2)
	pair := rapid.Permutation([]int{0, 1, 2}[:*sets]).Draw(t, "group sets")
	levels := []struct {
		key       string
		preferred bool
	}{{"rack", false}, {"block", false}, {corev1.LabelHostname, false}, {"rack", true}, {"block", true}}
	l := rapid.SampledFrom(levels).Draw(t, "group level")
	return &propGroup{leader: pair[0], workers: pair[1], level: l.key, preferred: l.preferred, field: rapid.Bool().Draw(t, "group in topologyRequest")}
}

// apply makes ps a set of group g: its level and group name in its
// template's annotations, or in its topologyRequest.
func (g *propGroup) apply(ps *kueue.PodSet) {
	const name = "lw"
	if g.field {
		tr := &kueue.PodSetTopologyRequest{PodSetGroupName: new(name)}
		if g.preferred {
			tr.Preferred = new(g.level)
		} else {
			tr.Required = new(g.level)
		}
		ps.TopologyRequest = tr
		return
	}
	ann := ps.Template.Annotations
	if g.preferred {
		ann[KueuePreferredTopology] = g.level
	} else {
		ann[KueueRequiredTopology] = g.level
	}
	ann[KueuePodSetGroup] = name
}

// specRequest is the topology request of pod set ps as the generator
// wrote it, apart from the converter's: its topologyRequest when set,
// else its template's annotations (slices of 2).
func specRequest(ps *kueue.PodSet) (req topology.PodSetRequest) {
	if tr := ps.TopologyRequest; tr != nil {
		return topology.PodSetRequest{Required: deref(tr.Required), Preferred: deref(tr.Preferred), Group: deref(tr.PodSetGroupName)}
	}
	ann := ps.Template.Annotations
	req = topology.PodSetRequest{Required: ann[KueueRequiredTopology], Preferred: ann[KueuePreferredTopology], Group: ann[KueuePodSetGroup]}
	if key := ann[KueueSliceRequiredTopology]; key != "" {
		req.Slices = []topology.SliceLayer{{Key: key, Size: 2}}
	}
	return req
}

// perturb changes the world after a first pass: some Workloads' counts
// change (whole slices, never below a minCount), nodes fail (gone, not
// ready for 5 minutes, tainted NoExecute) or are cordoned or not ready
// for a second, and the late Workloads are queued.
func (w *propWorld) perturb(t *rapid.T) {
	for _, x := range w.wls {
		if rapid.IntRange(0, 2).Draw(t, "resize") != 0 {
			continue
		}
		ps := &x.Spec.PodSets[rapid.IntRange(0, len(x.Spec.PodSets)-1).Draw(t, "resized set")]
		unit := int32(1)
		if ps.Template.Annotations[KueueSliceSize] != "" {
			unit = 2
		}
		lo := unit - 1 // a sliced set keeps a slice
		if ps.MinCount != nil {
			lo = *ps.MinCount / unit
		}
		ps.Count = unit * int32(rapid.IntRange(int(lo), 6).Draw(t, "new count"))
	}
	var kept []*corev1.Node
	for _, n := range w.nodes {
		switch rapid.IntRange(0, 15).Draw(t, "node fails") {
		case 11:
			continue // gone
		case 12:
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(propNow.Add(-5 * time.Minute))}}
		case 13:
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "broken", Effect: corev1.TaintEffectNoExecute})
		case 14:
			n.Spec.Unschedulable = true
		case 15:
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, LastTransitionTime: metav1.NewTime(propNow.Add(-time.Second))}}
		}
		kept = append(kept, n)
	}
	w.nodes = kept
	w.wls = append(w.wls, w.late...)
	w.late = nil
	for _, x := range w.wls {
		// Pods of a Job finish: their quota is reclaimable, an admitted
		// Workload's usage scaled down, a pending one's count reduced.
		if rapid.IntRange(0, 3).Draw(t, "reclaimable") != 0 {
			continue
		}
		ps := &x.Spec.PodSets[rapid.IntRange(0, len(x.Spec.PodSets)-1).Draw(t, "reclaimable set")]
		x.Status.ReclaimablePods = []kueue.ReclaimablePod{{Name: ps.Name, Count: int32(rapid.IntRange(0, int(ps.Count)).Draw(t, "reclaimable pods"))}}
	}
	for _, o := range w.rest {
		// A queue stopped: Hold keeps its admitted Workloads, HoldAndDrain
		// evicts them.
		var stop **kueue.StopPolicy
		switch v := o.(type) {
		case *kueue.ClusterQueue:
			stop = &v.Spec.StopPolicy
		case *kueue.LocalQueue:
			stop = &v.Spec.StopPolicy
		default:
			continue
		}
		if p := rapid.SampledFrom([]kueue.StopPolicy{"", "", "", "", "", kueue.Hold, kueue.HoldAndDrain, kueue.HoldAndDrain}).Draw(t, "stopPolicy"); p != "" {
			*stop = &p
		}
	}
}

// admittedHosts are each Workload's admitted pods per pod set and host,
// as its status.admission states them.
func admittedHosts(c *Cluster) map[placement.Key]map[string]map[string]int32 {
	out := map[placement.Key]map[string]map[string]int32{}
	for _, w := range c.KueueWorkloads {
		if !w.Admitted {
			continue
		}
		out[w.Key()] = map[string]map[string]int32{}
		for k, set := range w.Group.PodSets {
			out[w.Key()][set.Name] = map[string]int32{}
			for _, p := range w.Assigned[k] {
				out[w.Key()][set.Name][p.Node] = p.Count
			}
		}
	}
	return out
}

// holds reports whether an outcome leaves its Workload holding quota.
func holds(a KueueAction) bool {
	switch a {
	case KueueAdmitted, KueueReadmitted, KueueKept, KueueResized, KueueRepaired, KueueGrowWaits, KueueReplacementWaits:
		return true
	}
	return false
}

// checkAdmission checks the invariants of one admission pass: c is the
// world as loaded (its Workloads' objects now written), s and outs what
// AdmitKueueWorkloads returned, before the admissions held before the pass
// (nil for none).
func (w *propWorld) checkAdmission(t require.TestingT, c *Cluster, s *placement.Snapshot, outs []KueueOutcome, before map[placement.Key]map[string]map[string]int32) {
	q := c.KueueQueues
	byKey := map[placement.Key]*KueueWorkload{}
	for _, x := range c.KueueWorkloads {
		byKey[x.Key()] = x
	}
	used := map[string]map[flavorResource]int64{}
	for _, o := range outs {
		x := byKey[o.Workload]
		adm := x.Obj.Status.Admission
		require.Equal(t, holds(o.Action), adm != nil, "%s %s: %s", o.Workload, o.Action, o.Message)
		if adm == nil {
			require.Empty(t, o.PodSets, "%s", o.Workload)
			for _, set := range x.Group.PodSets {
				_, ok := s.PodSetUsage(x.Key(), set.Name)
				require.False(t, ok, "%s/%s pending holds a reservation", o.Workload, set.Name)
			}
			continue
		}
		cq := string(adm.ClusterQueue)
		require.Contains(t, w.nominal, cq, "%s", o.Workload)
		if used[cq] == nil {
			used[cq] = map[flavorResource]int64{}
		}
		for _, psa := range adm.PodSetAssignments {
			k := slices.IndexFunc(x.Group.PodSets, func(p placement.PodSet) bool { return p.Name == string(psa.Name) })
			count := *psa.Count
			if k < 0 { // a set of count 0
				if o.Action != KueueReplacementWaits && o.Action != KueueGrowWaits {
					// A Workload that waits keeps its admission as it was.
					require.Zero(t, count, "%s/%s; %s", o.Workload, psa.Name, summary(outs, byKey))
				}
				continue
			}
			set := &x.Group.PodSets[k]
			phantom := x.PhantomLeader(set.Name)
			if phantom {
				// Kueue's phantom leader: written at its count, 0, with
				// its one pod placed and no quota.
				require.Zero(t, count, "%s/%s: a phantom leader's count", o.Workload, set.Name)
			} else {
				w.checkCount(t, x, k, count, o)
			}
			// Quota: the model's requests of the admitted count, in the
			// flavors written, as resourceUsage states.
			// Pods reclaimable since the admission hold none
			// (Kueue's totalRequestsFromAdmission).
			held := count
			if after := x.specCount(set.Name) - x.reclaimable(set.Name); after < held {
				held = after
			}
			var tas []string
			for r, v := range set.Template.Requests {
				if count == 0 {
					break // a set admitted with no pods holds no quota
				}
				f, ok := psa.Flavors[corev1.ResourceName(r)]
				require.True(t, ok, "%s/%s: no flavor for %s (%s: %s)", o.Workload, psa.Name, r, o.Action, o.Message)
				n := v * int64(count)
				used[cq][frOf(string(f), r)] += v * int64(held)
				require.Equal(t, quantityString(r, n), ptrQ(psa.ResourceUsage[corev1.ResourceName(r)]), "%s/%s resourceUsage %s", o.Workload, psa.Name, r)
			}
			if slices.Contains(w.covers[cq], corev1.ResourcePods) {
				f := psa.Flavors[corev1.ResourcePods]
				used[cq][frOf(string(f), placement.ResourcePods)] += int64(held)
			}
			for _, f := range psa.Flavors {
				if q.Flavors[string(f)].Topology != "" && !slices.Contains(tas, string(f)) {
					tas = append(tas, string(f))
				}
			}
			pods := o.PodSets[k]
			if phantom && psa.TopologyAssignment != nil && o.Action != KueueGrowWaits && o.Action != KueueReplacementWaits {
				require.Len(t, pods, 1, "%s/%s: a phantom leader's one pod", o.Workload, psa.Name)
				require.Equal(t, int32(1), pods[0].Count, "%s/%s: a phantom leader's one pod", o.Workload, psa.Name)
			}
			if psa.TopologyAssignment == nil || count == 0 && !phantom {
				require.Empty(t, pods, "%s/%s on quota alone or of count 0 places no pod", o.Workload, psa.Name)
				continue
			}
			require.Len(t, tas, 1, "%s/%s: one topology flavor", o.Workload, psa.Name)
			w.checkPods(t, s, x, k, q.Flavors[tas[0]], pods, o, before[x.Key()][set.Name])
		}
		w.checkGroups(t, s, q, x, o)
	}
	// A Workload held as Kueue's assumption holds the quota its message
	// words and its HeldQuota lists, in its LocalQueue's ClusterQueue,
	// unwritten.
	for _, o := range outs {
		if !o.Held {
			continue
		}
		x := byKey[o.Workload]
		require.Nil(t, x.Obj.Status.Admission, "%s held: no admission written", o.Workload)
		cq := q.LocalQueues[placement.Key{Namespace: x.Obj.Namespace, Name: string(x.Obj.Spec.QueueName)}]
		if used[cq] == nil {
			used[cq] = map[flavorResource]int64{}
		}
		// Its HeldQuota says what its message words.
		field := map[flavorResource]int64{}
		for _, a := range o.HeldQuota {
			field[frOf(a.Flavor, a.Resource)] += a.Amount
		}
		worded := heldUsage(t, o.Message)
		require.Len(t, field, len(worded), "%s: HeldQuota %v, message %q", o.Workload, o.HeldQuota, o.Message)
		for fr, v := range worded {
			require.Equal(t, v, field[fr], "%s: HeldQuota %v, message %q", o.Workload, o.HeldQuota, o.Message)
			used[cq][fr] += v
		}
	}
	// Per ClusterQueue, or per cohort (flat, without limits: its
	// members' nominal quotas together), usage is within nominal quota.
	pooled, nominal := map[string]map[flavorResource]int64{}, map[string]map[flavorResource]int64{}
	for cq, u := range w.nominal {
		pool := cmp.Or(w.cohort[cq], "ClusterQueue "+cq)
		if nominal[pool] == nil {
			nominal[pool], pooled[pool] = map[flavorResource]int64{}, map[flavorResource]int64{}
		}
		for fr, v := range u {
			nominal[pool][fr] += v
		}
		for fr, v := range used[cq] {
			pooled[pool][fr] += v
		}
	}
	for pool, u := range pooled {
		for fr, v := range u {
			require.LessOrEqual(t, v, nominal[pool][fr], "%s flavor %s %s: usage over nominal quota; %s", pool, fr.Flavor, fr.Resource, summary(outs, byKey))
		}
	}
	w.checkVictims(t, c, outs, byKey)
	checkStrictFIFO(t, c, outs, byKey, w.opts.Plan)
	// The nodes Kueue's assumption of a held Workload places (out of the
	// snapshot, as none of its pods runs) were free beside every
	// admission: the Workloads tried after it saw them taken.
	heldOn := map[placement.NodeID]map[placement.ResourceName]int64{}
	for _, o := range outs {
		for _, u := range o.HeldNodes {
			require.True(t, o.Held, "%s: held nodes, not held", o.Workload)
			for _, p := range u.Nodes {
				id, ok := s.NodeID(p.Node)
				require.True(t, ok, "%s: held on unknown node %s", o.Workload, p.Node)
				if heldOn[id] == nil {
					heldOn[id] = map[placement.ResourceName]int64{}
				}
				for r, v := range u.Requests {
					heldOn[id][r] += v * int64(p.Count)
				}
			}
		}
	}
	for id := range placement.NodeID(s.NumNodes()) {
		for _, r := range s.Resources() {
			require.GreaterOrEqual(t, s.Free(id, r), int64(0), "node %s over its allocatable %s", s.Node(id).Name, r)
			require.GreaterOrEqual(t, s.Free(id, r)-heldOn[id][r], int64(0), "node %s over its allocatable %s with the held Workloads' pods; %s", s.Node(id).Name, r, summary(outs, byKey))
		}
	}
}

// heldUsage reads the quota a held Workload's message says it holds:
// "Kueue assumes it (cpu 3 in flavor f0, pods 2 in flavor f0)" (none
// without the parenthesis), in the model's units (cpu in millicores).
func heldUsage(t require.TestingT, msg string) map[flavorResource]int64 {
	_, rest, ok := strings.Cut(msg, "Kueue assumes it (")
	if !ok {
		return nil
	}
	words, _, ok := strings.Cut(rest, ")")
	require.True(t, ok, "%q", msg)
	out := map[flavorResource]int64{}
	for _, w := range strings.Split(words, ", ") {
		var r, v, f string
		_, err := fmt.Sscanf(w, "%s %s in flavor %s", &r, &v, &f)
		require.NoError(t, err, "%q in %q", w, msg)
		qv := resource.MustParse(v)
		n := qv.Value()
		if r == string(corev1.ResourceCPU) {
			n = qv.MilliValue()
		}
		out[frOf(f, placement.ResourceName(r))] += n
	}
	return out
}

// summary words outcomes with their admitted and spec counts, for a
// failure's message.
func summary(outs []KueueOutcome, byKey map[placement.Key]*KueueWorkload) string {
	var b strings.Builder
	for _, o := range outs {
		fmt.Fprintf(&b, "\n%s %s %q:", o.Workload, o.Action, o.Message)
		x := byKey[o.Workload]
		if adm := x.Obj.Status.Admission; adm != nil {
			for _, psa := range adm.PodSetAssignments {
				fmt.Fprintf(&b, " %s=%d", psa.Name, *psa.Count)
			}
		}
		for _, ps := range x.Obj.Spec.PodSets {
			fmt.Fprintf(&b, " spec %s=%d", ps.Name, ps.Count)
			if ps.MinCount != nil {
				fmt.Fprintf(&b, "(min %d)", *ps.MinCount)
			}
		}
	}
	return b.String()
}

// ptrQ writes q, a map value, which String (a pointer method) cannot be
// called on.
func ptrQ(q resource.Quantity) string { return q.String() }

// checkCount: an admitted count lies from the set's minCount (its count
// without one) to its count, unless the Workload waits to grow or for a
// replacement.
func (w *propWorld) checkCount(t require.TestingT, x *KueueWorkload, k int, count int32, o KueueOutcome) {
	if o.Action == KueueGrowWaits || o.Action == KueueReplacementWaits {
		return
	}
	set := &x.Group.PodSets[k]
	lo := set.Count
	if k < len(x.MinCounts) && x.MinCounts[k] > 0 {
		lo = x.MinCounts[k]
	}
	// Admitted without its reclaimable pods (in whole slices), a set
	// may hold fewer than its minCount.
	lo = min(lo, wholeSlicesOf(x.Requests[k], set.Count-x.reclaimable(set.Name)))
	require.LessOrEqual(t, count, set.Count, "%s/%s admitted above its count", o.Workload, set.Name)
	require.GreaterOrEqual(t, count, lo, "%s/%s admitted below its minCount", o.Workload, set.Name)
}

// checkPods checks one admitted set's pods: they are its reservation, on
// nodes of its flavor that the template selects and whose taints it or
// the flavor tolerates, new ones not on cordoned or not-ready nodes; in
// one domain of the required level of the flavor's Topology; in whole
// slices in each domain of a slice level.
func (w *propWorld) checkPods(t require.TestingT, s *placement.Snapshot, x *KueueWorkload, k int, f KueueFlavor, pods []placement.PodSetAssignment, o KueueOutcome, before map[string]int32) {
	set := &x.Group.PodSets[k]
	name := fmt.Sprintf("%s/%s (%s: %s; pods %v)", o.Workload, set.Name, o.Action, o.Message, pods)
	u, ok := s.PodSetUsage(x.Key(), set.Name)
	var total int32
	for _, p := range pods {
		total += p.Count
	}
	if total == 0 || x.PhantomLeader(set.Name) {
		// A phantom leader's pod slot counts for Kueue's decisions in the
		// call only: no pod of it is made (brk8 06).
		require.False(t, ok, "%s: no pods or a phantom, a reservation", name)
		return
	}
	require.True(t, ok, "%s: no reservation", name)
	got := map[string]int32{}
	for _, p := range u.Nodes {
		got[p.Node] = p.Count
	}
	want := map[string]int32{}
	levels := w.levels[f.Topology]
	// The request as the generator wrote it, apart from the converter's.
	req := specRequest(&x.Obj.Spec.PodSets[slices.IndexFunc(x.Obj.Spec.PodSets, func(p kueue.PodSet) bool { return string(p.Name) == set.Name })])
	domains := map[string]bool{}
	slices_ := make([]map[string]int32, len(req.Slices))
	for i := range slices_ {
		slices_[i] = map[string]int32{}
	}
	for _, p := range pods {
		want[p.Node] += p.Count
		n := s.Node(p.NodeID)
		require.Equal(t, p.Node, n.Name, "%s", name)
		for l, v := range f.NodeLabels {
			require.Equal(t, v, n.Labels[l], "%s: node %s not of flavor %s", name, n.Name, f.Name)
		}
		filters := w.nodeFilters(x, k, o)
		require.True(t, slices.ContainsFunc(filters, func(ps *placement.PodSet) bool { return admitsNode(ps, f, n) }),
			"%s: node %s not selected, or a taint of it not tolerated (taints %v)", name, n.Name, n.Taints)
		if _, notReady := w.opts.NotReady[n.Name]; n.Unschedulable || notReady {
			require.LessOrEqual(t, p.Count, before[n.Name], "%s: new pods on cordoned or not-ready node %s", name, n.Name)
		}
		if req.Required != "" {
			domains[domainOf(n, levels, req.Required)] = true
		}
		for i, l := range req.Slices {
			slices_[i][domainOf(n, levels, l.Key)] += p.Count
		}
	}
	require.Equal(t, want, got, "%s: outcome and reservation differ", name)
	require.LessOrEqual(t, len(domains), 1, "%s: pods in %d domains of required level %s", name, len(domains), req.Required)
	if o.Action == KueueReplacementWaits {
		return // its lost pods leave slices incomplete while it waits
	}
	for i, l := range req.Slices {
		for d, n := range slices_[i] {
			require.Zero(t, n%l.Size, "%s: %d pods in %s domain %s: not whole slices of %d", name, n, l.Key, d, l.Size)
		}
	}
}

// admitsNode reports whether set ps's template selects node n and, with
// flavor f's tolerations, tolerates its taints (PreferNoSchedule ignored).
func admitsNode(ps *placement.PodSet, f KueueFlavor, n *placement.Node) bool {
	for l, v := range ps.Template.NodeSelector {
		if n.Labels[l] != v {
			return false
		}
	}
	for _, taint := range n.Taints {
		if taint.Effect == placement.TaintEffectPreferNoSchedule {
			continue
		}
		tol := func(tl placement.Toleration) bool { return tl.Tolerates(taint) }
		if !slices.ContainsFunc(ps.Template.Tolerations, tol) && !slices.ContainsFunc(f.Tolerations, tol) {
			return false
		}
	}
	return true
}

// nodeFilters are the sets whose node filters (selector, tolerations) may
// have chosen the nodes of x's set k (in x.Group.PodSets), outcome o: its
// own, but under the kueue profiles, where Kueue places a PodSetGroup's
// leader by its workers' filters alone (topology.KueueLeader), a leader
// admitted in the pass has its workers' and, as a leader kept may have
// been repaired since (Kueue replaces its pods by its own filters), a set
// of a group otherwise has either set's.
func (w *propWorld) nodeFilters(x *KueueWorkload, k int, o KueueOutcome) []*placement.PodSet {
	set := &x.Group.PodSets[k]
	other := w.groupPartner(x, k)
	if other == nil || !w.opts.Plan.KueueLeaderAware {
		return []*placement.PodSet{set}
	}
	j := groupPartnerIndex(x, k)
	if j < 0 || o.Action != KueueAdmitted && o.Action != KueueReadmitted {
		return []*placement.PodSet{set, other}
	}
	// Kueue's leader is the later set in spec.podSets (Group.PodSets'
	// order), unless it has more pods (findLeaderAndWorkers); a phantom
	// leader has none.
	pods := func(i int) (n int32) {
		if x.PhantomLeader(x.Group.PodSets[i].Name) {
			return 0
		}
		for _, p := range o.PodSets[i] {
			n += p.Count
		}
		return n
	}
	work, lead := min(j, k), max(j, k)
	if pods(lead) > pods(work) {
		work, lead = lead, work
	}
	if k == lead {
		return []*placement.PodSet{other}
	}
	return []*placement.PodSet{set}
}

// groupPartner is the other set of the PodSetGroup of x's set k (in
// x.Group.PodSets), nil when that set is in none. A partner of count 0
// now (shrunk since it was admitted, its pods' nodes chosen by its
// filters) is made from its spec: its nodeSelector and tolerations.
func (w *propWorld) groupPartner(x *KueueWorkload, k int) *placement.PodSet {
	if j := groupPartnerIndex(x, k); j >= 0 {
		return &x.Group.PodSets[j]
	}
	g := ""
	for i := range x.Obj.Spec.PodSets {
		if string(x.Obj.Spec.PodSets[i].Name) == x.Group.PodSets[k].Name {
			g = specRequest(&x.Obj.Spec.PodSets[i]).Group
		}
	}
	for i := range x.Obj.Spec.PodSets {
		ps := &x.Obj.Spec.PodSets[i]
		if g == "" || string(ps.Name) == x.Group.PodSets[k].Name || specRequest(ps).Group != g {
			continue
		}
		out := &placement.PodSet{Name: string(ps.Name)}
		out.Template.NodeSelector = ps.Template.Spec.NodeSelector
		for _, tl := range ps.Template.Spec.Tolerations {
			out.Template.Tolerations = append(out.Template.Tolerations, placement.Toleration{Key: tl.Key, Operator: placement.TolerationOperator(tl.Operator), Value: tl.Value, Effect: placement.TaintEffect(tl.Effect)})
		}
		return out
	}
	return nil
}

// groupPartnerIndex is the index in x.Group.PodSets of the other set of
// the PodSetGroup of x's set k, -1 when there is none.
func groupPartnerIndex(x *KueueWorkload, k int) int {
	reqs := map[string]topology.PodSetRequest{}
	for i := range x.Obj.Spec.PodSets {
		reqs[string(x.Obj.Spec.PodSets[i].Name)] = specRequest(&x.Obj.Spec.PodSets[i])
	}
	g := reqs[x.Group.PodSets[k].Name].Group
	if g == "" {
		return -1
	}
	return slices.IndexFunc(x.Group.PodSets, func(ps placement.PodSet) bool {
		return ps.Name != x.Group.PodSets[k].Name && reqs[ps.Name].Group == g
	})
}

// checkGroups: each PodSetGroup of an admitted Workload x of a required
// level (outcome o, flavors as its admission writes them) holds one
// flavor for both sets, and its leader and workers lie in one domain of
// that level, as Kueue places the group as one request
// (FindTopologyAssignmentsForFlavor). A Workload repaired, resized, or
// waiting for either, is left out of the domains: Kueue replaces a failed
// node's pods set by set, each within its own set's required domain, or
// anywhere when the failed node held all of that set's pods
// (findReplacementAssignment, requiredReplacementDomain), and places an
// elastic group's added pods, with its leader, by a fresh search of their
// own (handleScaleUp), so the leader and its workers may then lie apart.
func (w *propWorld) checkGroups(t require.TestingT, s *placement.Snapshot, q *KueueQueues, x *KueueWorkload, o KueueOutcome) {
	if len(o.PodSets) == 0 {
		return
	}
	// A repair may be worded beside a resize (GrowWaits, Resized).
	repaired := slices.Contains([]KueueAction{KueueRepaired, KueueReplacementWaits, KueueResized, KueueGrowWaits}, o.Action) || strings.Contains(o.Message, "replaced on ")
	adm := x.Obj.Status.Admission
	for k := range x.Group.PodSets {
		j := groupPartnerIndex(x, k)
		if j < k {
			continue // none, or seen from its partner
		}
		a, b := x.Group.PodSets[k].Name, x.Group.PodSets[j].Name
		name := fmt.Sprintf("%s group of %s and %s (%s: %s; pods %v)", o.Workload, a, b, o.Action, o.Message, o.PodSets)
		fa := adm.PodSetAssignments[slices.IndexFunc(adm.PodSetAssignments, func(p kueue.PodSetAssignment) bool { return string(p.Name) == a })]
		fb := adm.PodSetAssignments[slices.IndexFunc(adm.PodSetAssignments, func(p kueue.PodSetAssignment) bool { return string(p.Name) == b })]
		if *fa.Count == 0 && !x.PhantomLeader(a) || *fb.Count == 0 && !x.PhantomLeader(b) {
			continue // a phantom leader's one pod lies beside its workers
		}
		topo := ""
		for r, f := range fa.Flavors {
			if g, ok := fb.Flavors[r]; ok {
				require.Equal(t, f, g, "%s: the group's sets in different flavors of %s", name, r)
			}
			topo = cmp.Or(topo, q.Flavors[string(f)].Topology)
		}
		req := specRequest(&x.Obj.Spec.PodSets[slices.IndexFunc(x.Obj.Spec.PodSets, func(p kueue.PodSet) bool { return string(p.Name) == a })])
		if req.Required == "" || fa.TopologyAssignment == nil || repaired {
			continue
		}
		levels := w.levels[topo]
		domains := map[string]bool{}
		for _, p := range append(slices.Clone(o.PodSets[k]), o.PodSets[j]...) {
			domains[domainOf(s.Node(p.NodeID), levels, req.Required)] = true
		}
		require.LessOrEqual(t, len(domains), 1, "%s: leader and workers in %d domains of required level %s: %v", name, len(domains), req.Required, domains)
	}
}

// zeroInGroup reports whether Workload key of c has a pod set of count 0
// in a PodSetGroup.
func zeroInGroup(c *Cluster, key placement.Key) bool {
	i := slices.IndexFunc(c.KueueWorkloads, func(x *KueueWorkload) bool { return x.Key() == key })
	return i >= 0 && slices.ContainsFunc(c.KueueWorkloads[i].Obj.Spec.PodSets, func(ps kueue.PodSet) bool {
		return ps.Count == 0 && specRequest(&ps).Group != ""
	})
}

// hasGroup reports whether x has a PodSetGroup of two sets with pods.
func hasGroup(x *KueueWorkload) bool {
	for k := range x.Group.PodSets {
		if groupPartnerIndex(x, k) >= 0 {
			return true
		}
	}
	return false
}

// byNode is each set's pods in node order.
// heldSet is what an outcome says one pod set holds: its pods in node
// order and its flavors.
type heldSet struct {
	pods    []placement.PodSetAssignment
	flavors string
}

// heldSets are the sets outcome o says hold something, pods or flavors
// (in the order of its Workload's Group.PodSets): a set that holds neither
// is left out, as, read again, a set whose pods are all reclaimable and
// that holds none is a set of count 0, without an entry.
func heldSets(o KueueOutcome) []heldSet {
	var out []heldSet
	for k, pods := range byNode(o.PodSets) {
		h := heldSet{pods: pods}
		if o.Flavors != nil {
			h.flavors = o.Flavors[k]
		}
		if len(h.pods) > 0 || h.flavors != "" {
			out = append(out, h)
		}
	}
	return out
}

func byNode(sets [][]placement.PodSetAssignment) [][]placement.PodSetAssignment {
	out := make([][]placement.PodSetAssignment, len(sets))
	for k, ps := range sets {
		out[k] = slices.SortedFunc(slices.Values(ps), func(x, y placement.PodSetAssignment) int { return int(x.NodeID) - int(y.NodeID) })
	}
	return out
}

// domainOf is node n's domain at level key of a Topology of levels: the
// values of every level down to it.
func domainOf(n *placement.Node, levels []string, key string) string {
	var vs []string
	for _, l := range levels {
		vs = append(vs, n.Labels[l])
		if l == key {
			break
		}
	}
	return strings.Join(vs, "/")
}

// Over random Kueue worlds — a block > rack > host cluster with taints,
// cordoned and not-ready nodes; one or two Topologies; ResourceFlavors with
// and without Topology, selecting pools or a block, tainted or
// tolerating; ClusterQueues of one to three resource groups with nominal
// quotas from 0 and namespaceSelectors; LocalQueues, some missing; and
// Workloads of one to three pod sets (counts from 0, minCounts, required,
// preferred or no level, slices, priorities, PodSetGroups of a leader and
// workers named in annotations or topologyRequest) — admitted once, then
// perturbed (counts changed, nodes gone, failed, tainted NoExecute,
// cordoned, new Workloads) and admitted again, AdmitKueueWorkloads keeps
// every invariant: per ClusterQueue, flavor and resource, the admitted
// usage is at most the nominal quota; every placed pod is on a node of
// its set's one topology flavor, selected, tolerated, within capacity,
// new pods off cordoned and not-ready nodes; a set lies in one domain of
// its required level and in whole slices, a PodSetGroup's leader and
// workers in one flavor and one domain of the group's required level (a
// leader under the kueue profiles on nodes its workers' filters admit);
// admitted counts lie from the minCount to the count; a Workload held as
// Kueue's assumption has nothing written, and its quota and its held
// pods fit beside the admitted ones. The pass is a fixed point (unless it stopped a
// preemption cycle or held a Workload unwritten): run again over its
// own output, every Workload holding quota is Kept (or waits as it did)
// with the same pods and flavors, every pending one stays pending with
// the same reason, and the statuses do not change. It is deterministic:
// the Workloads in another order decide alike.
func TestProp_KueueAdmitQueues(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := genPropWorld(rt)
		c, s, outs := w.admit(rt)
		w.opts.NotReady = c.NotReady
		w.checkAdmission(rt, c, s, outs, nil)

		w.perturb(rt)
		c, err := Load(w.objects())
		require.NoError(rt, err)
		before := admittedHosts(c)
		w.opts.NotReady = c.NotReady
		other := w.clone()
		other.wls = rapid.Permutation(other.wls).Draw(rt, "order")

		c, s, outs = w.admit(rt)
		w.checkAdmission(rt, c, s, outs, before)

		// Determinism: the same Workloads in another order.
		oc, _, oouts := other.admit(rt)
		require.Equal(rt, outs, oouts, "another Workload order decides otherwise")
		for _, x := range oc.KueueWorkloads {
			i := slices.IndexFunc(c.KueueWorkloads, func(y *KueueWorkload) bool { return y.Key() == x.Key() })
			require.Equal(rt, c.KueueWorkloads[i].Obj.Status, x.Obj.Status, "%s: another Workload order writes another status", x.Key())
		}

		// Fixed point: a second pass over the written objects, unless
		// gangsim stopped a preemption cycle (Kueue would go on
		// preempting and readmitting in turn).
		if slices.ContainsFunc(outs, func(o KueueOutcome) bool { return strings.Contains(o.Message, cycleWords) }) {
			return
		}
		// Nor when a Workload is held unwritten (Kueue's assumed one whose
		// admission its API refuses): it held quota and nodes its status
		// cannot record, so the second pass plans it anew on the room the
		// first left to the others.
		if slices.ContainsFunc(outs, func(o KueueOutcome) bool { return strings.Contains(o.Message, "Kueue assumes it") }) {
			return
		}
		statuses := map[placement.Key]kueue.WorkloadStatus{}
		for _, x := range c.KueueWorkloads {
			statuses[x.Key()] = *x.Obj.Status.DeepCopy()
		}
		c2, _, outs2 := w.admit(rt)
		progressed := map[placement.Key]bool{}
		require.Len(rt, outs2, len(outs))
		// A Workload waiting to grow or for a replacement is tried once,
		// before the pending ones: room that an eviction or a preemption
		// frees later in the pass it finds only in the next, which then
		// leaves less to the pending ones and words their reasons anew.
		anyProgressed := false
		for i, o := range outs {
			if waitedThenProgressed(o.Action, outs2[i].Action) {
				anyProgressed = true
			}
		}
		for i, o := range outs {
			o2 := outs2[i]
			require.Equal(rt, o.Workload, o2.Workload)
			switch o.Action {
			case KueuePending, KueueEvicted, KueuePreempted:
				require.Equal(rt, KueuePending, o2.Action, "%s: %s", o2.Workload, o2.Message)
				if o.Action == KueuePending && !anyProgressed {
					require.Equal(rt, o.Message, o2.Message, "%s", o2.Workload)
				}
				// A known gap (TestKueuePhantomAfterPreemptionInPass): a
				// group's set shrunk to count 0 while admitted becomes a
				// phantom leader only in the pass after the one that
				// preempts or evicts its Workload, whose reason may then
				// name another set.
				progressed[o.Workload] = anyProgressed || o.Action != KueuePending && zeroInGroup(c2, o.Workload)
			case KueueGrowWaits, KueueReplacementWaits:
				// Its reason may name the room left as it was when it was
				// tried: with the Workloads admitted later in the pass
				// held from the start, less. A Workload evicted later in
				// the pass may leave room it finds only in the next one
				// (the running Workloads are tried once per pass).
				if waitedThenProgressed(o.Action, o2.Action) {
					progressed[o.Workload] = true
					continue
				}
				require.Equal(rt, o.Action, o2.Action, "%s: %s", o2.Workload, o2.Message)
			default:
				require.Equal(rt, KueueKept, o2.Action, "%s after %s: %s", o2.Workload, o.Action, o2.Message)
			}
			// Kept lists a set's pods in node order, a new admission in
			// rank order.
			require.Equal(rt, heldSets(o), heldSets(o2), "%s", o.Workload)
		}
		for _, x := range c2.KueueWorkloads {
			if progressed[x.Key()] {
				continue
			}
			require.Equal(rt, statuses[x.Key()], x.Obj.Status, "%s: a second pass changes the status", x.Key())
		}
	})
}

// A node outside Kueue's TAS snapshot (cordoned or not Ready) in a block
// of its own changes no admission, with a node overcommitted elsewhere:
// Kueue leaves it out and counts the other nodes alike (the tester brk7's finding 01: gangsim's filter for
// such nodes once turned the negative counts of overcommitted ones off).
func TestProp_KueueAdmitOutOfTASNodeChangesNothing(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := genPropWorld(rt)
		// A pod outside Kueue overcommits a node, which the kueue profiles
		// count negative in its domains.
		host := rapid.SampledFrom(w.nodes).Draw(rt, "overcommitted")
		big := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "ns1"}, Spec: corev1.PodSpec{NodeName: host.Name,
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewQuantity(host.Status.Allocatable.Cpu().Value()+int64(rapid.IntRange(1, 16).Draw(rt, "over")), resource.DecimalSI)}}}}}}
		w.rest = append(slices.Clip(w.rest), big)
		other := w.clone()
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "zz-out", Labels: map[string]string{
			corev1.LabelHostname: "zz-out", "block": "bz", "rack": "rz", "pool": "a"}}}
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110")}
		if rapid.Bool().Draw(rt, "cordoned") {
			n.Spec.Unschedulable = true
		} else {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(propNow.Add(-time.Second))}}
		}
		other.nodes = append(other.nodes, n)
		_, _, outs := w.admit(rt)
		_, _, oouts := other.admit(rt)
		require.Len(rt, oouts, len(outs))
		for i, o := range outs {
			require.Equal(rt, o.Workload, oouts[i].Workload)
			require.Equal(rt, o.Action, oouts[i].Action, "%s: %s / with the node: %s", o.Workload, o.Message, oouts[i].Message)
			require.Equal(rt, heldSets(o), heldSets(oouts[i]), "%s", o.Workload)
		}
	})
}

// waitedThenProgressed reports whether a Workload that waited to grow or
// for a replacement (first) moved on in a later pass (then): repaired,
// resized, or replaced and now waiting to grow.
func waitedThenProgressed(first, then KueueAction) bool {
	if first != KueueGrowWaits && first != KueueReplacementWaits {
		return false
	}
	return then == KueueRepaired || then == KueueResized || first == KueueReplacementWaits && then == KueueGrowWaits
}

// kueueAdmitSeeds are small Kueue worlds for FuzzKueueAdmit, each under
// 1 KB in flow style, over one or two racks of one host: a Workload of a
// required rack and a minCount, without queues; one with a minCount
// through a ClusterQueue of a topology flavor, and of a flavor without
// one; a PodSetGroup of a 2-CPU leader and two 1-CPU workers, without
// queues, at a required rack under the kueue profile and a preferred one
// under kueue-balanced ([fuzzProfile]).
var kueueAdmitSeeds = []string{
	"# profile: kueue\n" + kueueSeedTopology + kueueSeedNodes + kueueSeedGroup("required"),
	"# profile: kueue-balanced\n" + kueueSeedTopology + kueueSeedNodes + kueueSeedGroup("preferred"),
	kueueSeedTopology + kueueSeedNodes +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec: {queueName: lq, podSets: [{name: m, count: 6, minCount: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]}\n",
	kueueSeedTopology + kueueSeedNode + kueueSeedQueue("f", "nodeLabels: {pool: p}, topologyName: t") + kueueSeedWorkload,
	kueueSeedNodes + kueueSeedQueue("g", "") + kueueSeedWorkload,
}

// The parts of kueueAdmitSeeds.
const (
	kueueSeedTopology = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n"
	kueueSeedNode     = "---\napiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {kubernetes.io/hostname: a, rack: r1, pool: p}}\nstatus: {allocatable: {cpu: '4'}}\n"
	kueueSeedNodes    = kueueSeedNode + "---\napiVersion: v1\nkind: Node\nmetadata: {name: b, labels: {kubernetes.io/hostname: b, rack: r2, pool: p}}\nstatus: {allocatable: {cpu: '2'}}\n"
	kueueSeedWorkload = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec: {queueName: lq, podSets: [{name: m, count: 4, minCount: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]}\n"
)

// kueueSeedGroup is a Workload of a PodSetGroup, its leader and workers
// asking for a rack as kind says (required or preferred) in
// topologyRequest.
func kueueSeedGroup(kind string) string {
	set := func(name, count, cpu string) string {
		return "{name: " + name + ", count: " + count + ", topologyRequest: {" + kind + ": rack, podSetGroupName: g}, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '" + cpu + "'}}}]}}}"
	}
	return "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec: {queueName: lq, podSets: [" + set("l", "1", "2") + ", " + set("w", "2", "1") + "]}\n"
}

// kueueSeedQueue is ResourceFlavor flavor of spec fields spec (flow
// style), the ClusterQueue q of 3 CPUs in it, and LocalQueue lq.
func kueueSeedQueue(flavor, spec string) string {
	return "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: " + flavor + "}\nspec: {" + spec + "}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: " + flavor + ", resources: [{name: cpu, nominalQuota: 3}]}]}]}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq}\nspec: {clusterQueue: q}\n"
}

// fuzzProfile is the planner profile FuzzKueueAdmit admits input in
// under, one gangsim may use for Kueue Workloads: the one its first line
// names as a YAML comment ("# profile: kueue-balanced"), else one drawn
// from its bytes (their sum modulo 3), so that a corpus entry stays one
// string and each mutation may change the profile too.
func fuzzProfile(in string) topology.Profile {
	profiles := []topology.Profile{topology.KueueProfile, topology.KueueBalancedProfile, topology.GangschedProfile}
	first, _, _ := strings.Cut(in, "\n")
	if name, ok := strings.CutPrefix(first, "# profile: "); ok {
		if p, err := topology.ParseProfile(strings.TrimSpace(name)); err == nil {
			return p
		}
	}
	sum := 0
	for i := range len(in) {
		sum += int(in[i])
	}
	return profiles[sum%len(profiles)]
}

// FuzzKueueAdmit: any manifest that loads, of at most 64 nodes and 16
// Workloads of at most 256 pods in all, is admitted (over its one
// Topology, or the Topologies its ResourceFlavors name), under the
// planner profile [fuzzProfile] draws, without a panic;
// an error is an input error naming its object and field; and, when no
// Workload of the input holds quota, what admission reserves fits every
// node.
func FuzzKueueAdmit(f *testing.F) {
	for _, seed := range kueueAdmitSeeds {
		if len(seed) >= 1<<10 {
			f.Fatalf("a seed of %d bytes: keep them under 1 KB, as minimizing costs with size", len(seed))
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
		if err != nil {
			return
		}
		c, err := LoadWithOptions(objs, LoadOptions{MaxPods: 256})
		if err != nil || len(c.KueueWorkloads) == 0 || len(c.KueueWorkloads) > 16 || c.Snapshot.NumNodes() > 64 {
			return
		}
		pods := 0
		for _, w := range c.KueueWorkloads {
			for _, ps := range w.Obj.Spec.PodSets {
				pods += int(ps.Count)
			}
		}
		if pods > 256 {
			return
		}
		var tree *topology.Tree
		if c.KueueLevels != nil {
			if tree, err = topology.NewTree(c.Snapshot, c.KueueLevels); err != nil {
				requireInputError(t, err)
				return
			}
		} else if c.KueueQueues == nil {
			return // nothing to admit over, as gangsim says
		}
		// Bound pods and admissions in the input may overcommit a node:
		// only a node that admission leaves over its allocatable, and was
		// not before, with no admission in the input, is wrong.
		over := map[placement.NodeID]bool{}
		for id := range placement.NodeID(c.Snapshot.NumNodes()) {
			for _, r := range c.Snapshot.Resources() {
				over[id] = over[id] || c.Snapshot.Free(id, r) < 0
			}
		}
		held := slices.ContainsFunc(c.KueueWorkloads, func(w *KueueWorkload) bool { return w.Admitted })
		s, _, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, KueueOptions{Now: propNow, NotReady: c.NotReady, Queues: c.KueueQueues, Plan: fuzzProfile(in).Options()})
		if err != nil {
			requireInputError(t, err)
			return
		}
		for id := range placement.NodeID(s.NumNodes()) {
			for _, r := range s.Resources() {
				if !held && !over[id] && s.Free(id, r) < 0 {
					t.Fatalf("node %s over its allocatable %s after admission", s.Node(id).Name, r)
				}
			}
		}
	})
}

// checkVictims: a Workload preempted in the pass (its outcome names its
// preemptor) was preempted as its preemptor's ClusterQueue's
// spec.preemption allows: within that ClusterQueue under
// withinClusterQueue (a lower priority, or an equal one created later
// under LowerOrNewerEqualPriority; never under Never), or from another
// ClusterQueue of its cohort under reclaimWithinCohort; with the
// Preempted condition's reason saying which.
func (w *propWorld) checkVictims(t require.TestingT, c *Cluster, outs []KueueOutcome, byKey map[placement.Key]*KueueWorkload) {
	q := c.KueueQueues
	cqOf := func(x *KueueWorkload) string {
		return q.LocalQueues[placement.Key{Namespace: x.Obj.Namespace, Name: string(x.Obj.Spec.QueueName)}]
	}
	for _, o := range outs {
		by, ok := strings.CutPrefix(o.Message, "preempted by ")
		if !ok {
			continue
		}
		require.Contains(t, []KueueAction{KueuePreempted, KueueReadmitted}, o.Action, "%s: %s", o.Workload, o.Message)
		name, reason, _ := strings.Cut(strings.SplitN(by, ";", 2)[0], " (")
		reason = strings.TrimSuffix(reason, ")")
		var p *KueueWorkload
		for k, x := range byKey {
			if k.String() == name {
				p = x
			}
		}
		require.NotNil(t, p, "%s: preemptor %q", o.Workload, name)
		v := byKey[o.Workload]
		pcq, vcq := cqOf(p), cqOf(v)
		pre := w.preemption[pcq]
		what := fmt.Sprintf("%s (%s, priority %d, created %s) preempted by %s (%s, priority %d, created %s) for %s under %+v",
			o.Workload, vcq, v.Priority, v.Created.Format(time.TimeOnly), name, pcq, p.Priority, p.Created.Format(time.TimeOnly), reason, pre)
		if vcq == pcq {
			require.Equal(t, kueue.InClusterQueueReason, reason, what)
			switch pre.WithinClusterQueue {
			case kueue.PreemptionPolicyLowerPriority:
				require.Less(t, v.Priority, p.Priority, what)
			case kueue.PreemptionPolicyLowerOrNewerEqualPriority:
				require.True(t, v.Priority < p.Priority || v.Priority == p.Priority && p.Created.Before(v.Created), what)
			default:
				require.Fail(t, "a victim under withinClusterQueue Never", what)
			}
		} else {
			reasons := []string{kueue.InCohortReclamationReason, kueue.InCohortReclaimWhileBorrowingReason}
			if w.fairSharing() {
				reasons = append(reasons, kueue.InCohortFairSharingReason)
			}
			require.Contains(t, reasons, reason, what)
			require.NotEmpty(t, w.cohort[pcq], what)
			require.Equal(t, w.cohort[pcq], w.cohort[vcq], what)
			switch pre.ReclaimWithinCohort {
			case kueue.PreemptionPolicyLowerPriority:
				require.Less(t, v.Priority, p.Priority, what)
			case kueue.PreemptionPolicyAny:
			default:
				require.Fail(t, "a victim under reclaimWithinCohort Never", what)
			}
			if reason == kueue.InCohortReclaimWhileBorrowingReason {
				// borrowWithinCohort LowerPriority: a lower priority, at
				// most the threshold.
				b := pre.BorrowWithinCohort
				require.True(t, b != nil && b.Policy == kueue.BorrowWithinCohortPolicyLowerPriority, what)
				require.Less(t, v.Priority, p.Priority, what)
				if b.MaxPriorityThreshold != nil {
					require.LessOrEqual(t, v.Priority, *b.MaxPriorityThreshold, what)
				}
			}
		}
		if o.Action == KueuePreempted {
			cond := apimeta.FindStatusCondition(v.Obj.Status.Conditions, kueue.WorkloadPreempted)
			require.NotNil(t, cond, what)
			require.Equal(t, [2]string{"True", reason}, [2]string{string(cond.Status), cond.Reason}, what)
		}
	}
}

// checkStrictFIFO: in a StrictFIFO ClusterQueue, a Workload pending from
// the pass's start (never admitted, or evicted from a failed node) and
// left pending blocks those queued after it: none of them was admitted in
// the pass — unless it holds its quota unwritten, as Kueue's assumed
// Workload whose admission its API refuses ([admitter.stick]), or may
// have held it earlier in the pass: a PodSetGroup whose split Kueue's
// search loses (plan's KueueLeaderAware or KueueBalanced) is held so,
// the Workloads after it tried while its admission is in flight, and
// once one of them is admitted it is tried again and may no longer fit
// (kueueassumed.go), left pending behind those admitted meanwhile. One never tried says so, naming a head, and only behind a
// Workload left waiting (pending, evicted or preempted). Elsewhere one
// waits behind a head only when that head stays its ClusterQueue's head
// because room kept by a blocked head took its own, cycle after cycle.
func checkStrictFIFO(t require.TestingT, c *Cluster, outs []KueueOutcome, byKey map[placement.Key]*KueueWorkload, plan topology.PlanOptions) {
	q := c.KueueQueues
	if q == nil {
		return
	}
	blocking := map[string]placement.Key{} // ClusterQueue → its first Workload pending from the start and left pending
	waiting := map[string]bool{}           // ClusterQueue → one left waiting so far
	message := map[string]string{}
	for _, o := range outs {
		message[o.Workload.String()] = o.Message
	}
	for _, o := range outs {
		cq, why := q.route(byKey[o.Workload])
		if why != "" || !cq.StrictFIFO {
			if rest, ok := strings.CutPrefix(o.Message, "waits behind "); ok {
				head, _, _ := strings.Cut(rest, ",")
				// The head may have been preempted and queued again first.
				require.True(t, strings.HasSuffix(message[head], noLongerFits), "%s: %s; its head: %s", o.Workload, o.Message, message[head])
			}
			continue
		}
		if head, ok := blocking[cq.Name]; ok {
			require.NotContains(t, []KueueAction{KueueAdmitted, KueueReadmitted}, o.Action, "%s admitted behind %s, pending in StrictFIFO %s; %s", o.Workload, head, cq.Name, summary(outs, byKey))
		}
		if strings.HasPrefix(o.Message, "waits behind") {
			require.True(t, waiting[cq.Name], "%s: %s; %s", o.Workload, o.Message, summary(outs, byKey))
		}
		if strings.Contains(o.Message, "Kueue assumes it") {
			// Assumed and never written, every cycle: while its
			// admission is in flight the Workloads after it are tried.
			continue
		}
		mayHaveHeld := (plan.KueueLeaderAware || plan.KueueBalanced) && hasGroup(byKey[o.Workload])
		switch o.Action {
		case KueuePending, KueueEvicted:
			// One perhaps assumed, then tried again and left pending,
			// blocks none.
			if _, ok := blocking[cq.Name]; !ok && !mayHaveHeld {
				blocking[cq.Name] = o.Workload
			}
			waiting[cq.Name] = true
		case KueuePreempted:
			waiting[cq.Name] = true
		}
	}
}

// The worlds of TestProp_KueueAdmitQueues do see preemption: within a
// ClusterQueue and, in a cohort, reclaim, with borrowing too; a StrictFIFO
// head blocking another; and a head skipped cycle after cycle for the room
// a blocked head keeps; else checkVictims and checkStrictFIFO would check
// nothing.
func TestProp_KueueAdmitQueuesPreempts(t *testing.T) {
	seen := map[string]int{}
	// Reclaim needs a cohort, a policy and a member borrowing, and a head
	// skipped for kept room needs a blocked head beside a fitting one:
	// about one world in a thousand, so up to 300 runs of 100 worlds
	// (30 once left it unseen in CI, as a 1-in-20 draw does).
	rounds := 0
	for range 300 {
		rounds++
		rapid.Check(t, func(rt *rapid.T) {
			w := genPropWorld(rt)
			_, _, outs := w.admit(rt)
			w.perturb(rt)
			_, _, outs2 := w.admit(rt)
			for _, o := range append(outs, outs2...) {
				if strings.Contains(o.Message, cycleWords) {
					seen["cycle stopped"]++
				}
				if strings.HasPrefix(o.Message, "waits behind") {
					seen["StrictFIFO blocks"]++
				}
				if o.Message == noLongerFits {
					seen["kept room blocks"]++
				}
				if _, by, ok := strings.Cut(o.Message, "preempted by "); ok {
					seen[strings.TrimSuffix(strings.SplitN(strings.SplitN(by, ";", 2)[0], " (", 2)[1], ")")]++
				}
			}
		})
		if seen[kueue.InClusterQueueReason] > 0 && seen[kueue.InCohortReclamationReason] > 0 && seen[kueue.InCohortReclaimWhileBorrowingReason] > 0 && seen["StrictFIFO blocks"] > 0 && seen["kept room blocks"] > 0 {
			break
		}
	}
	require.Positive(t, seen[kueue.InClusterQueueReason], "no preemption within a ClusterQueue: %v", seen)
	require.Positive(t, seen[kueue.InCohortReclamationReason], "no reclaim in a cohort: %v", seen)
	require.Positive(t, seen[kueue.InCohortReclaimWhileBorrowingReason], "no reclaim while borrowing: %v", seen)
	require.Positive(t, seen["StrictFIFO blocks"], "no StrictFIFO head blocking another: %v", seen)
	require.Positive(t, seen["kept room blocks"], "no head skipped cycle after cycle for room a blocked head keeps: %v", seen)
	t.Logf("victims by reason, in %d runs of 100 worlds: %v", rounds, seen)
}

// TestProp_KueueAdmitQueuesDrainsAndReclaims: the perturbations that stop
// queues and make pods reclaimable reach admission, so that
// TestProp_KueueAdmitQueues sees them: a HoldAndDrain ClusterQueue and
// LocalQueue each evict an admitted Workload, a Hold one keeps one
// running, and a Workload with reclaimable pods is admitted with fewer
// pods than its count.
func TestProp_KueueAdmitQueuesDrainsAndReclaims(t *testing.T) {
	seen := map[string]int{}
	rounds := 0
	for range 20 {
		rounds++
		rapid.Check(t, func(rt *rapid.T) {
			w := genPropWorld(rt)
			w.admit(rt)
			w.perturb(rt)
			c, _, outs := w.admit(rt)
			for _, o := range outs {
				for _, r := range []string{kueue.WorkloadEvictedByClusterQueueStopped, kueue.WorkloadEvictedByLocalQueueStopped} {
					if strings.HasPrefix(o.Message, "evicted ("+r+")") {
						seen[r]++
					}
				}
				x := c.KueueWorkloads[slices.IndexFunc(c.KueueWorkloads, func(x *KueueWorkload) bool { return x.Key() == o.Workload })]
				if o.Action == KueueKept && c.KueueQueues.inactive(c.KueueQueues.ClusterQueues[string(x.Obj.Status.Admission.ClusterQueue)]) == "spec.stopPolicy is Hold" {
					seen["kept under Hold"]++
				}
				if (o.Action == KueueAdmitted || o.Action == KueueReadmitted) && len(x.Obj.Status.ReclaimablePods) > 0 {
					for _, psa := range x.Obj.Status.Admission.PodSetAssignments {
						if rc := x.reclaimable(string(psa.Name)); rc > 0 && *psa.Count < x.specCount(string(psa.Name)) {
							seen["admitted without reclaimable pods"]++
						}
					}
				}
			}
		})
		if len(seen) == 4 {
			break
		}
	}
	for _, k := range []string{kueue.WorkloadEvictedByClusterQueueStopped, kueue.WorkloadEvictedByLocalQueueStopped, "kept under Hold", "admitted without reclaimable pods"} {
		require.Positive(t, seen[k], "never %s: %v", k, seen)
	}
	t.Logf("in %d runs of 100 worlds: %v", rounds, seen)
}

// The worlds of TestProp_KueueAdmitQueues do see PodSetGroups: admitted
// at a required level under the kueue profiles' leader-aware search and
// under gangsched's group search, admitted at a preferred level, and held
// as Kueue's assumption of a split that lost a set; else checkGroups and
// the held Workloads' checks would check little.
func TestProp_KueueAdmitQueuesGroups(t *testing.T) {
	seen := map[string]int{}
	want := []string{"required, leader-aware", "required, gangsched", "preferred", "held split"}
	rounds := 0
	for range 30 {
		rounds++
		rapid.Check(t, func(rt *rapid.T) {
			w := genPropWorld(rt)
			for pass := range 2 {
				if pass == 1 {
					w.perturb(rt)
				}
				c, _, outs := w.admit(rt)
				for _, o := range outs {
					x := c.KueueWorkloads[slices.IndexFunc(c.KueueWorkloads, func(x *KueueWorkload) bool { return x.Key() == o.Workload })]
					if o.Held && strings.Contains(o.Message, "PodSetGroup") {
						seen["held split"]++
					}
					if o.Action != KueueAdmitted && o.Action != KueueReadmitted {
						continue
					}
					for k := range x.Group.PodSets {
						j := groupPartnerIndex(x, k)
						if j < k || len(o.PodSets[k]) == 0 || len(o.PodSets[j]) == 0 {
							continue
						}
						switch r := specRequest(&x.Obj.Spec.PodSets[slices.IndexFunc(x.Obj.Spec.PodSets, func(p kueue.PodSet) bool { return string(p.Name) == x.Group.PodSets[k].Name })]); {
						case r.Preferred != "":
							seen["preferred"]++
						case w.opts.Plan.KueueLeaderAware:
							seen["required, leader-aware"]++
						default:
							seen["required, gangsched"]++
						}
					}
				}
			}
		})
		if !slices.ContainsFunc(want, func(k string) bool { return seen[k] == 0 }) {
			break
		}
	}
	for _, k := range want {
		require.Positive(t, seen[k], "never a group %s: %v", k, seen)
	}
	t.Logf("in %d runs of 100 worlds: %v", rounds, seen)
}
