package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/placement"
)

func ptr[T any](v T) *T { return &v }

func TestConvertNode(t *testing.T) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"topology.kubernetes.io/rack": "r1"}},
		Spec: corev1.NodeSpec{
			Unschedulable: true,
			Taints:        []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}},
		},
		Status: corev1.NodeStatus{
			Capacity:    rl("cpu", "96", "memory", "512Gi", "nvidia.com/gpu", "8", "pods", "110"),
			Allocatable: rl("cpu", "95500m", "memory", "500Gi", "nvidia.com/gpu", "8", "pods", "110"),
		},
	}
	got, err := ConvertNode(n)
	require.NoError(t, err)
	require.Equal(t, placement.Node{
		Name:          "n1",
		Labels:        map[string]string{"topology.kubernetes.io/rack": "r1"},
		Allocatable:   placement.ResourceList{"cpu": 95500, "memory": 500 << 30, "nvidia.com/gpu": 8, "pods": 110},
		Taints:        []placement.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: placement.TaintEffectNoSchedule}},
		Unschedulable: true,
	}, got)

	// Labels are copied: changing the API object later does not reach the
	// converted node.
	n.Labels["topology.kubernetes.io/rack"] = "r9"
	require.Equal(t, "r1", got.Labels["topology.kubernetes.io/rack"])

	// Capacity stands in for a missing allocatable.
	n.Status.Allocatable = nil
	got, err = ConvertNode(n)
	require.NoError(t, err)
	require.Equal(t, int64(96000), got.Allocatable["cpu"])
}

func TestConvertNodeErrors(t *testing.T) {
	cases := []struct {
		name string
		mod  func(n *corev1.Node)
		err  string
	}{
		{"empty name", func(n *corev1.Node) { n.Name = "" }, `node "": metadata.name: must not be empty`},
		{"negative allocatable", func(n *corev1.Node) { n.Status.Allocatable = rl("cpu", "-2") }, `node "n1": status.allocatable[cpu]: -2 is negative`},
		{"fractional gpu", func(n *corev1.Node) { n.Status.Allocatable = rl("nvidia.com/gpu", "1.5") }, `node "n1": status.allocatable[nvidia.com/gpu]: 1500m: an extended resource must be a whole number`},
		{"taint without key", func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{{Effect: "NoSchedule"}} }, `node "n1": spec.taints[0].key: must not be empty`},
		{"taint effect", func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "a", Effect: "NoSchedule"}, {Key: "b", Effect: "Sometimes"}}
		}, `node "n1": spec.taints[1].effect: "Sometimes" is not NoSchedule, PreferNoSchedule or NoExecute`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Allocatable: rl("cpu", "1")}}
			c.mod(n)
			_, err := ConvertNode(n)
			require.ErrorIs(t, err, placement.ErrInvalid)
			require.EqualError(t, err, c.err)
		})
	}
}

func basePod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "worker-0", UID: "u0", Labels: map[string]string{"app": "train"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{ctr("w", rl("cpu", "1", "nvidia.com/gpu", "1"))},
		},
	}
}

