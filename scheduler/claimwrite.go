package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// claimWrite is what writing one claim changed, so that it can be undone:
// the reservedFor entries added, whether the allocation and the
// finalizer were added by this write.
type claimWrite struct {
	key       placement.Key
	uid       types.UID
	reserved  []types.UID
	allocated bool
	finalizer bool
	created   bool // the claim is a pod's implicit claim this write created
}

// writeClaims writes, before a gang binds, the claims its cycle committed:
// each claim's status.allocation (after adding the finalizer
// resource.kubernetes.io/delete-protection in a plain update, so that the
// claim cannot go while allocated) and the consumers added to
// status.reservedFor, as kube-scheduler's DRA plugin does in PreBind
// (pkg/scheduler/framework/plugins/dynamicresources, bindClaim). Conflicts
// read the claim again and retry.
//
// A gang whose writes fail is not bound: what was written for it is
// undone, its claims' assumptions dropped and its members queued again.
// It returns, per gang, whether its writes failed.
func (s *Scheduler) writeClaims(ctx context.Context, gangs []gangWrite) []bool {
	failed := make([]bool, len(gangs))
	parallel(s.sem, len(gangs), func(i int) {
		g := &gangs[i]
		if len(g.claims) == 0 {
			return
		}
		var done []claimWrite
		var err error
		for j := range g.claims {
			u := &g.claims[j]
			var cw claimWrite
			cw, err = s.writeClaim(ctx, u)
			done = append(done, cw) // a failed write may have added the finalizer
			if err != nil {
				err = fmt.Errorf("ResourceClaim %s: %w", u.Claim.Key(), err)
				break
			}
		}
		if err == nil {
			return
		}
		failed[i] = true
		s.log.Error("claims not written; the gang is not bound", "podGroup", g.group.String(), "err", err)
		for _, cw := range slices.Backward(done) {
			if uerr := s.undoClaim(ctx, cw); uerr != nil {
				s.log.Error("claim write not undone; the resourceclaim controller releases it once its consumers are gone",
					"claim", cw.key.String(), "err", uerr)
			}
		}
		s.requeue(g)
	})
	return failed
}

// errClaimWrite marks a claim that cannot take the commit: it is not
// retried.
var errClaimWrite = errors.New("claim changed since the cycle")

// writeClaim writes one committed claim and reports what it changed. A
// pod's implicit claim for extended resources (KEP-5004) is created first
// and u renamed to it; the pod's status.extendedResourceClaimStatus is
// patched after its status, as kube-scheduler's PreBind does.
func (s *Scheduler) writeClaim(ctx context.Context, u *dra.ClaimUpdate) (claimWrite, error) {
	var cw claimWrite
	var ext extendedPod
	if u.Created {
		o := u.Claim.Owner
		if o == nil || o.Kind != dra.OwnerPod || o.ClaimName != kube.ExtendedResourceClaimName {
			// Claims from templates are the resourceclaim controller's to
			// create; a pod is queued only once it has them all.
			return cw, fmt.Errorf("%w: the commit generated it, but only the resourceclaim controller creates claims", errClaimWrite)
		}
		var err error
		if ext, err = s.createExtended(ctx, u); err != nil {
			return cw, err
		}
		cw.created = true
	}
	k := u.Claim.Key()
	cw.key, cw.uid = k, types.UID(u.Claim.UID)
	want := kube.ClaimStatus(&u.Claim)
	claims := s.client.ResourceV1().ResourceClaims(k.Namespace)
	err := retry(ctx, func() error {
		c, err := claims.Get(ctx, k.Name, metav1.GetOptions{})
		switch {
		case err != nil:
			return err
		case c.UID != cw.uid:
			return fmt.Errorf("%w: it was replaced (uid %s, committed on %s)", errClaimWrite, c.UID, cw.uid)
		case c.DeletionTimestamp != nil:
			return fmt.Errorf("%w: it is being deleted", errClaimWrite)
		}
		allocate := want.Allocation != nil && c.Status.Allocation == nil
		if want.Allocation != nil && !allocate && !sameDevices(c.Status.Allocation, want.Allocation) {
			return fmt.Errorf("%w: it was allocated other devices meanwhile", errClaimWrite)
		}
		if allocate && !slices.Contains(c.Finalizers, resourcev1.Finalizer) {
			c.Finalizers = append(c.Finalizers, resourcev1.Finalizer)
			if c, err = claims.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
				return err
			}
			cw.finalizer = true
		}
		var added []types.UID
		for _, r := range want.ReservedFor {
			if !slices.ContainsFunc(c.Status.ReservedFor, func(x resourcev1.ResourceClaimConsumerReference) bool { return x.UID == r.UID }) {
				c.Status.ReservedFor = append(c.Status.ReservedFor, r)
				added = append(added, r.UID)
			}
		}
		if !allocate && len(added) == 0 {
			return nil // written already: an earlier try whose answer was lost
		}
		if allocate {
			c.Status.Allocation = want.Allocation
		}
		// Recorded before the call: a call whose answer is lost may have
		// been carried out, and the next try then sees nothing to add.
		cw.reserved, cw.allocated = append(cw.reserved, added...), cw.allocated || allocate
		_, err = claims.UpdateStatus(ctx, c, metav1.UpdateOptions{})
		return err
	})
	if err == nil && cw.created {
		err = s.patchExtendedStatus(ctx, u, ext)
	}
	return cw, err
}

