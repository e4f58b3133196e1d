package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangsched/gangsched/e2e/harness"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// validationRow is one object both the v1.37 API server and gangsched's
// converters (package kube, which run package gang's Validate) judge:
// api and gangsched are the field each refuses it at ("" accepts).
// Where they name different fields a comment says why; where one
// accepts what the other refuses, differs says why (both are in the
// README's hierarchy table, row "API validation").
type validationRow struct {
	name           string
	obj            any // *schedulingv1beta1.Workload, *schedulingv1beta1.PodGroup or *schedulingv1alpha3.CompositePodGroup
	api, gangsched string
	differs        string
}

// pgTemplate is a PodGroup template of a one-member gang.
func pgTemplate(name string) schedulingv1beta1.PodGroupTemplate {
	return schedulingv1beta1.PodGroupTemplate{Name: name,
		SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1}}}
}

// cpgTemplate is a composite template, a gang of one child, with the
// children given.
func cpgTemplate(name string, pgs []schedulingv1beta1.PodGroupTemplate, cpgs ...schedulingv1beta1.CompositePodGroupTemplate) schedulingv1beta1.CompositePodGroupTemplate {
	return schedulingv1beta1.CompositePodGroupTemplate{Name: name,
		SchedulingPolicy:           schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: 1}},
		PodGroupTemplates:          pgs,
		CompositePodGroupTemplates: cpgs}
}

// chain is levels composite templates, each the only child of the one
// above, the deepest holding one PodGroup template: levels+1 levels with
// the leaves.
func chain(levels int) schedulingv1beta1.CompositePodGroupTemplate {
	t := cpgTemplate(fmt.Sprintf("c%d", levels), []schedulingv1beta1.PodGroupTemplate{pgTemplate("leaf")})
	for i := levels - 1; i >= 1; i-- {
		t = cpgTemplate(fmt.Sprintf("c%d", i), nil, t)
	}
	return t
}

func wlTemplates(name string, cpgs ...schedulingv1beta1.CompositePodGroupTemplate) *schedulingv1beta1.Workload {
	return &schedulingv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: cpgs}}
}

// workloadWith is workload name with one root template edited by edit.
func workloadWith(name string, edit func(*schedulingv1beta1.CompositePodGroupTemplate)) *schedulingv1beta1.Workload {
	t := cpgTemplate("root", []schedulingv1beta1.PodGroupTemplate{pgTemplate("a"), pgTemplate("b")})
	edit(&t)
	return wlTemplates(name, t)
}

// composite is a v1alpha3 CompositePodGroup, a gang of one child of
// Workload w, under parent ("" for a root), edited by edit.
func composite(name, parent string, edit func(*schedulingv1alpha3.CompositePodGroupSpec)) *schedulingv1alpha3.CompositePodGroup {
	c := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:      &schedulingv1alpha3.WorkloadReference{WorkloadName: "w", TemplateName: name},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 1}},
			DisruptionMode:   &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}},
		}}
	if parent != "" {
		c.Spec.ParentCompositePodGroupName = new(parent)
	}
	if edit != nil {
		edit(&c.Spec)
	}
	return c
}

