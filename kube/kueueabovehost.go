package kube

// Kueue Topologies whose lowest level is not kubernetes.io/hostname
// (levels [block, rack], say). Kueue v0.17 supports them: its TAS
// snapshot then takes the Topology's lowest-level domains as its leaves
// (tas_flavor_snapshot.go: addNode, isLowestLevelNode false), and its
// topologyAssignment lists the Topology's levels, one domain per
// lowest-level value tuple with the pods placed there (buildAssignment:
// domains sorted by their values, levels from the first).
//
// gangsim plans such a Topology with kubernetes.io/hostname appended
// below its levels ([KueueTreeLevels]; every node carries the label,
// which gangsim fills in as the kubelet does), so a pod needs the room of
// one host, and sums the hosts' pods to the lowest level when it writes
// the assignment ([admitter.liftAssignments]). Kueue's leaf instead sums
// its nodes' free room, so it may count a pod into a domain none of whose
// hosts holds it alone; and it reads no node's taints, nodeSelector or
// affinity for such a Topology. On Kueue's own table (24 cases) both give
// the same assignments; docs/kueue.md lists the differences.
//
// Read back, an assignment at such levels is spread over the hosts of
// each domain ([admitter.spreadAboveHost]) so that later Workloads see
// its room taken, as Kueue's cache charges the whole domain
// (ComputeUsagePerDomain). Such a set is not resized or repaired: which
// host holds which pod is not known (Kueue learns it from the pods).

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// KueueTreeLevels returns the levels gangsim plans a Kueue Topology of
// spec.levels levels over ([KueueTopologyLevels]): levels themselves when
// the lowest is kubernetes.io/hostname (or levels is empty), else levels
// with kubernetes.io/hostname appended, since gangsim places pods on
// hosts. levels is not changed.
func KueueTreeLevels(levels []string) []string {
	if len(levels) == 0 || levels[len(levels)-1] == corev1.LabelHostname {
		return levels
	}
	return append(slices.Clip(levels), corev1.LabelHostname)
}

// aboveHost reports whether a Topology of levels writes its assignments
// above the hostname level.
func aboveHost(levels []string) bool {
	return len(levels) > 0 && levels[len(levels)-1] != corev1.LabelHostname
}

// aboveHostSet is a pod set's topologyAssignment read at levels other
// than [kubernetes.io/hostname]: its domains in the order written.
type aboveHostSet struct {
	levels  []string
	domains []domainPods
	// hosts are its pods per host as gangsim's -o yaml kept them
	// ([KueueHostsAnnotation]); nil without.
	hosts []placement.PodSetAssignment
}

// readDomainAssignment reads a topologyAssignment at field of obj whose
// levels are not exactly [kubernetes.io/hostname]: the levels of a Kueue
// Topology whose lowest level is not the hostname, as Kueue writes them
// (all of the Topology's levels), and its domains with their pods. It
// returns the set and its pods in all.
//
// Errors (a [*placement.FieldError] naming the field): levels that are
// not 1 to 16 distinct label keys, or that end at kubernetes.io/hostname
// (Kueue writes a hostname Topology's assignments at that level alone);
// a slice whose domainCount is below 1 or whose values or counts do not
// match it; a domain listed twice; more than 100,000 domains or
// [placement.MaxPending] pods in all.
func readDomainAssignment(obj, field string, ta *kueue.TopologyAssignment) (*aboveHostSet, int64, error) {
	ls := ta.Levels
	if len(ls) == 0 || len(ls) > 16 {
		return nil, 0, placement.Errorf(placement.ErrInvalid, obj, field+".levels", "has %d levels: want 1 to 16", len(ls))
	}
	for i, l := range ls {
		f := fmt.Sprintf("%s.levels[%d]", field, i)
		if errs := validation.IsQualifiedName(l); len(errs) > 0 {
			return nil, 0, placement.Errorf(placement.ErrInvalid, obj, f, "%q is not a node label key: %s", l, strings.Join(errs, "; "))
		}
		if j := slices.Index(ls[:i], l); j >= 0 {
			return nil, 0, placement.Errorf(placement.ErrDuplicate, obj, f, "%q is also levels[%d]", l, j)
		}
	}
	if ls[len(ls)-1] == corev1.LabelHostname {
		return nil, 0, placement.Errorf(ErrUnsupported, obj, field+".levels", "%q: an assignment at the %s level lists that level alone, as Kueue writes it", ls, corev1.LabelHostname)
	}
	ds, err := readSlices(obj, field, ta, "domain", "", domainLevelValues)
	if err != nil {
		return nil, 0, err
	}
	var total int64
	for _, d := range ds {
		total += int64(d.count)
	}
	return &aboveHostSet{levels: slices.Clone(ls), domains: ds}, total, nil
}

