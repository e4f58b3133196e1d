package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Options are what a host gives a [Scheduler] besides its configuration.
type Options struct {
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
	// Registerer receives the metrics (see [Metrics]); nil registers
	// nothing.
	Registerer prometheus.Registerer
	// Now is the clock; nil means time.Now. The gang cycle itself never
	// reads a clock: the scheduler passes it this time.
	Now func() time.Time
	// Dynamic is the client CompositePodGroups are read and written
	// through (as unstructured objects, in the version the API server
	// serves: v1beta1 when served, else v1alpha3); build it on the same
	// rest.Config as the typed client (dynamic.NewForConfig speaks JSON).
	// Nil is refused by Run when the API server serves CompositePodGroups:
	// their trees would wait unseen.
	Dynamic dynamic.Interface
}

// Scheduler serves the pods whose spec.schedulerName is the configured
// one: it watches the cluster with shared informers, runs gang scheduling
// cycles on a snapshot kept in step with them, and writes the decisions
// through the API. Build it with [New], run it with [Scheduler.Run].
type Scheduler struct {
	cfg     Config
	client  kubernetes.Interface
	dynamic dynamic.Interface
	log     *slog.Logger
	metrics *Metrics
	now     func() time.Time

	factory informers.SharedInformerFactory
	pods    corelisters.PodLister
	groups  schedulinglisters.PodGroupLister
	// dynFactory holds the CompositePodGroup informer; nil when the API
	// server does not serve them.
	dynFactory dynamicinformer.DynamicSharedInformerFactory
	// compositeAPI is the version CompositePodGroups are watched and
	// written in; nil when the API server serves none.
	compositeAPI *compositeVersion
	// composites lists CompositePodGroups (unstructured, in compositeAPI's
	// version); nil when the API server does not serve them.
	composites cache.GenericLister
	// synced report, per informer, that its handler here has run for
	// every object of the informer's first list. An informer's own
	// HasSynced says only that its store has the list: the handlers get
	// the objects later, on their own goroutines, and a cycle run in
	// between decides on a partly seen cluster (after a restart, pending
	// pods placed onto nodes whose bound pods the handler has not reached
	// yet: those nodes overcommitted). Waited on through their channels
	// (cache.WaitFor) rather than polled, so that the first cycle starts
	// as the last handler finishes, not up to a poll period (100 ms in
	// cache.WaitForCacheSync) later.
	synced []cache.DoneChecker
	// classesSynced reports the same of the PriorityClass handler.
	classesSynced cache.DoneChecker
	ready         atomic.Bool
	kick          chan struct{}
	sem           chan struct{} // bounds concurrent API calls

	// beforeEvent, when set (by tests), runs before each informer event is
	// handled, outside s.mu: a test holds a handler back with it.
	beforeEvent func(obj any)

	mu    sync.Mutex // guards everything below; held by handlers and the cycle loop
	gs    *gang.Scheduler
	c     *snapCache
	dra   *draCache
	state *state
}

// New returns a scheduler for cfg (with its defaults filled in; see
// [DefaultConfig] and [LoadConfig]) on client.
func New(client kubernetes.Interface, cfg Config, opts Options) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	s := &Scheduler{
		cfg: cfg, client: client, dynamic: opts.Dynamic, log: opts.Logger, metrics: m, now: opts.Now,
		kick: make(chan struct{}, 1),
		sem:  make(chan struct{}, cfg.Parallelism),
		gs: gang.NewScheduler(gang.Options{
			TopologyLevels:           cfg.TopologyLevels,
			Preemption:               *cfg.Preemption,
			InitialBackoff:           cfg.InitialBackoff.Duration,
			Profile:                  gang.Profile(cfg.Profile),
			PodGroupPreemptionPolicy: cfg.FeatureGates[gang.GatePodGroupPreemptionPolicy],
			MaxBackoff:               cfg.MaxBackoff.Duration,
		}),
		c:     newSnapCache(),
		dra:   newDRACache(),
		state: newState(),
	}
	s.factory = informers.NewSharedInformerFactory(client, 0)
	if err := s.register(); err != nil {
		return nil, err
	}
	return s, nil
}

