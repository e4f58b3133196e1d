package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
	"github.com/gangsched/gangsched/topology"
)

// Pod is one pod of a replay: a [placement.Pod] that arrives at its
// QueuedAt (metadata.creationTimestamp) and, once bound, runs for Duration
// and then ends, freeing its resources and claims. A pod with NodeName set
// is running when the replay starts, since its StartTime.
type Pod struct {
	placement.Pod
	// Duration is the expected run time (annotation
	// gangsched.io/expected-duration, or a trace's deletion minus
	// scheduled time); 0 means the pod runs past the end of the replay.
	Duration time.Duration
}

// GPUResource names the resource that counts GPUs, for the stranded-GPU
// metric: PerGPU units of Name make one GPU (1 for nvidia.com/gpu, 1000
// for a trace's gpu-milli).
type GPUResource struct {
	Name   placement.ResourceName
	PerGPU int64
}

// Input is everything a replay starts from: the nodes, the pods (running
// and to come), the PodGroups (all existing from the start, as objects the
// API server holds before their pods arrive), and optionally the DRA
// claim ledger and disruption budgets.
type Input struct {
	Nodes     []placement.Node
	Pods      []Pod
	PodGroups []*gang.PodGroup
	Claims    *dra.Ledger
	Budgets   []preemption.DisruptionBudget
	// CompositePodGroups are the inner nodes of KEP-6012 hierarchies
	// (gang.CompositePodGroup), all existing from the start; a PodGroup
	// naming one as its parent is a leaf of its tree, which is decided,
	// preempted for and reported leaf by leaf as one (see [Run]).
	CompositePodGroups []*gang.CompositePodGroup
	// GPU is the resource counted as GPUs; zero means nvidia.com/gpu.
	GPU GPUResource
	// Filters are per-pod, per-node checks every cycle applies beyond the
	// built-in ones (a trace's constraint that no nodeSelector expresses).
	Filters []placement.Filter
	// DomainKey is the node label whose values are the domains reported in
	// Result.Domains (a rack, or a GPU model in a trace without topology);
	// "" reports none unless Options.DomainKey names one.
	DomainKey string
}

// Options configure [Run]. The zero value replays with gangsched's packing
// policy, without preemption, from the earliest arrival.
type Options struct {
	// Start is when the replay starts: the time of its first cycle. Pods
	// that arrived earlier are pending then; running pods whose end is
	// earlier end then. Zero means the earliest pending pod's QueuedAt.
	Start time.Time
	// Policy chooses nodes inside a placement; see [Policies]. The zero
	// value keeps the options as the scheduler and SolveOptions made them.
	Policy Policy
	// Preemption turns on workload-aware preemption (gang.Options). A
	// victim is created again, pending, at the time of its eviction, with
	// its whole Duration to run (as a Job controller recreates an evicted
	// pod, whose work is lost).
	Preemption bool
	// PreemptionFor narrows Preemption per group, as gang.Options's (a
	// KubeSchedulerConfiguration whose profiles disagree on
	// DefaultPreemption); nil preempts for every group. The wake-up hints
	// of parked groups still treat every group as one that may preempt,
	// which wakes some for nothing but never misses one.
	PreemptionFor func(pg *gang.PodGroup) bool
	// TopologyLevels are the topology keys, widest first, and
	// TopologyProfile who decides topology-constrained groups (both as
	// gang.Options).
	TopologyLevels  []string
	TopologyProfile topology.Profile
	// Profile is the Kubernetes version decided as where versions differ,
	// and PodGroupPreemptionPolicy the feature gate of that name (both as
	// gang.Options).
	Profile                  gang.Profile
	PodGroupPreemptionPolicy bool
	// SolveOptions extends the solver options per PodGroup (the host's own
	// filters: node affinity, topology spread), before Policy applies.
	SolveOptions gang.SolveOptionsFunc
	// SampleEvery is the spacing of the samples of Result's time series;
	// zero means a 1/1000 of the span from Start to the last known arrival
	// or end, at least one second.
	SampleEvery time.Duration
	// DomainKey overrides Input.DomainKey.
	DomainKey string
	// InitialBackoff and MaxBackoff are the scheduler's backoff after a
	// cycle that left members waiting (gang.Options); zero means its
	// defaults, 1 s doubling to 10 s.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// MaxCycles stops the replay after this many cycles; 0 means
	// 10,000,000. Result.Stopped then says so.
	MaxCycles int
	// RecordRuns fills Result.Runs, one entry per run of a pod.
	RecordRuns bool
	// Progress, when set, is called as pods arrive, about every 1% of
	// them, with the number arrived and the total.
	Progress func(arrived, total int)
}