// domainLevelValues expands one level's values of a slice of n domains;
// unlike a host, a value above the hostname level may be shared by all n
// (universal).
func domainLevelValues(obj, field string, v kueue.TopologyAssignmentSliceLevelValues, n int) ([]string, error) {
	if v.Universal != nil && v.Individual == nil {
		out := make([]string, n)
		for i := range out {
			out[i] = *v.Universal
		}
		return out, nil
	}
	return levelValues(obj, field, v, n)
}

// assignLevels are the levels of the Topology pod set assignment psa is
// planned over, when that Topology's lowest level is not the hostname;
// nil otherwise. With queues its topology flavor names the Topology;
// without (or with none of the input's), the input's one Topology
// ([KueueOptions].TopologyLevels).
func (a *admitter) assignLevels(psa *kueue.PodSetAssignment) []string {
	levels := psaLevels(psa, a.opts.TopologyLevels, a.opts.Queues)
	if !aboveHost(levels) {
		return nil
	}
	return levels
}

// psaLevels are the levels of the Topology that pod set assignment psa
// is planned over: with queues q, that of its topology flavor; without
// (or with none of the input's), levels, the input's one Topology.
func psaLevels(psa *kueue.PodSetAssignment, levels []string, q *KueueQueues) []string {
	if q == nil {
		return levels
	}
	for _, f := range slices.Sorted(maps.Values(psa.Flavors)) {
		if t := q.Flavors[string(f)].Topology; t != "" {
			if ls, ok := q.Topologies[t]; ok {
				return ls
			}
		}
	}
	return levels
}

// checkAboveHostLevels refuses an admitted Workload of ws whose
// topologyAssignment names levels other than kubernetes.io/hostname that
// are not exactly the levels of the Topology its pod set is planned over
// (levels, the input's one Topology, or its flavor's in q): Kueue writes
// an assignment at all of its Topology's levels, and one at other levels
// (a Topology edited since, objects of another cluster) cannot be read
// as domains of this one — its values might name hosts or nothing.
// Errors are [*placement.FieldError]s naming the Workload and the field.
func checkAboveHostLevels(ws []*KueueWorkload, levels []string, q *KueueQueues) error {
	for _, w := range ws {
		adm := w.Obj.Status.Admission
		if adm == nil || len(w.aboveHost) == 0 {
			continue
		}
		for i := range adm.PodSetAssignments {
			psa := &adm.PodSetAssignments[i]
			set, ok := w.aboveHost[string(psa.Name)]
			if !ok {
				continue
			}
			if want := psaLevels(psa, levels, q); !slices.Equal(set.levels, want) {
				return placement.Errorf(placement.ErrInvalid, kueueWorkloadObj(w.Obj.Namespace, w.Obj.Name),
					fmt.Sprintf("status.admission.podSetAssignments[%d].topologyAssignment.levels", i),
					"%q are not the levels of the Topology the pod set is admitted over, %q", set.levels, want)
			}
		}
	}
	return nil
}