func TestConvertPod(t *testing.T) {
	pcs, err := NewPriorityClasses([]schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000, PreemptionPolicy: ptr(corev1.PreemptNever)},
		{ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: 10, GlobalDefault: true},
	})
	require.NoError(t, err)
	created := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	p := basePod()
	p.CreationTimestamp = metav1.NewTime(created)
	p.Spec.PriorityClassName = "high"
	p.Spec.NodeSelector = map[string]string{"pool": "a"}
	p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("training-job-workers-pg")}
	p.Spec.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}, {Operator: corev1.TolerationOpExists}}
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: ptr("gpu-template")}}
	p.Spec.NodeName = "n1"
	p.Status.StartTime = ptr(metav1.NewTime(created.Add(time.Minute)))

	got, err := ConvertPod(p, pcs)
	require.NoError(t, err)
	require.Equal(t, placement.Pod{
		Namespace:        "default",
		Name:             "worker-0",
		UID:              "u0",
		Labels:           map[string]string{"app": "train"},
		Requests:         placement.ResourceList{"cpu": 1000, "nvidia.com/gpu": 1},
		ScoreRequests:    placement.ResourceList{"cpu": 1000, "memory": 200 << 20}, // no memory request: 200 MiB to the score
		Priority:         1000,
		PreemptionPolicy: placement.PreemptNever,
		SchedulerName:    "default-scheduler", // the API server's default
		NodeSelector:     map[string]string{"pool": "a"},
		Tolerations: []placement.Toleration{
			{Key: "nvidia.com/gpu", Operator: placement.TolerationOpExists, Effect: placement.TaintEffectNoSchedule},
			{Operator: placement.TolerationOpExists},
		},
		SchedulingGroup: "training-job-workers-pg",
		NodeName:        "n1",
		QueuedAt:        created,
		StartTime:       created.Add(time.Minute),
		ResourceClaims:  []placement.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: "gpu-template"}},
	}, got)

	// The global default class applies when the pod names none; an explicit
	// preemptionPolicy wins over the class's.
	p.Spec.PriorityClassName = ""
	p.Spec.PreemptionPolicy = ptr(corev1.PreemptLowerPriority)
	got, err = ConvertPod(p, pcs)
	require.NoError(t, err)
	require.Equal(t, int32(10), got.Priority)
	require.Equal(t, placement.PreemptLowerPriority, got.PreemptionPolicy)
	p.Spec.SchedulerName = "gangsched-scheduler"
	got, err = ConvertPod(p, pcs)
	require.NoError(t, err)
	require.Equal(t, "gangsched-scheduler", got.SchedulerName)

	// Without classes, priority 0; scoring-only constraints are ignored.
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1}},
	}}
	p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{WhenUnsatisfiable: corev1.ScheduleAnyway}}
	got, err = ConvertPod(p, nil)
	require.NoError(t, err)
	require.Equal(t, int32(0), got.Priority)
	require.Equal(t, "training-job-workers-pg", got.SchedulingGroup)
}

func TestConvertPodAffinity(t *testing.T) {
	p := basePod()
	p.Labels["job-index"] = "3"
	p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("pg")}
	p.Spec.Affinity = &corev1.Affinity{
		PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:       "kubernetes.io/hostname",
				Namespaces:        []string{"default"},
				LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "train"}},
				MismatchLabelKeys: []string{"job-index", "absent"},
			}},
		},
		PodAffinity: &corev1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{
				TopologyKey: "topology.kubernetes.io/rack",
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "app", Operator: metav1.LabelSelectorOpExists},
				}},
				MatchLabelKeys: []string{"job-index"},
			}}},
		},
	}
	got, err := ConvertPod(p, nil)
	require.NoError(t, err)
	require.Equal(t, &placement.Affinity{
		PodAntiAffinity: &placement.PodAffinity{Required: []placement.PodAffinityTerm{{
			TopologyKey: "kubernetes.io/hostname",
			LabelSelector: placement.LabelSelector{
				MatchLabels:      map[string]string{"app": "train"},
				MatchExpressions: []placement.SelectorRequirement{{Key: "job-index", Operator: placement.SelectorOpNotIn, Values: []string{"3"}}},
			},
		}}},
		PodAffinity: &placement.PodAffinity{Preferred: []placement.WeightedPodAffinityTerm{{Weight: 50, Term: placement.PodAffinityTerm{
			TopologyKey: "topology.kubernetes.io/rack",
			LabelSelector: placement.LabelSelector{MatchExpressions: []placement.SelectorRequirement{
				{Key: "app", Operator: placement.SelectorOpExists},
				{Key: "job-index", Operator: placement.SelectorOpIn, Values: []string{"3"}},
			}},
		}}}},
	}, got.Affinity)

	// A bound pod outside any group keeps its place: its required terms
	// are not read (the tester kbreak's finding 02: one HA pod of a dump
	// refused the whole input), nor are preferred ones of any such pod.
	p.Spec.SchedulingGroup = nil
	p.Spec.NodeName = "n1"
	got, err = ConvertPod(p, nil)
	require.NoError(t, err)
	require.Nil(t, got.Affinity)
	p.Spec.NodeName = ""
	p.Spec.Affinity.PodAntiAffinity = nil
	got, err = ConvertPod(p, nil)
	require.NoError(t, err)
	require.Nil(t, got.Affinity)
}