// validationRows is the table: Workload templates first (the depth
// rule counts composite templates only, roots at 1, and refuses one at
// depth 4: three composite levels and the PodGroup leaves are the
// deepest tree, as KEP-6012's "4 levels"), then the objects a stamped
// tree is made of, which the API server checks one at a time.
func validationRows() []validationRow {
	root0 := "spec.compositePodGroupTemplates[0]"
	nine := func(prefix string) []schedulingv1beta1.PodGroupTemplate {
		var out []schedulingv1beta1.PodGroupTemplate
		for i := range 9 {
			out = append(out, pgTemplate(fmt.Sprintf("%s%d", prefix, i)))
		}
		return out
	}
	return []validationRow{
		{name: "3 composite template levels + PodGroup leaves (4 levels)", obj: wlTemplates("depth-4", chain(3))},
		{name: "4 composite template levels + PodGroup leaves (5 levels)", obj: wlTemplates("depth-5", chain(4)),
			// Upstream names the root whose tree is too deep, gangsched the
			// template at depth 4: a README difference row.
			api: root0, gangsched: root0 + ".compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0]"},
		{name: "minGroupCount 3 above 2 child templates", obj: workloadWith("min-above", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.SchedulingPolicy.Gang.MinGroupCount = 3
		})},
		{name: "minGroupCount 0", obj: workloadWith("min-zero", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.SchedulingPolicy.Gang.MinGroupCount = 0
		}), api: root0 + ".schedulingPolicy.gang.minGroupCount", gangsched: root0 + ".schedulingPolicy.gang.minGroupCount"},
		{name: "schedulingPolicy both gang and basic", obj: workloadWith("policy-both", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.SchedulingPolicy.Basic = &schedulingv1beta1.CompositeBasicSchedulingPolicy{}
		}), api: root0 + ".schedulingPolicy", gangsched: root0 + ".schedulingPolicy"},
		{name: "schedulingPolicy neither gang nor basic", obj: workloadWith("policy-neither", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.SchedulingPolicy.Gang = nil
		}), api: root0 + ".schedulingPolicy", gangsched: root0 + ".schedulingPolicy"},
		{name: "two topology constraints", obj: workloadWith("two-keys", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.SchedulingConstraints = &schedulingv1beta1.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: rackKey}, {Key: blockKey}}}
		}), api: root0 + ".schedulingConstraints.topology", gangsched: root0 + ".schedulingConstraints.topology"},
		{name: "disruptionMode both single and all", obj: workloadWith("mode-both", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.DisruptionMode = &schedulingv1beta1.CompositeDisruptionMode{Single: &schedulingv1beta1.SingleCompositeDisruptionMode{}, All: &schedulingv1beta1.AllCompositeDisruptionMode{}}
		}), api: root0 + ".disruptionMode", gangsched: root0 + ".disruptionMode"},
		{name: "composite template without children", obj: workloadWith("no-children", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.PodGroupTemplates = nil
		}), api: root0, gangsched: root0},
		{name: "nested composite template without children", obj: workloadWith("nested-no-children", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.CompositePodGroupTemplates = []schedulingv1beta1.CompositePodGroupTemplate{cpgTemplate("inner", nil)}
		}), api: root0 + ".compositePodGroupTemplates[0]", gangsched: root0 + ".compositePodGroupTemplates[0]"},
		// The API server names a duplicate of a list's key at the item,
		// gangsched at its name.
		{name: "sibling composite templates of one name", obj: wlTemplates("dup-siblings", cpgTemplate("x", []schedulingv1beta1.PodGroupTemplate{pgTemplate("a")}), cpgTemplate("x", []schedulingv1beta1.PodGroupTemplate{pgTemplate("b")})),
			api: "spec.compositePodGroupTemplates[1]", gangsched: "spec.compositePodGroupTemplates[1].name"},
		{name: "PodGroup templates of one name in two subtrees", obj: wlTemplates("dup-cousins", cpgTemplate("x", []schedulingv1beta1.PodGroupTemplate{pgTemplate("a")}), cpgTemplate("y", []schedulingv1beta1.PodGroupTemplate{pgTemplate("a")})),
			api: "spec.compositePodGroupTemplates[1].podGroupTemplates[0].name", gangsched: "spec.compositePodGroupTemplates[1].podGroupTemplates[0].name"},
		{name: "PodGroup template named as its parent composite template", obj: wlTemplates("dup-parent", cpgTemplate("x", []schedulingv1beta1.PodGroupTemplate{pgTemplate("x")})),
			api: root0 + ".podGroupTemplates[0].name", gangsched: root0 + ".podGroupTemplates[0].name"},
		{name: "9 root composite templates", obj: func() *schedulingv1beta1.Workload {
			w := wlTemplates("nine-roots")
			for i, p := range nine("p") {
				w.Spec.CompositePodGroupTemplates = append(w.Spec.CompositePodGroupTemplates, cpgTemplate(fmt.Sprintf("r%d", i), []schedulingv1beta1.PodGroupTemplate{p}))
			}
			return w
		}(), api: "spec.compositePodGroupTemplates", gangsched: "spec.compositePodGroupTemplates"},
		{name: "9 PodGroup templates under a composite template", obj: workloadWith("nine-leaves", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.PodGroupTemplates = nine("p")
		}), api: root0 + ".podGroupTemplates", gangsched: root0 + ".podGroupTemplates"},
		// The API server names the spec, gangsched the template that
		// differs from the first.
		{name: "templates of two priorities", obj: workloadWith("two-priorities", func(t *schedulingv1beta1.CompositePodGroupTemplate) {
			t.PodGroupTemplates[1].Priority = new(int32(5))
		}), api: "spec", gangsched: root0 + ".podGroupTemplates[1].priority"},

		{name: "CompositePodGroup root", obj: composite("root", "", nil)},
		{name: "CompositePodGroup whose parent is missing", obj: composite("orphan", "nowhere", nil)},
		{name: "CompositePodGroup without workloadRef", obj: composite("no-ref", "", func(s *schedulingv1alpha3.CompositePodGroupSpec) { s.WorkloadRef = nil }),
			api: "spec.workloadRef", gangsched: "spec.workloadRef"},
		{name: "CompositePodGroup without disruptionMode", obj: composite("no-mode", "", func(s *schedulingv1alpha3.CompositePodGroupSpec) { s.DisruptionMode = nil })},
		{name: "CompositePodGroup minGroupCount 0", obj: composite("min-zero", "", func(s *schedulingv1alpha3.CompositePodGroupSpec) { s.SchedulingPolicy.Gang.MinGroupCount = 0 }),
			api: "spec.schedulingPolicy.gang.minGroupCount", gangsched: "spec.schedulingPolicy.gang.minGroupCount"},
		{name: "CompositePodGroup with two topology constraints", obj: composite("two-keys", "", func(s *schedulingv1alpha3.CompositePodGroupSpec) {
			s.SchedulingConstraints = &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: rackKey}, {Key: blockKey}}}
		}), api: "spec.schedulingConstraints.topology", gangsched: "spec.schedulingConstraints.topology"},
		{name: "CompositePodGroup naming itself its parent", obj: composite("self", "self", nil), gangsched: "spec.parentCompositePodGroupName",
			differs: "the API server checks no parent; gangsched refuses the cycle when reading the object, where upstream's scheduler finds the tree deeper than 4 levels"},
		{name: "PodGroup whose parent is missing", obj: func() *schedulingv1beta1.PodGroup {
			pg := podGroup("orphan-leaf", 1)
			pg.Spec.ParentCompositePodGroupName = new("nowhere")
			pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "w", TemplateName: "leaf"}
			return pg
		}()},
		{name: "PodGroup with a parent but no workloadRef", obj: func() *schedulingv1beta1.PodGroup {
			pg := podGroup("no-ref-leaf", 1)
			pg.Spec.ParentCompositePodGroupName = new("root")
			return pg
		}(), api: "spec.workloadRef", gangsched: "spec.workloadRef"},
		// Flat objects: the lists' +k8s:maxItems and the controllerRef's
		// required fields, which gangsched's model would take.
		{name: "PodGroup with two topology constraints", obj: func() *schedulingv1beta1.PodGroup {
			pg := podGroup("two-keys-pg", 1)
			pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "example.com/rack"}, {Key: "example.com/block"}}}
			return pg
		}(), api: "spec.schedulingConstraints.topology", gangsched: "spec.schedulingConstraints.topology"},
		{name: "PodGroup template with five resource claims", obj: func() *schedulingv1beta1.Workload {
			t := pgTemplate("a")
			for i := range 5 {
				t.ResourceClaims = append(t.ResourceClaims, schedulingv1beta1.PodGroupResourceClaim{Name: fmt.Sprintf("c%d", i), ResourceClaimName: new(fmt.Sprintf("rc%d", i))})
			}
			return &schedulingv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "five-claims"},
				Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{t}}}
		}(), api: "spec.podGroupTemplates[0].resourceClaims", gangsched: "spec.podGroupTemplates[0].resourceClaims"},
		{name: "Workload whose controllerRef has no kind", obj: &schedulingv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ref-no-kind"},
			Spec: schedulingv1beta1.WorkloadSpec{ControllerRef: &schedulingv1beta1.TypedLocalObjectReference{Name: "j"},
				PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{pgTemplate("a")}}},
			api: "spec.controllerRef.kind", gangsched: "spec.controllerRef.kind"},
	}
}