// liftAssignments rewrites every topologyAssignment of w written at the
// hostname level whose Topology's lowest level is another
// ([admitter.assignLevels]) at that Topology's levels: each host's pods
// summed into its lowest-level domain (the host's values at the levels),
// the domains in the order of their values, as Kueue's buildAssignment
// sorts them. An assignment naming a host the snapshot lacks, or one
// without a label of the levels, is left as it is (gangsim plans no pod
// there over such a Topology).
func (a *admitter) liftAssignments(w *KueueWorkload) {
	adm := w.Obj.Status.Admission
	if adm == nil {
		return
	}
	for i := range adm.PodSetAssignments {
		psa := &adm.PodSetAssignments[i]
		ta := psa.TopologyAssignment
		if ta == nil || len(ta.Levels) != 1 || ta.Levels[0] != corev1.LabelHostname {
			continue
		}
		levels := a.assignLevels(psa)
		if levels == nil {
			continue
		}
		var pods []placement.PodSetAssignment
		if len(ta.Slices) > 0 { // none: a set of count 0, written with levels alone
			var err error
			if pods, err = readTopologyAssignment("", "", ta); err != nil {
				continue
			}
		}
		if lifted, ok := a.lift(levels, pods); ok {
			if len(pods) > 0 {
				writeHosts(w, string(psa.Name), pods)
			}
			psa.TopologyAssignment = lifted
		}
	}
}

// lift is the assignment of pods per hostname summed to levels; ok is
// false when a host is unknown or lacks a level's label.
func (a *admitter) lift(levels []string, pods []placement.PodSetAssignment) (*kueue.TopologyAssignment, bool) {
	byID := map[string]int{}
	var domains []domainPods
	for _, p := range pods {
		id, ok := a.host[p.Node]
		if !ok {
			return nil, false
		}
		key, ok := domainKey(levels, a.s.Node(id))
		if !ok {
			return nil, false
		}
		if j, ok := byID[key]; ok {
			domains[j].count += p.Count
			continue
		}
		byID[key] = len(domains)
		domains = append(domains, domainPods{values: strings.Split(key, "\x00"), count: p.Count})
	}
	slices.SortFunc(domains, func(x, y domainPods) int { return slices.Compare(x.values, y.values) })
	return writeDomainAssignment(levels, domains), true
}

// spreadAboveHost places the pods of pod set k of admitted w, read at
// levels above the hostname ([aboveHostSet]), on hosts, so that they
// hold room as Kueue's cache charges each domain its pods, domain by
// domain in the order written. Each domain's pods go where gangsim's plan
// puts that many pods required in that domain now ([admitter.planInDomain]):
// the hosts its admission took, as the Workloads held before it hold what
// they held then, so that -o yaml read back is a fixed point. When that
// plan does not fit (an assignment gangsim did not write), they go over
// the domain's nodes (those whose labels at the levels are its values)
// in node order, each taking as many pods as its free room holds now
// (nodes not ready or cordoned last), the rest — pods Kueue counted into
// the domain's summed room that no host holds alone — one by one over its
// nodes in the same order. A domain with no node keeps its pods on a host
// named by its values, which [admitter.hold] finds gone. Deterministic:
// the same objects give the same hosts.
func (a *admitter) spreadAboveHost(w *KueueWorkload, k int, set *aboveHostSet) []placement.PodSetAssignment {
	if hosts, ok := a.keptHosts(set); ok {
		return hosts
	}
	req := w.nodeRequests(k)
	// The nodes of each domain, ready and uncordoned ones first, each in
	// node order: one pass over the nodes, not one per domain.
	byDomain := map[string][]placement.NodeID{}
	var later []placement.NodeID
	for id := range placement.NodeID(a.s.NumNodes()) {
		n := a.s.Node(id)
		if _, notReady := a.opts.NotReady[n.Name]; notReady || n.Unschedulable {
			later = append(later, id)
			continue
		}
		addToDomain(byDomain, set.levels, n, id)
	}
	for _, id := range later {
		addToDomain(byDomain, set.levels, a.s.Node(id), id)
	}
	var out []placement.PodSetAssignment
	for _, d := range set.domains {
		if pods, ok := a.planInDomain(w, k, set.levels, d); ok {
			out = append(out, pods...)
			continue
		}
		nodes := byDomain[strings.Join(d.values, "\x00")]
		if len(nodes) == 0 {
			out = append(out, placement.PodSetAssignment{Node: strings.Join(d.values, "/"), NodeID: -1, Count: d.count})
			continue
		}
		per := make([]int32, len(nodes))
		left := d.count
		for i, id := range nodes {
			n := min(int64(left), roomFor(a.s, id, req))
			per[i], left = int32(n), left-int32(n)
		}
		for i := 0; left > 0; i = (i + 1) % len(nodes) {
			per[i]++
			left--
		}
		for i, id := range nodes {
			if per[i] > 0 {
				out = append(out, placement.PodSetAssignment{Node: a.s.Node(id).Labels[corev1.LabelHostname], NodeID: -1, Count: per[i]})
			}
		}
	}
	return out
}

