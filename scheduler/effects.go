package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

const preemptOutcome = preemption.Preempt

// work is the API calls one round of cycles asks for.
type work struct {
	cycles      int
	gangs       []gangWrite
	conditions  []conditionWrite
	evictions   []evictCall
	nominations []nominateCall
	stale       []staleCall
}

// gangWrite is what one cycle that placed a gang writes: the claims it
// committed, then, once they are written, the bindings.
type gangWrite struct {
	group  placement.Key
	claims []dra.ClaimUpdate
	binds  []bindCall
}

type bindCall struct {
	pod  placement.Key
	uid  string
	node string
}

// conditionWrite is a condition to write on a PodGroup, or on a
// CompositePodGroup when kind is kindComposite.
type conditionWrite struct {
	kind  string
	group placement.Key
	cond  gang.Condition
}

type evictCall struct {
	pod       placement.Key
	preemptor string // "PodGroup ns/name" or "CompositePodGroup ns/name"
}

type nominateCall struct {
	pod  placement.Key
	node string
}

// apiBackoff retries a call that failed on a conflict or a transient error
// (a timeout, throttling, the API server restarting): 6 tries over about 6 s.
var apiBackoff = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 6}

// callTimeout bounds the calls of one round.
const callTimeout = time.Minute

// retryable reports whether a failed call may succeed when tried again.
func retryable(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) ||
		!isStatusError(err) && !errors.Is(err, errClaimWrite) // no answer from the server at all: connection refused or reset
}

func isStatusError(err error) bool {
	_, ok := err.(apierrors.APIStatus)
	return ok
}

// retry runs call until it succeeds, fails for good, or apiBackoff ends;
// it returns the last error.
func retry(ctx context.Context, call func() error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, apiBackoff, func(context.Context) (bool, error) {
		last = call()
		switch {
		case last == nil:
			return true, nil
		case retryable(last):
			return false, nil
		default:
			return false, last
		}
	})
	if last != nil {
		return last
	}
	return err
}

// execute makes the calls of one round: victims first (each marked with
// the DisruptionTarget condition, then deleted), the preemptors'
// nominations, the claims each placed gang committed, and the bindings of
// the gangs whose claims were written. It returns the round's conditions
// less those of the gangs whose claims failed (not bound, so not
// Scheduled): the caller writes them with writeConditions once the
// bindings are out, so that a condition saying Scheduled follows its
// bindings. Calls of a kind run in parallel, cfg.Parallelism at a time.
//
// The calls outlive ctx (bounded by callTimeout): a scheduler told to stop
// finishes the round it decided rather than leave bindings in the air,
// which the API server could still carry out after a successor has listed
// the pods as pending.
func (s *Scheduler) execute(ctx context.Context, w work) []conditionWrite {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	parallel(s.sem, len(w.evictions), func(i int) { s.evict(ctx, w.evictions[i]) })
	parallel(s.sem, len(w.nominations), func(i int) { s.nominate(ctx, w.nominations[i]) })
	parallel(s.sem, len(w.stale), func(i int) { s.deleteStale(ctx, w.stale[i]) })
	failed := s.writeClaims(ctx, w.gangs)
	var binds []bindCall
	skip := map[placement.Key]bool{}
	for i, g := range w.gangs {
		if failed[i] {
			skip[g.group] = true
		} else {
			binds = append(binds, g.binds...)
		}
	}
	parallel(s.sem, len(binds), func(i int) { s.bind(ctx, binds[i]) })
	return slices.DeleteFunc(w.conditions, func(c conditionWrite) bool { return skip[c.group] })
}

// writeConditions writes conds, cfg.Parallelism at a time; like execute's
// calls, they outlive ctx. The caller passes at most one condition per
// object and type (see latestConditions): two writes of one in parallel
// could land in either order.
func (s *Scheduler) writeConditions(ctx context.Context, conds []conditionWrite) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	parallel(s.sem, len(conds), func(i int) {
		if conds[i].kind == kindComposite {
			s.writeCompositeCondition(ctx, conds[i])
		} else {
			s.writeCondition(ctx, conds[i])
		}
	})
}

// latestConditions keeps, of the conditions of one type for one object,
// the last (the newest decision); the order is otherwise kept.
func latestConditions(conds []conditionWrite) []conditionWrite {
	type target struct {
		kind  string
		group placement.Key
		typ   string
	}
	last := make(map[target]int, len(conds))
	for i, c := range conds {
		last[target{c.kind, c.group, c.cond.Type}] = i
	}
	out := make([]conditionWrite, 0, len(last))
	for i, c := range conds {
		if last[target{c.kind, c.group, c.cond.Type}] == i {
			out = append(out, c)
		}
	}
	return out
}