// Ready reports whether the informers have synced and the scheduler is
// deciding: before that it has not seen the cluster whole, and binds
// nothing.
func (s *Scheduler) Ready() bool { return s.ready.Load() }

// Run starts the informers, waits until its handlers have seen each
// informer's first list whole, and runs scheduling cycles until ctx ends.
// It does no leader election: see [RunElected].
func (s *Scheduler) Run(ctx context.Context) error {
	s.factory.Start(ctx.Done())
	if !cache.WaitFor(ctx, "", s.classesSynced) {
		return fmt.Errorf("PriorityClass informer did not sync: %w", context.Cause(ctx))
	}
	if err := s.registerObjects(ctx); err != nil {
		return err
	}
	s.factory.Start(ctx.Done()) // the informers registered since the first Start
	if s.dynFactory != nil {
		s.dynFactory.Start(ctx.Done())
		defer s.dynFactory.Shutdown()
	}
	if !cache.WaitFor(ctx, "", s.synced...) {
		return fmt.Errorf("informers did not sync: %w", context.Cause(ctx))
	}
	s.log.Info("informers synced; scheduling", "schedulerName", s.cfg.SchedulerName)
	s.ready.Store(true)
	s.loop(ctx)
	s.factory.Shutdown()
	return nil
}

// wake asks the loop for a cycle; it never blocks.
func (s *Scheduler) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// maxCyclesPerRound bounds the cycles run under the lock before their
// effects go out, so that bindings flow while a long queue drains.
const maxCyclesPerRound = 256