// addToDomain appends node id to the nodes of its domain at levels in
// byDomain (keyed by its values joined by NUL), when it has a hostname
// and every level's label.
func addToDomain(byDomain map[string][]placement.NodeID, levels []string, n *placement.Node, id placement.NodeID) {
	if _, ok := n.Labels[corev1.LabelHostname]; !ok {
		return
	}
	if key, ok := domainKey(levels, n); ok {
		byDomain[key] = append(byDomain[key], id)
	}
}

// domainKey is node n's lowest-level domain at levels, its values joined
// by NUL (as byDomain maps are keyed here); ok is false without a level's
// label.
func domainKey(levels []string, n *placement.Node) (string, bool) {
	vs := make([]string, len(levels))
	for l, key := range levels {
		v, ok := n.Labels[key]
		if !ok {
			return "", false
		}
		vs[l] = v
	}
	return strings.Join(vs, "\x00"), true
}

// roomFor is how many pods of requests req node id of s has free room
// for now, pods included (0 when overcommitted).
func roomFor(s *placement.Snapshot, id placement.NodeID, req placement.ResourceList) int64 {
	room := s.Free(id, placement.ResourcePods)
	for r, q := range req {
		if q > 0 && r != placement.ResourcePods {
			room = min(room, s.Free(id, r)/q)
		}
	}
	return max(room, 0)
}

// aboveHostChange words why pod set name of admitted w, read above the
// hostname level, is neither resized nor repaired when cause ("its count
// changed from 3 to 2") asks for it; "" when its assignment is at the
// hostname level.
func aboveHostChange(w *KueueWorkload, name, cause string) string {
	set, ok := w.aboveHost[name]
	if !ok {
		return ""
	}
	return fmt.Sprintf("pod set %q is admitted at levels %q above %s and %s: gangsim does not resize or replace the pods of such an assignment (which host holds which pod is not in it), so it keeps its admission as it is",
		name, set.levels, corev1.LabelHostname, cause)
}

// readAboveHost reads pod set name's topologyAssignment ta at field of
// obj, at levels other than the hostname, into w.aboveHost.
func (w *KueueWorkload) readAboveHost(obj, field, name string, ta *kueue.TopologyAssignment) error {
	set, _, err := readDomainAssignment(obj, field, ta)
	if err != nil {
		return err
	}
	if w.aboveHost == nil {
		w.aboveHost = map[string]*aboveHostSet{}
	}
	w.aboveHost[name] = set
	return nil
}

