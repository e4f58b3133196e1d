package kube

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Bad ResourceFlavors and ClusterQueues are refused naming the object and
// the field.
func TestConvertKueueQueues_Errors(t *testing.T) {
	topo := kueue.TopologyReference("t")
	for _, c := range []struct {
		name string
		obj  any
		want string
	}{
		{"label key", &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Spec: kueue.ResourceFlavorSpec{NodeLabels: map[string]string{"bad key": "x"}}},
			`Kueue ResourceFlavor "f": spec.nodeLabels[bad key]`},
		{"taint effect", &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Spec: kueue.ResourceFlavorSpec{NodeTaints: []corev1.Taint{{Key: "k", Effect: "Never"}}}},
			`Kueue ResourceFlavor "f": spec.nodeTaints[0].effect`},
		{"toleration", &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Spec: kueue.ResourceFlavorSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpEqual}}}},
			`Kueue ResourceFlavor "f": spec.tolerations[0].operator`},
		{"topology without labels", &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Spec: kueue.ResourceFlavorSpec{TopologyName: &topo}},
			`Kueue ResourceFlavor "f": spec.nodeLabels`},
		{"resource covered twice", cq("q", []kueue.ResourceGroup{rg([]corev1.ResourceName{"cpu"}, "a"), rg([]corev1.ResourceName{"cpu"}, "b")}),
			`Kueue ClusterQueue "q": spec.resourceGroups[1].coveredResources[0]`},
		{"flavor twice", cq("q", []kueue.ResourceGroup{rg([]corev1.ResourceName{"cpu"}, "a"), rg([]corev1.ResourceName{"memory"}, "a")}),
			`Kueue ClusterQueue "q": spec.resourceGroups[1].flavors[0].name`},
		{"resources out of order", cq("q", []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{"cpu", "memory"},
			Flavors: []kueue.FlavorQuotas{{Name: "a", Resources: []kueue.ResourceQuota{{Name: "memory"}, {Name: "cpu"}}}}}}),
			`Kueue ClusterQueue "q": spec.resourceGroups[0].flavors[0].resources[0].name`},
		{"negative quota", cq("q", []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{"cpu"},
			Flavors: []kueue.FlavorQuotas{{Name: "a", Resources: []kueue.ResourceQuota{{Name: "cpu", NominalQuota: resource.MustParse("-1")}}}}}}),
			`Kueue ClusterQueue "q": spec.resourceGroups[0].flavors[0].resources[0].nominalQuota`},
		{"local queue", &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lq"}}, `Kueue LocalQueue "ns/lq": spec.clusterQueue`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in kueueQueueInputs
			err := in.add(c.obj)
			var fe *placement.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Contains(t, err.Error(), c.want)
		})
	}
	var in kueueQueueInputs
	require.NoError(t, in.add(&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f"}}))
	require.ErrorIs(t, in.add(&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "f"}}), placement.ErrDuplicate)
}

func cq(name string, rgs []kueue.ResourceGroup) *kueue.ClusterQueue {
	return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.ClusterQueueSpec{ResourceGroups: rgs, NamespaceSelector: &metav1.LabelSelector{}}}
}

// rg is a resource group of flavors, each with quota 8 of every covered
// resource.
func rg(covered []corev1.ResourceName, flavors ...string) kueue.ResourceGroup {
	g := kueue.ResourceGroup{CoveredResources: covered}
	for _, f := range flavors {
		fq := kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(f)}
		for _, r := range covered {
			fq.Resources = append(fq.Resources, kueue.ResourceQuota{Name: r, NominalQuota: resource.MustParse("8")})
		}
		g.Flavors = append(g.Flavors, fq)
	}
	return g
}

