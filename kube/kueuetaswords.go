package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Under the Kueue profiles ([topology.PlanOptions].KueueNotFit) a pending
// Workload whose topology does not hold a pod set is said as Kueue v0.17
// says it in its QuotaReserved condition (pkg/cache/scheduler/
// tas_flavor_snapshot.go, notFitMessage and multiLayerNotFitMessage;
// pkg/scheduler/flavorassigner, Assignment.Message), numbers included;
// gangsim's own explanation (the level that failed, the best domain and
// what it holds) is kept as the outcome's Detail.

// kueueBalancedWords are Kueue's reasons when TASBalancedPlacement, having
// chosen to balance a request, fails it (tas_balanced_placement.go), by
// [topology.KueueBalancedReason].
var kueueBalancedWords = map[topology.KueueBalancedReason]string{
	topology.KueueBalancedNoDomainSet: "TAS Balanced Placement: Cannot find optimal domain set to fit the request",
	topology.KueueBalancedThreshold:   "TAS Balanced Placement: Not enough slices to meet the threshold",
	topology.KueueBalancedLeftOver:    "TAS Balanced Placement: Not all slices or leaders could be placed",
}

// kueueExclusions are the nodes Kueue's TAS left out of a request's count,
// by reason (ExclusionStats): Total is the nodes of its topology snapshot
// for the flavor (its leaves), the others how many each reason left out.
type kueueExclusions struct {
	Total        int
	NodeSelector int
	Affinity     int
	Taints       map[string]int                 // by taint, "key=value:Effect" or "key:Effect"
	Resources    map[placement.ResourceName]int // nodes with no room for one pod, by limiting resource
}

// none reports whether no node was left out: Kueue then says nothing of
// the nodes.
func (e kueueExclusions) none() bool {
	return e.NodeSelector == 0 && e.Affinity == 0 && len(e.Taints) == 0 && len(e.Resources) == 0
}

// words lists the reasons as Kueue does: each "reason: count", the
// whole strings sorted, ", " between them.
func (e kueueExclusions) words() string {
	var rs []string
	if e.NodeSelector > 0 {
		rs = append(rs, fmt.Sprintf("nodeSelector: %d", e.NodeSelector))
	}
	if e.Affinity > 0 {
		rs = append(rs, fmt.Sprintf("affinity: %d", e.Affinity))
	}
	for _, t := range slices.Sorted(maps.Keys(e.Taints)) {
		rs = append(rs, fmt.Sprintf("taint %q: %d", t, e.Taints[t]))
	}
	for _, r := range slices.Sorted(maps.Keys(e.Resources)) {
		rs = append(rs, fmt.Sprintf("resource %q: %d", string(r), e.Resources[r]))
	}
	slices.Sort(rs)
	return strings.Join(rs, ", ")
}

// kueueNotFitReason words nf as Kueue v0.17's TAS words the failure of
// one request over Topology topo, with the nodes it left out (ex):
// `topology "t" allows to fit only 8 out of 12 pod(s). Total nodes: 8;
// excluded: resource "cpu": 3`, `topology "t" doesn't allow to fit any of
// 2 slice(s)`, `topology "t" doesn't allow to fit; 0/1 slice(s) fit on
// level block; 4/5 slice(s) fit on level kubernetes.io/hostname`, or
// TASBalancedPlacement's own sentence.
func kueueNotFitReason(nf *topology.KueueNotFit, topo string, ex kueueExclusions) string {
	if nf.Balanced != 0 {
		return kueueBalancedWords[nf.Balanced]
	}
	var b strings.Builder
	switch {
	case len(nf.Layers) > 0:
		fmt.Fprintf(&b, "topology %q doesn't allow to fit", topo)
		for _, l := range nf.Layers {
			fmt.Fprintf(&b, "; %d/%d slice(s) fit on level %s", l.Fit, l.Need, l.Key)
		}
	default:
		unit := "slice"
		if nf.SliceSize == 1 {
			unit = "pod"
		}
		if nf.Fit == 0 {
			fmt.Fprintf(&b, "topology %q doesn't allow to fit any of %d %s(s)", topo, nf.Total, unit)
		} else {
			fmt.Fprintf(&b, "topology %q allows to fit only %d out of %d %s(s)", topo, nf.Fit, nf.Total, unit)
		}
	}
	if !ex.none() {
		fmt.Fprintf(&b, ". Total nodes: %d; excluded: %s", ex.Total, ex.words())
	}
	return b.String()
}

