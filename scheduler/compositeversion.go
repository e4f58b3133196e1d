package scheduler

import (
	"context"
	"fmt"
	"slices"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	kubev1beta1 "github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
)

// CompositePodGroups are served as scheduling.k8s.io/v1alpha3 by v1.37
// (CompositePodGroup gate) and as v1beta1 by v1.38, which may serve either
// or both. client-go v0.37 has a typed client for v1alpha3 only (and v0.38
// needs a newer Go), so the scheduler reads and writes them as
// unstructured objects through a dynamic client, in the version discovery
// shows, converted by package kube.

// compositeVersion is one API version CompositePodGroups may be served in.
type compositeVersion struct {
	gvr schema.GroupVersionResource
	// decode converts an object read in this version into the gang model.
	decode func(u *unstructured.Unstructured, pcs *kube.PriorityClasses) (*gang.CompositePodGroup, error)
	// setCondition writes cond into u's status.conditions (replacing the
	// one of its type), leaving every other field as read.
	setCondition func(u *unstructured.Unstructured, cond gang.Condition) error
}

// compositeVersions are the versions the scheduler reads, the preferred
// first: v1beta1, the version upstream moves on with.
var compositeVersions = []compositeVersion{
	versionOf(schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1beta1"},
		kube.ConvertCompositePodGroupV1beta1, kube.SetConditionCompositePodGroupV1beta1,
		func(c *kubev1beta1.CompositePodGroup) []metav1.Condition { return c.Status.Conditions }),
	versionOf(schedulingv1alpha3.SchemeGroupVersion,
		kube.ConvertCompositePodGroupV1alpha3, kube.SetConditionCompositePodGroupV1alpha3,
		func(c *schedulingv1alpha3.CompositePodGroup) []metav1.Condition { return c.Status.Conditions }),
}

// versionOf builds the compositeVersion of gv from its typed converters;
// conds reads a typed object's status.conditions.
func versionOf[T any](gv schema.GroupVersion,
	convert func(*T, *kube.PriorityClasses) (*gang.CompositePodGroup, error),
	set func(*T, gang.Condition),
	conds func(*T) []metav1.Condition,
) compositeVersion {
	typed := func(u *unstructured.Unstructured) (*T, error) {
		var t T
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &t); err != nil {
			return nil, fmt.Errorf("CompositePodGroup %s/%s (%s): %w", u.GetNamespace(), u.GetName(), gv, err)
		}
		return &t, nil
	}
	return compositeVersion{
		gvr: gv.WithResource(compositeResource),
		decode: func(u *unstructured.Unstructured, pcs *kube.PriorityClasses) (*gang.CompositePodGroup, error) {
			t, err := typed(u)
			if err != nil {
				return nil, err
			}
			return convert(t, pcs)
		},
		setCondition: func(u *unstructured.Unstructured, cond gang.Condition) error {
			t, err := typed(u)
			if err != nil {
				return err
			}
			set(t, cond)
			var list []any
			for _, c := range conds(t) {
				m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
				if err != nil {
					return err
				}
				list = append(list, m)
			}
			return unstructured.SetNestedSlice(u.Object, list, "status", "conditions")
		},
	}
}

// servedComposites asks the API server's discovery which version of
// compositeVersions it serves CompositePodGroups in, the first one listed
// that it does; nil when none. A group version it does not serve is
// answered with NotFound. Transient errors are retried (apiBackoff); one
// that persists is returned, since a scheduler that guessed "absent" would
// leave every tree's leaves waiting for a CompositePodGroup it never
// watches.
func (s *Scheduler) servedComposites(ctx context.Context) (*compositeVersion, error) {
	d := discovery.ToDiscoveryInterfaceWithContext(s.client.Discovery())
	for i, v := range compositeVersions {
		gv := v.gvr.GroupVersion().String()
		var list *metav1.APIResourceList
		err := retry(ctx, func() error {
			var err error
			list, err = d.ServerResourcesForGroupVersionWithContext(ctx, gv)
			return err
		})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("discovery of %s: %w", gv, err)
		}
		if slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == compositeResource }) {
			return &compositeVersions[i], nil
		}
	}
	return nil, nil
}

// compositeGroupVersions names the versions of compositeVersions, for logs.
func compositeGroupVersions() []string {
	out := make([]string, len(compositeVersions))
	for i, v := range compositeVersions {
		out[i] = v.gvr.GroupVersion().String()
	}
	return out
}

// profileWarning says when the configured profile p (as gang.ParseProfile
// reads it: never "") names another release
// than the API server's CompositePodGroup version shows (version is the
// one read): v1beta1 is served from v1.38 on, so under v1.37 the
// scheduler would decide as v1.37 for a v1.38 cluster (no condition on
// CompositePodGroups, "" labels taken as domains, …); v1alpha3 alone is
// what v1.37 serves, so under v1.38 the reverse. "" when they agree. A
// warning, not an error: a v1.38 server may serve v1alpha3 alone when an
// administrator turns v1beta1 off.
func profileWarning(p gang.Profile, version string) string {
	switch {
	case version == "v1beta1" && p == gang.ProfileV137:
		return "the API server serves CompositePodGroups as scheduling.k8s.io/v1beta1, as v1.38 does, but the profile is v1.37: set profile: v1.38 to decide as the cluster does"
	case version == "v1alpha3" && p == gang.ProfileV138:
		return "the API server serves CompositePodGroups as scheduling.k8s.io/v1alpha3 only, as v1.37 does, but the profile is v1.38: set profile: v1.37 to decide as the cluster does"
	}
	return ""
}
