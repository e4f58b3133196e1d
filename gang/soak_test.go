package gang_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// The soak drives a Scheduler as a host would, through random arrivals and
// deletions of pods, PodGroups and nodes, with preemption and DRA claims
// on, and checks after every cycle, with code of its own (never
// placement.Verify), what DESIGN.md's invariants promise: capacity,
// all-or-nothing, bound members kept, PodGroupScheduled never True → False,
// victims strictly lower in priority and whole PodGroups whole, no device
// allocated twice, one rack for a rack-bound gang, no cycle error on valid
// input; and that a replay, and a run fed the same events in another
// order, give byte-identical traces. GANGSCHED_SOAK=10m runs it for ten
// minutes instead of a few seconds.

// soakHost is the host: it owns the cluster (nodes, bound pods), the clock
// and the event stream, and keeps its own view of what the scheduler did.
type soakHost struct {
	t      *testing.T
	rng    *rand.Rand // the events
	perm   *rand.Rand // the order the host hands them over: must not matter
	s      *Scheduler
	nodes  map[string]placement.Node
	bound  map[placement.Key]placement.Pod // pods on nodes, with NodeName
	queued map[placement.Key]placement.Pod // pods handed to the scheduler and not yet bound
	groups map[placement.Key]*PodGroup
	conds  map[placement.Key]Condition // the last condition each PodGroup got
	snap   *placement.Snapshot
	now    time.Time
	next   int // for fresh names
	fault  soakFault
	trace  strings.Builder
	stats  soakStats
}

// soakFault corrupts what the host observes, so that the self-test can
// prove each check trips: result before the checks see it, claims the
// ledger listing. (TestSoak_Scheduler_Exercised uses result only to
// watch.)
type soakFault struct {
	result func(h *soakHost, r *Result)
	claims func(cs []*dra.ResourceClaim) []*dra.ResourceClaim
}

type soakStats struct {
	cycles, checks int
	violations     map[string]int // by check
	first          []string       // the first few, for the failure message
}

func (st *soakStats) violate(check, format string, args ...any) {
	st.violations[check]++
	if len(st.first) < 5 {
		st.first = append(st.first, check+": "+fmt.Sprintf(format, args...))
	}
}

func (st *soakStats) total() int {
	n := 0
	for _, v := range st.violations {
		n += v
	}
	return n
}

const soakRacks = 3

func newSoakHost(t *testing.T, seed, permSeed uint64, fault soakFault) *soakHost {
	h := &soakHost{t: t, rng: rand.New(rand.NewPCG(seed, 1)), perm: rand.New(rand.NewPCG(permSeed, 2)),
		s:     NewScheduler(Options{Preemption: true}),
		nodes: map[string]placement.Node{}, bound: map[placement.Key]placement.Pod{}, queued: map[placement.Key]placement.Pod{},
		groups: map[placement.Key]*PodGroup{}, conds: map[placement.Key]Condition{}, now: t0, fault: fault,
		stats: soakStats{violations: map[string]int{}}}
	racks := make([]string, soakRacks)
	for i := range racks {
		racks[i] = fmt.Sprintf("r%d", i+1)
	}
	h.s.SetClaims(fabricLedger(t, racks...))
	for range 4 {
		h.addNode()
	}
	h.rebuild()
	return h
}

func (h *soakHost) name(prefix string) string {
	h.next++
	return fmt.Sprintf("%s%03d", prefix, h.next)
}

// shuffled returns the keys of m sorted, then in the perm order.
func shuffled[V any](h *soakHost, m map[placement.Key]V) []placement.Key {
	ks := slices.SortedFunc(maps.Keys(m), placement.Key.Compare)
	h.perm.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
	return ks
}

// pick returns a random key of m, or false when m is empty; it draws from
// rng over the sorted keys, so the choice does not depend on map order.
func pick[V any](h *soakHost, m map[placement.Key]V) (placement.Key, bool) {
	if len(m) == 0 {
		return placement.Key{}, false
	}
	ks := slices.SortedFunc(maps.Keys(m), placement.Key.Compare)
	return ks[h.rng.IntN(len(ks))], true
}

