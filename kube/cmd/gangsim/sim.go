package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
	"github.com/gangsched/gangsched/scaleup"
	"github.com/gangsched/gangsched/topology"
)

// podPrefix names the implicit basic PodGroup of a pod that belongs to no
// PodGroup: kube-scheduler schedules such a pod on its own, which is what a
// basic group of one does. ':' cannot appear in a PodGroup's name, so the
// implicit groups never meet real ones.
const podPrefix = "pod:"

// epoch is the simulated time of the first cycle when no pod says later.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Report is what a run decided, cycle by cycle, and where it ended; -o json
// writes it as is.
type Report struct {
	Cycles  []Cycle `json:"cycles"`
	Summary Summary `json:"summary"`
	// Suggestions are -suggest-nodes' answers, per group left waiting.
	Suggestions []NodeSuggestion `json:"suggestions,omitempty"`
	// Kueue are the Kueue Workloads' admissions, in queue order, decided
	// before the first cycle.
	Kueue []KueueResult `json:"kueueWorkloads,omitempty"`
	// DeletedClaims are the stale implicit claims of pending pods deleted
	// before the first cycle (kube.Cluster.DeletedClaims).
	DeletedClaims []DeletedClaim `json:"deletedClaims,omitempty"`
}

// DeletedClaim is a ResourceClaim deleted before the first cycle: a
// pending pod's implicit claim for extended resources left from an
// earlier attempt, which kube-scheduler deletes before it tries the pod
// again.
type DeletedClaim struct {
	// Claim and Pod are namespace/name.
	Claim string `json:"claim"`
	Pod   string `json:"pod"`
}

// Cycle is one scheduling cycle.
type Cycle struct {
	N int `json:"cycle"`
	// At is the simulated time since the start, e.g. "1s".
	At string `json:"at"`
	// Kind is "PodGroup", or "Pod" for a pod in no PodGroup.
	Kind string `json:"kind"`
	// Name is namespace/name of the PodGroup or pod.
	Name     string `json:"name"`
	Policy   string `json:"policy"`
	MinCount int32  `json:"minCount,omitempty"`
	Pending  int    `json:"pending"`
	// Status is the decision: Scheduled, Unschedulable, Unresolvable,
	// BudgetExhausted, or Error.
	Status    string `json:"status"`
	Placement string `json:"placement,omitempty"`
	// Message is the reason as the PodGroup condition words it (see
	// gang.Result.Message): the decision's, then what preemption found.
	Message string `json:"message"`
	// Bound are the members bound in this cycle, all together.
	Bound []Binding `json:"bound,omitempty"`
	// Waiting are the members sent back to the queue.
	Waiting []string `json:"waiting,omitempty"`
	// RetryAt is when the waiting members are tried again.
	RetryAt string `json:"retryAt,omitempty"`
	// Preempted are the pods evicted so that the group fits (workload-aware
	// preemption); the group is retried at once.
	Preempted []string `json:"preempted,omitempty"`
	// Recreated are the victims that the Job controller created again,
	// pending (see kube.Cluster.Recreate).
	Recreated []string `json:"recreated,omitempty"`
	// PreemptionMessage explains the victims chosen.
	PreemptionMessage string `json:"preemptionMessage,omitempty"`
	// Nominated are the preemptors' nominated nodes (their
	// status.nominatedNodeName): the room freed there is held for them
	// against groups of equal or lower priority until they bind or stop
	// preempting.
	Nominated []Binding `json:"nominated,omitempty"`
	// Claims are the ResourceClaims this cycle allocated or reserved.
	Claims    []string   `json:"claims,omitempty"`
	Condition *Condition `json:"condition,omitempty"`
	// Tree and TreeConditions describe a cycle that decided a
	// CompositePodGroup hierarchy (Kind CompositePodGroup; MinCount is
	// then the root's minGroupCount): its objects level by level, and the
	// conditions written.
	Tree           []TreeNode      `json:"tree,omitempty"`
	TreeConditions []TreeCondition `json:"treeConditions,omitempty"`
}

// Binding is one pod bound to one node.
type Binding struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
}