// GatedPrefix starts the Reason of a group that never started because the
// scheduler gated it (gang.Gated: its PodGroup or CompositePodGroup parent
// does not exist, or too few members do), which no room can help.
const GatedPrefix = "gated: "

// defaultMaxCycles bounds a replay that Options.MaxCycles does not.
const defaultMaxCycles = 10_000_000

// podPrefix names the basic PodGroup of one that a pod without
// spec.schedulingGroup is scheduled in, as kube-scheduler schedules such a
// pod alone; ':' cannot occur in a PodGroup's name.
const podPrefix = "pod:"

// podState is the replay's record of one pod.
type podState struct {
	pod     placement.Pod // as pending: NodeName empty
	dur     time.Duration
	group   *groupState // its PodGroup's (a leaf's for a pod in a hierarchy)
	arrived bool
	running bool
	run     int32 // counts starts, so that the end of an evicted run is ignored
	runIdx  int   // the current run's index in Result.Runs, with RecordRuns
}

// groupState is the replay's record of one PodGroup (or a lone pod's group).
type groupState struct {
	out      GroupOutcome
	priority int32 // the PodGroup's priority, else its first member's
	override bool  // priority comes from the PodGroup
	claims   bool  // the group or a member names a ResourceClaim
	parked   []placement.Pod
	retryAt  time.Time
	// For the slot hint (slots.go): the members still needed, the
	// smallest member's shape (nil for a single member), the required
	// topology key.
	need    int64
	shape   *slotShape
	topoKey string
	waking  bool // a wake event is queued
	// tree is the record of the hierarchy a leaf PodGroup belongs to,
	// which queues, parks and wakes for its leaves (tree.go); nil outside
	// hierarchies.
	tree *groupState
}

// engine is one replay in progress.
type engine struct {
	opts    Options
	filters []placement.Filter
	sched   *gang.Scheduler
	snap    *placement.Snapshot
	now     time.Time
	ev      events
	pods    map[placement.Key]*podState
	groups  map[placement.Key]*groupState
	parked  map[placement.Key]*groupState // groups whose members wait out of the queue
	// slotShapes and domains serve the slot hint (slots.go); minPriority
	// is the lowest priority of any pod, below which nothing is evicted.
	slotShapes  map[string]*slotShape
	domains     map[string]map[string][]placement.NodeID
	minPriority int32
	wakeAll     bool
	res         *Result
	stats       *sampler
	session     *Session // the policy's state across the run, or nil
	cycles      int
	arrived     int
}

// Run replays in: it runs scheduling cycles (package gang) at each event —
// an arrival, an end, a group's backoff expiring — in simulated time, until
// no event is left, and returns what happened and the metrics.
//
// A group whose cycle changed nothing (no member bound, nothing evicted)
// waits, as in kube-scheduler's unschedulable pool, until an event may
// make it fit: a member arrives, or a pod ends or is evicted on a node
// where, by resources and nodeSelector alone, one of its pending members
// could then fit (with preemption, counting the pods of lower priority as
// removable) and, for a group of several, as many slots of its smallest
// member as it still needs are free in the cluster and in that node's
// domain of its required topology key; a group that names ResourceClaims
// wakes at every end. It is tried again at that event, or when its backoff
// expires if later. A test holds this hint to waking every group at every
// end: both start the same pods at the same times. A group
// no event wakes waits to the end: [GroupOutcome].Reason says why.
//
// Time is simulated: Run reads no clock, starts no goroutine and does no
// I/O; the same input, in any order, gives the same Result.
//
// Errors: a pod named twice, a negative Duration, a bound pod on a node
// that does not exist, a PodGroup that fails validation (each naming the
// object and the field); nothing is returned then.
func Run(in Input, opts Options) (*Result, error) { return run(in, opts, false) }

// run is Run; wakeAll wakes every parked group at every end, the oracle
// that tests hold the wake hint to.
func run(in Input, opts Options, wakeAll bool) (*Result, error) {
	e, err := newEngine(in, opts)
	if err != nil {
		return nil, err
	}
	e.wakeAll = wakeAll
	if err := e.loop(); err != nil {
		return nil, err
	}
	return e.finish(), nil
}