// aboveHostWaits keeps admitted w as it is when a pod set read above the
// hostname level would be resized or repaired (its count changed, or a
// host of its spread failed): gangsim does not know which host holds
// which of its pods, so it changes nothing (no set of w, so nothing is
// half applied) and w waits (KueueGrowWaits) with the reason. It reports
// whether it did.
func (a *admitter) aboveHostWaits(w *KueueWorkload, h *held, o *KueueOutcome) bool {
	var reasons []string
	for k, set := range w.Group.PodSets {
		if _, ok := w.aboveHost[set.Name]; !ok {
			continue
		}
		var causes []string
		if set.Count != w.AdmittedCount[k] {
			causes = append(causes, fmt.Sprintf("its count changed from %d to %d", w.AdmittedCount[k], set.Count))
		}
		if len(h.failed[k]) > 0 {
			causes = append(causes, fmt.Sprintf("node(s) %s that its pods were spread over failed", hostList(h.words[k])))
		}
		if len(causes) > 0 {
			reasons = append(reasons, aboveHostChange(w, set.Name, strings.Join(causes, " and ")))
		}
	}
	for _, z := range w.Zero {
		if _, ok := w.aboveHost[z.Name]; ok && z.AdmittedCount > 0 {
			reasons = append(reasons, aboveHostChange(w, z.Name, fmt.Sprintf("its count changed from %d to 0", z.AdmittedCount)))
		}
	}
	if len(reasons) == 0 {
		return false
	}
	o.Action, o.Message = KueueGrowWaits, joinReasons(reasons)
	o.PodSets = make([][]placement.PodSetAssignment, len(w.Group.PodSets))
	for k := range w.Group.PodSets {
		o.PodSets[k] = h.survivors[k]
	}
	return true
}

// markAppended records that tree has kubernetes.io/hostname appended
// below its Topology's levels.
func (a *admitter) markAppended(tree *topology.Tree) {
	if a.appended == nil {
		a.appended = map[*topology.Tree]bool{}
	}
	a.appended[tree] = true
}

// appendedLevel words why a request of rs waits when it names
// kubernetes.io/hostname (as its level or a slice layer's) over a tree
// that has the level only because gangsim appended it: the Topology has
// no such level, and Kueue leaves the Workload pending. "" otherwise.
func (a *admitter) appendedLevel(tree *topology.Tree, rs []topology.PodSetRequest) string {
	if !a.appended[tree] {
		return ""
	}
	for _, r := range rs {
		if r.Required == corev1.LabelHostname || r.Preferred == corev1.LabelHostname {
			return fmt.Sprintf("pod set %q: no requested topology level: %s", r.PodSet, corev1.LabelHostname)
		}
		for i, l := range r.Slices {
			if l.Key != corev1.LabelHostname {
				continue
			}
			what := "slices"
			if i > 0 {
				what = "additional slice layer"
			}
			return fmt.Sprintf("pod set %q: no requested topology level for %s: %s", r.PodSet, what, l.Key)
		}
	}
	return ""
}

// lowestDomainPlan plans g over tree, one with kubernetes.io/hostname
// appended, with each set of requests that asks for no level, or is
// unconstrained, required in one domain of the Topology's lowest level,
// and reports whether that fits. Kueue's TAS places such a set over the
// Topology's lowest-level domains, its leaves there: the tightest domain
// that holds the whole set when one does (findLevelWithFitDomains,
// best fit at the lowest level), and that domain is what a required
// level finds too. When none holds it (ok false) the set is planned as
// asked, over hosts, least free first, where Kueue takes whole
// lowest-level domains least free first (docs/kueue.md, Not modelled).
// A Workload's sets are tried together: all so required, or none.
func (a *admitter) lowestDomainPlan(tree *topology.Tree, g *placement.Group, requests []topology.PodSetRequest) (topology.Plan, bool) {
	keys := tree.Keys()
	if !a.appended[tree] || len(keys) < 2 {
		return topology.Plan{}, false
	}
	lowest := keys[len(keys)-2]
	rs := slices.Clone(requests)
	asked := map[string]bool{}
	changed := false
	for i, r := range rs {
		asked[r.PodSet] = true
		if r.Required == "" && r.Preferred == "" && len(r.Slices) == 0 && r.Group == "" {
			rs[i].Required, rs[i].Unconstrained, changed = lowest, false, true
		}
	}
	for _, set := range g.PodSets {
		if !asked[set.Name] {
			// No request at all: Kueue's implied one.
			rs, changed = append(rs, topology.PodSetRequest{PodSet: set.Name, Required: lowest}), true
		}
	}
	if !changed {
		return topology.Plan{}, false
	}
	p, err := tree.PlanPodSets(a.s, g, rs, a.planOptions(tree))
	if err != nil || p.Decision.Status != placement.Scheduled || p.KueueAssumed != nil {
		if len(g.PodSets) == 1 && len(rs) == 1 {
			return a.leastFreeDomains(tree, g, keys[:len(keys)-1])
		}
		return topology.Plan{}, false
	}
	return p, true
}

