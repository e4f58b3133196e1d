package scheduler

import (
	"context"
	"fmt"
	"slices"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// This file brings CompositePodGroups (KEP-6012 hierarchies) to the
// scheduler: they are served as scheduling.k8s.io/v1alpha3 by Kubernetes
// v1.37 with the CompositePodGroup feature gate, the only version k8s.io/api
// v0.37 carries. The gang cycle decides a tree whole (gang.Result.Hierarchy);
// this file watches the objects and writes their condition.

// compositeResource is the resource name CompositePodGroups are served
// under.
const compositeResource = "compositepodgroups"

// kindComposite is the Kind of a condition write on a CompositePodGroup
// (gang.GroupCondition.Kind); any other kind is a PodGroup's.
const kindComposite = "CompositePodGroup"

// servesComposites asks the API server's discovery whether it serves
// CompositePodGroups in scheduling.k8s.io/v1alpha3. A group version it
// does not serve is answered with NotFound: false. Transient errors are
// retried (apiBackoff); one that persists is returned, since a scheduler
// that guessed "absent" would leave every tree's leaves waiting for a
// CompositePodGroup it never watches.
func (s *Scheduler) servesComposites(ctx context.Context) (bool, error) {
	gv := schedulingv1alpha3.SchemeGroupVersion.String()
	d := discovery.ToDiscoveryInterfaceWithContext(s.client.Discovery())
	var list *metav1.APIResourceList
	err := retry(ctx, func() error {
		var err error
		list, err = d.ServerResourcesForGroupVersionWithContext(ctx, gv)
		return err
	})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("discovery of %s: %w", gv, err)
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == compositeResource }), nil
}

// onCompositePodGroup hands a CompositePodGroup to the gang scheduler,
// which gates the leaves below it until the tree exists and meets its
// quorum. A status update (our own condition) changes nothing.
func (s *Scheduler) onCompositePodGroup(o any) {
	v := o.(*schedulingv1alpha3.CompositePodGroup)
	k := placement.Key{Namespace: v.Namespace, Name: v.Name}
	if gen, ok := s.state.composites[k]; ok && gen == v.Generation {
		return
	}
	c, err := kube.ConvertCompositePodGroupV1alpha3(v, s.state.pcs)
	if err == nil {
		err = s.gs.SetCompositePodGroup(c)
	}
	if err != nil {
		s.log.Error("CompositePodGroup rejected", "compositePodGroup", k.String(), "err", err)
		return
	}
	s.state.composites[k] = v.Generation
	// Under a release whose scheduler writes no condition on
	// CompositePodGroups (v1.37) there is none to confirm.
	if cond, ok := c.Condition(gang.CompositePodGroupScheduled); (!ok || cond.Status != gang.ConditionTrue) && gang.Profile(s.cfg.Profile).WritesCompositeConditions() {
		s.state.unconfirmedComposites[k] = true
	}
}

func (s *Scheduler) onCompositePodGroupDelete(o any) {
	if v, ok := o.(*schedulingv1alpha3.CompositePodGroup); ok {
		k := placement.Key{Namespace: v.Namespace, Name: v.Name}
		s.gs.DeleteCompositePodGroup(k)
		delete(s.state.composites, k)
		delete(s.state.unconfirmedComposites, k)
	}
}

// addTree adds what a cycle that decided a hierarchy writes besides its
// bindings: the condition of each object of the tree that changed, and the
// victims of the tree's preemption (evicted as a PodGroup's are).
func (s *Scheduler) addTree(w *work, r gang.Result) {
	h := r.Hierarchy
	for _, gc := range h.Conditions {
		w.conditions = append(w.conditions, conditionWrite{kind: gc.Kind, group: gc.Key, cond: gc.Condition})
	}
	if p := h.Preemption; p != nil && p.Outcome == preemptOutcome {
		var victims []placement.Key
		for _, v := range p.Victims {
			victims = append(victims, v.Pods...)
		}
		slices.SortFunc(victims, placement.Key.Compare)
		s.evictAll(w, victims, kindComposite+" "+r.PodGroup.String())
	}
}

// writeCompositeCondition sets a CompositePodGroup's condition with one
// status update, as writeCondition does a PodGroup's.
func (s *Scheduler) writeCompositeCondition(ctx context.Context, cw conditionWrite) {
	k := cw.group
	api := s.client.SchedulingV1alpha3().CompositePodGroups(k.Namespace)
	var c *schedulingv1alpha3.CompositePodGroup
	if s.composites != nil {
		if cached, err := s.composites.CompositePodGroups(k.Namespace).Get(k.Name); err == nil {
			c = cached.DeepCopy()
		}
	}
	err := retry(ctx, func() error {
		if c == nil {
			var err error
			if c, err = api.Get(ctx, k.Name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		kube.SetConditionCompositePodGroupV1alpha3(c, cw.cond)
		_, err := api.UpdateStatus(ctx, c, metav1.UpdateOptions{})
		if err != nil {
			c = nil // read afresh on the next try
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Error("CompositePodGroup condition not written", "compositePodGroup", k.String(), "reason", cw.cond.Reason, "err", err)
	}
}