// Condition is the PodGroupScheduled condition a cycle wrote, under the
// type its PodGroup's version names it (PodGroupInitiallyScheduled in
// scheduling.k8s.io/v1beta1).
type Condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// Summary is the state after the last cycle.
type Summary struct {
	Cycles        int `json:"cycles"`
	PodGroups     int `json:"podGroups"`
	GroupsPlaced  int `json:"podGroupsPlaced"`
	GroupsWaiting int `json:"podGroupsWaiting"`
	// GroupsEmpty are PodGroups with fewer than minCount members bound
	// and none pending (no pods yet, or preemption took them; a run has
	// no controller to recreate them): neither placed nor waiting, as
	// nothing of theirs waits for the scheduler.
	GroupsEmpty   int            `json:"podGroupsEmpty,omitempty"`
	PodsBound     int            `json:"podsBound"`
	PodsWaiting   int            `json:"podsWaiting"`
	PodsPreempted int            `json:"podsPreempted"`
	Waiting       []WaitingGroup `json:"waiting,omitempty"`
	Allocation    []Allocation   `json:"allocation"`
	Racks         *Racks         `json:"racks,omitempty"`
	Unused        []string       `json:"unused,omitempty"`
	JobsPodByPod  []string       `json:"jobsPodByPod,omitempty"`
	// Unserved are the pending pods ("ns/name") whose spec.schedulerName
	// no profile of the run serves: kube-scheduler never queues them, so
	// they stay pending and the run does not end with every pod bound.
	Unserved []string `json:"unserved,omitempty"`
	// KueueAdmitted and KueueWaiting count the Kueue Workloads that hold
	// quota after admission and those left waiting (pending, evicted,
	// unable to grow, or holding quota while their admission checks are
	// not all Ready).
	KueueAdmitted int `json:"kueueAdmitted,omitempty"`
	KueueWaiting  int `json:"kueueWaiting,omitempty"`
	// KueueIdle counts the Kueue Workloads Kueue does not schedule:
	// inactive (spec.active false) or finished. They hold no quota and
	// wait for nothing, so they do not make the exit status 3.
	KueueIdle int `json:"kueueIdle,omitempty"`
	// KueueAwaitingChecks counts the waiting Kueue Workloads (counted in
	// KueueWaiting) whose quota is reserved but whose admission checks are
	// not all Ready (kube.KueueAwaitingChecks).
	KueueAwaitingChecks int `json:"kueueAwaitingChecks,omitempty"`
	// KueueDelayedTopology counts the waiting Kueue Workloads (counted in
	// KueueWaiting) that hold quota, their admission checks all Ready,
	// whose delayed topology Kueue's second pass did not find
	// (kube.KueueDelayedTopologyWaits).
	KueueDelayedTopology int `json:"kueueDelayedTopology,omitempty"`
	// KueueHeld counts the waiting Kueue Workloads (counted in
	// KueueWaiting) that Kueue assumes and cannot admit (KueueResult.Held):
	// they hold quota and nodes though nothing is written on them.
	KueueHeld int `json:"kueueHeld,omitempty"`
	// KueuePreempted counts the Kueue Workloads preempted in the run,
	// waiting again or admitted again since (counted in the two above).
	KueuePreempted int    `json:"kueuePreempted,omitempty"`
	Stopped        string `json:"stopped,omitempty"`
}

// WaitingGroup is a PodGroup (or lone pod) left with pending members.
type WaitingGroup struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Pending int    `json:"pending"`
	Reason  string `json:"reason"`
}

// Allocation is how much of a resource the bound pods request, of what the
// nodes have, in canonical units (CPU in millicores, memory in bytes),
// each sum capped at math.MaxInt64.
type Allocation struct {
	Resource    string  `json:"resource"`
	Requested   int64   `json:"requested"`
	Allocatable int64   `json:"allocatable"`
	Percent     float64 `json:"percent"`
	// Held is what the pods of Kueue Workloads that Kueue assumes and
	// cannot admit (KueueResult.HeldPodSets) request on the nodes, capped
	// at math.MaxInt64. It is not in Requested nor Percent: no pod of
	// theirs runs and the scheduling cycles see the room free, but Kueue
	// admits no Workload into it.
	Held int64 `json:"held,omitempty"`
}

// Racks counts the racks (domains of Key) with no pod at all at the end,
// which a rack-sized gang could still take whole.
type Racks struct {
	Key   string `json:"key"`
	Total int    `json:"total"`
	Whole int    `json:"whole"`
}

