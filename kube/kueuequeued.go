package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// plannedSets are the pod sets of a pending Workload that admission
// places on nodes, with their plan and what the admission records.
type plannedSets struct {
	// w is the Workload at the counts planned: its own, or those of
	// partial admission.
	w *KueueWorkload
	// group holds the planned sets, their templates given their flavor's
	// node labels and tolerations; requests are their topology requests.
	group    *placement.Group
	requests []topology.PodSetRequest
	plan     topology.Plan
	adm      flavorAdmission
}

// waits is a plan that does not fit for reason msg.
func waits(msg string) topology.Plan {
	return topology.Plan{Decision: placement.Decision{Status: placement.Unresolvable, Message: msg}}
}

// initQueues builds a tree for every Topology a ResourceFlavor names and
// the quota that admitted Workloads hold; nothing without
// [KueueOptions].Queues.
func (a *admitter) initQueues() error {
	q := a.opts.Queues
	if q == nil {
		return nil
	}
	a.trees, a.used, a.sums = map[string]*topology.Tree{}, quotaUsage{}, newCohortSums(q, nil)
	for _, name := range slices.Sorted(maps.Keys(q.Flavors)) {
		t := q.Flavors[name].Topology
		levels, ok := q.Topologies[t]
		if _, built := a.trees[t]; t == "" || !ok || built {
			continue
		}
		tree, err := topology.NewTree(a.s, KueueTreeLevels(levels))
		if err != nil {
			return err
		}
		a.trees[t] = tree
		if aboveHost(levels) {
			a.markAppended(tree)
		}
	}
	return nil
}

// countUsage sets the quota in use from the admissions of ws as they
// stand.
func (a *admitter) countUsage(ws []*KueueWorkload) {
	if a.opts.Queues == nil {
		return
	}
	a.used, a.sums = quotaUsage{}, newCohortSums(a.opts.Queues, nil)
	for _, w := range ws {
		if cq, u := a.opts.Queues.admittedUsage(w); cq != "" {
			a.addUsage(cq, u, 1)
		}
	}
}

// withFlavor gives template tmpl flavor f's node labels as nodeSelector
// entries and its tolerations, as Kueue gives them to the pods of a set
// admitted in f: a topology flavor's plan uses only its nodes.
func withFlavor(tmpl placement.Pod, f KueueFlavor) placement.Pod {
	sel := maps.Clone(tmpl.NodeSelector)
	if sel == nil && len(f.NodeLabels) > 0 {
		sel = map[string]string{}
	}
	maps.Copy(sel, f.NodeLabels)
	tmpl.NodeSelector = sel
	tmpl.Tolerations = append(slices.Clip(tmpl.Tolerations), f.Tolerations...)
	return tmpl
}

// admittedView returns admitted Workload w as its repair and resize read
// it, and the tree they use. Without queues that is w and the admitter's
// tree. With them, each pod set with a topologyAssignment, or whose
// topology Kueue delayed, takes the node
// labels and tolerations of the topology flavor status.admission names
// for it, and the tree is that flavor's Topology's (the admitter's own
// when no set names a topology flavor the input has).
//
// Errors (ErrUnsupported, naming the Workload and the field): a set
// admitted on quota alone without queues; a set in two topology flavors,
// or sets in flavors of different Topologies; no tree to read a
// topologyAssignment over. ErrInvalid: a set whose topology Kueue delayed
// in flavors none of which names a Topology of the input.
func (a *admitter) admittedView(w *KueueWorkload) (*KueueWorkload, *topology.Tree, error) {
	obj := kueueWorkloadObj(w.Obj.Namespace, w.Obj.Name)
	q := a.opts.Queues
	field := func(k int) string {
		i := slices.IndexFunc(w.Obj.Status.Admission.PodSetAssignments, func(p kueue.PodSetAssignment) bool { return string(p.Name) == w.Group.PodSets[k].Name })
		return fmt.Sprintf("status.admission.podSetAssignments[%d]", i)
	}
	if q == nil {
		if k := slices.Index(w.QuotaOnly, true); k >= 0 {
			return nil, nil, placement.Errorf(ErrUnsupported, obj, field(k)+".topologyAssignment",
				"is not set: a set admitted in a ResourceFlavor without a Topology is read only with the input's ResourceFlavors and ClusterQueues")
		}
		return w, a.tree, nil
	}
	v, g := *w, *w.Group
	g.PodSets = slices.Clone(g.PodSets)
	v.Group = &g
	topo, placed := "", false
	for k := range g.PodSets {
		if w.QuotaOnly[k] && !w.delayed[k] {
			continue // a set whose topology Kueue delayed is planned in its flavor (kueuesecondpass.go)
		}
		placed = placed || !w.delayed[k] && w.AdmittedCount[k] > 0 // a set admitted with no pods has none to read
		psa := w.Obj.Status.Admission.PodSetAssignments[0]
		for _, p := range w.Obj.Status.Admission.PodSetAssignments {
			if string(p.Name) == g.PodSets[k].Name {
				psa = p
			}
		}
		var tas []string
		for _, f := range psa.Flavors {
			if q.Flavors[string(f)].Topology != "" && !slices.Contains(tas, string(f)) {
				tas = append(tas, string(f))
			}
		}
		switch {
		case len(tas) == 0 && w.delayed[k]:
			// Kueue delays only a set's topology in a topology flavor;
			// planned over the admitter's tree, the set would be placed
			// over a Topology its flavor never named.
			return nil, nil, placement.Errorf(placement.ErrInvalid, obj, field(k)+".delayedTopologyRequest",
				"is Pending, but no flavor of the set (%s) names a Topology of the input: Kueue delays only the topology of a set in a topology flavor", flavorList(psa.Flavors))
		case len(tas) == 0:
			continue // no flavor of the input: read over the admitter's tree
		case len(tas) > 1:
			slices.Sort(tas)
			return nil, nil, placement.Errorf(ErrUnsupported, obj, field(k)+".flavors", "names topology flavors %s: a pod set has one", strings.Join(tas, ", "))
		}
		f := q.Flavors[tas[0]]
		if topo != "" && f.Topology != topo {
			return nil, nil, placement.Errorf(ErrUnsupported, obj, field(k)+".flavors", "flavor %s's Topology %q is not %q of the Workload's other pod sets: gangsim admits a Workload over one Topology", f.Name, f.Topology, topo)
		}
		topo = f.Topology
		g.PodSets[k].Template = withFlavor(g.PodSets[k].Template, f)
	}
	tree := a.tree
	if topo != "" {
		tree = a.trees[topo]
	}
	if tree == nil && placed {
		return nil, nil, placement.Errorf(ErrUnsupported, obj, "status.admission.podSetAssignments", "no Topology to read the topologyAssignments over: no flavor names one the input has, and the input has not one Topology alone")
	}
	return &v, tree, nil
}

