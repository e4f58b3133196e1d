package gang

import (
	"errors"
	"fmt"
	"time"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
	"github.com/gangsched/gangsched/topology"
)

// Result is the outcome of one scheduling cycle: one PodGroup decided on
// one snapshot.
type Result struct {
	// PodGroup is the group the cycle decided.
	PodGroup placement.Key
	// Decision is the solver's decision; its Message is the group-level
	// reason. Zero when Err is set.
	Decision placement.Decision
	// Bind are the members to bind, all together (atomic commit): copies of
	// the queued pods with NodeName set, in member order. They have left the
	// queue. Empty unless the decision is Scheduled.
	Bind []placement.Pod
	// Requeued are the members left pending, in member order; the whole
	// group is retried at RetryAt.
	Requeued []placement.Key
	// RetryAt is when Requeued members are tried again; zero when none.
	RetryAt time.Time
	// Condition is the new PodGroupScheduled condition to write to the
	// PodGroup's status, or nil when it does not change. It never turns a
	// True condition False.
	Condition *Condition
	// Preemption is the plan of workload-aware preemption when it ran
	// (Options.Preemption and an Unschedulable decision), whatever its
	// Outcome: Preempt says whom to evict; CannotHelp and NotAllowed say why
	// nothing is (never evict in vain). On Preempt the host evicts
	// Preemption.Victims (deleting their pods, and telling the scheduler with
	// DeletePod) and the group, requeued at once, fits in a later cycle as
	// Preemption.Decision nominates.
	Preemption *preemption.Plan
	// ClaimUpdates are the ResourceClaims the commit changed (generated
	// claims to create, allocations, reservedFor), in namespace/name order;
	// the scheduler's claim ledger already holds them.
	ClaimUpdates []dra.ClaimUpdate
	// Snapshot is the cycle's snapshot with Bind applied (the same snapshot
	// when nothing binds). Pass it, or a newer snapshot that contains the
	// bindings, to the next cycle: a group decided after this one must see
	// this one's placements.
	Snapshot *placement.Snapshot
	// Nominations are the nominated nodes this cycle set or cleared (Node
	// ""), in pod order: the host writes them to the pods'
	// status.nominatedNodeName. A cycle that preempts nominates each
	// member to the node of its assignment in Preemption.Decision (a
	// hierarchy's: each leaf's member to its node in
	// Hierarchy.Preemption.Decision); every
	// other cycle of the group (or tree) clears its members' nominations
	// (a member bound, or no longer a preemptor). Until then, the
	// nominated room is held: a cycle of another PodGroup, or of a tree
	// the members are not in, whose priority (a tree's: its root's) is at
	// most the member's (its PodGroup's spec.priority, else its own, as
	// preemption ranks it — a leaf's too) decides and preempts as if the
	// nominated members were bound there (kube-scheduler's nominator); one
	// of higher priority may take it.
	Nominations []Nomination
	// Hierarchy is set when the cycle decided a KEP-6012 hierarchy (the
	// popped group is a leaf of a CompositePodGroup): PodGroup is then the
	// root CompositePodGroup's key, Decision a summary of the tree's
	// (status, message, steps; no assignments), Condition nil — the
	// conditions of every object of the tree are in Hierarchy — and Bind
	// holds the pods of every leaf placed.
	Hierarchy *HierarchyResult
	// Err is set when the cycle failed: nothing binds, the group backs off
	// and the condition reason is SchedulerError. It names the PodGroup and
	// wraps the error of SolveOptions, of [placement.Solve] or
	// [placement.Snapshot.Apply] (a [*placement.FieldError]: bad input), or
	// of [placement.Verify] or of a placement filter run again before
	// commit ([placement.ErrViolation]: a solver bug, or a plan that never
	// met the filter, caught before commit).
	Err error
}