// rebuild makes a fresh snapshot of the host's cluster, nodes and pods in
// the perm order.
func (h *soakHost) rebuild() {
	names := slices.Sorted(maps.Keys(h.nodes))
	h.perm.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	nodes := make([]placement.Node, len(names))
	for i, n := range names {
		nodes[i] = h.nodes[n]
	}
	var pods []placement.Pod
	for _, k := range shuffled(h, h.bound) {
		pods = append(pods, h.bound[k])
	}
	snap, err := placement.NewSnapshot(nodes, pods)
	require.NoError(h.t, err)
	h.snap = snap
}

func (h *soakHost) addNode() {
	if len(h.nodes) >= 10 {
		return
	}
	n := h.name("n")
	h.nodes[n] = placement.Node{Name: n, Labels: map[string]string{rackKey: fmt.Sprintf("r%d", 1+h.rng.IntN(soakRacks))},
		Allocatable: placement.ResourceList{placement.ResourceCPU: 1000 * int64(2+h.rng.IntN(5)), gpu: int64(h.rng.IntN(3)) * 4}}
}

// deletePod deletes a bound or queued pod, as its owner would, and tells
// the scheduler.
func (h *soakHost) deletePod(k placement.Key) {
	delete(h.bound, k)
	delete(h.queued, k)
	h.s.DeletePod(k)
}

func (h *soakHost) removeNode() {
	names := slices.Sorted(maps.Keys(h.nodes))
	if len(names) <= 1 {
		return
	}
	n := names[h.rng.IntN(len(names))]
	delete(h.nodes, n)
	for _, k := range slices.SortedFunc(maps.Keys(h.bound), placement.Key.Compare) {
		if h.bound[k].NodeName == n {
			h.deletePod(k)
		}
	}
}

var soakPriorities = []int32{100, 200, 300, 400}

// addGroup creates a PodGroup and its first members: a gang (minCount 1–4,
// sometimes short of members so the quorum gate holds it) or a basic
// group; whole or pod-by-pod disruption; sometimes a required rack or a
// PodGroup claim on the rack's fabric device.
func (h *soakHost) addGroup() {
	name := h.name("g")
	prio := soakPriorities[h.rng.IntN(len(soakPriorities))]
	pg := &PodGroup{ObjectMeta: ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name}, Spec: PodGroupSpec{Priority: &prio}}
	count := 1 + h.rng.IntN(3)
	if h.rng.IntN(10) < 7 {
		min := int32(1 + h.rng.IntN(4))
		pg.Spec.SchedulingPolicy.Gang = &GangSchedulingPolicy{MinCount: min}
		count = int(min) + h.rng.IntN(3) - 1
	} else {
		pg.Spec.SchedulingPolicy.Basic = &BasicSchedulingPolicy{}
	}
	if h.rng.IntN(2) == 0 {
		pg.Spec.DisruptionMode = DisruptionModePodGroup
	}
	if h.rng.IntN(10) < 3 {
		pg.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{Key: rackKey}}
	}
	if h.rng.IntN(10) < 2 {
		pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "fabric", ResourceClaimTemplateName: "fabric-tmpl"}}
	}
	require.NoError(h.t, h.s.SetPodGroup(pg))
	h.groups[pg.Key()] = pg
	h.addMembers(pg, count)
}

// addMembers queues count new members of pg, handed over in perm order.
func (h *soakHost) addMembers(pg *PodGroup, count int) {
	batch := map[placement.Key]placement.Pod{}
	for range count {
		p := placement.Pod{Namespace: "default", Name: h.name(pg.Name + "-m"), SchedulingGroup: pg.Name, Priority: *pg.Spec.Priority, QueuedAt: h.now,
			Requests: placement.ResourceList{placement.ResourceCPU: 500 * int64(1+h.rng.IntN(4))}}
		if h.rng.IntN(4) == 0 {
			p.Requests[gpu] = int64(1 + h.rng.IntN(4))
		}
		if len(pg.Spec.ResourceClaims) > 0 {
			p.ResourceClaims = []placement.PodResourceClaim{{Name: "fabric", ResourceClaimTemplateName: "fabric-tmpl"}}
		}
		batch[p.Key()] = p
	}
	for _, k := range shuffled(h, batch) {
		require.NoError(h.t, h.s.AddPod(batch[k]))
		h.queued[k] = batch[k]
	}
}