func newEngine(in Input, opts Options) (*engine, error) {
	if opts.MaxCycles <= 0 {
		opts.MaxCycles = defaultMaxCycles
	}
	if opts.DomainKey == "" {
		opts.DomainKey = in.DomainKey
	}
	if in.GPU.Name == "" {
		in.GPU = GPUResource{Name: placement.ResourceGPU, PerGPU: 1}
	}
	if in.GPU.PerGPU <= 0 {
		return nil, placement.Errorf(placement.ErrInvalid, "Input", "GPU.PerGPU", "is %d: want 1 or more", in.GPU.PerGPU)
	}
	e := &engine{opts: opts, filters: in.Filters, pods: map[placement.Key]*podState{}, groups: map[placement.Key]*groupState{}, parked: map[placement.Key]*groupState{}, slotShapes: map[string]*slotShape{}, domains: map[string]map[string][]placement.NodeID{}, res: &Result{Policy: opts.Policy.Name}, minPriority: math.MaxInt32}
	e.sched = gang.NewScheduler(gang.Options{
		SolveOptions:    e.solveOptions,
		TopologyLevels:  opts.TopologyLevels,
		TopologyProfile: opts.TopologyProfile,
		Preemption:      opts.Preemption && mayPreempt(in),
		PreemptionFor:   opts.PreemptionFor,
		InitialBackoff:  opts.InitialBackoff,
		MaxBackoff:      opts.MaxBackoff,
		Profile:         opts.Profile,

		PodGroupPreemptionPolicy: opts.PodGroupPreemptionPolicy,
	})
	if in.Claims != nil {
		e.sched.SetClaims(in.Claims)
	}
	e.sched.SetDisruptionBudgets(in.Budgets)
	for _, cg := range in.CompositePodGroups {
		if err := e.sched.SetCompositePodGroup(cg); err != nil {
			return nil, err
		}
	}
	for _, pg := range in.PodGroups {
		if err := e.sched.SetPodGroup(pg); err != nil {
			return nil, err
		}
		g := e.group(pg.Key(), "PodGroup")
		if gp := pg.Spec.SchedulingPolicy.Gang; gp != nil {
			g.out.Policy, g.out.MinCount = "gang", int(gp.MinCount)
		}
		if pg.Spec.Priority != nil {
			g.priority, g.override = *pg.Spec.Priority, true
			e.minPriority = min(e.minPriority, g.priority)
		}
		g.claims = len(pg.Spec.ResourceClaims) > 0
		for _, c := range pg.Spec.SchedulingConstraints.Topology {
			if !c.Preferred && g.topoKey == "" {
				g.topoKey = c.Key
			}
		}
	}
	// Nodes and pods in name order: what Run reports never depends on the
	// order the caller listed them in.
	nodes := slices.Clone(in.Nodes)
	slices.SortFunc(nodes, func(a, b placement.Node) int { return strings.Compare(a.Name, b.Name) })
	pods := slices.Clone(in.Pods)
	slices.SortFunc(pods, func(a, b Pod) int { return a.Key().Compare(b.Key()) })
	var bound []placement.Pod
	start := opts.Start
	for i := range pods {
		p := &pods[i]
		k := p.Key()
		obj := fmt.Sprintf("pod %q", k.String())
		if i > 0 && pods[i-1].Key() == k {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "is given twice")
		}
		if p.Duration < 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "duration", "%s is negative", p.Duration)
		}
		kind := "PodGroup"
		if p.SchedulingGroup == "" {
			kind = "Pod"
			p.SchedulingGroup = podPrefix + p.Name
		}
		gk, _ := p.GroupKey()
		g, known := e.groups[gk]
		if !known {
			g = e.group(gk, kind)
			if kind == "Pod" {
				if err := e.sched.SetPodGroup(gang.LonePodGroup(gk, p.Priority)); err != nil {
					return nil, err
				}
			}
		}
		ps := &podState{pod: p.Pod, dur: p.Duration, group: g, runIdx: -1}
		e.minPriority = min(e.minPriority, p.Priority)
		ps.pod.NodeName, ps.pod.StartTime = "", time.Time{}
		e.pods[k] = ps
		g.out.Size++
		if !g.override && (g.out.Size == 1 || p.Priority > g.priority) {
			g.priority = p.Priority
		}
		g.claims = g.claims || len(p.ResourceClaims) > 0
		if g.out.Size == 1 || p.QueuedAt.Before(g.out.Arrival) {
			g.out.Arrival = p.QueuedAt
		}
		if p.NodeName != "" {
			ps.arrived, ps.running, ps.run = true, true, 1
			if opts.RecordRuns {
				ps.runIdx = len(e.res.Runs)
				e.res.Runs = append(e.res.Runs, PodRun{Pod: k.String(), Node: p.NodeName, Start: p.StartTime})
			}
			if !g.out.Started || p.StartTime.Before(g.out.Start) {
				g.out.Started, g.out.Start = true, p.StartTime // running before the replay: not a queueing delay
			}
			bound = append(bound, p.Pod)
			if p.Duration > 0 {
				e.ev.push(event{at: p.StartTime.Add(p.Duration), kind: evEnd, key: k, run: 1})
			}
			continue
		}
		e.ev.push(event{at: p.QueuedAt, kind: evArrive, key: k})
		if opts.Start.IsZero() && (start.IsZero() || p.QueuedAt.Before(start)) {
			start = p.QueuedAt
		}
	}
	e.linkTrees(in)
	snap, err := placement.NewSnapshot(nodes, bound)
	if err != nil {
		return nil, err
	}
	e.snap, e.now = snap, start
	e.stats = newSampler(e, in.GPU, opts)
	// bound is in key order, as pods are.
	if err := e.startSession(in, bound, snap); err != nil {
		return nil, err
	}
	return e, nil
}