// Cycle runs one PodGroup scheduling cycle on snapshot snap at time now and
// reports ok = false when no group is ready (nothing changes then, beyond
// groups whose backoff expired at now becoming active). A nil snap runs no
// cycle: ok is false and Result.Err says why.
//
// The steps follow upstream v1.36:
//
//  1. Groups whose backoff expired by now become active. The active group
//     whose first member comes first in [placement.MemberOrder] (ties by
//     group key) is popped with all its pending members; members that snap
//     shows bound already leave the queue.
//  2. Quorum gate: a gang with fewer than minCount members, pending plus
//     bound in snap, is not attempted; it is gated until a member arrives
//     or its PodGroup changes, and the next group is popped.
//  3. The members, in member order, are solved on the one snapshot with the
//     options derived from the PodGroup (topology, claims) and
//     Options.SolveOptions; bound members count toward
//     minCount and are never moved. A topology key whose level has no
//     domain on snap ([topology.ErrNoDomain]: no node carries it now, or
//     those that do lack a wider level of Options.TopologyLevels) is not
//     bad input but a group that cannot be placed until the nodes change:
//     the decision is Unresolvable with that reason, and no solve runs.
//  4. Atomic commit: a Scheduled decision that passes [placement.Verify]
//     and the options' placement filters, run again on its whole
//     assignment, binds all its assignments together; members it leaves waiting, or
//     all members when the decision is not Scheduled, go back to the queue
//     with a backoff of InitialBackoff doubling per consecutive such cycle,
//     up to MaxBackoff.
//
// With Options.Preemption (and Options.PreemptionFor, when set, true for
// the group), a decision that is Unschedulable (not
// Unresolvable: removing pods could not help) runs workload-aware preemption
// ([preemption.Find], through an Index kept across cycles) with the same
// solver options; when it finds victims, Result.Preemption carries the plan
// and the group is requeued at once instead of backing off, its members
// nominated to the nodes the plan assigns them (Result.Nominations). Nothing
// is evicted by the scheduler itself: the host deletes the victims. The
// search removes victims from the snapshot, so their requests are free; the
// claim ledger keeps their devices allocated, as v1.37's preemption keeps
// them (DynamicResources returns nil from PreFilterExtensions; KEP-5690,
// DRA preemption, is a proposal), so a victim that holds only devices the
// group needs makes no room. Steps 3
// and 4 and preemption decide on snap with the room nominated for other
// groups' members of at least this group's priority taken, as
// kube-scheduler's nominator holds it; bindings apply to snap itself.
//
// Cost: O(log groups + members·log members) plus the solve.
func (s *Scheduler) Cycle(snap *placement.Snapshot, now time.Time) (Result, bool) {
	if snap == nil {
		return Result{Err: placement.Errorf(placement.ErrInvalid, "Cycle", "snapshot", "must not be nil")}, false
	}
	s.q.flush(now)
	g, members := s.pop(snap)
	for g != nil && g.pg.Spec.ParentCompositePodGroupName != "" {
		if r, ok := s.cycleTree(snap, now, g); ok {
			return r, true
		}
		g, members = s.pop(snap)
	}
	if g == nil {
		return Result{}, false
	}
	r := Result{PodGroup: g.key, Snapshot: snap}
	// Decide on the cluster with the room nominated for other groups'
	// preemptors of at least this group's priority taken; bindings are
	// applied to the cluster itself.
	cluster := snap
	snap = s.nominated.hold(cluster, []*group{g}, groupPriority(g.pg, members))
	pgroup := g.pg.Group(members)
	reason := ReasonSchedulerError
	err := s.opts.Profile.checkMembers(g.pg, s.opts.PodGroupPreemptionPolicy, members, cluster.GroupMembers(g.key))
	quiet := err != nil && !s.opts.Profile.writesRuleCondition() // no condition: only the pods learn of it
	if err != nil {
		reason = s.opts.Profile.invalidReason()
	}
	var opts placement.Options
	var pl *planned
	if err == nil {
		opts, pl, err = s.defaultOptions(g.pg, members, snap)
	}
	noDomain := errors.Is(err, topology.ErrNoDomain)
	if noDomain {
		r.Decision, err = noDomainDecision(snap, pgroup, err), nil
	}
	if err == nil && !noDomain && s.opts.SolveOptions != nil {
		opts, err = s.opts.SolveOptions(g.pg, snap, opts)
	}
	switch {
	case err != nil || noDomain:
	case pl != nil:
		if r.Decision, err = pl.solve(snap, pgroup); errors.Is(err, topology.ErrNoDomain) {
			r.Decision, err = noDomainDecision(snap, pgroup, err), nil
		}
	default:
		r.Decision, err = placement.Solve(snap, pgroup, opts)
	}
	if err == nil && r.Decision.Status == placement.Scheduled {
		err = placement.Verify(snap, pgroup, r.Decision, opts.Filters...)
		if err == nil {
			err = recheckPlacement(snap, pgroup, &r.Decision, opts.PlacementFilters)
		}
		if err == nil {
			r.Bind = make([]placement.Pod, len(r.Decision.Assignments))
			for i, a := range r.Decision.Assignments {
				r.Bind[i] = *g.members[a.Pod]
				r.Bind[i].NodeName = a.Node
			}
			r.Snapshot, err = cluster.Apply(placement.Change{Bind: r.Bind})
		}
		if err == nil && len(opts.Reservers) > 0 && s.claims != nil {
			claims, updates, cerr := s.claims.Commit(snap, draPodGroup(g.pg), pgroup, r.Decision, s.opts.DRA)
			if err = cerr; err == nil {
				s.claims, r.ClaimUpdates = claims, updates
			}
		}
	}
	if err == nil && pl == nil && r.Decision.Status == placement.Unschedulable && s.preempts(g.pg) {
		var plan preemption.Plan
		if plan, err = s.findVictims(snap, s.opts.Profile.preemptorGroup(g.pg, pgroup), opts, s.opts.Profile.perPodPreemptor(g.pg)); err == nil {
			r.Preemption = &plan
		}
	}
	if err != nil {
		r.Decision, r.Bind, r.Snapshot, r.ClaimUpdates, r.Preemption = placement.Decision{}, nil, cluster, nil, nil
		r.Err = fmt.Errorf("PodGroup %s: %w", g.key, err)
		if !quiet {
			s.setCondition(g, &r, Condition{Type: PodGroupScheduled, Status: ConditionFalse, Reason: reason, Message: r.Err.Error()}, now)
		}
	} else if r.Decision.Status == placement.Scheduled {
		s.setCondition(g, &r, Condition{Type: PodGroupScheduled, Status: ConditionTrue, Reason: ReasonScheduled, Message: r.Decision.Message}, now)
	} else {
		s.setCondition(g, &r, Condition{Type: PodGroupScheduled, Status: ConditionFalse, Reason: ReasonUnschedulable, Message: r.Message()}, now)
	}
	r.Nominations = s.nominated.update(g, &r)
	for _, p := range r.Bind {
		s.q.drop(g, p.Key())
	}
	if len(g.members) > 0 {
		g.attempts++
		g.retryAt = now.Add(s.backoffFor(g.attempts))
		if r.Preemption != nil && r.Preemption.Outcome == preemption.Preempt {
			g.retryAt = now // the room is being made: try again once the victims are gone
		}
		g.state = BackingOff
		r.RetryAt = g.retryAt
		for _, p := range members {
			if _, ok := g.members[p.Key()]; ok {
				r.Requeued = append(r.Requeued, p.Key())
			}
		}
	}
	s.q.place(g)
	return r, true
}