// deleteGroup deletes a PodGroup and, as a Job's deletion would, all its
// pods.
func (h *soakHost) deleteGroup() {
	k, ok := pick(h, h.groups)
	if !ok {
		return
	}
	delete(h.groups, k)
	h.s.DeletePodGroup(k)
	for _, m := range []map[placement.Key]placement.Pod{h.bound, h.queued} {
		for _, pk := range slices.SortedFunc(maps.Keys(m), placement.Key.Compare) {
			if m[pk].SchedulingGroup == k.Name {
				h.deletePod(pk)
			}
		}
	}
}

// addBlocker binds a pod outside any PodGroup where it fits, as another
// scheduler would: a preemption victim of any priority.
func (h *soakHost) addBlocker() {
	names := slices.Sorted(maps.Keys(h.nodes))
	n := names[h.rng.IntN(len(names))]
	p := placement.Pod{Namespace: "default", Name: h.name("b"), NodeName: n, Priority: []int32{0, 150, 250, 1000}[h.rng.IntN(4)],
		Requests: placement.ResourceList{placement.ResourceCPU: 500 * int64(1+h.rng.IntN(4))}}
	if used := h.used(n); used[placement.ResourceCPU]+p.Requests[placement.ResourceCPU] <= h.nodes[n].Allocatable[placement.ResourceCPU] {
		h.bound[p.Key()] = p
	}
}

func (h *soakHost) used(node string) placement.ResourceList {
	u := placement.ResourceList{}
	for _, p := range h.bound {
		if p.NodeName == node {
			for r, q := range p.Requests {
				u[r] += q
			}
		}
	}
	return u
}

// step draws one event, applies it, and runs the cycles that are ready.
func (h *soakHost) step() {
	changed := true
	switch e := h.rng.IntN(100); {
	case e < 20:
		h.addGroup()
		changed = false
	case e < 30:
		if k, ok := pick(h, h.groups); ok {
			h.addMembers(h.groups[k], 1+h.rng.IntN(2))
		}
		changed = false
	case e < 38:
		if k, ok := pick(h, h.queued); ok {
			h.deletePod(k)
		}
		changed = false
	case e < 52:
		if k, ok := pick(h, h.bound); ok {
			h.deletePod(k) // a pod completes
		}
	case e < 57:
		h.deleteGroup()
	case e < 65:
		h.addNode()
	case e < 70:
		h.removeNode()
	case e < 76:
		h.addBlocker()
	default:
		changed = false // time passes
	}
	if changed {
		h.rebuild()
	}
	h.now = h.now.Add(time.Duration(1+h.rng.IntN(3)) * time.Second)
	for range 12 {
		if !h.cycle() {
			break
		}
	}
}

// cycle runs one scheduling cycle, checks it and applies it as the host.
func (h *soakHost) cycle() bool {
	r, ok := h.s.Cycle(h.snap, h.now)
	if !ok {
		return false
	}
	if h.fault.result != nil {
		h.fault.result(h, &r)
	}
	h.stats.cycles++
	h.check(&r)
	h.record(&r)
	for _, p := range r.Bind {
		h.bound[p.Key()] = p
		delete(h.queued, p.Key())
	}
	h.snap = r.Snapshot
	if r.Condition != nil {
		h.conds[r.PodGroup] = *r.Condition
	}
	if pl := r.Preemption; pl != nil && pl.Outcome == preemption.Preempt {
		for _, k := range pl.EvictedPods() {
			h.deletePod(k)
		}
		h.rebuild()
	}
	return true
}

// record appends the cycle to the trace that replays must reproduce.
func (h *soakHost) record(r *Result) {
	w := &h.trace
	fmt.Fprintf(w, "%s %s %q", h.now.Format(time.TimeOnly), r.PodGroup, r.Decision.Message)
	for _, p := range r.Bind {
		fmt.Fprintf(w, " %s@%s", p.Name, p.NodeName)
	}
	fmt.Fprintf(w, " requeued=%v retry=%s", r.Requeued, r.RetryAt.Format(time.TimeOnly))
	if c := r.Condition; c != nil {
		fmt.Fprintf(w, " cond=%s/%s", c.Status, c.Reason)
	}
	if pl := r.Preemption; pl != nil {
		fmt.Fprintf(w, " preempt=%v:%v", pl.Outcome, pl.EvictedPods())
	}
	for _, u := range r.ClaimUpdates {
		fmt.Fprintf(w, " claim=%s:%v", u.Claim.Key(), u.Claim.Status.ReservedFor)
	}
	if r.Err != nil {
		fmt.Fprintf(w, " err=%v", r.Err)
	}
	w.WriteByte('\n')
}