// mayPreempt reports whether in holds two priorities. Victims are only of
// strictly lower priority than the preemptor, so with one priority (as in
// traces that carry none) every victim search finds nothing; and each
// search walks every bound group, which made a replay of thousands of
// running pods spend most of its time there.
func mayPreempt(in Input) bool {
	var first int32
	seen := false
	same := func(p int32) bool {
		if !seen {
			first, seen = p, true
		}
		return p == first
	}
	for _, pg := range in.PodGroups {
		if pg.Spec.Priority != nil && !same(*pg.Spec.Priority) {
			return true
		}
	}
	for _, cg := range in.CompositePodGroups {
		if cg.Spec.Priority != nil && !same(*cg.Spec.Priority) {
			return true
		}
	}
	for i := range in.Pods {
		if !same(in.Pods[i].Priority) {
			return true
		}
	}
	return false
}

// group returns the record of group k, creating it.
func (e *engine) group(k placement.Key, kind string) *groupState {
	g, ok := e.groups[k]
	if !ok {
		name := k.String()
		if n, pod := strings.CutPrefix(k.Name, podPrefix); pod {
			name = placement.Key{Namespace: k.Namespace, Name: n}.String()
		}
		g = &groupState{out: GroupOutcome{Kind: kind, Name: name, Policy: "basic", key: k}}
		e.groups[k] = g
	}
	return g
}

// solveOptions is the scheduler's SolveOptions: the host's, then the policy.
func (e *engine) solveOptions(pg *gang.PodGroup, s *placement.Snapshot, opts placement.Options) (placement.Options, error) {
	if e.opts.SolveOptions != nil {
		var err error
		if opts, err = e.opts.SolveOptions(pg, s, opts); err != nil {
			return opts, err
		}
	}
	opts.Filters = append(slices.Clip(opts.Filters), e.filters...)
	if e.opts.Policy.Configure != nil {
		opts = e.opts.Policy.Configure(opts)
	}
	if e.session != nil && e.session.Configure != nil {
		opts = e.session.Configure(opts)
	}
	return opts, nil
}

// loop runs the replay: at each moment, the events due, then cycles until
// none is ready, then on to the next event.
func (e *engine) loop() error {
	total := 0
	for _, ps := range e.pods {
		if !ps.arrived {
			total++
		}
	}
	nextProgress := 0
	for {
		if err := e.events(); err != nil {
			return err
		}
		if e.opts.Progress != nil && e.arrived >= nextProgress && total > 0 {
			e.opts.Progress(e.arrived, total)
			nextProgress = e.arrived + max(1, total/100)
		}
		for {
			if e.cycles >= e.opts.MaxCycles {
				e.res.Stopped = fmt.Sprintf("stopped after %d cycles (Options.MaxCycles)", e.cycles)
				return nil
			}
			r, ok := e.sched.Cycle(e.snap, e.now)
			if !ok {
				break
			}
			e.cycles++
			if err := e.apply(r); err != nil {
				return err
			}
		}
		next, ok := e.ev.next()
		if t, retry := e.sched.NextRetry(); retry && (!ok || t.Before(next)) {
			next, ok = t, true
		}
		if !ok {
			return nil
		}
		e.stats.sampleUntil(next)
		e.now = next
	}
}