// Message is the cycle's reason as the PodGroupScheduled condition words
// it: the error, or the decision's message followed by what preemption
// found ("; preempting: …" with the victims, or why none would help).
func (r *Result) Message() string {
	switch {
	case r.Err != nil:
		return r.Err.Error()
	case r.Hierarchy != nil && r.Hierarchy.Preemption != nil:
		if p := r.Hierarchy.Preemption; p.Outcome == preemption.Preempt {
			return r.Decision.Message + "; preempting: " + p.Message
		}
		return r.Decision.Message + "; " + r.Hierarchy.Preemption.Message
	case r.Preemption == nil || r.Hierarchy != nil:
		return r.Decision.Message
	case r.Preemption.Outcome == preemption.Preempt:
		return r.Decision.Message + "; preempting: " + r.Preemption.Message
	}
	return r.Decision.Message + "; " + r.Preemption.Message
}

// pop takes the first ready group off the active queue, detached, with its
// pending members in member order; it gates or idles the groups it skips.
func (s *Scheduler) pop(snap *placement.Snapshot) (*group, []placement.Pod) {
	for {
		g, ok := s.q.active.DeleteMin()
		if !ok {
			return nil, nil
		}
		for k := range g.members {
			if _, bound := snap.Pod(k); bound {
				s.q.drop(g, k)
				s.nominated.clear(k)
			}
		}
		if len(g.members) == 0 {
			s.q.place(g)
			continue
		}
		members := g.sortedMembers()
		if g.pg.Spec.ParentCompositePodGroupName != "" {
			return g, members // a leaf: its hierarchy's quorum is checked with the tree
		}
		// Bound members are counted only when the pending ones fall short:
		// that lookup costs O(bound members).
		if need := g.pg.minCount(); len(members) < need {
			if have := len(members) + len(snap.GroupMembers(g.key)); have < need {
				g.state = Gated
				g.reason = fmt.Sprintf("waiting for members: %d of minCount %d exist", have, need)
				continue
			}
		}
		return g, members
	}
}

// setCondition records c as g's PodGroupScheduled condition and in r when
// it differs from the current one, except that True never turns False.
func (s *Scheduler) setCondition(g *group, r *Result, c Condition, now time.Time) {
	old, had := g.pg.Condition(PodGroupScheduled)
	if had && old.Status == ConditionTrue && c.Status != ConditionTrue {
		return
	}
	if had && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
		return
	}
	c.LastTransitionTime = now
	if had && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	setCondition(g.pg, c)
	r.Condition = &c
}

// noDomainDecision is the decision for a group whose topology constraint
// names a level with no domain on snap (err wraps topology.ErrNoDomain):
// no node carries the key, or none of those that do is in a domain of
// it. Nodes come and go, so this is not bad input but a group that cannot
// be placed until they change: Unresolvable, since evicting pods would not
// help, with err's detail as the reason.
func noDomainDecision(snap *placement.Snapshot, g *placement.Group, err error) placement.Decision {
	bound := len(snap.GroupMembers(g.Key()))
	required := bound + 1
	if g.IsGang() {
		required = max(int(g.MinCount), required)
	}
	d := placement.Decision{Group: g.Key(), Status: placement.Unresolvable, Bound: bound, Required: required, MostFit: bound, Proven: true,
		Message: fmt.Sprintf("%d of min %d members fit: %v", bound, required, err)}
	for i := range g.Members {
		d.Waiting = append(d.Waiting, g.Members[i].Key())
	}
	return d
}