// undoClaim takes back what writeClaim changed: the consumers it added to
// reservedFor, the allocation it made (when no other consumer holds the
// claim now), then the finalizer it added (when the claim is no longer
// allocated).
func (s *Scheduler) undoClaim(ctx context.Context, cw claimWrite) error {
	if cw.key.Name == "" {
		return nil // an implicit claim whose create failed
	}
	claims := s.client.ResourceV1().ResourceClaims(cw.key.Namespace)
	allocated := true
	err := retry(ctx, func() error {
		c, err := claims.Get(ctx, cw.key.Name, metav1.GetOptions{})
		if err != nil || c.UID != cw.uid {
			return err
		}
		n := len(c.Status.ReservedFor)
		c.Status.ReservedFor = slices.DeleteFunc(c.Status.ReservedFor, func(x resourcev1.ResourceClaimConsumerReference) bool {
			return slices.Contains(cw.reserved, x.UID)
		})
		drop := cw.allocated && c.Status.Allocation != nil && len(c.Status.ReservedFor) == 0
		allocated = c.Status.Allocation != nil && !drop
		if n == len(c.Status.ReservedFor) && !drop {
			return nil
		}
		if drop {
			c.Status.Allocation = nil
		}
		_, err = claims.UpdateStatus(ctx, c, metav1.UpdateOptions{})
		return err
	})
	if err == nil && cw.created {
		// The scheduler's own claim goes with the attempt, as upstream's
		// Unreserve deletes it; its finalizer is dropped below first.
		pre := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cw.uid}}
		err = retry(ctx, func() error { return ignoreNotFound(claims.Delete(ctx, cw.key.Name, pre)) })
	}
	if err != nil || !cw.finalizer || allocated {
		return ignoreNotFound(err)
	}
	return ignoreNotFound(retry(ctx, func() error {
		c, err := claims.Get(ctx, cw.key.Name, metav1.GetOptions{})
		if err != nil || c.UID != cw.uid || c.Status.Allocation != nil || !slices.Contains(c.Finalizers, resourcev1.Finalizer) {
			return err
		}
		c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == resourcev1.Finalizer })
		_, err = claims.Update(ctx, c, metav1.UpdateOptions{})
		return err
	}))
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// sameDevices reports whether two allocations name the same devices for
// the same requests.
func sameDevices(a, b *resourcev1.AllocationResult) bool {
	type dev struct{ request, driver, pool, device string }
	set := func(r *resourcev1.AllocationResult) []dev {
		var out []dev
		for _, d := range r.Devices.Results {
			out = append(out, dev{d.Request, d.Driver, d.Pool, d.Device})
		}
		slices.SortFunc(out, func(x, y dev) int {
			return cmp.Or(strings.Compare(x.request, y.request), strings.Compare(x.driver, y.driver),
				strings.Compare(x.pool, y.pool), strings.Compare(x.device, y.device))
		})
		return out
	}
	return slices.Equal(set(a), set(b))
}

// requeue puts a gang whose claims were not written back: its members
// are no longer assumed bound and are queued again from the informer's
// copy, and the ledger is rebuilt from the watched claims. Its PodGroup
// is set again from the informer's copy too: the cycle's Scheduled
// condition was never written, and gang.Scheduler, which never turns a
// True condition False, would otherwise take it as written and write
// none when the gang binds later.
func (s *Scheduler) requeue(g *gangWrite) {
	keys := make([]placement.Key, len(g.claims))
	for i, u := range g.claims {
		keys[i] = u.Claim.Key()
	}
	s.mu.Lock()
	s.dra.unassume(keys)
	if v, err := s.groups.PodGroups(g.group.Namespace).Get(g.group.Name); err == nil && !isImplicit(g.group) {
		s.gs.DeletePodGroup(g.group)
		delete(s.state.groups, g.group)
		s.onPodGroup(v)
	}
	for _, b := range g.binds {
		s.c.forget(b.pod)
		if p, err := s.pods.Pods(b.pod.Namespace).Get(b.pod.Name); err == nil && p.Spec.NodeName == "" {
			s.onPod(p)
		}
	}
	s.mu.Unlock()
	s.wake()
}