func TestConvertPodErrors(t *testing.T) {
	cases := []struct {
		name     string
		mod      func(p *corev1.Pod)
		sentinel error
		err      string
	}{
		{"empty name", func(p *corev1.Pod) { p.Name = "" }, placement.ErrInvalid, `pod "default/": metadata.name: must not be empty`},
		{"negative request", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests = rl("memory", "-1") },
			placement.ErrInvalid, `pod "default/worker-0": spec.containers[0].resources.requests[memory]: -1 is negative`},
		{"unknown priority class", func(p *corev1.Pod) { p.Spec.PriorityClassName = "gold" },
			placement.ErrNotFound, `pod "default/worker-0": spec.priorityClassName: no PriorityClass "gold"`},
		{"priority differs from class", func(p *corev1.Pod) {
			p.Spec.PriorityClassName = "system-node-critical"
			p.Spec.Priority = ptr(int32(5))
		},
			placement.ErrInvalid, `pod "default/worker-0": spec.priority: 5 differs from 2000001000, the value of PriorityClass "system-node-critical"`},
		{"preemption policy", func(p *corev1.Pod) { p.Spec.PreemptionPolicy = ptr(corev1.PreemptionPolicy("Sometimes")) },
			placement.ErrInvalid, `pod "default/worker-0": spec.preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`},
		{"empty podGroupName", func(p *corev1.Pod) { p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("")} },
			placement.ErrInvalid, `pod "default/worker-0": spec.schedulingGroup.podGroupName: must not be empty when set`},
		{"toleration operator", func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: "Like"}} },
			placement.ErrInvalid, `pod "default/worker-0": spec.tolerations[0].operator: "Like" is not Exists or Equal`},
		{"toleration Exists with value", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: "Exists", Value: "b"}}
		}, placement.ErrInvalid, `pod "default/worker-0": spec.tolerations[0].value: must be empty when operator is Exists`},
		{"toleration empty key Equal", func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{{Value: "b"}} },
			placement.ErrInvalid, `pod "default/worker-0": spec.tolerations[0].operator: must be Exists when key is empty`},
		{"toleration effect", func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Effect: "Never"}} },
			placement.ErrInvalid, `pod "default/worker-0": spec.tolerations[0].effect: "Never" is not NoSchedule, PreferNoSchedule or NoExecute`},
		{"claim with two sources", func(p *corev1.Pod) {
			p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "c", ResourceClaimName: ptr("x"), ResourceClaimTemplateName: ptr("y")}}
		}, placement.ErrInvalid, `pod "default/worker-0": spec.resourceClaims[0]: exactly one of resourceClaimName and resourceClaimTemplateName must be set`},
		{"claim without name", func(p *corev1.Pod) { p.Spec.ResourceClaims = []corev1.PodResourceClaim{{ResourceClaimName: ptr("x")}} },
			placement.ErrInvalid, `pod "default/worker-0": spec.resourceClaims[0].name: must not be empty`},
		{"required anti-affinity outside a group", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname"}},
			}}
		}, ErrUnsupported, `pod "default/worker-0": spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: required inter-pod terms are supported only among the members of a PodGroup (set spec.schedulingGroup)`},
		{"affinity to another namespace", func(p *corev1.Pod) {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("pg")}
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "rack", Namespaces: []string{"default", "infra"}, LabelSelector: &metav1.LabelSelector{}}},
			}}
		}, ErrUnsupported, `pod "default/worker-0": spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces[1]: "infra": terms are evaluated among the PodGroup's members, all in namespace "default"`},
		{"namespace selector", func(p *corev1.Pod) {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("pg")}
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "rack", NamespaceSelector: &metav1.LabelSelector{}, LabelSelector: &metav1.LabelSelector{}}}},
			}}
		}, ErrUnsupported, `pod "default/worker-0": spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaceSelector: terms are evaluated among the PodGroup's members, all in namespace "default"`},
		{"term without selector", func(p *corev1.Pod) {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("pg")}
			p.Spec.Affinity = &corev1.Affinity{
				PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname"}}},
				PodAffinity:     &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname"}}},
			}
		}, ErrUnsupported, `pod "default/worker-0": spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a required affinity term without a labelSelector selects no pod and can never hold`},
		{"bad selector", func(p *corev1.Pod) {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("pg")}
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{
					MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}},
				}}},
			}}
		}, placement.ErrInvalid, `pod "default/worker-0": spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: must be non-empty for operator In`},
		{"no topology key", func(p *corev1.Pod) {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("pg")}
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: &metav1.LabelSelector{}}},
			}}
		}, placement.ErrInvalid, `pod "default/worker-0": spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: must not be empty`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := basePod()
			c.mod(p)
			_, err := ConvertPod(p, nil)
			require.ErrorIs(t, err, c.sentinel)
			require.EqualError(t, err, c.err)
		})
	}
}