// loop runs rounds and makes their calls. A round's conditions wait while
// the queue has a backlog (the round ran maxCyclesPerRound cycles): the
// pods wait for bindings, a condition only reports, so the next round's
// bindings go out first and the waiting conditions with those of the
// round that drains the queue. (kube-scheduler v1.37 patches a PodGroup's
// status within its scheduling cycle, ahead of the bindings, which it
// makes asynchronously.) A condition never goes out before its gang's
// bindings; at most one per object and type waits (see latestConditions),
// and none outlives the loop.
func (s *Scheduler) loop(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var waiting []conditionWrite
	for {
		s.mu.Lock()
		w := s.round()
		next, retry := s.gs.NextRetry()
		s.metrics.observeQueue(s.gs, s.state.groupKeys())
		s.mu.Unlock()
		waiting = latestConditions(append(waiting, s.execute(ctx, w)...))

		if w.cycles == maxCyclesPerRound && ctx.Err() == nil {
			continue // more may be ready now
		}
		s.writeConditions(ctx, waiting)
		waiting = nil
		if w.cycles == maxCyclesPerRound {
			return // a queue that never drains (a group retried at once, round after round) must not outlive ctx
		}
		wait := time.Hour
		if retry {
			wait = max(next.Sub(s.now()), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-timer.C:
		}
	}
}

// round runs cycles until no group is ready (or maxCyclesPerRound) and
// returns the API calls they ask for. The caller holds s.mu.
func (s *Scheduler) round() work {
	var w work
	for _, k := range slices.SortedFunc(maps.Keys(s.state.stale), placement.Key.Compare) {
		w.stale = append(w.stale, staleCall{claim: k, uid: s.state.stale[k]})
	}
	clear(s.state.stale)
	s.servePerNode()
	if s.dra.dirty {
		s.gs.SetClaims(s.dra.ledger(s.log, s.podUID))
	}
	snap, err := s.c.snapshot(s.dra.served)
	if err != nil {
		s.log.Error("cannot build the cluster snapshot", "err", err)
		return w
	}
	for w.cycles < maxCyclesPerRound {
		start := time.Now()
		r, ok := s.gs.Cycle(snap, s.now())
		if !ok {
			break
		}
		w.cycles++
		s.metrics.observeCycle(r, time.Since(start))
		s.c.snap = r.Snapshot
		s.logCycle(r)
		if r.Condition != nil && !isImplicit(r.PodGroup) {
			w.conditions = append(w.conditions, conditionWrite{group: r.PodGroup, cond: *r.Condition})
		}
		if r.Hierarchy != nil {
			s.addTree(&w, r)
		}
		if len(r.Bind) > 0 {
			g := gangWrite{group: r.PodGroup, claims: visibleUpdates(r.ClaimUpdates)}
			for _, p := range r.Bind {
				g.binds = append(g.binds, bindCall{pod: p.Key(), uid: p.UID, node: p.NodeName})
				s.state.unqueue(p.Key())
			}
			w.gangs = append(w.gangs, g)
			s.dra.assume(g.claims)
		}
		s.c.assume(r.Snapshot, r.Bind)
		for _, p := range r.Bind {
			s.dropImplicit(p.Key())
		}
		if p := r.Preemption; p != nil && p.Outcome == preemptOutcome {
			s.evictAll(&w, p.EvictedPods(), "PodGroup "+r.PodGroup.String())
		}
		s.addNominations(&w, r)
		if snap, err = s.c.snapshot(s.dra.served); err != nil {
			s.log.Error("cannot update the cluster snapshot", "err", err)
			return w
		}
	}
	s.confirmBound(snap, &w)
	return w
}

// evictAll takes preemption victims out of the queue and the snapshot at
// once (the next cycle places the preemptor where they were) and adds
// their evictions; preemptor names the PodGroup or CompositePodGroup they
// make room for.
func (s *Scheduler) evictAll(w *work, victims []placement.Key, preemptor string) {
	for _, k := range victims {
		s.gs.DeletePod(k)
	}
	s.c.evict(victims)
	for _, v := range victims {
		w.evictions = append(w.evictions, evictCall{pod: v, preemptor: preemptor})
	}
}

// addNominations adds the nominated nodes cycle r set or cleared, except
// the clearing of members it binds: their binding clears it (the v1.37
// API server does, under ClearingNominatedNodeNameAfterBinding). A pod
// nominated again in the same round keeps only its last nomination, since
// a round's writes run in parallel.
func (s *Scheduler) addNominations(w *work, r gang.Result) {
	bound := map[placement.Key]bool{}
	for _, p := range r.Bind {
		bound[p.Key()] = true
	}
	for _, n := range r.Nominations {
		if n.Node == "" && bound[n.Pod] {
			continue
		}
		call := nominateCall{pod: n.Pod, node: n.Node}
		if i := slices.IndexFunc(w.nominations, func(c nominateCall) bool { return c.pod == n.Pod }); i >= 0 {
			w.nominations[i] = call
		} else {
			w.nominations = append(w.nominations, call)
		}
	}
}

func (s *Scheduler) logCycle(r gang.Result) {
	attrs := []any{"podGroup", r.PodGroup.String()}
	if r.Hierarchy != nil {
		attrs = []any{"compositePodGroup", r.PodGroup.String()}
	}
	switch {
	case r.Err != nil:
		s.log.Error("scheduling cycle failed", append(attrs, "err", r.Err)...)
		return
	case len(r.Bind) > 0 && r.Hierarchy != nil:
		s.log.Info("tree scheduled", append(attrs, "bound", len(r.Bind), "leaves", len(r.Hierarchy.Decision.Decisions))...)
	case len(r.Bind) > 0:
		s.log.Info("gang scheduled", append(attrs, "bound", len(r.Bind), "placement", r.Decision.Placement.Name)...)
	default:
		attrs = append(attrs, "status", r.Decision.Status.String(), "reason", r.Decision.Message, "retryAt", r.RetryAt)
		if p := r.Preemption; p != nil {
			attrs = append(attrs, "preemption", p.Outcome.String(), "preemptionMessage", p.Message)
		}
		if h := r.Hierarchy; h != nil && h.Preemption != nil {
			attrs = append(attrs, "preemption", h.Preemption.Outcome.String(), "preemptionMessage", h.Preemption.Message)
		}
		s.log.Info("gang waits", attrs...)
	}
}

// dropImplicit forgets the implicit group of a lone pod that left the
// queue.
func (s *Scheduler) dropImplicit(k placement.Key) {
	gk := implicitGroup(k)
	if s.state.implicit[gk] {
		s.gs.DeletePodGroup(gk)
		delete(s.state.implicit, gk)
	}
}

// handler adapts add and delete functions to an informer's handler; each
// runs under s.mu and wakes the loop.
func (s *Scheduler) handler(add func(any), del func(any)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { s.locked(o, func() { add(o) }) },
		UpdateFunc: func(_, o any) { s.locked(o, func() { add(o) }) },
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			s.locked(o, func() { del(o) })
		},
	}
}