// flavorWorld is a ClusterQueue "cq" over flavors tas (Topology t: rack >
// host, nodes pool=tas, tainted gpu:NoSchedule and tolerated by the
// flavor), plain (nodes pool=plain) and tainted (nodes pool=plain, a
// NoSchedule taint it does not tolerate), all covering cpu with quota 8,
// reached from LocalQueue ns/lq.
func flavorWorld(t *testing.T, order ...string) *KueueQueues {
	t.Helper()
	var in kueueQueueInputs
	topo := kueue.TopologyReference("t")
	for _, o := range []any{
		&kueue.Topology{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Spec: kueue.TopologySpec{Levels: []kueue.TopologyLevel{{NodeLabel: "rack"}, {NodeLabel: corev1.LabelHostname}}}},
		&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "tas"}, Spec: kueue.ResourceFlavorSpec{NodeLabels: map[string]string{"pool": "tas"}, TopologyName: &topo,
			Tolerations: []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}}},
		&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Spec: kueue.ResourceFlavorSpec{NodeLabels: map[string]string{"pool": "plain"}}},
		&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "tainted"}, Spec: kueue.ResourceFlavorSpec{NodeLabels: map[string]string{"pool": "plain"},
			NodeTaints: []corev1.Taint{{Key: "spot", Value: "yes", Effect: corev1.TaintEffectNoSchedule}}}},
		cq("cq", []kueue.ResourceGroup{rg([]corev1.ResourceName{"cpu"}, order...)}),
		&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq"}},
	} {
		require.NoError(t, in.add(o))
	}
	_, q := in.result()
	require.NotNil(t, q)
	return q
}

// kueueWL is a pending Workload in ns/lq of one pod set of count pods
// of cpu CPUs, with template annotations ann and pod spec changes.
func kueueWL(t *testing.T, count int32, cpu string, ann map[string]string, spec func(*corev1.PodSpec)) *KueueWorkload {
	t.Helper()
	ps := kueue.PodSet{Name: "main", Count: count, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: ann},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse(cpu)}}}}}}}
	if spec != nil {
		spec(&ps.Template.Spec)
	}
	w, err := ConvertKueueWorkload(&kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w"}, Spec: kueue.WorkloadSpec{QueueName: "lq", PodSets: []kueue.PodSet{ps}}}, nil)
	require.NoError(t, err)
	return w
}

// Flavor assignment takes the first flavor of the group's order that the
// pod set may use and whose unused nominal quota holds it, with Kueue's
// reasons when none does.
func TestAssignFlavors(t *testing.T) {
	rack := map[string]string{KueueRequiredTopology: "rack"}
	for _, c := range []struct {
		name   string
		order  []string
		count  int32
		cpu    string
		ann    map[string]string
		spec   func(*corev1.PodSpec)
		used   int64 // millicores of the first flavor in use
		flavor string
		why    string
	}{
		{name: "no request skips the topology flavor", order: []string{"tas", "plain"}, count: 2, cpu: "1", flavor: "plain"},
		{name: "a level takes the topology flavor", order: []string{"plain", "tas"}, count: 2, cpu: "1", ann: rack, flavor: "tas"},
		{name: "quota used: next flavor", order: []string{"plain", "tainted"}, count: 2, cpu: "1", used: 7000,
			spec: func(s *corev1.PodSpec) {
				s.Tolerations = []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}}
			}, flavor: "tainted"},
		{name: "untolerated flavor taint", order: []string{"tainted"}, count: 1, cpu: "1",
			why: "couldn't assign flavors to pod set main: untolerated taint spot=yes:NoSchedule in flavor tainted"},
		{name: "nodeSelector on a flavor key", order: []string{"plain", "tas"}, count: 1, cpu: "1", ann: rack,
			spec: func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"pool": "tas"} }, flavor: "tas"},
		{name: "nodeSelector contradicts", order: []string{"plain"}, count: 1, cpu: "1",
			spec: func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"pool": "other", "zone": "a"} },
			why:  "couldn't assign flavors to pod set main: flavor plain doesn't match node affinity"},
		{name: "over nominal quota", order: []string{"plain"}, count: 3, cpu: "3",
			why: "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor plain, earlier pod sets' requests (0) + this pod set's request (9) > nominal quota (8)"},
		{name: "unused quota short", order: []string{"plain"}, count: 2, cpu: "1", used: 7500,
			why: "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor plain, 1500m more needed"},
		{name: "topology flavor only for topology", order: []string{"tas", "plain"}, count: 1, cpu: "1", ann: map[string]string{KueueRequiredTopology: "zone"},
			why: "couldn't assign flavors to pod set main: Flavor \"plain\" does not support TopologyAwareScheduling, Flavor \"tas\" does not contain the requested level (zone)"},
		{name: "requests past int64 are over any quota", order: []string{"plain"}, count: 4, cpu: "4611686018427387",
			why: "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor plain, earlier pod sets' requests (0) + this pod set's request (9223372036854775807m) > nominal quota (8)"},
		{name: "uncovered resource", order: []string{"plain"}, count: 1, cpu: "1",
			spec: func(s *corev1.PodSpec) { s.Containers[0].Resources.Requests["memory"] = resource.MustParse("1Gi") },
			why:  "couldn't assign flavors to pod set main: resource memory unavailable in ClusterQueue"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := flavorWorld(t, c.order...).indexed()
			w := kueueWL(t, c.count, c.cpu, c.ann, c.spec)
			cq, why := q.route(w)
			require.Empty(t, why)
			used := map[flavorResource]int64{frOf(c.order[0], "cpu"): c.used}
			ch, why := q.assignFlavors(cq, w, q.tree(quotaUsage{"cq": used}), nil)
			require.Equal(t, c.why, why)
			if c.why == "" {
				require.Equal(t, c.flavor, ch.flavors[0]["cpu"])
				q := resource.MustParse(c.cpu)
				require.Equal(t, map[flavorResource]int64{frOf(c.flavor, "cpu"): int64(c.count) * q.MilliValue()}, ch.usage)
			}
		})
	}
}