func parallel(sem chan struct{}, n int, f func(int)) {
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// bind posts the Binding. When the answer is not a plain success — a
// conflict (the pod is bound already: by this scheduler before a restart,
// by a call whose answer was lost, or by another scheduler), or no answer
// at all (the API server went away mid-call, and may have bound it) — the
// pod is read back and the snapshot takes what the API says: bound there,
// or pending (queued again), or gone. Until then it stays assumed, so its
// node is never double-booked on a guess.
func (s *Scheduler) bind(ctx context.Context, b bindCall) {
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: b.pod.Namespace, Name: b.pod.Name, UID: types.UID(b.uid)},
		Target:     corev1.ObjectReference{Kind: "Node", Name: b.node},
	}
	err := retry(ctx, func() error {
		err := s.client.CoreV1().Pods(b.pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
		if apierrors.IsConflict(err) {
			return errBoundAlready // not retried: see above
		}
		return err
	})
	if err == nil {
		s.metrics.bindings.WithLabelValues("bound").Inc()
		return
	}
	if err != errBoundAlready {
		s.metrics.bindings.WithLabelValues("failed").Inc()
		s.log.Error("binding failed; reading the pod back", "pod", b.pod.String(), "node", b.node, "err", err)
	}
	s.resolve(ctx, b.pod)
}

// errBoundAlready marks a binding answered with a conflict.
var errBoundAlready = errors.New("pod is bound already")

// resolveBackoff reads a pod back for up to about a minute: long enough
// for an API server to restart.
var resolveBackoff = wait.Backoff{Duration: 200 * time.Millisecond, Factor: 1.5, Jitter: 0.1, Steps: 14, Cap: 10 * time.Second}

// resolve reads pod k from the API and makes the snapshot and the queue
// agree with it. If it cannot be read at all, the assumption stays.
func (s *Scheduler) resolve(ctx context.Context, k placement.Key) {
	var p *corev1.Pod
	err := wait.ExponentialBackoffWithContext(ctx, resolveBackoff, func(ctx context.Context) (bool, error) {
		var err error
		p, err = s.client.CoreV1().Pods(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
		return err == nil || apierrors.IsNotFound(err), nil
	})
	if err != nil {
		s.log.Error("pod could not be read back; it stays assumed", "pod", k.String(), "err", err)
		return
	}
	s.mu.Lock()
	switch {
	case p == nil || p.Name == "":
		s.c.deleted(k)
	case p.Spec.NodeName != "":
		s.c.setBound(s.boundPod(p))
	default:
		s.c.forget(k)
		s.onPod(p)
	}
	s.mu.Unlock()
	s.wake()
}

// writeCondition sets the PodGroup's condition with one status update.
// The first try starts from the informer's copy, which is nearly always
// current, so a condition costs one call rather than a read and a write;
// the update carries that copy's resourceVersion, so a stale copy is
// refused with a conflict and the next try reads the PodGroup afresh.
func (s *Scheduler) writeCondition(ctx context.Context, cw conditionWrite) {
	k := cw.group
	api := s.client.SchedulingV1beta1().PodGroups(k.Namespace)
	var pg *schedulingv1beta1.PodGroup
	if cached, err := s.groups.PodGroups(k.Namespace).Get(k.Name); err == nil {
		pg = cached.DeepCopy()
	}
	err := retry(ctx, func() error {
		if pg == nil {
			var err error
			if pg, err = api.Get(ctx, k.Name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		kube.SetConditionV1beta1(pg, cw.cond)
		_, err := api.UpdateStatus(ctx, pg, metav1.UpdateOptions{})
		if err != nil {
			pg = nil // read afresh on the next try
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Error("PodGroup condition not written", "podGroup", k.String(), "reason", cw.cond.Reason, "err", err)
	}
}

// evict marks a preemption victim with the DisruptionTarget condition, as
// kube-scheduler does, and deletes it (with its default grace period; the
// UID precondition spares a new pod of the same name).
func (s *Scheduler) evict(ctx context.Context, e evictCall) {
	pods := s.client.CoreV1().Pods(e.pod.Namespace)
	var uid types.UID
	err := retry(ctx, func() error {
		p, err := pods.Get(ctx, e.pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		uid = p.UID
		if hasCondition(p, corev1.DisruptionTarget) {
			return nil
		}
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler,
			Message:            fmt.Sprintf("%s: preempting to accommodate %s", s.cfg.SchedulerName, e.preemptor),
			LastTransitionTime: metav1.NewTime(s.now()),
		})
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err == nil {
		err = retry(ctx, func() error {
			return pods.Delete(ctx, e.pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Error("eviction failed", "pod", e.pod.String(), "err", err)
		return
	}
	s.metrics.evictions.Inc()
	s.log.Info("preempted", "pod", e.pod.String(), "preemptor", e.preemptor)
}

func hasCondition(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// nominate writes status.nominatedNodeName of a preemptor's member, or
// clears it (node "") once its group no longer preempts. A pod bound
// meanwhile is left as it is.
func (s *Scheduler) nominate(ctx context.Context, n nominateCall) {
	pods := s.client.CoreV1().Pods(n.pod.Namespace)
	err := retry(ctx, func() error {
		p, err := pods.Get(ctx, n.pod.Name, metav1.GetOptions{})
		if err != nil || p.Spec.NodeName != "" || p.Status.NominatedNodeName == n.node {
			return err
		}
		p.Status.NominatedNodeName = n.node
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		s.log.Error("nomination not written", "pod", n.pod.String(), "node", n.node, "err", err)
	}
}