// check runs every independent check on one cycle's result, before the
// host applies it (h.bound is the cluster before the cycle).
func (h *soakHost) check(r *Result) {
	checks := []struct {
		name string
		err  error
	}{
		{"error", soakNoError(r)},
		{"capacity", soakCapacity(h.nodes, h.bound, r.Bind)},
		{"all-or-nothing", soakAllOrNothing(h.groups[r.PodGroup], r, h.bound)},
		{"kept", soakKept(h.bound, h.queued, h.nodes, r)},
		{"monotone", soakMonotone(h.conds, r)},
		{"victims", soakVictims(h.groups, h.bound, r)},
		{"domain", soakDomain(h.groups[r.PodGroup], h.nodes, h.bound, r.Bind)},
		{"devices", soakDevices(h.claims())},
	}
	for _, c := range checks {
		h.stats.checks++
		if c.err != nil {
			h.stats.violate(c.name, "cycle %d, %s: %v", h.stats.cycles, r.PodGroup, c.err)
		}
	}
}

func (h *soakHost) claims() []*dra.ResourceClaim {
	var cs []*dra.ResourceClaim
	for c := range h.s.Claims().Claims() {
		cs = append(cs, c)
	}
	if h.fault.claims != nil {
		cs = h.fault.claims(cs)
	}
	return cs
}

// soakNoError: valid input never fails a cycle.
func soakNoError(r *Result) error {
	if r.Err != nil {
		return fmt.Errorf("cycle failed on valid input: %w", r.Err)
	}
	return nil
}

// soakCapacity: after the bindings no node holds more than its
// allocatable of any resource.
func soakCapacity(nodes map[string]placement.Node, bound map[placement.Key]placement.Pod, bind []placement.Pod) error {
	used := map[string]placement.ResourceList{}
	add := func(p placement.Pod) {
		if used[p.NodeName] == nil {
			used[p.NodeName] = placement.ResourceList{}
		}
		for r, q := range p.Requests {
			used[p.NodeName][r] += q
		}
	}
	for _, p := range bound {
		add(p)
	}
	for _, p := range bind {
		add(p)
	}
	for _, n := range slices.Sorted(maps.Keys(used)) {
		for _, r := range slices.Sorted(maps.Keys(used[n])) {
			if q, alloc := used[n][r], nodes[n].Allocatable[r]; q > alloc {
				return fmt.Errorf("node %s: %s %d requested of %d", n, r, q, alloc)
			}
		}
	}
	return nil
}

// soakAllOrNothing: a cycle binds only members of its own group, only on
// a Scheduled decision, and a gang's bound members reach minCount.
func soakAllOrNothing(pg *PodGroup, r *Result, bound map[placement.Key]placement.Pod) error {
	if len(r.Bind) == 0 {
		return nil
	}
	if r.Decision.Status != placement.Scheduled {
		return fmt.Errorf("%d bound on a %v decision", len(r.Bind), r.Decision.Status)
	}
	if pg == nil {
		return fmt.Errorf("bound members of a PodGroup that does not exist")
	}
	for _, p := range r.Bind {
		if p.Namespace != pg.Namespace || p.SchedulingGroup != pg.Name {
			return fmt.Errorf("bound %s, not a member", p.Key())
		}
	}
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
		have := len(r.Bind)
		for _, p := range bound {
			if p.Namespace == pg.Namespace && p.SchedulingGroup == pg.Name {
				have++
			}
		}
		if have < int(g.MinCount) {
			return fmt.Errorf("gang bound to %d members, minCount %d", have, g.MinCount)
		}
	}
	return nil
}

