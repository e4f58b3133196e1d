package scheduler

import (
	"context"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// staleCall deletes a pending pod's implicit claim from an earlier
// attempt: the claim, and the UID it had when it was found.
type staleCall struct {
	claim placement.Key
	uid   types.UID
}

// staleExtended returns the implicit claims for extended resources that
// pending pod p has from an earlier attempt (a failed bind, a restart
// between the claim's create and the binding), by name. v1.37's
// kube-scheduler does not reuse such a claim: for a pod asking a resource
// some DeviceClass serves, it finds the claim (the annotation, the pod as
// controller by name and UID) and, when the claim has requests, fails the
// attempt, deletes the claim in PostFilter and tries the pod again on the
// claim's deletion. The caller holds s.mu.
func (s *Scheduler) staleExtended(p *corev1.Pod) []staleCall {
	if len(s.dra.apiClasses) == 0 {
		return nil
	}
	req, err := kube.PodRequests(p.Namespace+"/"+p.Name, &p.Spec)
	if err != nil || !kube.NewExtendedResourceClasses(slices.Collect(maps.Values(s.dra.apiClasses))).AsksFor(req) {
		return nil
	}
	var out []staleCall
	for k, c := range s.dra.claims {
		o := c.Owner
		if k.Namespace != p.Namespace || o == nil || o.Kind != dra.OwnerPod || o.ClaimName != kube.ExtendedResourceClaimName || o.Name != p.Name {
			continue
		}
		if o.UID != string(p.UID) {
			s.dra.dirty = true // an earlier pod's: the ledger is rebuilt without its owner
			continue
		}
		if len(c.Spec.Requests) > 0 {
			out = append(out, staleCall{claim: k, uid: types.UID(c.UID)})
		}
	}
	// Sorted here, not the cluster's claims for every pending pod's event.
	slices.SortFunc(out, func(a, b staleCall) int { return a.claim.Compare(b.claim) })
	return out
}

// podUID returns the UID of pod k as watched. The caller holds s.mu.
func (s *Scheduler) podUID(k placement.Key) (string, bool) {
	if s.pods == nil {
		return "", false
	}
	p, err := s.pods.Pods(k.Namespace).Get(k.Name)
	if err != nil {
		return "", false
	}
	return string(p.UID), true
}

// deleteStale deletes a stale implicit claim as kube-scheduler does: its
// finalizer first, then the claim, if it is still the one found (gone, or
// another claim of the name, is done). A failure is logged and the call
// kept for the next round; the pod waits meanwhile, and is taken up again
// when the claim's deletion is seen.
func (s *Scheduler) deleteStale(ctx context.Context, c staleCall) {
	claims := s.client.ResourceV1().ResourceClaims(c.claim.Namespace)
	done := false
	err := retry(ctx, func() error {
		cl, err := claims.Get(ctx, c.claim.Name, metav1.GetOptions{})
		if done = apierrors.IsNotFound(err) || err == nil && cl.UID != c.uid; done || err != nil {
			return ignoreNotFound(err)
		}
		if !slices.Contains(cl.Finalizers, resourcev1.Finalizer) {
			return nil
		}
		cl.Finalizers = slices.DeleteFunc(cl.Finalizers, func(f string) bool { return f == resourcev1.Finalizer })
		_, err = claims.Update(ctx, cl, metav1.UpdateOptions{})
		return err
	})
	if err == nil && !done {
		pre := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &c.uid}}
		err = ignoreNotFound(retry(ctx, func() error { return claims.Delete(ctx, c.claim.Name, pre) }))
	}
	if err != nil {
		s.log.Error("stale implicit claim not deleted; tried again next round", "claim", c.claim.String(), "err", err)
		s.mu.Lock()
		s.state.stale[c.claim] = c.uid
		s.mu.Unlock()
	}
}

// recheckQueued takes a queued pod out of the queue and converts it again
// when claim v, just seen, is its implicit claim: the pod was queued
// before the claim was seen (the informers start in no fixed order), and
// must not take a stale claim for a fresh one. A pod the scheduler is
// binding is left alone: the claim is the one it created for it. The
// caller holds s.mu.
func (s *Scheduler) recheckQueued(v *resourcev1.ResourceClaim) {
	if v.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" || s.pods == nil {
		return
	}
	for _, o := range v.OwnerReferences {
		k := placement.Key{Namespace: v.Namespace, Name: o.Name}
		if o.Controller == nil || !*o.Controller || !s.state.queued[k] || s.c.assumed[k] {
			continue
		}
		if p, err := s.pods.Pods(k.Namespace).Get(k.Name); err == nil && p.UID == o.UID && p.Spec.NodeName == "" {
			s.gs.DeletePod(k)
			s.state.unqueue(k)
			s.dropImplicit(k)
			s.onPod(p)
		}
	}
}
