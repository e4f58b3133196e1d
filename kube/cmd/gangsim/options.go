package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// levelKeys are node labels taken as topology levels whenever nodes carry
// them, so that a rack is told apart by its block (Kueue's racks r1 and r2
// repeat in every block), in the order used to break ties.
var levelKeys = []string{
	"topology.kubernetes.io/region",
	"topology.kubernetes.io/zone",
	"cloud.provider.com/topology-block",
	"topology.kubernetes.io/block",
	"cloud.provider.com/topology-rack",
	"topology.kubernetes.io/rack",
	"kubernetes.io/hostname",
}

// topologyKeys returns the levels of the topology tree, widest first:
// explicit when given (-topology-keys), else the well-known level labels
// the nodes carry plus every key a PodGroup requires, ordered by how many
// distinct values they take on the nodes (fewer is wider), then by
// levelKeys, then by name.
func topologyKeys(c *kube.Cluster, explicit string) []string {
	if explicit != "" {
		return strings.Split(explicit, ",")
	}
	values := map[string]map[string]bool{}
	add := func(k string) {
		if _, ok := values[k]; !ok {
			values[k] = map[string]bool{}
		}
	}
	for _, pg := range c.PodGroups {
		for _, t := range pg.Spec.SchedulingConstraints.Topology {
			add(t.Key)
		}
	}
	if len(values) == 0 {
		return nil
	}
	for _, n := range c.Nodes {
		for _, k := range levelKeys {
			if _, ok := n.Labels[k]; ok {
				add(k)
			}
		}
	}
	for _, n := range c.Nodes {
		for k, vs := range values {
			if v, ok := n.Labels[k]; ok {
				vs[v] = true
			}
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		if i := slices.Index(levelKeys, k); i >= 0 {
			return i
		}
		return len(levelKeys)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(values[a]), len(values[b])), cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return keys
}

// checkTopology reports a PodGroup that requires a topology key no node
// carries: bad input, located at the PodGroup, rather than a cycle that
// fails with SchedulerError.
func checkTopology(c *kube.Cluster) error {
	carried := map[string]bool{}
	for _, n := range c.Nodes {
		for k := range n.Labels {
			carried[k] = true
		}
	}
	for _, pg := range c.PodGroups {
		for i, t := range pg.Spec.SchedulingConstraints.Topology {
			if !carried[t.Key] {
				return c.Locate(placement.Errorf(placement.ErrNotFound, fmt.Sprintf("PodGroup %q", pg.Key().String()),
					fmt.Sprintf("spec.schedulingConstraints.topology[%d].key", i), "no node carries the label %q", t.Key))
			}
		}
	}
	return nil
}

// nodeHooks are the run's per-pod hooks: topology spread's DoNotSchedule
// filter, and the upstream Score plugins gangsched adds to the resource
// scoring (ScheduleAnyway spread, TaintToleration, preferred
// NodeAffinity), each nil when no pending pod needs it or, for the
// scorers, when node scoring is gangsched's packing or the plugin's
// weight is 0.
type nodeHooks struct {
	filter   *kube.SpreadFilter
	scorer   *kube.SpreadScorer
	taint    *kube.TaintScorer
	affinity *kube.NodeAffinityScorer
}

// runHooks are the run's per-pod hooks of each profile, as in
// runScoring; all share the one DoNotSchedule filter.
type runHooks = byProfile[nodeHooks]

// clusterHooks compiles the spread constraints and preferred node
// affinity of c's pending pods (every one is validated, whichever hook
// reads it), and the hooks of each profile of opts.scoring. A profile's
// scorers are built only with an upstream-compatible node scoring, each
// when its weight is above 0: packing's score is not on upstream's scale,
// so there they are read and checked but change no choice.
func clusterHooks(c *kube.Cluster, opts options) (runHooks, error) {
	f, err := c.TopologySpreadFilter()
	if err != nil {
		return runHooks{}, err
	}
	build := func(sc profileScoring) (nodeHooks, error) {
		h := nodeHooks{filter: f}
		na, err := c.PreferredNodeAffinityScorer(sc.w.affinity)
		if err != nil {
			return nodeHooks{}, err
		}
		if sc.ns.Strategy == "" {
			return h, nil
		}
		if sc.w.spread > 0 {
			if h.scorer, err = c.TopologySpreadScorer(sc.w.spread); err != nil {
				return nodeHooks{}, err
			}
		}
		if sc.w.taint > 0 {
			h.taint = c.TaintTolerationScorer(sc.w.taint)
		}
		if sc.w.affinity > 0 {
			h.affinity = na
		}
		return h, nil
	}
	var out runHooks
	if out.fallback, err = build(opts.scoring.fallback); err != nil {
		return runHooks{}, err
	}
	if len(opts.scoring.byName) > 0 {
		out.byName = make(map[string]nodeHooks, len(opts.scoring.byName))
	}
	for name, sc := range opts.scoring.byName {
		// Each build compiles the same pods, so the first error is the
		// fallback's, whatever the map's order.
		if out.byName[name], err = build(sc); err != nil {
			return runHooks{}, err
		}
	}
	return out, nil
}

// groupSchedulers returns the spec.schedulerName of each group (PodGroup
// key, or simulate's group of one) of c's pending pods, the first pending
// member's (a group whose members differ fails its cycle on that), and of
// the groups of c's bound pods, which preemption may evict and recreate.
func groupSchedulers(c *kube.Cluster) map[placement.Key]string {
	out := map[placement.Key]string{}
	add := func(p *placement.Pod) {
		g := p.SchedulingGroup
		if g == "" {
			g = podPrefix + p.Name // simulate's group of one
		}
		k := placement.Key{Namespace: p.Namespace, Name: g}
		if _, ok := out[k]; !ok {
			out[k] = p.SchedulerName
		}
	}
	for i := range c.Pending {
		add(&c.Pending[i])
	}
	if c.Snapshot != nil {
		for p := range c.Snapshot.Pods() {
			add(p)
		}
	}
	return out
}

// groupsWith returns the groups (PodGroup keys, or simulate's group of one
// for a pod outside any) of c's pending pods for which has is true.
func groupsWith(c *kube.Cluster, has func(placement.Key) bool) map[placement.Key]bool {
	out := map[placement.Key]bool{}
	for i := range c.Pending {
		p := &c.Pending[i]
		if has(p.Key()) {
			g := p.SchedulingGroup
			if g == "" {
				g = podPrefix + p.Name // simulate's group of one
			}
			out[placement.Key{Namespace: p.Namespace, Name: g}] = true
		}
	}
	return out
}

// preemptionFor returns gang.Options.PreemptionFor for a run whose
// profiles of off disable DefaultPreemption and the others keep it: a
// group preempts unless its pods' schedulerName names one of off, as
// kube-scheduler runs the PostFilter plugins of the pod's own profile. It
// returns nil when off is empty (every profile agrees).
func preemptionFor(c *kube.Cluster, off map[string]bool) func(*gang.PodGroup) bool {
	if len(off) == 0 {
		return nil
	}
	var names map[placement.Key]string // each group's schedulerName, once known
	return func(pg *gang.PodGroup) bool {
		if names == nil {
			names = groupSchedulers(c)
		}
		return !off[names[pg.Key()]]
	}
}

// solveOptions adds, to the options the scheduler derives (the topology
// generator and scorer, the DRA claims hook), the node scoring of the
// group's profile (the one its pods' spec.schedulerName names), the
// required node affinity of the pods that have one, and, for a group
// whose pending members have topology spread constraints, spread's hooks:
// the DoNotSchedule filter as a Reserver and as a placement filter (which
// the gang cycle re-runs before it binds), and the ScheduleAnyway scorer
// with its Reserver, fresh for each group's options. The node scorers the
// group needs (spread's for its constraints, NodeAffinity's for its
// preferred terms, TaintToleration's always when built) are the
// NodeScorer, summed by kube.SumScores when there are several.
func solveOptions(c *kube.Cluster, sc runScoring, hooks runHooks) gang.SolveOptionsFunc {
	var hard, soft, preferring map[placement.Key]bool // groups that need each hook, once their members are known
	var names map[placement.Key]string                // each group's schedulerName, once known
	return func(pg *gang.PodGroup, _ *placement.Snapshot, opts placement.Options) (placement.Options, error) {
		if names == nil {
			names = groupSchedulers(c)
		}
		name := names[pg.Key()]
		opts.NodeScoring = sc.of(name).ns
		spread := hooks.of(name)
		if f := spread.filter; f != nil {
			if hard == nil {
				hard = groupsWith(c, func(k placement.Key) bool { return len(f.Constraints[k]) > 0 })
			}
			if hard[pg.Key()] {
				opts.Reservers = append(opts.Reservers, f.Reserver)
				opts.PlacementFilters = append(opts.PlacementFilters, f)
			}
		}
		var scorers []placement.NodeScoreNormalizer
		if sc := spread.scorer; sc != nil {
			// Every profile's scorer compiles the same pods' constraints
			// (only the weight differs), so the groups are the same.
			if soft == nil {
				soft = groupsWith(c, func(k placement.Key) bool { return len(sc.Constraints[k]) > 0 })
			}
			if soft[pg.Key()] {
				newReserver, scorer := sc.Hooks()
				opts.Reservers = append(opts.Reservers, newReserver)
				scorers = append(scorers, scorer)
			}
		}
		if spread.taint != nil {
			scorers = append(scorers, spread.taint)
		}
		if na := spread.affinity; na != nil {
			if preferring == nil {
				preferring = groupsWith(c, func(k placement.Key) bool { return na.Preferred[k] != nil })
			}
			if preferring[pg.Key()] {
				scorers = append(scorers, na)
			}
		}
		switch len(scorers) {
		case 0:
		case 1:
			opts.NodeScorer = scorers[0]
		default:
			opts.NodeScorer = &kube.SumScores{Scorers: scorers}
		}
		if c.NodeAffinity != nil {
			opts.Filters = append(opts.Filters, c.NodeAffinity)
		}
		return opts, nil
	}
}