// events handles every event due at e.now: arrivals queue pods, ends
// remove them (in one snapshot change), wakes requeue parked groups.
func (e *engine) events() error {
	var ended []placement.Key
	for {
		ev, ok := e.ev.popDue(e.now)
		if !ok {
			break
		}
		ps := e.pods[ev.key]
		switch ev.kind {
		case evEnd:
			if ps.running && ps.run == ev.run {
				ended = append(ended, ev.key)
			}
		case evArrive:
			ps.arrived = true
			e.arrived++
			e.stats.pending(&ps.pod, 1)
			if err := e.unpark(ps.group.queued()); err != nil {
				return err
			}
			if err := e.sched.AddPod(ps.pod); err != nil {
				return err
			}
		case evWake:
			g := e.groups[ev.key]
			g.waking = false
			if err := e.unpark(g); err != nil {
				return err
			}
		}
	}
	if len(ended) == 0 {
		return nil
	}
	return e.remove(ended)
}

// remove takes the running pods ks out of the cluster (they ended or were
// evicted) and wakes the parked groups that may fit now.
func (e *engine) remove(ks []placement.Key) error {
	freed := make([]placement.NodeID, 0, len(ks))
	for _, k := range ks {
		p, _ := e.snap.Pod(k)
		id, _ := e.snap.NodeOf(p)
		freed = append(freed, id)
		e.stats.running(p, -1)
		ps := e.pods[k]
		ps.running = false
		if e.opts.RecordRuns && ps.runIdx >= 0 {
			e.res.Runs[ps.runIdx].End = e.now
			ps.runIdx = -1
		}
	}
	next, err := e.snap.Apply(placement.Change{Remove: ks})
	if err != nil {
		return fmt.Errorf("replay at %s: removing ended pods: %w", e.now.Format(time.RFC3339), err)
	}
	e.snap = next
	for _, k := range ks {
		e.sched.DeletePod(k) // releases its claims
	}
	if err := e.sessionEnded(ks); err != nil {
		return err
	}
	slices.Sort(freed)
	freed = slices.Compact(freed)
	e.recount(freed)
	// A group whose own pod ended may fit now for a reason no freed room
	// shows: a bound member below its minimum no longer pins its (or its
	// tree's) domain.
	owners := make(map[*groupState]bool, len(ks))
	for _, k := range ks {
		owners[e.pods[k].group.queued()] = true
	}
	e.wake(freed, owners)
	return nil
}

// apply carries out one cycle's result.
func (e *engine) apply(r gang.Result) error {
	if r.Hierarchy != nil {
		return e.applyTree(r)
	}
	g := e.groups[r.PodGroup]
	g.out.Attempts++
	if p := r.Preemption; p != nil && p.Outcome == preemption.Preempt {
		g.noteEvicts(p.EvictedPods())
		if err := e.evict(g.out.Name, p.EvictedPods()); err != nil {
			return err
		}
	}
	if err := e.bind(r); err != nil {
		return err
	}
	if len(r.Bind) > 0 && !g.out.Started {
		g.out.Started, g.out.Start = true, e.now
		g.out.Placement, g.out.Nodes = r.Decision.Placement.Name, e.nodeNames(r.Bind, nil)
		e.stats.delay(g)
	}
	if len(r.Requeued) == 0 {
		return nil
	}
	g.out.Reason, g.out.Failed = reason(&r), r.Err != nil
	g.out.FirstReason = cmp.Or(g.out.FirstReason, g.out.Reason)
	if len(r.Bind) > 0 || (r.Preemption != nil && r.Preemption.Outcome == preemption.Preempt) {
		return nil // the cluster changed: the scheduler's own retry may do more
	}
	e.park(g, r)
	return nil
}

// bind carries out r's bindings: the pods run from now, on r.Snapshot.
func (e *engine) bind(r gang.Result) error {
	if len(r.Bind) == 0 {
		return nil
	}
	if err := e.sessionBound(e.snap, r.Bind); err != nil {
		return err
	}
	e.snap = r.Snapshot
	for i := range r.Bind {
		b := &r.Bind[i]
		ps := e.pods[b.Key()]
		ps.running = true
		ps.run++
		if e.opts.RecordRuns {
			ps.runIdx = len(e.res.Runs)
			e.res.Runs = append(e.res.Runs, PodRun{Pod: b.Key().String(), Node: b.NodeName, Start: e.now})
		}
		e.stats.pending(&ps.pod, -1)
		e.stats.running(b, 1)
		if ps.dur > 0 {
			e.ev.push(event{at: e.now.Add(ps.dur), kind: evEnd, key: b.Key(), run: ps.run})
		}
	}
	if len(e.slotShapes) > 0 {
		nodes := e.nodeNames(r.Bind, nil)
		ids := make([]placement.NodeID, len(nodes))
		for i, n := range nodes {
			ids[i], _ = e.snap.NodeID(n)
		}
		e.recount(ids)
	}
	return nil
}

