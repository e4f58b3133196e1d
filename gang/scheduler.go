package gang

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
	"github.com/gangsched/gangsched/topology"
)

// Default backoffs, as kube-scheduler's podInitialBackoffSeconds and
// podMaxBackoffSeconds.
const (
	DefaultInitialBackoff = 1 * time.Second
	DefaultMaxBackoff     = 10 * time.Second
)

// SolveOptionsFunc returns the solver options for one cycle of PodGroup pg
// on snapshot s. defaults are the options the scheduler derived itself: the
// topology generator and scorer for pg.Spec.SchedulingConstraints (package
// topology). The function may return them unchanged, extend them (the
// caller's own filters, placement filters, Reservers) or replace them. An
// error fails the cycle with reason SchedulerError. pg and s must be
// treated as read-only.
type SolveOptionsFunc func(pg *PodGroup, s *placement.Snapshot, defaults placement.Options) (placement.Options, error)

// Options configures a [Scheduler]. The zero value is upstream's defaults:
// no constraints beyond the built-in filters, backoff from 1 s to 10 s.
type Options struct {
	// SolveOptions adjusts the solver options per PodGroup; nil keeps the
	// scheduler's defaults.
	SolveOptions SolveOptionsFunc
	// TopologyLevels are the cluster's topology keys, widest first (e.g.
	// block, rack, kubernetes.io/hostname), as in a Kueue Topology. A
	// PodGroup's topology constraints must name keys among them; with
	// preferred (soft) constraints the search widens through these levels.
	// nil means each PodGroup's own keys, in the order it lists them.
	TopologyLevels []string
	// TopologyScoring ranks the domains of a topology-constrained group;
	// the zero value is upstream's MostAllocated.
	TopologyScoring topology.Scoring
	// TopologyProfile says who decides a topology-constrained group: the
	// solver (the zero value, topology.GangschedProfile), or Kueue's
	// algorithm (topology.KueueProfile, KueueBalancedProfile), which
	// places the members as one pod set and never preempts. Groups with
	// slice layers are planned whatever the profile.
	TopologyProfile topology.Profile
	// DRA configures the device searches of the claim ledger (see
	// [Scheduler.SetClaims]).
	DRA dra.Options
	// Preemption turns on workload-aware preemption (KEP-5710, upstream
	// gate WorkloadAwarePreemption): a group that does not fit looks for
	// lower-priority victims across the whole cluster (package
	// preemption), with the PodGroups' priority and disruptionMode as the
	// scheduler knows them and the budgets of [Scheduler.SetDisruptionBudgets].
	Preemption bool
	// PreemptionFor, when set, narrows Preemption to the groups it
	// reports true for, as kube-scheduler runs the PostFilter plugins
	// (DefaultPreemption) of the profile the pod's spec.schedulerName
	// names: one profile may preempt and another not. It is asked only
	// when Preemption is set and a cycle is Unschedulable: of a PodGroup
	// about it, of a CompositePodGroup tree about its first leaf with
	// pending members (the one SolveOptions sees; a tree's pods name one
	// scheduler). nil preempts for every group. pg must be treated as
	// read-only.
	PreemptionFor func(pg *PodGroup) bool
	// InitialBackoff is how long a group waits after its first cycle that
	// left members pending; it doubles with each further such cycle up to
	// MaxBackoff. Zero means the defaults above.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// Profile is the Kubernetes version whose semantics the scheduler
	// follows where versions differ (see [Profile]); empty means the
	// newest, [ProfileV138].
	Profile Profile
	// PodGroupPreemptionPolicy is upstream's feature gate of that name
	// (alpha and off by default in v1.37.2, pkg/features): on, every pod
	// of a group (of a hierarchy) must have the group's (root's)
	// spec.preemptionPolicy, PreemptLowerPriority when it is unset; off,
	// every pod must have the first pod's and the group's field is
	// ignored (see [Profile]). Only the v1.37 profile has the gate
	// ([Profile.HasPreemptionPolicyGate]); v1.36 and v1.38 ignore it
	// (v1.38 always holds the pods to the group's policy when it sets
	// one, else to the first pod's). Hosts that read gates by name use
	// [GatePodGroupPreemptionPolicy].
	PodGroupPreemptionPolicy bool
}