// kueueNotFitSet is the pod set Kueue's message names: a PodSetGroup's
// leader (Kueue gives both sets the reason and names one in Go map
// order; the leader is the one taken here), else the set.
func kueueNotFitSet(nf *topology.KueueNotFit) string {
	if nf.Leader != "" {
		return nf.Leader
	}
	return nf.PodSet
}

// kueueTASWorded rewrites plan ps of w, which does not fit, in Kueue's
// words when its plan carries Kueue's account ([topology.Plan].KueueNotFit)
// or Kueue's snapshot for the flavor holds no node ([admitter.kueueNoDomain]),
// and the Topology's name is known: `couldn't assign flavors to pod set
// main: <the reason>`. gangsim's own reason, after prefix, is kept as the
// Workload's detail ([admitter.tasDetail]). tree is the one planned over,
// flavor the topology flavor planned (nil without queues: every node is
// the flavor's). It reports whether it rewrote the message.
func (a *admitter) kueueTASWorded(ps *plannedSets, w *KueueWorkload, tree *topology.Tree, topo string, flavor *KueueFlavor, prefix string) bool {
	nf := ps.plan.KueueNotFit
	if !a.opts.KueueWords || a.reducing || topo == "" || ps.plan.Decision.Status == placement.Scheduled {
		return false
	}
	// Tried before and set aside since, as Kueue sets it aside, it keeps
	// its message (so this try's numbers need not be counted), and
	// gangsim's reason on the state now is its detail.
	msg, kept := a.keptNow(w)
	if set, reason, empty := a.kueueNoDomain(ps, tree, flavor); empty {
		if !kept {
			msg = "couldn't assign flavors to pod set " + set + ": " + reason
		}
	} else {
		if nf == nil {
			return false
		}
		var tmpl *placement.Pod
		for k := range ps.group.PodSets {
			if ps.group.PodSets[k].Name == nf.PodSet {
				tmpl = &ps.group.PodSets[k].Template
			}
		}
		if tmpl == nil {
			return false
		}
		if !kept {
			msg = "couldn't assign flavors to pod set " + kueueNotFitSet(nf) + ": " + a.kueueNotFitWords(ps, nf, tree, tmpl, topo, flavor)
		}
	}
	if a.tasDetails == nil {
		a.tasDetails = map[placement.Key]map[string]string{}
	}
	if a.tasDetails[w.Key()] == nil {
		a.tasDetails[w.Key()] = map[string]string{}
	}
	a.tasDetails[w.Key()][msg] = prefix + kueueWords(w, ps.plan.Decision.Message)
	ps.plan.Decision.Message = msg
	return true
}

// kueueNotFitWords is Kueue's reason for nf, the failure of plan ps over
// tree (Topology topo), whose failing set's pods are tmpl: over a tree
// with kubernetes.io/hostname appended, its count and exclusions are
// those of Kueue's leaves there, the lowest-level domains
// (kueueabovehostwords.go).
func (a *admitter) kueueNotFitWords(ps *plannedSets, nf *topology.KueueNotFit, tree *topology.Tree, tmpl *placement.Pod, topo string, flavor *KueueFlavor) string {
	if !a.appended[tree] {
		return kueueNotFitReason(nf, topo, a.kueueExclusions(nf, tree, tmpl, flavor))
	}
	var lead placement.ResourceList
	for k := range ps.group.PodSets {
		if nf.Leader != "" && ps.group.PodSets[k].Name == nf.Leader {
			lead = maps.Clone(ps.group.PodSets[k].Template.Requests)
			if lead == nil {
				lead = placement.ResourceList{} // a leader of no requests still takes one of "pods"
			}
		}
	}
	doms := a.aboveHostDomains(tree, tmpl.Requests, lead, a.kueueLeaves(tree, flavor), nf.Before, a.planOptions(tree).KueueLift)
	var r *topology.PodSetRequest
	for k := range ps.requests {
		if ps.requests[k].PodSet == nf.PodSet {
			r = &ps.requests[k]
		}
	}
	words, ok := aboveHostFit(nf, r, tree, doms)
	if !ok {
		words = *nf
	}
	return kueueNotFitReason(&words, topo, aboveHostExclusions(doms))
}