// options configure a simulation.
type options struct {
	rackKey      string // "" means the first known rack label on the nodes
	topologyKeys string // comma-separated, widest first; "" means automatic
	preemption   bool
	// noPreemption are the schedulerNames whose profile disables
	// DefaultPreemption while others keep it (see preemptionFor).
	noPreemption map[string]bool
	// scoring chooses a member's node inside a placement, per profile.
	scoring runScoring
	// topologyProfile decides topology-constrained groups (gang.Options.TopologyProfile).
	topologyProfile topology.Profile
	// kueueProfile plans Kueue Workloads' pod sets: -topology-profile
	// when given, else Kueue's own (see kueueProfileOf).
	kueueProfile topology.Profile
	// kueueNodeAffinityPreferred admits Kueue Workloads with
	// topology.PlanOptions.NodeAffinityPreferred (Kueue's
	// TASRespectNodeAffinityPreferred gate).
	kueueNodeAffinityPreferred bool
	// kueueWaitForReplacement admits Kueue Workloads with Kueue's
	// TASFailedNodeReplacementFailFast gate off
	// (kube.KueueOptions.WaitForReplacement).
	kueueWaitForReplacement bool
	profile                 gang.Profile // the Kubernetes version decided as (gang.Options.Profile)
	gates                   featureGates // -feature-gates
	maxCycles               int
	fillIn                  bool                   // pods bound in the run get status.startTime (see kube.FillIn)
	progress                func(cycle, bound int) // called every progressEvery cycles
	suggest                 *scaleup.Options       // -suggest-nodes: nil for off
}

const progressEvery = 500