// Scheduler is the PodGroup scheduling queue and cycle (KEP-4671). It is a
// pure state machine, like etcd raft's RawNode: it holds the pending pods,
// the PodGroups and their backoff, and each call to [Scheduler.Cycle] runs
// one cycle on a snapshot the host passes and returns what to bind, what
// went back to the queue and the condition to write. It never starts a
// goroutine, reads a clock or performs I/O; the host passes the time. A
// Scheduler is not safe for concurrent use.
type Scheduler struct {
	opts    Options
	q       queue
	trees   map[string]treeEntry // by topology keys
	claims  *dra.Ledger
	budgets []preemption.DisruptionBudget
	// victims is preemption's input (the PodGroups' specs and the
	// budgets) prepared once, kept across cycles so that each search
	// reuses its join with the snapshot's groups; nil when a PodGroup or a
	// budget changed since.
	victims *preemption.Index
	// podVictims is the same for a v1.36 lone pod's preemption, which
	// sees no PodGroups ([Profile.perPodPreemptor]); nil as victims is.
	podVictims *preemption.Index
	// cpgs are the CompositePodGroups (KEP-6012) by key.
	cpgs map[placement.Key]*CompositePodGroup
	// nominated holds the room preemption freed for pending preemptors.
	nominated nominations
}

// treeEntry is a topology tree and the snapshot it was built from: it
// serves every snapshot derived from that one with Apply.
type treeEntry struct {
	tree *topology.Tree
	snap *placement.Snapshot
}

