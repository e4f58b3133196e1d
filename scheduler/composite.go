package scheduler

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// This file brings CompositePodGroups (KEP-6012 hierarchies) to the
// scheduler, in whichever version the API server serves them (see
// compositeversion.go). The gang cycle decides a tree whole
// (gang.Result.Hierarchy); this file watches the objects and writes their
// condition.

// compositeResource is the resource name CompositePodGroups are served
// under.
const compositeResource = "compositepodgroups"

// kindComposite is the Kind of a condition write on a CompositePodGroup
// (gang.GroupCondition.Kind); any other kind is a PodGroup's.
const kindComposite = "CompositePodGroup"

// onCompositePodGroup hands a CompositePodGroup to the gang scheduler,
// which gates the leaves below it until the tree exists and meets its
// quorum. A status update (our own condition) changes nothing.
func (s *Scheduler) onCompositePodGroup(o any) {
	v := o.(*unstructured.Unstructured)
	k := placement.Key{Namespace: v.GetNamespace(), Name: v.GetName()}
	if gen, ok := s.state.composites[k]; ok && gen == v.GetGeneration() {
		return
	}
	c, err := s.compositeAPI.decode(v, s.state.pcs)
	if err == nil {
		err = s.gs.SetCompositePodGroup(c)
	}
	if err != nil {
		s.log.Error("CompositePodGroup rejected", "compositePodGroup", k.String(), "err", err)
		return
	}
	s.state.composites[k] = v.GetGeneration()
	// Under a release whose scheduler writes no condition on
	// CompositePodGroups (v1.37) there is none to confirm.
	if cond, ok := c.Condition(gang.CompositePodGroupScheduled); (!ok || cond.Status != gang.ConditionTrue) && gang.Profile(s.cfg.Profile).WritesCompositeConditions() {
		s.state.unconfirmedComposites[k] = true
	}
}

func (s *Scheduler) onCompositePodGroupDelete(o any) {
	if v, ok := o.(*unstructured.Unstructured); ok {
		k := placement.Key{Namespace: v.GetNamespace(), Name: v.GetName()}
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
// status update, as writeCondition does a PodGroup's, in the version the
// scheduler watches.
func (s *Scheduler) writeCompositeCondition(ctx context.Context, cw conditionWrite) {
	k := cw.group
	api := s.dynamic.Resource(s.compositeAPI.gvr).Namespace(k.Namespace)
	var c *unstructured.Unstructured
	if s.composites != nil {
		if cached, err := s.composites.ByNamespace(k.Namespace).Get(k.Name); err == nil {
			c = cached.(*unstructured.Unstructured).DeepCopy()
		}
	}
	err := retry(ctx, func() error {
		if c == nil {
			var err error
			if c, err = api.Get(ctx, k.Name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		if err := s.compositeAPI.setCondition(c, cw.cond); err != nil {
			return err
		}
		_, err := api.UpdateStatus(ctx, c, metav1.UpdateOptions{})
		if err != nil {
			c = nil // read afresh on the next try
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Error("CompositePodGroup condition not written", "compositePodGroup", k.String(), "apiVersion", s.compositeAPI.gvr.GroupVersion().String(), "reason", cw.cond.Reason, "err", err)
	}
}