// simulate runs scheduling cycles on the cluster until no cycle could
// change anything, and writes bindings, evictions and conditions back into
// c.
//
// The stopping rule is a true fixed point. Decisions are deterministic and
// depend only on the cluster (bindings, evictions and the claims they
// commit) and the group's own pending members, so a group whose last cycle
// changed nothing would decide the same again until some cycle changes the
// cluster. The run counts such groups for the current state of the cluster
// (a generation that every change advances) and ends when the scheduler has
// no active group and every group backing off is one of them; gated groups
// (no PodGroup, fewer than minCount members) wait for events that a run
// over fixed manifests never sends. A group whose cycle bound some members
// and requeued others is not counted: its next cycle sees a different
// cluster, and may preempt for the rest. The check costs O(1) per cycle,
// however many groups are bound or waiting.
func simulate(c *kube.Cluster, opts options) (Report, error) {
	if err := checkTopology(c); err != nil {
		return Report{}, err
	}
	spread, err := clusterHooks(c, opts)
	if err != nil {
		return Report{}, err
	}
	sched := gang.NewScheduler(gang.Options{
		SolveOptions:    solveOptions(c, opts.scoring, spread),
		TopologyLevels:  topologyKeys(c, opts.topologyKeys),
		Preemption:      opts.preemption,
		PreemptionFor:   preemptionFor(c, opts.noPreemption),
		TopologyProfile: opts.topologyProfile,
		Profile:         opts.profile,

		PodGroupPreemptionPolicy: opts.gates.podGroupPreemptionPolicy,
	})
	if err := setHierarchies(c, sched); err != nil {
		return Report{}, err
	}
	if c.Ledger != nil {
		sched.SetClaims(c.Ledger)
	}
	sched.SetDisruptionBudgets(c.Budgets)
	policies := map[placement.Key]gang.SchedulingPolicy{}
	for _, pg := range c.PodGroups {
		if err := sched.SetPodGroup(pg); err != nil {
			return Report{}, err
		}
		policies[pg.Key()] = pg.Spec.SchedulingPolicy
	}
	start := epoch
	groups := map[placement.Key]bool{}
	for _, pg := range c.PodGroups {
		groups[pg.Key()] = true
	}
	for _, p := range c.Pending {
		if p.SchedulingGroup == "" {
			k := placement.Key{Namespace: p.Namespace, Name: podPrefix + p.Name}
			if err := sched.SetPodGroup(gang.LonePodGroup(k, p.Priority)); err != nil {
				return Report{}, err
			}
			p.SchedulingGroup = k.Name
		}
		groups[placement.Key{Namespace: p.Namespace, Name: p.SchedulingGroup}] = true
		if p.QueuedAt.After(start) {
			start = p.QueuedAt
		}
		if err := sched.AddPod(p); err != nil {
			return Report{}, err
		}
		// A preemptor nominated before the run (status.nominatedNodeName,
		// as -o yaml writes it) keeps its room held.
		if api, ok := c.Pod(p.Key()); ok && api.Status.NominatedNodeName != "" {
			if err := sched.Nominate(p.Key(), api.Status.NominatedNodeName); err != nil {
				return Report{}, c.Locate(err)
			}
		}
	}
	var rep Report
	for _, d := range c.DeletedClaims {
		rep.DeletedClaims = append(rep.DeletedClaims, DeletedClaim{Claim: d.Claim.String(), Pod: d.Pod.String()})
	}
	snap := c.Snapshot
	now := start
	// settled[k].gen == gen+1: group k's last cycle changed nothing in
	// the cluster as it is now, and left settled[k].n groups backing off
	// (a tree one per leaf with pending members); settledN sums them.
	gen, settledN := 0, 0
	settled := map[placement.Key]settle{}
	leaves := treeLeaves(c)
	last := map[placement.Key]string{} // the last decision's message per group
	bound, preempted := 0, 0
	for {
		if len(rep.Cycles) >= opts.maxCycles {
			rep.Summary.Stopped = fmt.Sprintf("stopped after -max-cycles=%d", opts.maxCycles)
			break
		}
		r, ok := sched.Cycle(snap, now)
		if !ok {
			if settledN == sched.NumBackingOff() {
				break
			}
			t, ok := sched.NextRetry()
			if !ok {
				break
			}
			now = t
			continue
		}
		if st := settled[r.PodGroup]; st.gen == gen+1 {
			settledN -= st.n
		}
		cy := describe(len(rep.Cycles)+1, start, now, c, policies, r)
		if r.Hierarchy != nil {
			for _, k := range describeTree(&cy, c, r, leaves) {
				last[k] = cy.Status + ": " + cy.Message
			}
			// A leaf of a placed tree can still have members waiting;
			// its own line says why, where the root's says only that
			// the tree is scheduled. A leaf of a tree that waits is
			// judged alone, so the root's line says why it waits.
			for _, n := range cy.Tree {
				if ns, name, ok := strings.Cut(n.Name, "/"); ok && n.Kind == "PodGroup" && r.Hierarchy.Decision.Status == placement.Scheduled {
					last[placement.Key{Namespace: ns, Name: name}] = n.Status + ": " + n.Message
				}
			}
		}
		if len(r.ClaimUpdates) > 0 {
			c.SetLedger(sched.Claims(), r.ClaimUpdates)
			for _, u := range r.ClaimUpdates {
				if v, ok := kube.VisibleUpdate(u); ok {
					cy.Claims = append(cy.Claims, claimLine(&v))
				}
			}
		}
		// A PodGroup's plan, or a tree's (one victim set for the whole
		// hierarchy): the victims are evicted alike.
		var evicted []placement.Key
		var preemptMsg string
		if p := r.Preemption; p != nil && p.Outcome == preemption.Preempt {
			evicted, preemptMsg = p.EvictedPods(), p.Message
		}
		if r.Hierarchy != nil {
			if p := r.Hierarchy.Preemption; p != nil && p.Outcome == preemption.Preempt {
				for _, v := range p.Victims {
					evicted = append(evicted, v.Pods...)
				}
				slices.SortFunc(evicted, placement.Key.Compare)
				preemptMsg = p.Message
			}
		}
		if len(evicted) > 0 {
			victims := make([]placement.Pod, 0, len(evicted))
			for _, k := range evicted {
				if v, ok := snap.Pod(k); ok {
					victims = append(victims, *v)
				}
			}
			next, err := snap.Apply(placement.Change{Remove: evicted})
			if err != nil {
				return Report{}, fmt.Errorf("cycle %d: %s: evicting victims: %w", cy.N, cy.Name, err)
			}
			snap = next
			r.Snapshot = next
			if l := sched.Claims(); l != nil {
				for _, k := range evicted {
					l = l.DeletePod(k)
				}
				sched.SetClaims(l)
				c.Ledger = l
			}
			cy.PreemptionMessage = preemptMsg
			for _, k := range evicted {
				c.Evict(k)
				cy.Preempted = append(cy.Preempted, k.String())
			}
			for _, v := range victims {
				if !c.Recreate(v.Key(), now) {
					continue
				}
				if err := recreate(sched, groups, v, now); err != nil {
					return Report{}, fmt.Errorf("cycle %d: %s: recreating %s: %w", cy.N, cy.Name, v.Key(), err)
				}
				cy.Recreated = append(cy.Recreated, v.Key().String())
			}
			preempted += len(evicted)
		}
		for _, p := range r.Bind {
			c.Bind(p.Key(), p.NodeName)
			if api, ok := c.Pod(p.Key()); ok && opts.fillIn && api.Status.StartTime == nil {
				t := metav1.NewTime(now)
				api.Status.StartTime = &t
			}
		}
		bound += len(r.Bind)
		for _, n := range r.Nominations {
			c.Nominate(n.Pod, n.Node)
			if n.Node != "" {
				cy.Nominated = append(cy.Nominated, Binding{Pod: n.Pod.Name, Node: n.Node})
			}
		}
		switch {
		case len(r.Bind) > 0 || len(cy.Preempted) > 0 || len(r.Nominations) > 0:
			// The cluster, or the room held for preemptors, changed:
			// every group may decide anew.
			gen, settledN = gen+1, 0
		case len(r.Requeued) > 0:
			st := settle{gen: gen + 1, n: 1}
			if r.Hierarchy != nil {
				st.n = backingOff(sched, leaves[r.PodGroup])
			}
			settled[r.PodGroup] = st
			settledN += st.n
		}
		last[r.PodGroup] = cy.Status + ": " + cy.Message
		if r.Condition != nil && !strings.HasPrefix(r.PodGroup.Name, podPrefix) {
			c.SetCondition(r.PodGroup, *r.Condition)
		}
		snap = r.Snapshot
		rep.Cycles = append(rep.Cycles, cy)
		if opts.progress != nil && len(rep.Cycles)%progressEvery == 0 {
			opts.progress(len(rep.Cycles), bound)
		}
	}
	keys := make([]placement.Key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, placement.Key.Compare)
	stopped := rep.Summary.Stopped
	rep.Summary = summarize(c, sched, keys, snap, last, opts)
	rep.Summary.Cycles, rep.Summary.Stopped, rep.Summary.PodsBound, rep.Summary.PodsPreempted = len(rep.Cycles), stopped, bound, preempted
	if opts.suggest != nil {
		if rep.Suggestions, err = suggestNodes(c, sched, keys, snap, opts); err != nil {
			return Report{}, err
		}
	}
	return rep, nil
}