// NewScheduler returns an empty scheduler.
func NewScheduler(opts Options) *Scheduler {
	if opts.InitialBackoff <= 0 {
		opts.InitialBackoff = DefaultInitialBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	opts.MaxBackoff = max(opts.MaxBackoff, opts.InitialBackoff)
	return &Scheduler{opts: opts, q: newQueue(), trees: map[string]treeEntry{}, cpgs: map[placement.Key]*CompositePodGroup{}}
}

// SetPodGroup adds or replaces a PodGroup (an informer's add or update). It
// ungates the group's pending pods. A changed minCount (mutable since
// v1.37: elastic gangs) makes a backing-off group active at once, so the
// next cycle re-evaluates it; bound members are never moved or evicted by
// it, whichever way minCount changes. The scheduler keeps its own copy; the
// PodGroupScheduled condition in pg.Status is taken as the current one only
// if the scheduler has none yet, since the scheduler is its writer.
//
// Errors: pg fails [PodGroup.Validate]; nothing changes.
func (s *Scheduler) SetPodGroup(pg *PodGroup) error {
	if err := pg.Validate(); err != nil {
		return err
	}
	g := s.q.get(pg.Key())
	s.q.detach(g)
	cp := *pg
	cp.Status.Conditions = append([]Condition(nil), pg.Status.Conditions...)
	if g.pg != nil {
		if c, ok := g.pg.Condition(PodGroupScheduled); ok {
			setCondition(&cp, c)
		}
	}
	if g.pg != nil && g.state == BackingOff && g.pg.minCount() != cp.minCount() {
		g.state = Active // elastic minCount: re-evaluate at the next cycle, not after the backoff
	}
	g.pg = &cp
	s.setRootPriority(g)
	s.q.place(g)
	s.victims, s.podVictims = nil, nil
	return nil
}

// DeletePodGroup removes a PodGroup; its pending pods stay, gated, until it
// exists again, as a new object with its own status. The claim ledger
// releases the PodGroup's claims. It reports whether the PodGroup existed.
func (s *Scheduler) DeletePodGroup(k placement.Key) bool {
	g, ok := s.q.groups[k]
	if !ok || g.pg == nil {
		return false
	}
	s.q.detach(g)
	g.pg = nil
	s.q.place(g)
	s.victims, s.podVictims = nil, nil
	if s.claims != nil {
		s.claims = s.claims.DeletePodGroup(k)
	}
	return true
}

// AddPod queues a pending pod. Its QueuedAt orders it among the members
// (see [placement.MemberOrder]); the host sets it when the pod first
// arrives. The pod value is owned by the scheduler afterwards: its maps
// must not be modified.
//
// Errors (a [*placement.FieldError]; nothing changes): an empty
// metadata.name; an empty spec.schedulingGroup.podGroupName (pods without a
// PodGroup are scheduled pod by pod, outside this package); a non-empty
// spec.nodeName; a negative request or one for "pods"; a pod with this key
// already queued.
func (s *Scheduler) AddPod(p placement.Pod) error {
	obj := func() string { return fmt.Sprintf("pod %q", p.Key().String()) } // formatted only on error
	switch {
	case p.Name == "":
		return placement.Errorf(placement.ErrInvalid, obj(), "metadata.name", "must not be empty")
	case p.SchedulingGroup == "":
		return placement.Errorf(placement.ErrInvalid, obj(), "spec.schedulingGroup.podGroupName", "must not be empty: only members of a PodGroup are queued here")
	case p.NodeName != "":
		return placement.Errorf(placement.ErrInvalid, obj(), "spec.nodeName", "is %q: only pending pods are queued", p.NodeName)
	}
	for r, v := range p.Requests {
		if v < 0 || r == placement.ResourcePods || r == "" {
			return placement.Errorf(placement.ErrInvalid, obj(), "requests["+string(r)+"]", "%d is negative, or the name is empty or \"pods\"", v)
		}
	}
	if _, dup := s.q.podGroup[p.Key()]; dup {
		return placement.Errorf(placement.ErrDuplicate, obj(), "metadata.name", "is already queued")
	}
	gk, _ := p.GroupKey()
	g := s.q.get(gk)
	s.q.detach(g)
	s.q.add(g, &p)
	s.q.place(g)
	return nil
}

// DeletePod removes a pending pod (deleted, or bound by someone else) from
// the queue, with its nomination, and reports whether it was there. For
// any pod, pending or bound (an evicted preemption victim, say), the claim
// ledger unreserves its claims and drops those generated for it.
func (s *Scheduler) DeletePod(k placement.Key) bool {
	if s.claims != nil {
		s.claims = s.claims.DeletePod(k)
	}
	s.nominated.clear(k)
	gk, ok := s.q.podGroup[k]
	if !ok {
		return false
	}
	g := s.q.groups[gk]
	s.q.detach(g)
	s.q.drop(g, k)
	s.q.place(g)
	return true
}

// GroupStatus is the scheduler's view of one PodGroup.
type GroupStatus struct {
	// PodGroup is a copy with the scheduler's current PodGroupScheduled
	// condition; nil while the PodGroup does not exist.
	PodGroup *PodGroup
	// Pending are the queued members, in member order.
	Pending []placement.Key
	// State is where the group is in the queue: active, gated, backing
	// off, or idle with nothing pending.
	State QueueState
	// Reason says why a Gated group waits.
	Reason string
	// RetryAt is when a BackingOff group becomes active.
	RetryAt time.Time
	// Attempts counts consecutive cycles that left members pending.
	Attempts int
}

// Group returns the state of PodGroup k and whether the scheduler knows it
// (it exists or has pending members).
func (s *Scheduler) Group(k placement.Key) (GroupStatus, bool) {
	g, ok := s.q.groups[k]
	if !ok {
		return GroupStatus{}, false
	}
	st := GroupStatus{State: g.state, Reason: g.reason, Attempts: g.attempts}
	if g.state == BackingOff {
		st.RetryAt = g.retryAt
	}
	if g.pg != nil {
		cp := *g.pg
		cp.Status.Conditions = append([]Condition(nil), g.pg.Status.Conditions...)
		st.PodGroup = &cp
	}
	for _, p := range g.sortedMembers() {
		st.Pending = append(st.Pending, p.Key())
	}
	return st, true
}

// NextRetry returns the earliest time a group backing off becomes active,
// so that the host knows when to call [Scheduler.Cycle] again; ok is false
// when no group is backing off.
func (s *Scheduler) NextRetry() (t time.Time, ok bool) {
	g, ok := s.q.backoff.Min()
	if !ok {
		return time.Time{}, false
	}
	return g.retryAt, true
}

// NumBackingOff returns how many groups are backing off (state
// BackingOff) in O(1), so that a host driving simulated time can tell
// whether any group still waits for a retry without asking each group.
func (s *Scheduler) NumBackingOff() int { return s.q.backoff.Len() }

func (s *Scheduler) backoffFor(attempts int) time.Duration {
	d := s.opts.InitialBackoff
	for i := 1; i < attempts && d < s.opts.MaxBackoff; i++ {
		// Doubling past MaxBackoff/2 reaches the cap; doubling a backoff
		// of a century would wrap negative and retry at once.
		if d > s.opts.MaxBackoff/2 {
			return s.opts.MaxBackoff
		}
		d *= 2
	}
	return min(d, s.opts.MaxBackoff)
}

// setCondition sets c on pg, replacing the condition of the same type.
func setCondition(pg *PodGroup, c Condition) {
	for i := range pg.Status.Conditions {
		if pg.Status.Conditions[i].Type == c.Type {
			pg.Status.Conditions[i] = c
			return
		}
	}
	pg.Status.Conditions = append(pg.Status.Conditions, c)
}

// SetClaims gives the scheduler the DRA claim ledger (devices, claims,
// templates; package dra) that cycles allocate from: each cycle of a group
// whose PodGroup or members name ResourceClaims solves with the ledger's
// placement hook and, when it binds, commits the claims
// (Result.ClaimUpdates) and keeps the new ledger. The host replaces it
// when claims or devices change outside the scheduler; nil turns DRA off.
func (s *Scheduler) SetClaims(l *dra.Ledger) { s.claims = l }

// Claims returns the current claim ledger, or nil.
func (s *Scheduler) Claims() *dra.Ledger { return s.claims }

// SetDisruptionBudgets replaces the disruption budgets (PodDisruptionBudgets
// as plain data) that preemption honours; see [Options].Preemption.
func (s *Scheduler) SetDisruptionBudgets(b []preemption.DisruptionBudget) {
	s.budgets = slices.Clone(b)
	s.victims, s.podVictims = nil, nil
}

// preempts reports whether an Unschedulable cycle of pg (a PodGroup, or a
// tree's first leaf; nil when the tree has none) looks for victims:
// Options.Preemption, narrowed by Options.PreemptionFor when both are set.
func (s *Scheduler) preempts(pg *PodGroup) bool {
	return s.opts.Preemption && (s.opts.PreemptionFor == nil || pg == nil || s.opts.PreemptionFor(pg))
}

// findVictims runs preemption's search with the prepared input, preparing
// it again after a PodGroup or a budget changed ([preemption.Index.Find]
// answers as [preemption.Find] does). perPod searches as a v1.36 lone
// pod's preemption does, with no PodGroup specs ([Profile.perPodPreemptor]).
func (s *Scheduler) findVictims(snap *placement.Snapshot, g *placement.Group, opts placement.Options, perPod bool) (preemption.Plan, error) {
	ix := &s.victims
	in := s.preemptionInput
	if perPod {
		ix, in = &s.podVictims, s.podPreemptionInput
	}
	if *ix == nil {
		x, err := preemption.NewIndex(in())
		if err != nil {
			return preemption.Plan{}, err
		}
		*ix = x
	}
	return (*ix).Find(snap, g, opts)
}

// podPreemptionInput is preemption's input for a v1.36 lone pod: only the
// budgets. With no PodGroup specs every bound pod is a victim of its own,
// at its own priority, as v1.36.3's per-pod DefaultPreemption ranks and
// picks them.
func (s *Scheduler) podPreemptionInput() preemption.Input {
	return preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{}, Budgets: s.budgets}
}