func TestNewPriorityClassesErrors(t *testing.T) {
	pc := func(name string, v int32, def bool) schedulingv1.PriorityClass {
		return schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v, GlobalDefault: def}
	}
	cases := []struct {
		name    string
		classes []schedulingv1.PriorityClass
		err     string
	}{
		{"empty name", []schedulingv1.PriorityClass{pc("", 1, false)}, `PriorityClass "": metadata.name: must not be empty`},
		{"duplicate", []schedulingv1.PriorityClass{pc("a", 1, false), pc("a", 2, false)}, `PriorityClass "a": metadata.name: appears twice`},
		{"system prefix", []schedulingv1.PriorityClass{pc("system-x", 1, false)}, `PriorityClass "system-x": metadata.name: the system- prefix is reserved for the built-in classes`},
		{"too high", []schedulingv1.PriorityClass{pc("a", 1_000_000_001, false)}, `PriorityClass "a": value: 1000000001 is above 1000000000`},
		{"two defaults", []schedulingv1.PriorityClass{pc("b", 1, true), pc("a", 2, true)}, `PriorityClass "b": globalDefault: PriorityClass "a" is the global default already`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewPriorityClasses(c.classes)
			require.EqualError(t, err, c.err)
		})
	}
}

func TestRequiredNodeAffinity(t *testing.T) {
	node := func(name string, labels map[string]string) *placement.Node {
		return &placement.Node{Name: name, Labels: labels}
	}
	req := func(key string, op corev1.NodeSelectorOperator, vals ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}
	}
	withTerms := func(terms ...corev1.NodeSelectorTerm) *corev1.Pod {
		p := basePod()
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
		return p
	}

	a, err := RequiredNodeAffinity(basePod())
	require.NoError(t, err)
	require.Nil(t, a)
	require.True(t, a.Matches(node("n", nil)))

	// (gpu In [a100, h100] AND gen Gt 3) OR name In [n9]
	p := withTerms(
		corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req("gpu", corev1.NodeSelectorOpIn, "a100", "h100"), req("gen", corev1.NodeSelectorOpGt, "3")}},
		corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "n9")}},
	)
	a, err = RequiredNodeAffinity(p)
	require.NoError(t, err)
	require.True(t, a.Matches(node("n1", map[string]string{"gpu": "h100", "gen": "4"})))
	require.False(t, a.Matches(node("n1", map[string]string{"gpu": "h100", "gen": "3"})))
	require.False(t, a.Matches(node("n1", map[string]string{"gpu": "h100", "gen": "x"})))
	require.False(t, a.Matches(node("n1", map[string]string{"gpu": "t4", "gen": "9"})))
	require.True(t, a.Matches(node("n9", nil)))

	p = withTerms(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		req("pool", corev1.NodeSelectorOpNotIn, "spot"), req("cordon", corev1.NodeSelectorOpDoesNotExist), req("zone", corev1.NodeSelectorOpExists), req("gen", corev1.NodeSelectorOpLt, "5"),
	}})
	a, err = RequiredNodeAffinity(p)
	require.NoError(t, err)
	require.True(t, a.Matches(node("n1", map[string]string{"zone": "z", "gen": "4"})))
	require.False(t, a.Matches(node("n1", map[string]string{"zone": "z", "gen": "4", "pool": "spot"})))
	require.False(t, a.Matches(node("n1", map[string]string{"zone": "z", "gen": "4", "cordon": ""})))
	require.False(t, a.Matches(node("n1", map[string]string{"gen": "4"})))
	require.False(t, a.Matches(node("n1", map[string]string{"zone": "z"})))

	// An empty term selects nothing.
	a, err = RequiredNodeAffinity(withTerms(corev1.NodeSelectorTerm{}))
	require.NoError(t, err)
	require.False(t, a.Matches(node("n1", nil)))

	// Through the solver: the member with affinity avoids the node that does
	// not match even though that node is the better fit.
	a, err = RequiredNodeAffinity(withTerms(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req("gpu", corev1.NodeSelectorOpIn, "h100")}}))
	require.NoError(t, err)
	snap, err := placement.NewSnapshot([]placement.Node{
		{Name: "n1", Labels: map[string]string{"gpu": "t4"}, Allocatable: placement.ResourceList{"cpu": 1000}},
		{Name: "n2", Labels: map[string]string{"gpu": "h100"}, Allocatable: placement.ResourceList{"cpu": 8000}},
	}, nil)
	require.NoError(t, err)
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []placement.Pod{
		{Namespace: "default", Name: "worker-0", SchedulingGroup: "pg", Requests: placement.ResourceList{"cpu": 1000}},
	}}
	f := AffinityFilter{placement.Key{Namespace: "default", Name: "worker-0"}: a}
	d, err := placement.Solve(snap, g, placement.Options{})
	require.NoError(t, err)
	require.Equal(t, "n1", d.Assignments[0].Node, "without the filter the fuller node wins")
	d, err = placement.Solve(snap, g, placement.Options{Filters: []placement.Filter{f}})
	require.NoError(t, err)
	require.Equal(t, []placement.Assignment{{Pod: placement.Key{Namespace: "default", Name: "worker-0"}, Node: "n2", NodeID: 1}}, d.Assignments)
	require.NoError(t, placement.Verify(snap, g, d, f))
	g.Members[0].Name = "worker-1" // not in the filter's map: unconstrained
	d, err = placement.Solve(snap, g, placement.Options{Filters: []placement.Filter{f}})
	require.NoError(t, err)
	require.Equal(t, "n1", d.Assignments[0].Node)
	// On the t4 node alone the member cannot run, and no eviction helps.
	snap1, err := placement.NewSnapshot([]placement.Node{{Name: "n1", Labels: map[string]string{"gpu": "t4"}, Allocatable: placement.ResourceList{"cpu": 1000}}}, nil)
	require.NoError(t, err)
	g.Members[0].Name = "worker-0"
	d, err = placement.Solve(snap1, g, placement.Options{Filters: []placement.Filter{f}})
	require.NoError(t, err)
	require.Equal(t, placement.Unresolvable, d.Status)
	require.Contains(t, d.Message, "didn't match Pod's node affinity")

	bad := []struct {
		terms []corev1.NodeSelectorTerm
		err   string
	}{
		{nil, "nodeSelectorTerms: must have at least one term"},
		{[]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("", corev1.NodeSelectorOpExists)}}}, "nodeSelectorTerms[0].matchExpressions[0].key: must not be empty"},
		{[]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("a", "Near")}}}, `nodeSelectorTerms[0].matchExpressions[0].operator: "Near" is not In, NotIn, Exists, DoesNotExist, Gt or Lt`},
		{[]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("a", corev1.NodeSelectorOpIn)}}}, "nodeSelectorTerms[0].matchExpressions[0].values: must be non-empty for operator In"},
		{[]corev1.NodeSelectorTerm{{}, {MatchExpressions: []corev1.NodeSelectorRequirement{req("a", corev1.NodeSelectorOpExists, "x")}}}, "nodeSelectorTerms[1].matchExpressions[0].values: must be empty for operator Exists"},
		{[]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("a", corev1.NodeSelectorOpGt, "x")}}}, `nodeSelectorTerms[0].matchExpressions[0].values[0]: "x" is not an integer`},
		{[]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req("a", corev1.NodeSelectorOpLt, "1", "2")}}}, "nodeSelectorTerms[0].matchExpressions[0].values: must have exactly one value for operator Lt"},
		{[]corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{req("spec.x", corev1.NodeSelectorOpIn, "a")}}}, `nodeSelectorTerms[0].matchFields[0].key: "spec.x": matchFields supports only metadata.name`},
		{[]corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpExists)}}}, "nodeSelectorTerms[0].matchFields[0].operator: matchFields supports only In and NotIn"},
	}
	for _, b := range bad {
		_, err := RequiredNodeAffinity(withTerms(b.terms...))
		require.ErrorIs(t, err, placement.ErrInvalid)
		require.ErrorContains(t, err, `pod "default/worker-0": spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.`+b.err)
	}
}