// soakKept: a cycle binds only queued pods, onto existing nodes, and its
// snapshot keeps every pod bound before where it was.
func soakKept(bound, queued map[placement.Key]placement.Pod, nodes map[string]placement.Node, r *Result) error {
	for _, p := range r.Bind {
		if _, ok := bound[p.Key()]; ok {
			return fmt.Errorf("%s bound again (to %s)", p.Key(), p.NodeName)
		}
		if _, ok := queued[p.Key()]; !ok {
			return fmt.Errorf("%s bound but never queued", p.Key())
		}
		if _, ok := nodes[p.NodeName]; !ok {
			return fmt.Errorf("%s bound to unknown node %q", p.Key(), p.NodeName)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(bound), placement.Key.Compare) {
		got, ok := r.Snapshot.Pod(k)
		if !ok || got.NodeName != bound[k].NodeName {
			return fmt.Errorf("%s was on %s, the cycle's snapshot has it on %q", k, bound[k].NodeName, got.NodeName)
		}
	}
	return nil
}

// soakMonotone: PodGroupScheduled never goes from True back to False.
func soakMonotone(conds map[placement.Key]Condition, r *Result) error {
	old, had := conds[r.PodGroup]
	if c := r.Condition; c != nil && had && old.Status == ConditionTrue && c.Status != ConditionTrue {
		return fmt.Errorf("PodGroupScheduled went True -> %s (%s)", c.Status, c.Reason)
	}
	return nil
}

// priorityOf is a bound pod's priority in preemption: its PodGroup's
// spec.priority when the group exists and sets one, else its own.
func priorityOf(groups map[placement.Key]*PodGroup, p placement.Pod) int32 {
	if pg, ok := groups[placement.Key{Namespace: p.Namespace, Name: p.SchedulingGroup}]; ok && p.SchedulingGroup != "" && pg.Spec.Priority != nil {
		return *pg.Spec.Priority
	}
	return p.Priority
}

// soakVictims: every victim is bound and of strictly lower priority than
// the preemptor, and a victim PodGroup with disruptionMode PodGroup loses
// all its bound members or none.
func soakVictims(groups map[placement.Key]*PodGroup, bound map[placement.Key]placement.Pod, r *Result) error {
	pl := r.Preemption
	if pl == nil || pl.Outcome != preemption.Preempt {
		return nil
	}
	pg := groups[r.PodGroup]
	if pg == nil {
		return fmt.Errorf("preemption for a PodGroup that does not exist")
	}
	evicted := map[placement.Key]bool{}
	for _, k := range pl.EvictedPods() {
		p, ok := bound[k]
		if !ok {
			return fmt.Errorf("victim %s is not bound", k)
		}
		if prio := priorityOf(groups, p); prio >= *pg.Spec.Priority {
			return fmt.Errorf("victim %s has priority %d, preemptor %d", k, prio, *pg.Spec.Priority)
		}
		evicted[k] = true
	}
	for k := range evicted {
		vg, ok := groups[placement.Key{Namespace: k.Namespace, Name: bound[k].SchedulingGroup}]
		if !ok || bound[k].SchedulingGroup == "" || vg.Spec.DisruptionMode != DisruptionModePodGroup {
			continue
		}
		for _, mk := range slices.SortedFunc(maps.Keys(bound), placement.Key.Compare) {
			if m := bound[mk]; m.Namespace == vg.Namespace && m.SchedulingGroup == vg.Name && !evicted[mk] {
				return fmt.Errorf("PodGroup %s (disruptionMode PodGroup) loses %s but keeps %s", vg.Key(), k, mk)
			}
		}
	}
	return nil
}

// soakDomain: a gang with a required rack has all its bound members, old
// and new, in one rack.
func soakDomain(pg *PodGroup, nodes map[string]placement.Node, bound map[placement.Key]placement.Pod, bind []placement.Pod) error {
	if pg == nil || len(bind) == 0 || len(pg.Spec.SchedulingConstraints.Topology) == 0 {
		return nil
	}
	racks := map[string]bool{}
	for _, p := range bind {
		racks[nodes[p.NodeName].Labels[rackKey]] = true
	}
	for _, p := range bound {
		if p.Namespace == pg.Namespace && p.SchedulingGroup == pg.Name {
			racks[nodes[p.NodeName].Labels[rackKey]] = true
		}
	}
	if len(racks) != 1 {
		return fmt.Errorf("members in racks %v", slices.Sorted(maps.Keys(racks)))
	}
	return nil
}

// soakDevices: no device is allocated to two claims, and an allocated
// claim is reserved for someone.
func soakDevices(claims []*dra.ResourceClaim) error {
	holder := map[dra.DeviceID]placement.Key{}
	for _, c := range claims {
		a := c.Status.Allocation
		if a == nil {
			continue
		}
		if len(c.Status.ReservedFor) == 0 {
			return fmt.Errorf("claim %s allocated but reserved for no one", c.Key())
		}
		for _, d := range a.Devices {
			if other, ok := holder[d.DeviceID]; ok && other != c.Key() {
				return fmt.Errorf("device %v allocated to %s and %s", d.DeviceID, other, c.Key())
			}
			holder[d.DeviceID] = c.Key()
		}
	}
	return nil
}

// soakRun runs steps events from seed, handing them over in the order
// permSeed draws, and returns the trace and the counts.
func soakRun(t *testing.T, seed, permSeed uint64, steps int, fault soakFault) (string, soakStats) {
	h := newSoakHost(t, seed, permSeed, fault)
	for range steps {
		h.step()
	}
	return h.trace.String(), h.stats
}

// firstDiff says where two traces part, or "" when they are equal.
func firstDiff(a, b string) string {
	if a == b {
		return ""
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("one trace is %d lines, the other %d", len(la), len(lb))
}

// soakBudget is how long the soak runs: a few seconds, or GANGSCHED_SOAK
// (a duration, e.g. 10m).
func soakBudget(t *testing.T) (time.Duration, bool) {
	v := os.Getenv("GANGSCHED_SOAK")
	if v == "" {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "GANGSCHED_SOAK")
	return d, true
}

// TestSoak_Scheduler runs the soak: in go test, five seeds of 400 events
// each; with GANGSCHED_SOAK=10m, seeds of 1,000 events until the time is
// up. Each seed runs three times — as drawn, replayed, and with every
// batch handed over in another order — and the traces must be identical.
func TestSoak_Scheduler(t *testing.T) {
	budget, long := soakBudget(t)
	steps, seeds := 400, 5
	if long {
		steps = 1000
	}
	start := time.Now() // the host's clock, never the scheduler's
	var cycles, checks, violations, runs int
	for seed := uint64(1); ; seed++ {
		if long && time.Since(start) > budget || !long && seed > uint64(seeds) {
			break
		}
		trace, st := soakRun(t, seed, seed, steps, soakFault{})
		replay, _ := soakRun(t, seed, seed, steps, soakFault{})
		permuted, pst := soakRun(t, seed, seed+1_000_000, steps, soakFault{})
		require.Empty(t, firstDiff(trace, replay), "seed %d: replay diverged", seed)
		require.Empty(t, firstDiff(trace, permuted), "seed %d: permuted input diverged", seed)
		require.Zero(t, st.total()+pst.total(), "seed %d: %v %v", seed, st.violations, st.first)
		runs += 3
		cycles += 2*st.cycles + pst.cycles
		checks += 2*st.checks + pst.checks + 2 // the two trace comparisons
		violations += st.total() + pst.total()
	}
	require.Positive(t, cycles)
	t.Logf("soak: %d runs, %d cycles, %d checks, %d violations, 0 divergences, in %s", runs, cycles, checks, violations, time.Since(start).Round(time.Second))
}

// TestSoak_Scheduler_Exercised: the soak's runs reach what its checks are
// about — gangs bound, preemption evicting whole groups, claims
// allocated, rack-bound gangs placed — so a quiet soak is not a vacuous one.
func TestSoak_Scheduler_Exercised(t *testing.T) {
	saw := map[string]int{}
	fault := soakFault{result: func(h *soakHost, r *Result) {
		pg := h.groups[r.PodGroup]
		if len(r.Bind) > 0 && pg.Spec.SchedulingPolicy.Gang != nil && pg.Spec.SchedulingPolicy.Gang.MinCount > 1 {
			saw["gang bound"]++
		}
		if r.Preemption != nil && r.Preemption.Outcome == preemption.Preempt {
			saw["preempted"]++
			for _, v := range r.Preemption.Victims {
				if v.Whole && len(v.Pods) > 1 {
					saw["whole group evicted"]++
				}
			}
		}
		if len(r.ClaimUpdates) > 0 {
			saw["claims allocated"]++
		}
		if len(r.Bind) > 1 && len(pg.Spec.SchedulingConstraints.Topology) > 0 {
			saw["rack gang bound"]++
		}
		if r.Decision.Status == placement.Unschedulable || r.Decision.Status == placement.Unresolvable {
			saw["waits"]++
		}
	}}
	for seed := uint64(1); seed <= 3; seed++ {
		soakRun(t, seed, seed, 150, fault)
	}
	for _, what := range []string{"gang bound", "preempted", "whole group evicted", "claims allocated", "rack gang bound", "waits"} {
		require.Positive(t, saw[what], "the soak never saw: %s (%v)", what, saw)
	}
}

// TestSoak_SchedulerFaults: each injected fault — a corruption of what
// the host observes, as a scheduler bug would produce — trips its check.
func TestSoak_SchedulerFaults(t *testing.T) {
	faults := map[string]soakFault{
		"error": {result: func(h *soakHost, r *Result) { r.Err = fmt.Errorf("injected") }},
		"capacity": {result: func(h *soakHost, r *Result) {
			for i := range r.Bind {
				r.Bind[i].Requests = placement.ResourceList{placement.ResourceCPU: 1 << 40}
			}
		}},
		"all-or-nothing": {result: func(h *soakHost, r *Result) {
			if len(r.Bind) > 1 {
				r.Bind = r.Bind[:1]
			}
		}},
		"kept": {result: func(h *soakHost, r *Result) {
			if k, ok := pick(h, h.bound); ok && len(r.Bind) > 0 {
				again := h.bound[k]
				r.Bind = append(r.Bind, again)
			}
		}},
		"monotone": {result: func(h *soakHost, r *Result) {
			if c, ok := h.conds[r.PodGroup]; ok && c.Status == ConditionTrue {
				r.Condition = &Condition{Type: PodGroupScheduled, Status: ConditionFalse, Reason: ReasonUnschedulable}
			}
		}},
		"victims": {result: func(h *soakHost, r *Result) {
			if pl := r.Preemption; pl != nil && pl.Outcome == preemption.Preempt {
				for _, k := range slices.SortedFunc(maps.Keys(h.bound), placement.Key.Compare) {
					if h.bound[k].Priority >= 1000 { // a blocker above every PodGroup
						pl.Victims = append(pl.Victims, preemption.Victim{Pods: []placement.Key{k}})
						return
					}
				}
				for i, v := range pl.Victims {
					if v.Whole && len(v.Pods) > 1 {
						pl.Victims[i].Pods = v.Pods[1:] // a whole group, not whole
						return
					}
				}
			}
		}},
		"domain": {result: func(h *soakHost, r *Result) {
			pg := h.groups[r.PodGroup]
			if len(r.Bind) < 2 || len(pg.Spec.SchedulingConstraints.Topology) == 0 {
				return
			}
			rack := h.nodes[r.Bind[0].NodeName].Labels[rackKey]
			for _, n := range slices.Sorted(maps.Keys(h.nodes)) {
				if h.nodes[n].Labels[rackKey] != rack {
					r.Bind[1].NodeName = n
					return
				}
			}
		}},
		"devices": {claims: func(cs []*dra.ResourceClaim) []*dra.ResourceClaim {
			for _, c := range cs {
				if c.Status.Allocation != nil {
					twin := *c
					twin.Name += "-twin"
					return append(cs, &twin)
				}
			}
			return cs
		}},
	}
	for _, name := range slices.Sorted(maps.Keys(faults)) {
		t.Run(name, func(t *testing.T) {
			var tripped int
			for seed := uint64(1); seed <= 3 && tripped == 0; seed++ {
				_, st := soakRun(t, seed, seed, 150, faults[name])
				tripped = st.violations[name]
			}
			require.Positive(t, tripped, "fault %q never tripped its check", name)
		})
	}
	t.Run("divergence", func(t *testing.T) {
		a, _ := soakRun(t, 1, 1, 60, soakFault{})
		b, _ := soakRun(t, 2, 2, 60, soakFault{})
		require.NotEmpty(t, firstDiff(a, b), "different events must give different traces")
		c, _ := soakRun(t, 1, 1, 60, soakFault{result: func(h *soakHost, r *Result) { slices.Reverse(r.Bind) }})
		require.NotEmpty(t, firstDiff(a, c), "a scheduler that answers in another order must show")
	})
}