// preemptionInput is what preemption needs beyond the snapshot: every known
// PodGroup's priority override ([Profile.groupOverride]: in v1.37 an
// unset spec.priority overrides with 0; v1.36 only under disruptionMode
// PodGroup; v1.38 none) and disruptionMode,
// and the budgets. Up to v1.37 a leaf of a CompositePodGroup hierarchy
// takes its hierarchy's priority (hierarchyPriority), as v1.37.2 ranks a
// victim of a hierarchy.
func (s *Scheduler) preemptionInput() preemption.Input {
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{}, Budgets: s.budgets}
	for k, g := range s.q.groups {
		if g.pg != nil {
			prio := s.opts.Profile.groupOverride(g.pg)
			if p, ok := s.hierarchyPriority(g.pg); ok && s.opts.Profile.rankAsHierarchy() {
				prio = &p
			}
			in.PodGroups[k] = preemption.PodGroupSpec{Priority: prio, DisruptionMode: preemption.DisruptionMode(g.pg.Spec.DisruptionMode)}
		}
	}
	return in
}

// draPodGroup is pg as the dra package sees it.
func draPodGroup(pg *PodGroup) dra.PodGroup {
	d := dra.PodGroup{Namespace: pg.Namespace, Name: pg.Name, UID: pg.UID, DeviceConstraints: pg.Spec.DeviceConstraints}
	for _, c := range pg.Spec.ResourceClaims {
		d.ResourceClaims = append(d.ResourceClaims, dra.PodGroupResourceClaim{Name: c.Name, ResourceClaimName: c.ResourceClaimName, ResourceClaimTemplateName: c.ResourceClaimTemplateName})
	}
	return d
}