// kueueExclusions counts, as Kueue's fillInCounts does, the nodes of its
// topology snapshot for flavor (nil: every node) and those it left out of
// nf's request, whose pods are tmpl: Kueue's snapshot holds the nodes that
// are Ready, not cordoned, carry every level of the tree and match the
// flavor's node labels; of those it leaves out, in this order, a node with
// a NoSchedule or NoExecute taint the template's tolerations (the flavor's
// included) do not tolerate (the first such taint of the node's), one the
// template's nodeSelector refuses, one its required node affinity refuses,
// and one with no room for a pod (nf.Full), by the resource that limits it.
func (a *admitter) kueueExclusions(nf *topology.KueueNotFit, tree *topology.Tree, tmpl *placement.Pod, flavor *KueueFlavor) kueueExclusions {
	ex := kueueExclusions{Taints: map[string]int{}, Resources: map[placement.ResourceName]int{}}
	full := nf.Full // in NodeID order, as the leaves: walked beside them
	leaves := a.kueueLeaves(tree, flavor)
	ex.Total = len(leaves)
	// The flavor's node labels hold on every leaf: only the template's
	// own keys can refuse one.
	sel := tmpl.NodeSelector
	if flavor != nil && len(flavor.NodeLabels) > 0 {
		sel = maps.Clone(sel)
		for k, v := range flavor.NodeLabels {
			if sel[k] == v {
				delete(sel, k)
			}
		}
	}
	affinity := tmpl.NodeAffinity != nil && len(tmpl.NodeAffinity.Required) > 0
	for _, id := range leaves {
		for len(full) > 0 && full[0].Node < id {
			full = full[1:]
		}
		n := a.s.Node(id)
		if len(n.Taints) > 0 {
			if t, ok := untolerated(n, tmpl.Tolerations); ok {
				ex.Taints[t]++
				continue
			}
		}
		if len(sel) > 0 && !selectorMatches(sel, n.Labels) {
			ex.NodeSelector++
			continue
		}
		if affinity && !tmpl.NodeAffinity.Matches(n) {
			ex.Affinity++
			continue
		}
		if len(full) > 0 && full[0].Node == id {
			r := full[0].Resource
			if r == "" {
				r = a.untrackedResource(tmpl)
			}
			ex.Resources[r]++
		}
	}
	return ex
}

// kueueLeaves are the nodes of Kueue's TAS snapshot for flavor over tree
// ([admitter.inKueueSnapshot]), in NodeID order, found once per tree and
// flavor: the call's nodes do not change, only what they hold.
func (a *admitter) kueueLeaves(tree *topology.Tree, flavor *KueueFlavor) []placement.NodeID {
	key := kueueLeavesKey{tree: tree}
	if flavor != nil {
		key.flavor = flavor.Name
	}
	if ls, ok := a.leavesOf[key]; ok {
		return ls
	}
	keys := tree.Keys()
	ls := []placement.NodeID{}
	for id := range placement.NodeID(a.s.NumNodes()) {
		if a.inKueueSnapshot(a.s.Node(id), keys, flavor) {
			ls = append(ls, id)
		}
	}
	if a.leavesOf == nil {
		a.leavesOf = map[kueueLeavesKey][]placement.NodeID{}
	}
	a.leavesOf[key] = ls
	return ls
}