// quotaOnlyResized words why admitted Workload w waits when a set it
// holds on quota alone changed its count; "" when none did.
func quotaOnlyResized(w *KueueWorkload) string {
	for k, set := range w.Group.PodSets {
		if k < len(w.QuotaOnly) && w.QuotaOnly[k] && set.Count != w.AdmittedCount[k] {
			return fmt.Sprintf("pod set %q, admitted in a flavor without a Topology, changed its count from %d to %d: gangsim does not resize such a set", set.Name, w.AdmittedCount[k], set.Count)
		}
	}
	return ""
}

// planQueued plans pending Workload w through its LocalQueue and
// ClusterQueue: it waits, with Kueue's reason, when it may not be
// admitted there or no flavors hold it; else its pod sets in topology
// flavors are planned over their Topology with the flavors' nodes. When
// that plan does not fit, and w may be admitted partially, its smaller
// counts are tried in the same flavors' order ([admitter.reduce]), as
// Kueue tries them in the same scheduling attempt, and it waits when one
// of them finds victims there ([admitter.partialVictims]); when none fits either,
// every unit planned tries its next flavor, as Kueue's later scheduling
// attempts start from the flavor after the one last tried; gangsim tries
// them at once, so it waits only when the last flavor did not fit either.
func (a *admitter) planQueued(w *KueueWorkload) (plannedSets, error) {
	q := a.opts.Queues
	cq, why := a.route(w)
	if why != "" {
		return plannedSets{plan: waits(why)}, nil
	}
	start := map[[2]int]int{}
	var tried []string
	delete(a.tasDropped, w.Key())
	for {
		ps, err := a.planInFlavors(cq, w, start)
		if err != nil || ps.plan.Decision.Status == placement.Scheduled {
			return ps, err
		}
		if stop, err := a.topologyVictims(cq, w, ps, start); err != nil || stop {
			return plannedSets{plan: waits(a.lastTry(w, append(tried, ps.plan.Decision.Message)))}, err
		}
		if w.canBePartial() {
			reduced, ok, err := a.reduce(w, func(v *KueueWorkload) (plannedSets, error) { return a.planInFlavors(cq, v, start) })
			if err != nil || ok {
				return reduced, err
			}
			if stop, err := a.partialVictims(cq, w, ps, start); err != nil || stop {
				return plannedSets{plan: waits(a.lastTry(w, append(tried, ps.plan.Decision.Message)))}, err
			}
		}
		tried = append(tried, ps.plan.Decision.Message)
		if ps.adm.choice == nil || !ps.adm.choice.next(cq, q, start) {
			return plannedSets{plan: waits(a.lastTry(w, tried))}, nil
		}
	}
}