// usesClaims reports whether pg or any of members names a ResourceClaim.
func usesClaims(pg *PodGroup, members []placement.Pod) bool {
	if len(pg.Spec.ResourceClaims) > 0 {
		return true
	}
	for i := range members {
		if len(members[i].ResourceClaims) > 0 {
			return true
		}
	}
	return false
}

// defaultOptions derives the solver options that pg's spec asks for on
// snapshot snap: a topology generator and scorer for its
// schedulingConstraints, and the claim ledger's hook when the group uses
// ResourceClaims.
//
// A group that the profile plans (see [Options].TopologyProfile) gets a
// plan too; the options then serve only for Verify.
func (s *Scheduler) defaultOptions(pg *PodGroup, members []placement.Pod, snap *placement.Snapshot) (placement.Options, *planned, error) {
	var opts placement.Options
	if usesClaims(pg, members) {
		if s.claims == nil {
			return opts, nil, placement.Errorf(placement.ErrInvalid, objRef("PodGroup", &pg.ObjectMeta), "spec.resourceClaims",
				"the group or its members name ResourceClaims but the scheduler has no claim ledger (Scheduler.SetClaims)")
		}
		opts.Reservers = []placement.NewReserverFunc{s.claims.Reserver(draPodGroup(pg), s.opts.DRA)}
	}
	cs := pg.Spec.SchedulingConstraints.Topology
	if len(cs) == 0 {
		return opts, nil, nil
	}
	keys := s.opts.TopologyLevels
	if len(keys) == 0 {
		for _, c := range cs {
			if !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
		}
	}
	id := strings.Join(keys, "\x00")
	e, ok := s.trees[id]
	if ok {
		_, ok = snap.ChangedNodes(e.snap)
	}
	if !ok {
		t, err := topology.NewTreeWithOptions(snap, keys, topology.TreeOptions{EmptyValueIsNoDomain: s.opts.Profile.emptyValueIsNoDomain()})
		if err != nil {
			return opts, nil, err
		}
		e = treeEntry{tree: t, snap: snap}
		s.trees[id] = e
	}
	tcs := make([]topology.Constraint, len(cs))
	for i, c := range cs {
		tcs[i] = topology.Constraint{Key: c.Key, Preferred: c.Preferred, SliceSize: c.SliceSize}
	}
	if s.opts.TopologyProfile.Planned(tcs) {
		pl, err := newPlanned(e.tree, pg, tcs, len(opts.Reservers) > 0, s.opts.TopologyProfile)
		return opts, pl, err
	}
	topts, err := e.tree.SolverOptions(tcs, s.opts.TopologyScoring)
	topts.Reservers = opts.Reservers
	return topts, nil, err
}