// leastFreeDomains plans the one unconstrained or implied set of g that
// no lowest-level domain holds whole as Kueue's TAS places it over such a
// Topology (findLevelWithFitDomains and updateCountsToMinimum at its
// leaves, least free first): each lowest-level domain (levels) counts the
// pods its nodes' free room holds summed, the domains are taken in
// ascending count, then by their values, each with all the pods it
// holds until the set is placed; each domain's share is then planned
// over its hosts as [admitter.planInDomain] plans it. ok is false when
// the domains hold too few pods, or a share does not fit its hosts alone
// (Kueue's summed room: the set is then planned over hosts as asked).
// The nodes counted are those of the tree that are not failed or
// cordoned and match the template's nodeSelector.
func (a *admitter) leastFreeDomains(tree *topology.Tree, g *placement.Group, levels []string) (topology.Plan, bool) {
	set := g.PodSets[0]
	byDomain := map[string][]placement.NodeID{}
	for id := range placement.NodeID(a.s.NumNodes()) {
		n := a.s.Node(id)
		if _, notReady := a.opts.NotReady[n.Name]; notReady || n.Unschedulable || !selectorMatches(set.Template.NodeSelector, n.Labels) {
			continue
		}
		addToDomain(byDomain, levels, n, id)
	}
	type dom struct {
		values []string
		state  int64
	}
	var doms []dom
	for key, ids := range byDomain {
		if _, n := domainRoom(a.s, ids, set.Template.Requests, nil); n > 0 {
			doms = append(doms, dom{values: strings.Split(key, "\x00"), state: n})
		}
	}
	slices.SortFunc(doms, func(x, y dom) int {
		if x.state != y.state {
			return int(x.state - y.state)
		}
		return slices.Compare(x.values, y.values)
	})
	left := int64(set.Count)
	var plans []topology.Plan
	for _, d := range doms {
		if left == 0 {
			break
		}
		c := min(left, d.state)
		p, ok := a.planShare(tree, g, levels, d.values, int32(c))
		if !ok {
			return topology.Plan{}, false
		}
		plans, left = append(plans, p), left-c
	}
	if left > 0 || len(plans) == 0 {
		return topology.Plan{}, false
	}
	// One plan of every share: the first's decision with all the shares'
	// pods, the ranks in the order of their domains' values.
	out := plans[0]
	out.Decision.PodSetAssignments = nil
	out.PodSets = []topology.PodSetPlan{{Name: set.Name}}
	for _, p := range plans {
		out.Decision.PodSetAssignments = append(out.Decision.PodSetAssignments, p.Decision.PodSetAssignments...)
		out.PodSets[0].Ranks = append(out.PodSets[0].Ranks, p.PodSets[0].Ranks...)
	}
	slices.SortFunc(out.Decision.PodSetAssignments, func(x, y placement.PodSetAssignment) int { return strings.Compare(x.Node, y.Node) })
	path := func(id placement.NodeID) []string {
		labels := a.s.Node(id).Labels
		vs := make([]string, len(levels)+1)
		for l, key := range levels {
			vs[l] = labels[key]
		}
		vs[len(levels)] = a.s.Node(id).Name
		return vs
	}
	ranks := out.PodSets[0].Ranks
	slices.SortFunc(ranks, func(x, y topology.Rank) int { return slices.Compare(path(x.NodeID), path(y.NodeID)) })
	var first int32
	for i := range ranks {
		ranks[i].First, first = first, first+ranks[i].Count
	}
	return out, true
}