// recreate queues again, at now, a victim pod that its Job's controller
// created anew (see kube.Cluster.Recreate), in its PodGroup or, pod by pod,
// in an implicit basic group of its own.
func recreate(sched *gang.Scheduler, groups map[placement.Key]bool, v placement.Pod, now time.Time) error {
	v.NodeName, v.QueuedAt, v.StartTime = "", now, time.Time{}
	if v.SchedulingGroup == "" {
		v.SchedulingGroup = podPrefix + v.Name
		if err := sched.SetPodGroup(gang.LonePodGroup(placement.Key{Namespace: v.Namespace, Name: v.SchedulingGroup}, v.Priority)); err != nil {
			return err
		}
	}
	groups[placement.Key{Namespace: v.Namespace, Name: v.SchedulingGroup}] = true
	return sched.AddPod(v)
}

func kindName(k placement.Key) (kind, name string) {
	if n, ok := strings.CutPrefix(k.Name, podPrefix); ok {
		return "Pod", placement.Key{Namespace: k.Namespace, Name: n}.String()
	}
	return "PodGroup", k.String()
}

func offset(start, t time.Time) string { return t.Sub(start).String() }

func describe(n int, start, now time.Time, c *kube.Cluster, policies map[placement.Key]gang.SchedulingPolicy, r gang.Result) Cycle {
	kind, name := kindName(r.PodGroup)
	cy := Cycle{N: n, At: offset(start, now), Kind: kind, Name: name}
	if pol, ok := policies[r.PodGroup]; ok && pol.Gang != nil {
		cy.Policy, cy.MinCount = "gang", pol.Gang.MinCount
	} else {
		cy.Policy = "basic"
	}
	cy.Pending = len(r.Bind) + len(r.Requeued)
	if r.Err != nil {
		cy.Status, cy.Message = "Error", r.Err.Error()
	} else {
		cy.Status, cy.Message, cy.Placement = r.Decision.Status.String(), r.Message(), r.Decision.Placement.Name
	}
	for _, p := range r.Bind {
		cy.Bound = append(cy.Bound, Binding{Pod: p.Name, Node: p.NodeName})
	}
	for _, k := range r.Requeued {
		cy.Waiting = append(cy.Waiting, k.Name)
	}
	if !r.RetryAt.IsZero() {
		cy.RetryAt = offset(start, r.RetryAt)
	}
	if r.Condition != nil && kind == "PodGroup" {
		cy.Condition = &Condition{Type: c.ConditionType(r.PodGroup, r.Condition.Type), Status: string(r.Condition.Status), Reason: r.Condition.Reason}
	}
	return cy
}

// claimLine describes a claim update: "default/pg-gpus (created): 8
// devices, reserved for podgroups/pg".
func claimLine(u *dra.ClaimUpdate) string {
	c := &u.Claim
	s := c.Key().String()
	if u.Created {
		s += " (created)"
	}
	if a := c.Status.Allocation; a != nil {
		s += fmt.Sprintf(": %d devices", len(a.Devices))
		if a.NodeName != "" {
			s += " on " + a.NodeName
		}
	}
	var rf []string
	for _, r := range c.Status.ReservedFor {
		rf = append(rf, r.Resource+"/"+r.Name)
	}
	if len(rf) > 0 {
		s += ", reserved for " + strings.Join(rf, " ")
	}
	return s
}