// topologyVictims reports whether plan ps, in flavors whose quota holds w
// now but whose topology does not, is where Kueue preempts for w: its
// flavor assigner chooses flavors by quota alone, and a topology
// assignment that fails there (but would fit on the flavors' empty nodes)
// makes the assignment Preempt in those flavors, so Kueue seeks victims
// for the topology there before any later flavor is tried (pkg/scheduler
// flavorassigner assignFlavors; getInitialAssignments). Only when that
// search finds none does its next attempt start from the flavor after.
// With no flavor after (start: where this plan's flavors began), the
// search is left to the preemption that follows, which stops there too.
func (a *admitter) topologyVictims(cq *KueueClusterQueue, w *KueueWorkload, ps plannedSets, start map[[2]int]int) (bool, error) {
	ch := ps.adm.choice
	if ch == nil || ch.preempt != "" || ch.topology == "" || !a.quotaFits(cq, *ch) {
		return false, nil
	}
	if !ch.next(cq, a.opts.Queues, maps.Clone(start)) {
		return false, nil
	}
	return a.victimsIn(cq, w, *ch)
}

// partialVictims reports whether a smaller count of w, which fits neither
// whole nor at a smaller count in the flavors chosen from start (plan ps),
// finds victims there ([admitter.partialAttempt]): Kueue's partial
// admission search takes such a count before its next attempt starts
// from the flavor after, so the flavors after are not tried
// ([admitter.preemptFor] finds the victims). Only asked when there is a
// next attempt: after the last one, the preemption that follows searches
// anyway.
func (a *admitter) partialVictims(cq *KueueClusterQueue, w *KueueWorkload, ps plannedSets, start map[[2]int]int) (bool, error) {
	if ps.adm.choice == nil || !cq.Preemption.any(cq.Cohort != "") || !ps.adm.choice.next(cq, a.opts.Queues, maps.Clone(start)) {
		return false, nil
	}
	targets, _, _, _, err := a.partialAttempt(cq, w, start)
	return len(targets) > 0, err
}

// planInFlavors chooses w's flavors in ClusterQueue cq from start and
// plans its sets in topology flavors over their Topology. When no flavors
// hold it, or cq's flavor fungibility chose flavors that hold it only by
// preemption, the plan waits with assignFlavors' reason and adm.choice is
// nil (set, so that the next flavors are tried, when those flavors are
// topology flavors where the victim search finds none); when the plan
// does not fit, its reason names the flavors tried.
func (a *admitter) planInFlavors(cq *KueueClusterQueue, w *KueueWorkload, start map[[2]int]int) (plannedSets, error) {
	q := a.opts.Queues
	ch, why := q.assignFlavorsSim(cq, w, a.quota(), start, a.simulator(cq, w))
	switch {
	case why != "":
		return plannedSets{plan: waits(why)}, nil
	case ch.preempt != "":
		// Kueue's fungibility stopped at a flavor that needs preemption:
		// no later flavor is tried ([admitter.preempt] seeks the victims),
		// unless the victims found on quota alone do not free its
		// topology: Kueue's next attempt then starts from the flavor
		// after it, which planQueued tries at once.
		ps := plannedSets{plan: waits(ch.preempt)}
		if ch.topology == "" {
			return ps, nil
		}
		found, err := a.victimsIn(cq, w, ch)
		if err == nil && !found {
			ps.adm = flavorAdmission{clusterQueue: cq.Name, choice: &ch, cq: cq}
		}
		return ps, err
	case ch.masked:
		// Kueue calls it Fit, and its cycle finds the quota short.
		return plannedSets{plan: waits(noLongerFits)}, nil
	}
	return a.planChoice(cq, w, ch)
}

// planChoice plans w's sets in topology flavors as flavor choice ch in
// ClusterQueue cq gives them, over their Topology; the sets in flavors
// without one are admitted on quota alone.
func (a *admitter) planChoice(cq *KueueClusterQueue, w *KueueWorkload, ch flavorChoice) (plannedSets, error) {
	q := a.opts.Queues
	ps := plannedSets{w: w, group: &placement.Group{Namespace: w.Group.Namespace, Name: w.Group.Name, Policy: w.Group.Policy}, adm: flavorAdmission{clusterQueue: cq.Name, choice: &ch, cq: cq}}
	if why := ch.severalTopologyFlavors(q, w); why != "" {
		ps.plan = waits(why) // the next flavors may do
		return ps, nil
	}
	var flavors []string
	var unplanned []topology.PodSetRequest // sets in a topology flavor placing no slice
	tas := false
	for k, set := range w.Group.PodSets {
		if ch.tas[k] == "" {
			continue
		}
		tas = true
		if !slices.Contains(flavors, ch.tas[k]) {
			flavors = append(flavors, ch.tas[k])
		}
		if set.Count == 0 {
			unplanned = append(unplanned, w.Requests[k])
			continue
		}
		set.Template = withFlavor(set.Template, q.Flavors[ch.tas[k]])
		ps.group.PodSets = append(ps.group.PodSets, set)
		ps.group.MinCount += set.Count
		ps.requests = append(ps.requests, w.Requests[k])
	}
	if !tas {
		ps.plan.Decision.Status = placement.Scheduled // on quota alone
		return ps, nil
	}
	all := append(slices.Clone(ps.requests), unplanned...)
	for _, z := range w.Zero {
		all = append(all, z.Request)
	}
	var err error
	if ps.plan, err = a.plan(a.trees[ch.topology], w, ps.group, ps.requests, all); err != nil || ps.plan.Decision.Status == placement.Scheduled {
		return ps, err
	}
	prefix := fmt.Sprintf("in flavor %s: ", strings.Join(flavors, ", "))
	if !a.kueueTASWorded(&ps, w, a.trees[ch.topology], ch.topology, ch.tasFlavorOf(q, w, ps.plan.KueueNotFit), prefix) {
		ps.plan.Decision.Message = prefix + ps.plan.Decision.Message
	}
	return ps, nil
}