// register adds the informers and their handlers: PriorityClasses first
// and apart, so that they are known before any pod's priority class is
// resolved (see [Scheduler.Run]).
func (s *Scheduler) register() error {
	classes := s.factory.Scheduling().V1().PriorityClasses().Informer()
	reg, err := classes.AddEventHandler(s.handler(s.onPriorityClass, s.onPriorityClassDelete))
	if err != nil {
		return fmt.Errorf("informer handler: %w", err)
	}
	s.classesSynced = reg.HasSyncedChecker()
	return nil
}

// registerObjects adds the informers of everything but PriorityClasses.
// CompositePodGroups are watched when the API server serves them (a
// discovery call; v1beta1 preferred over v1alpha3), through the dynamic
// client; otherwise the scheduler runs without, and says so: a leaf
// PodGroup naming a parent then waits for it.
func (s *Scheduler) registerObjects(ctx context.Context) error {
	pods := s.factory.Core().V1().Pods()
	nodes := s.factory.Core().V1().Nodes()
	groups := s.factory.Scheduling().V1beta1().PodGroups()
	draAPI := s.factory.Resource().V1()
	type informer struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandlerFuncs
	}
	informers := []informer{
		{nodes.Informer(), s.handler(s.onNode, s.onNodeDelete)},
		{draAPI.DeviceClasses().Informer(), s.handler(s.onDeviceClass, s.onDeviceClassDelete)},
		{draAPI.ResourceSlices().Informer(), s.handler(s.onResourceSlice, s.onResourceSliceDelete)},
		{draAPI.ResourceClaims().Informer(), s.handler(s.onResourceClaim, s.onResourceClaimDelete)},
		{groups.Informer(), s.handler(s.onPodGroup, s.onPodGroupDelete)},
	}
	served, err := s.servedComposites(ctx)
	if err != nil {
		return err
	}
	var composites cache.GenericLister
	switch {
	case served != nil && s.dynamic == nil:
		return fmt.Errorf("the API server serves CompositePodGroups (%s) but Options.Dynamic is nil: their trees would wait unseen", served.gvr.GroupVersion())
	case served != nil:
		s.dynFactory = dynamicinformer.NewDynamicSharedInformerFactory(s.dynamic, 0)
		cpgs := s.dynFactory.ForResource(served.gvr)
		s.compositeAPI, composites = served, cpgs.Lister()
		informers = append(informers, informer{cpgs.Informer(), s.handler(s.onCompositePodGroup, s.onCompositePodGroupDelete)})
		s.log.Info("watching CompositePodGroups", "apiVersion", served.gvr.GroupVersion().String())
		profile, _ := gang.ParseProfile(s.cfg.Profile) // New checked it
		if w := profileWarning(profile, served.gvr.Version); w != "" {
			s.log.Warn(w, "profile", string(profile), "apiVersion", served.gvr.GroupVersion().String())
		}
	default:
		s.log.Info("the API server does not serve CompositePodGroups; running without them (restart to pick them up once served)",
			"apiVersions", compositeGroupVersions())
	}
	informers = append(informers, informer{pods.Informer(), s.handler(s.onPod, s.onPodDelete)})
	s.mu.Lock()
	s.pods, s.groups, s.composites = pods.Lister(), groups.Lister(), composites
	s.mu.Unlock()
	for _, h := range informers {
		reg, err := h.inf.AddEventHandler(h.h)
		if err != nil {
			return fmt.Errorf("informer handler: %w", err)
		}
		s.synced = append(s.synced, reg.HasSyncedChecker())
	}
	return nil
}

func (s *Scheduler) locked(o any, f func()) {
	if s.beforeEvent != nil {
		s.beforeEvent(o)
	}
	s.mu.Lock()
	f()
	s.mu.Unlock()
	s.wake()
}