// TestValidationMatchesAPIServer creates each row's object through a
// real v1.37 kube-apiserver (the CompositePodGroup gate on) and converts
// it with package kube, and holds both to the row: accepted, or refused
// at the field named. One API server serves the table; accepted objects
// are deleted again.
func TestValidationMatchesAPIServer(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	for _, r := range validationRows() {
		t.Run(r.name, func(t *testing.T) {
			api := apiVerdict(t, client, r.obj)
			gs := gangschedVerdict(r.obj)
			t.Logf("API server: %s; gangsched: %s", api, gs)
			require.Equal(t, r.api, api.field, "API server: %s", api)
			require.Equal(t, r.gangsched, gs.field, "gangsched: %s", gs)
			require.Equal(t, r.differs == "", (api.field == "") == (gs.field == ""), "both accept or both refuse, unless the row says why not")
		})
	}
}

// verdict is a refusal's field and message; the zero value accepts.
type verdict struct{ field, msg string }

func (v verdict) String() string {
	if v.field == "" && v.msg == "" {
		return "accepted"
	}
	return fmt.Sprintf("refused at %s (%s)", v.field, v.msg)
}

// apiVerdict creates obj, deletes it when accepted, and returns the
// first field the API server names when it refuses.
func apiVerdict(t *testing.T, client kubernetes.Interface, obj any) verdict {
	ctx := ctxFor(t)
	var err error
	var del func(context.Context) error
	switch v := obj.(type) {
	case *schedulingv1beta1.Workload:
		api := client.SchedulingV1beta1().Workloads(ns)
		_, err = api.Create(ctx, v, metav1.CreateOptions{})
		del = func(ctx context.Context) error { return api.Delete(ctx, v.Name, metav1.DeleteOptions{}) }
	case *schedulingv1beta1.PodGroup:
		api := client.SchedulingV1beta1().PodGroups(ns)
		_, err = api.Create(ctx, v, metav1.CreateOptions{})
		del = func(ctx context.Context) error { return api.Delete(ctx, v.Name, metav1.DeleteOptions{}) }
	case *schedulingv1alpha3.CompositePodGroup:
		api := client.SchedulingV1alpha3().CompositePodGroups(ns)
		_, err = api.Create(ctx, v, metav1.CreateOptions{})
		del = func(ctx context.Context) error { return api.Delete(ctx, v.Name, metav1.DeleteOptions{}) }
	default:
		t.Fatalf("apiVerdict: unexpected %T", obj)
	}
	if err == nil {
		require.NoError(t, del(ctx), "delete the accepted object")
		return verdict{}
	}
	var st apierrors.APIStatus
	require.True(t, errors.As(err, &st) && apierrors.IsInvalid(err), "create: want accepted or Invalid, got %v", err)
	d := st.Status().Details
	require.True(t, d != nil && len(d.Causes) > 0, "an Invalid error names a field: %v", err)
	return verdict{field: d.Causes[0].Field, msg: err.Error()}
}

// gangschedVerdict converts obj with package kube (priority classes:
// the built-in ones only) and returns the field its error names.
func gangschedVerdict(obj any) verdict {
	var err error
	switch v := obj.(type) {
	case *schedulingv1beta1.Workload:
		_, err = kube.ConvertWorkloadV1beta1(v, nil)
	case *schedulingv1beta1.PodGroup:
		_, err = kube.ConvertPodGroupV1beta1(v, nil)
	case *schedulingv1alpha3.CompositePodGroup:
		_, err = kube.ConvertCompositePodGroupV1alpha3(v, nil)
	}
	if err == nil {
		return verdict{}
	}
	var fe *placement.FieldError
	if !errors.As(err, &fe) {
		return verdict{field: "(no field)", msg: err.Error()}
	}
	return verdict{field: fe.Field, msg: err.Error()}
}