// planShare plans count pods of g's one set required in the
// lowest-level domain of values at levels.
func (a *admitter) planShare(tree *topology.Tree, g *placement.Group, levels, values []string, count int32) (topology.Plan, bool) {
	set := g.PodSets[0]
	set.Count = count
	sel := maps.Clone(set.Template.NodeSelector)
	if sel == nil {
		sel = map[string]string{}
	}
	for l, key := range levels {
		sel[key] = values[l]
	}
	set.Template.NodeSelector = sel
	h := *g
	h.PodSets, h.MinCount = []placement.PodSet{set}, count
	p, err := tree.PlanPodSets(a.s, &h, []topology.PodSetRequest{{PodSet: set.Name, Required: levels[len(levels)-1]}}, a.planOptions(tree))
	if err != nil || p.Decision.Status != placement.Scheduled || p.KueueAssumed != nil || len(p.PodSets) != 1 {
		return topology.Plan{}, false
	}
	return p, true
}

// domainRoom is how many pods of requests req the nodes ids hold with
// their free room summed, less used (one pod counting one of "pods";
// nil: nothing), and the resource that limits it.
func domainRoom(s *placement.Snapshot, ids []placement.NodeID, req, used placement.ResourceList) (placement.ResourceName, int64) {
	var lim placement.ResourceName
	best := int64(math.MaxInt64)
	try := func(r placement.ResourceName, q int64) {
		free := -used[r]
		for _, id := range ids {
			free += s.Free(id, r)
		}
		if n := free / q; n < best || (n == best && r < lim) {
			best, lim = n, r
		}
	}
	for r, q := range req {
		if q > 0 && r != placement.ResourcePods {
			try(r, q)
		}
	}
	try(placement.ResourcePods, 1)
	return lim, best
}

// planInDomain plans domain d's pods of pod set k of admitted w over the
// admitter's tree (the Workload's, set by [admitter.hold]'s caller): the
// set's template with d's values at levels as node selector, required at
// the lowest of levels, the Workload's other sets left out, as gangsim
// planned each domain's share of the set when it admitted it (Kueue's
// descent below a domain depends only on the domain and its count). ok is
// false when the tree is not one appended below levels, the set is a
// phantom leader, or the plan does not fit.
func (a *admitter) planInDomain(w *KueueWorkload, k int, levels []string, d domainPods) ([]placement.PodSetAssignment, bool) {
	tree := a.tree
	if tree == nil || !a.appended[tree] || w.isPhantom(w.Group.PodSets[k].Name) {
		return nil, false
	}
	if keys := tree.Keys(); !slices.Equal(keys[:len(keys)-1], levels) {
		return nil, false
	}
	set := w.Group.PodSets[k]
	set.Count = d.count
	sel := maps.Clone(set.Template.NodeSelector)
	if sel == nil {
		sel = map[string]string{}
	}
	for l, key := range levels {
		if v, ok := sel[key]; ok && v != d.values[l] {
			return nil, false
		}
		sel[key] = d.values[l]
	}
	set.Template.NodeSelector = sel
	g := *w.Group
	g.PodSets, g.Members, g.SubGroups, g.MinCount = []placement.PodSet{set}, nil, nil, d.count
	p, err := tree.PlanPodSets(a.s, &g, []topology.PodSetRequest{{PodSet: set.Name, Required: levels[len(levels)-1]}}, a.planOptions(tree))
	if err != nil || p.Decision.Status != placement.Scheduled || p.KueueAssumed != nil || len(p.PodSets) != 1 {
		return nil, false
	}
	var out []placement.PodSetAssignment
	for _, r := range p.PodSets[0].Ranks {
		out = append(out, placement.PodSetAssignment{Node: a.s.Node(r.NodeID).Labels[corev1.LabelHostname], NodeID: -1, Count: r.Count})
	}
	return out, true
}