// In Kueue v0.17's words a topology flavor without the requested level is
// named without the level (tas_flavorassigner.go), as the quota reasons
// are worded under KueueWords; gangsim's own words name it.
func TestAssignFlavors_MissingLevelKueueWords(t *testing.T) {
	q := flavorWorld(t, "tas", "plain").indexed()
	q.idx.kueueWords = true
	w := kueueWL(t, 1, "1", map[string]string{KueueRequiredTopology: "zone"}, nil)
	cq, why := q.route(w)
	require.Empty(t, why)
	_, why = q.assignFlavors(cq, w, q.tree(quotaUsage{}), nil)
	require.Equal(t, "couldn't assign flavors to pod set main: Flavor \"plain\" does not support TopologyAwareScheduling, Flavor \"tas\" does not contain the requested level", why)
}

// A Workload waits, with the reason, on a missing LocalQueue or
// ClusterQueue, an inactive ClusterQueue, or a namespace its selector
// leaves out.
func TestRouteKueueWorkload(t *testing.T) {
	w := kueueWL(t, 1, "1", nil, nil)
	q := flavorWorld(t, "plain")
	_, why := q.route(w)
	require.Empty(t, why)

	w.Obj.Spec.QueueName = "nope"
	_, why = q.route(w)
	require.Equal(t, `LocalQueue "nope" doesn't exist in namespace "ns"`, why)
	w.Obj.Spec.QueueName = "lq"

	q.LocalQueues[placement.Key{Namespace: "ns", Name: "lq"}] = "gone"
	_, why = q.route(w)
	require.Equal(t, "ClusterQueue gone doesn't exist", why)
	q.LocalQueues[placement.Key{Namespace: "ns", Name: "lq"}] = "cq"

	q.ClusterQueues["cq"].Groups[0].Flavors = append(q.ClusterQueues["cq"].Groups[0].Flavors, KueueFlavorQuota{Flavor: "ghost"})
	delete(q.Topologies, "t")
	q.ClusterQueues["cq"].Groups[0].Flavors = append(q.ClusterQueues["cq"].Groups[0].Flavors, KueueFlavorQuota{Flavor: "tas"})
	_, why = q.route(w)
	require.Equal(t, `ClusterQueue cq is inactive: it names missing ResourceFlavor(s) ghost; there is no Topology "t" for topology flavor "tas"`, why)

	q = flavorWorld(t, "plain")
	c, err := ConvertClusterQueue(&kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cq"},
		Spec: kueue.ClusterQueueSpec{ResourceGroups: []kueue.ResourceGroup{rg([]corev1.ResourceName{"cpu"}, "plain")},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}})
	require.NoError(t, err)
	q.ClusterQueues["cq"] = c
	_, why = q.route(w)
	require.Equal(t, `namespace "ns" doesn't match ClusterQueue cq's namespaceSelector`, why)
	q.Namespaces["ns"] = map[string]string{"team": "a"}
	_, why = q.route(w)
	require.Empty(t, why)

	c, err = ConvertClusterQueue(&kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cq"}}) // null selector: no namespace
	require.NoError(t, err)
	q.ClusterQueues["cq"] = c
	_, why = q.route(w)
	require.Equal(t, `namespace "ns" doesn't match ClusterQueue cq's namespaceSelector`, why)
}