// nodeNames are the nodes of the pods bound, by name, each once; only
// of group g's pods when g is not nil.
func (e *engine) nodeNames(bound []placement.Pod, g *groupState) []string {
	nodes := make([]string, 0, len(bound))
	for i := range bound {
		if g == nil || e.pods[bound[i].Key()].group == g {
			nodes = append(nodes, bound[i].NodeName)
		}
	}
	slices.Sort(nodes)
	return slices.Compact(nodes)
}

// park takes g's members that r requeued out of the queue, as its cycle
// changed nothing, until an event may let them fit.
func (e *engine) park(g *groupState, r gang.Result) {
	g.parked = make([]placement.Pod, 0, len(r.Requeued))
	for _, k := range r.Requeued {
		g.parked = append(g.parked, e.pods[k].pod)
		e.sched.DeletePod(k)
	}
	g.retryAt = r.RetryAt
	g.need, g.shape = 1, nil
	if g.tree == nil && (len(g.parked) > 1 || r.Decision.Required-r.Decision.Bound > 1) {
		g.need = int64(max(1, r.Decision.Required-r.Decision.Bound))
		g.shape = e.shapeOf(smallest(g.parked))
	}
	e.parked[g.out.key] = g
}

// noteEvicts records victims as what g's start evicts, unless it started.
func (g *groupState) noteEvicts(victims []placement.Key) {
	if !g.out.Started {
		g.out.Evicts = append(g.out.Evicts, keyStrings(victims)...)
	}
}

// evict removes the victims of preemptor's preemption and creates each
// again, pending, as its controller would.
func (e *engine) evict(preemptor string, victims []placement.Key) error {
	e.res.Preemptions = append(e.res.Preemptions, Preemption{At: e.now, Preemptor: preemptor, Victims: keyStrings(victims)})
	e.res.PodsEvicted += len(victims)
	if err := e.remove(victims); err != nil {
		return err
	}
	for _, k := range victims {
		ps := e.pods[k]
		ps.group.out.Evicted++
		ps.pod.QueuedAt = e.now
		if err := e.unpark(ps.group.queued()); err != nil {
			return err
		}
		e.stats.pending(&ps.pod, 1)
		if err := e.sched.AddPod(ps.pod); err != nil {
			return err
		}
	}
	return nil
}

// finish orders the outcomes and closes the series.
func (e *engine) finish() *Result {
	r := e.res
	r.Start, r.End, r.Cycles = e.stats.start, e.now, e.cycles
	for _, g := range e.groups {
		if g.out.Size == 0 {
			continue // a PodGroup without pods
		}
		if !g.out.Started {
			r.GroupsWaiting++
			if st, ok := e.sched.Group(g.out.key); ok && st.State == gang.Gated {
				g.out.Reason = GatedPrefix + st.Reason
			} else if g.out.Reason == "" {
				g.out.Reason = "not tried: " + r.Stopped
			}
		}
		r.Groups = append(r.Groups, g.out)
	}
	// PodGroups before lone pods ("Pod" < "PodGroup" the other way).
	slices.SortFunc(r.Groups, func(a, b GroupOutcome) int { return cmp.Or(strings.Compare(b.Kind, a.Kind), a.key.Compare(b.key)) })
	e.stats.close(r)
	return r
}

// reason is why a cycle left members waiting: the decision's message (or
// the error), and when preemption (a PodGroup's or a tree's) found nothing
// to evict, its verdict without the detail that repeats the decision.
func reason(r *gang.Result) string {
	if r.Err != nil {
		return r.Err.Error()
	}
	var ran bool
	var outcome preemption.Outcome
	var msg string
	if p := r.Preemption; p != nil {
		ran, outcome, msg = true, p.Outcome, p.Message
	}
	if h := r.Hierarchy; h != nil && h.Preemption != nil {
		ran, outcome, msg = true, h.Preemption.Outcome, h.Preemption.Message
	}
	if !ran || outcome == preemption.Preempt {
		return r.Decision.Message
	}
	verdict, _, _ := strings.Cut(msg, ";")
	return r.Decision.Message + "; " + verdict
}

func keyStrings(ks []placement.Key) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.String()
	}
	return out
}