// severalTopologyFlavors words why a pod set of w whose resources took
// more than one topology flavor (one per resource group) cannot be
// planned, as Kueue refuses such an assignment ("more than one TAS flavor
// assigned"): its pods would lie on the nodes of one flavor alone; "" when
// no set did.
func (ch *flavorChoice) severalTopologyFlavors(q *KueueQueues, w *KueueWorkload) string {
	for k, set := range w.Group.PodSets {
		var tas []string
		for _, f := range ch.flavors[k] {
			if q.Flavors[f].Topology != "" && !slices.Contains(tas, f) {
				tas = append(tas, f)
			}
		}
		if len(tas) > 1 {
			slices.Sort(tas)
			return fmt.Sprintf("pod set %s: more than one TAS flavor assigned: %s", set.Name, strings.Join(tas, ", "))
		}
	}
	return ""
}

// next sets start, for each unit and group whose flavor picked is a
// topology flavor, to the flavor after the last one the search looked at
// (ch.tried), and reports whether any has one.
func (ch *flavorChoice) next(cq *KueueClusterQueue, q *KueueQueues, start map[[2]int]int) bool {
	more := false
	for ug, i := range ch.picked {
		fs := cq.Groups[ug[1]].Flavors
		// Kueue starts after the last flavor its search looked at; after
		// the last one it starts from the first again, which gives the
		// same choice: nothing new to try.
		if t := ch.tried[ug]; q.Flavors[fs[i].Flavor].Topology != "" && t+1 < len(fs) {
			start[ug], more = t+1, true
		}
	}
	return more
}

// admittedFlavors words the flavors status.admission gives each pod set
// of w (Group.PodSets' order; "cpu-flavor" or "a, b" when its resources
// have several); nil when w holds no quota or queues are not read.
func (a *admitter) admittedFlavors(w *KueueWorkload) []string {
	adm := w.Obj.Status.Admission
	if a.opts.Queues == nil || adm == nil {
		return nil
	}
	out := make([]string, len(w.Group.PodSets))
	for k, set := range w.Group.PodSets {
		for _, p := range adm.PodSetAssignments {
			if string(p.Name) != set.Name {
				continue
			}
			var fs []string
			for _, r := range slices.Sorted(maps.Keys(p.Flavors)) {
				if f := string(p.Flavors[r]); !slices.Contains(fs, f) {
					fs = append(fs, f)
				}
			}
			slices.Sort(fs)
			out[k] = strings.Join(fs, ", ")
		}
	}
	return out
}

// route is [KueueQueues.route] through the admitter's queues, kept per
// LocalQueue ([admitter.routes]).
func (a *admitter) route(w *KueueWorkload) (*KueueClusterQueue, string) {
	k := placement.Key{Namespace: w.Obj.Namespace, Name: string(w.Obj.Spec.QueueName)}
	r, ok := a.routes[k]
	if !ok {
		r.cq, r.why = a.opts.Queues.route(w)
		if a.routes == nil {
			a.routes = map[placement.Key]routeResult{}
		}
		a.routes[k] = r
	}
	if r.why == "" && w.resourcesInvalid != "" {
		// Kueue's scheduler checks the requests after the route
		// (pkg/scheduler nominate).
		return nil, w.resourcesInvalid
	}
	return r.cq, r.why
}

// routeResult is a ClusterQueue, or why a Workload is not admitted there.
type routeResult struct {
	cq  *KueueClusterQueue
	why string
}

// flavorList is the flavors of a podSetAssignment, sorted, joined by ", ".
func flavorList(fs map[corev1.ResourceName]kueue.ResourceFlavorReference) string {
	var names []string
	for _, f := range fs {
		if !slices.Contains(names, string(f)) {
			names = append(names, string(f))
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