// An admission whose pod set assignment leaves count out holds the pod
// set's spec count, as Kueue reads a missing count (it predates the
// field), not nothing.
func TestAdmittedUsage_CountUnset(t *testing.T) {
	q := flavorWorld(t, "plain")
	for _, c := range []struct {
		name  string
		count *int32
		want  int64
	}{{"count unset", nil, 3000}, {"count set", ptr(int32(2)), 2000}} {
		t.Run(c.name, func(t *testing.T) {
			obj := kueueWL(t, 3, "1", nil, nil).Obj.DeepCopy()
			obj.Status = kueue.WorkloadStatus{
				Admission: &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{Name: "main", Count: c.count,
					Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{"cpu": "plain"}}}},
				Conditions: []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue}},
			}
			w, err := ConvertKueueWorkload(obj, nil)
			require.NoError(t, err)
			cq, u := q.admittedUsage(w)
			require.Equal(t, "cq", cq)
			require.Equal(t, map[flavorResource]int64{frOf("plain", "cpu"): c.want}, u)
		})
	}
}

// A pod set asking for a topology level may take a flavor without a
// Topology for a resource group that covers only "pods", as Kueue's check
// reads the pod's own requests, which never name pods: the set's CPUs are
// in the topology flavor, its pod count in the plain one.
func TestAssignFlavors_PodsGroupWithoutTopology(t *testing.T) {
	q := flavorWorld(t, "tas")
	c, err := ConvertClusterQueue(cq("cq", []kueue.ResourceGroup{rg([]corev1.ResourceName{"cpu"}, "tas"), rg([]corev1.ResourceName{"pods"}, "plain")}))
	require.NoError(t, err)
	q.ClusterQueues["cq"] = c
	w := kueueWL(t, 2, "1", map[string]string{KueueRequiredTopology: "rack"}, nil)
	q = q.indexed()
	ch, why := q.assignFlavors(c, w, q.tree(nil), nil)
	require.Empty(t, why)
	require.Equal(t, map[placement.ResourceName]string{"cpu": "tas", "pods": "plain"}, ch.flavors[0])
	require.Equal(t, "tas", ch.tas[0])
	require.Equal(t, map[flavorResource]int64{frOf("tas", "cpu"): 2000, frOf("plain", "pods"): 2}, ch.usage)
}

// A LocalQueue or ClusterQueue whose spec.stopPolicy is Hold or
// HoldAndDrain admits nothing: Kueue leaves its Workloads inadmissible
// ("LocalQueue lq is inactive", "ClusterQueue cq is inactive"); None, as
// unset, admits.
func TestRouteKueueWorkload_StopPolicy(t *testing.T) {
	w := kueueWL(t, 1, "1", nil, nil)
	for _, c := range []struct {
		name   string
		lq, cq kueue.StopPolicy // "" leaves it unset
		why    string
	}{
		{name: "unset"},
		{name: "none", lq: kueue.None, cq: kueue.None},
		{name: "local queue held", lq: kueue.Hold, why: `LocalQueue lq is inactive: spec.stopPolicy is Hold`},
		{name: "cluster queue drained", cq: kueue.HoldAndDrain, why: `ClusterQueue cq is inactive: spec.stopPolicy is HoldAndDrain`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in kueueQueueInputs
			lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq"}}
			q := cq("cq", []kueue.ResourceGroup{rg([]corev1.ResourceName{"cpu"}, "plain")})
			if c.lq != "" {
				lq.Spec.StopPolicy = &c.lq
			}
			if c.cq != "" {
				q.Spec.StopPolicy = &c.cq
			}
			for _, o := range []any{&kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "plain"}}, q, lq} {
				require.NoError(t, in.add(o))
			}
			_, qs := in.result()
			_, why := qs.route(w)
			require.Equal(t, c.why, why)
		})
	}
}