// kueueLeavesKey finds the leaves of one flavor ("" without queues) over
// one tree.
type kueueLeavesKey struct {
	tree   *topology.Tree
	flavor string
}

// inKueueSnapshot reports whether node n is one of Kueue's TAS snapshot
// for flavor (nil: every node): Ready, not cordoned, every level of keys
// among its labels, and flavor's node labels matched.
func (a *admitter) inKueueSnapshot(n *placement.Node, keys []string, flavor *KueueFlavor) bool {
	if n.Unschedulable {
		return false
	}
	if _, notReady := a.opts.NotReady[n.Name]; notReady {
		return false
	}
	for _, k := range keys {
		if _, ok := n.Labels[k]; !ok {
			return false
		}
	}
	return flavor == nil || selectorMatches(flavor.NodeLabels, n.Labels)
}

// untolerated returns the first of n's NoSchedule and NoExecute taints
// that none of tols tolerates, worded as core/v1 Taint.ToString words it.
func untolerated(n *placement.Node, tols []placement.Toleration) (string, bool) {
	for _, t := range n.Taints {
		if t.Effect != placement.TaintEffectNoSchedule && t.Effect != placement.TaintEffectNoExecute {
			continue
		}
		if slices.ContainsFunc(tols, func(tol placement.Toleration) bool { return tol.Tolerates(t) }) {
			continue
		}
		if t.Value == "" {
			return fmt.Sprintf("%s:%s", t.Key, t.Effect), true
		}
		return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect), true
	}
	return "", false
}

// untrackedResource is the first (by name) resource tmpl requests that
// the snapshot does not track: Kueue finds it on no node, so it limits
// every one (where several are, Kueue names one in Go map order).
func (a *admitter) untrackedResource(tmpl *placement.Pod) placement.ResourceName {
	tracked := a.s.Resources()
	for _, r := range slices.Sorted(maps.Keys(tmpl.Requests)) {
		if tmpl.Requests[r] > 0 && !slices.Contains(tracked, r) {
			return r
		}
	}
	return placement.ResourcePods
}

// topologyName is the name of the input's one Kueue Topology, "" without
// one or with several ([Cluster].KueueTopology).
func (in *kueueQueueInputs) topologyName() string {
	if len(in.q.Topologies) != 1 {
		return ""
	}
	for name := range in.q.Topologies {
		return name
	}
	return ""
}

// tasFlavorOf is the topology flavor ch gives the pod set nf names, or,
// without nf, the first set of w that has one (nil when none).
func (ch *flavorChoice) tasFlavorOf(q *KueueQueues, w *KueueWorkload, nf *topology.KueueNotFit) *KueueFlavor {
	for k, set := range w.Group.PodSets {
		if (nf == nil || set.Name == nf.PodSet) && ch.tas[k] != "" {
			f := q.Flavors[ch.tas[k]]
			return &f
		}
	}
	return nil
}

// kueueLayersWorded is msg, missingLevels' reason for the requests rs on
// tree, in Kueue's words under the Kueue profiles where Kueue's TAS gives
// that reason itself — slice layers that do not nest in the Topology
// (findTopologyAssignment, buildSliceSizeAtLevel): "couldn't assign
// flavors to pod set main: additional slice layer size 3 must evenly
// divide parent layer size 10". A level the Topology lacks is left in
// gangsim's words: Kueue's flavor assigner refuses the flavor before its
// TAS looks ("Flavor \"f\" does not contain the requested level"), naming
// a flavor that gangsim without queues does not have.
func (a *admitter) kueueLayersWorded(tree *topology.Tree, rs []topology.PodSetRequest, msg string) string {
	if !a.opts.KueueWords {
		return msg
	}
	for _, r := range rs {
		if missingLevel(tree, r) == "" {
			continue
		}
		if why := sliceLayersReason(tree, r); why != "" && missingLevel(tree, r) == why {
			return "couldn't assign flavors to pod set " + r.PodSet + ": " + why
		}
		return msg
	}
	return msg
}
