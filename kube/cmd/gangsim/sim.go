package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
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
	Message   string `json:"message"`
	// Bound are the members bound in this cycle, all together.
	Bound []Binding `json:"bound,omitempty"`
	// Waiting are the members sent back to the queue.
	Waiting []string `json:"waiting,omitempty"`
	// RetryAt is when the waiting members are tried again.
	RetryAt string `json:"retryAt,omitempty"`
	// Preempted are the pods evicted so that the group fits (workload-aware
	// preemption); the group is retried at once.
	Preempted []string `json:"preempted,omitempty"`
	// PreemptionMessage explains the victims chosen.
	PreemptionMessage string `json:"preemptionMessage,omitempty"`
	// Claims are the ResourceClaims this cycle allocated or reserved.
	Claims    []string   `json:"claims,omitempty"`
	Condition *Condition `json:"condition,omitempty"`
}

// Binding is one pod bound to one node.
type Binding struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
}

// Condition is the PodGroupScheduled condition a cycle wrote.
type Condition struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// Summary is the state after the last cycle.
type Summary struct {
	Cycles        int            `json:"cycles"`
	PodGroups     int            `json:"podGroups"`
	GroupsPlaced  int            `json:"podGroupsPlaced"`
	GroupsWaiting int            `json:"podGroupsWaiting"`
	PodsBound     int            `json:"podsBound"`
	PodsWaiting   int            `json:"podsWaiting"`
	PodsPreempted int            `json:"podsPreempted"`
	Waiting       []WaitingGroup `json:"waiting,omitempty"`
	Allocation    []Allocation   `json:"allocation"`
	Racks         *Racks         `json:"racks,omitempty"`
	Unused        []string       `json:"unused,omitempty"`
	JobsPodByPod  []string       `json:"jobsPodByPod,omitempty"`
	Stopped       string         `json:"stopped,omitempty"`
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
	nodeScoring  placement.NodeScoring // a member's node inside a placement
	maxCycles    int
	progress     func(cycle, bound int) // called every progressEvery cycles
}

const progressEvery = 500

// simulate runs scheduling cycles on the cluster until nothing can change:
// every group still queued has been tried since the last binding (the
// cluster only changes by bindings, so a retry would decide the same), or
// only gated groups remain. Bindings and conditions are written back into
// c.
func simulate(c *kube.Cluster, opts options) (Report, error) {
	if err := checkTopology(c); err != nil {
		return Report{}, err
	}
	spread, err := c.TopologySpreadFilter()
	if err != nil {
		return Report{}, err
	}
	sched := gang.NewScheduler(gang.Options{
		SolveOptions:   solveOptions(c, opts.nodeScoring, spread),
		TopologyLevels: topologyKeys(c, opts.topologyKeys),
		Preemption:     opts.preemption,
	})
	if c.Ledger != nil {
		sched.SetClaims(c.Ledger)
	}
	sched.SetDisruptionBudgets(c.Budgets)
	for _, pg := range c.PodGroups {
		if err := sched.SetPodGroup(pg); err != nil {
			return Report{}, err
		}
	}
	start := epoch
	groups := map[placement.Key]bool{}
	for _, pg := range c.PodGroups {
		groups[pg.Key()] = true
	}
	for _, p := range c.Pending {
		if p.SchedulingGroup == "" {
			k := placement.Key{Namespace: p.Namespace, Name: podPrefix + p.Name}
			if err := sched.SetPodGroup(&gang.PodGroup{
				ObjectMeta: gang.ObjectMeta{Namespace: k.Namespace, Name: k.Name},
				Spec:       gang.PodGroupSpec{SchedulingPolicy: gang.SchedulingPolicy{Basic: &gang.BasicSchedulingPolicy{}}},
			}); err != nil {
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
	}
	keys := make([]placement.Key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, placement.Key.Compare)

	var rep Report
	snap := c.Snapshot
	now := start
	failed := map[placement.Key]bool{} // tried and left pending since the last binding
	last := map[placement.Key]string{} // the last decision's message per group
	bound, preempted := 0, 0
	for {
		if done(sched, keys, failed) {
			break
		}
		if len(rep.Cycles) >= opts.maxCycles {
			rep.Summary.Stopped = fmt.Sprintf("stopped after -max-cycles=%d", opts.maxCycles)
			break
		}
		r, ok := sched.Cycle(snap, now)
		if !ok {
			t, ok := sched.NextRetry()
			if !ok {
				break
			}
			now = t
			continue
		}
		cy := describe(len(rep.Cycles)+1, start, now, sched, r)
		if len(r.ClaimUpdates) > 0 {
			c.SetLedger(sched.Claims(), r.ClaimUpdates)
			for _, u := range r.ClaimUpdates {
				cy.Claims = append(cy.Claims, claimLine(&u))
			}
		}
		if p := r.Preemption; p != nil && p.Outcome == preemption.Preempt {
			evicted := p.EvictedPods()
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
			cy.PreemptionMessage = p.Message
			for _, k := range evicted {
				c.Evict(k)
				cy.Preempted = append(cy.Preempted, k.String())
			}
			clear(failed) // the cluster changed
			preempted += len(evicted)
		}
		if len(r.Bind) > 0 {
			clear(failed)
			for _, p := range r.Bind {
				c.Bind(p.Key(), p.NodeName)
			}
			bound += len(r.Bind)
		}
		if (len(r.Requeued) > 0 || r.Err != nil) && len(cy.Preempted) == 0 {
			failed[r.PodGroup] = true
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
	stopped := rep.Summary.Stopped
	rep.Summary = summarize(c, sched, keys, snap, last, opts)
	rep.Summary.Cycles, rep.Summary.Stopped, rep.Summary.PodsBound, rep.Summary.PodsPreempted = len(rep.Cycles), stopped, bound, preempted
	return rep, nil
}

// done reports whether no further cycle can change anything: each group
// with pending members is gated or has failed since the last binding.
func done(sched *gang.Scheduler, keys []placement.Key, failed map[placement.Key]bool) bool {
	for _, k := range keys {
		st, ok := sched.Group(k)
		if !ok || len(st.Pending) == 0 || st.State == gang.Gated || failed[k] {
			continue
		}
		return false
	}
	return true
}

func kindName(k placement.Key) (kind, name string) {
	if n, ok := strings.CutPrefix(k.Name, podPrefix); ok {
		return "Pod", placement.Key{Namespace: k.Namespace, Name: n}.String()
	}
	return "PodGroup", k.String()
}

func offset(start, t time.Time) string { return t.Sub(start).String() }

func describe(n int, start, now time.Time, sched *gang.Scheduler, r gang.Result) Cycle {
	kind, name := kindName(r.PodGroup)
	cy := Cycle{N: n, At: offset(start, now), Kind: kind, Name: name}
	if st, ok := sched.Group(r.PodGroup); ok && st.PodGroup != nil {
		pol := st.PodGroup.Spec.SchedulingPolicy
		if pol.Gang != nil {
			cy.Policy, cy.MinCount = "gang", pol.Gang.MinCount
		} else {
			cy.Policy = "basic"
		}
	}
	cy.Pending = len(r.Bind) + len(r.Requeued)
	if r.Err != nil {
		cy.Status, cy.Message = "Error", r.Err.Error()
	} else {
		cy.Status, cy.Message, cy.Placement = r.Decision.Status.String(), r.Decision.Message, r.Decision.Placement.Name
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
		cy.Condition = &Condition{Status: string(r.Condition.Status), Reason: r.Condition.Reason}
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
