package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/placement"
)

// KueueCohort is a Kueue Cohort (kueue.x-k8s.io/v1beta2): a node of a
// cohort tree whose ClusterQueues lend each other their unused quota. A
// cohort that a ClusterQueue's spec.cohortName or a Cohort's
// spec.parentName names but that the input lacks is Kueue's implicit
// cohort: no quota of its own, no parent, weight 1.
type KueueCohort struct {
	Name string
	// Parent is spec.parentName: the cohort it lends to and borrows
	// from; "" for a root.
	Parent string
	// Groups are spec.resourceGroups: quota the cohort adds to what its
	// members lend (a pool they share), with limits towards its parent.
	Groups []KueueResourceGroup
	// FairWeight is spec.fairSharing.weight, nil when unset (1), as for
	// [KueueClusterQueue].FairWeight.
	FairWeight *float64
}

// ConvertCohort reads a Kueue Cohort.
//
// Errors (a [*placement.FieldError] naming the Cohort and the field), as
// Kueue's API and webhook refuse them: a parentName that is not a DNS
// subdomain; resource groups as [ConvertClusterQueue] refuses them; a
// negative borrowingLimit or lendingLimit, or one set without
// spec.parentName. A lendingLimit above the nominalQuota is allowed, as
// in Kueue (a cohort lends what its members lend it too); a
// spec.fairSharing.weight as [ConvertClusterQueue] refuses it.
func ConvertCohort(c *kueue.Cohort) (*KueueCohort, error) {
	if c == nil {
		return nil, errNil("Kueue Cohort")
	}
	obj := fmt.Sprintf("Kueue Cohort %q", c.Name)
	parent, err := cohortName(obj, "spec.parentName", c.Spec.ParentName)
	if err != nil {
		return nil, err
	}
	groups, err := convertResourceGroups(obj, c.Spec.ResourceGroups, limitRule{parent: parent != "", parentField: "spec.parentName"})
	if err != nil {
		return nil, err
	}
	weight, err := fairWeight(obj, c.Spec.FairSharing)
	if err != nil {
		return nil, err
	}
	return &KueueCohort{Name: c.Name, Parent: parent, Groups: groups, FairWeight: weight}, nil
}

// cohortName checks a reference to a cohort, which Kueue's API holds to
// a DNS subdomain ("" for none).
func cohortName(obj, field string, name kueue.CohortReference) (string, error) {
	if name == "" {
		return "", nil
	}
	if errs := validation.IsDNS1123Subdomain(string(name)); len(errs) > 0 {
		return "", placement.Errorf(placement.ErrInvalid, obj, field, "%q is not a cohort name: %s", name, strings.Join(errs, "; "))
	}
	return string(name), nil
}

// limitRule says where borrowingLimit and lendingLimit may be set: only
// with a parent (a ClusterQueue's cohortName, a Cohort's parentName), and,
// for a ClusterQueue, a lendingLimit no more than its nominalQuota.
type limitRule struct {
	parent            bool
	parentField       string
	lendWithinNominal bool
}

// read reads quota rq's limits, at field, into q.
func (rule limitRule) read(obj, field string, rq kueue.ResourceQuota, q *KueueFlavorQuota) error {
	r := placement.ResourceName(rq.Name)
	for _, l := range []struct {
		name string
		v    *resource.Quantity
		into *map[placement.ResourceName]int64
	}{{"borrowingLimit", rq.BorrowingLimit, &q.Borrowing}, {"lendingLimit", rq.LendingLimit, &q.Lending}} {
		if l.v == nil {
			continue
		}
		f := field + "." + l.name
		if !rule.parent {
			return placement.Errorf(placement.ErrInvalid, obj, f, "is set without %s: only a member of a cohort borrows or lends", rule.parentField)
		}
		v, err := Quantity(obj, f, rq.Name, *l.v)
		if err != nil {
			return err
		}
		if l.name == "lendingLimit" && rule.lendWithinNominal && v > q.Nominal[r] {
			return placement.Errorf(placement.ErrInvalid, obj, f, "%s is more than the nominalQuota %s", l.v.String(), rq.NominalQuota.String())
		}
		if *l.into == nil {
			*l.into = map[placement.ResourceName]int64{}
		}
		(*l.into)[r] = v
	}
	return nil
}

// cohortCycle words the cycle of spec.parentName that cohort, or a cohort
// above it, is in ("a → b → a"), or "". Kueue admits nothing in a
// ClusterQueue under such a cohort while the cycle lasts.
func (q *KueueQueues) cohortCycle(cohort string) string {
	if q.idx != nil && !q.idx.cycle[cohort] {
		return ""
	}
	var path []string
	at := map[string]int{} // a cohort's index in path: a chain of n costs n, not n²
	for c := cohort; c != ""; c = q.parentOf(quotaNode{cohort: c}) {
		if i, ok := at[c]; ok {
			return strings.Join(append(path[i:], c), " → ")
		}
		at[c] = len(path)
		path = append(path, c)
	}
	return ""
}

// quotaNode is a ClusterQueue (cq set) or a cohort of a cohort tree.
type quotaNode struct {
	cq     *KueueClusterQueue
	cohort string
}

// parentOf is the cohort above n, "" for a root.
func (q *KueueQueues) parentOf(n quotaNode) string {
	if n.cq != nil {
		return n.cq.Cohort
	}
	if c := q.Cohorts[n.cohort]; c != nil {
		return c.Parent
	}
	return "" // an implicit cohort
}

// quotaTree reads, in the cohort trees of q, what a ClusterQueue may use
// while the ClusterQueues hold used, as Kueue's resource nodes do: a node's
// subtree quota is its own nominal quota and what its children lend it
// (all of theirs, or their lendingLimit: the rest is their local quota,
// which only their subtree uses); a ClusterQueue may take its local quota
// left unused, and from its parent what the parent has left, capped by its
// borrowingLimit, up to the root. q is indexed ([KueueQueues.indexed]);
// sums are the cohorts' usage under used ([cohortSums]). Make one with
// [KueueQueues.tree], or [admitter.quota] for the admitter's usage.
type quotaTree struct {
	q    *KueueQueues
	used quotaUsage
	sums *cohortSums
}

// limits are n's nominal quota of fr and its borrowing and lending limits
// (nil when unset), read from the spec once per call of
// [AdmitKueueWorkloads] ([quotaIndex]).
func (t quotaTree) limits(n quotaNode, fr flavorResource) (nominal int64, borrow, lend *int64) {
	l := t.cell(n, fr).lim
	return l.nominal, l.borrow, l.lend
}

// quotaCell is what the quota walks read of one node of the tree and one
// flavor-resource that does not change with the usage: its limits, its
// subtree and local quota, the same flavor-resource at its parent, and
// whether it is under a cycle. A walk finds the cell of where it starts
// once and follows parent from there: looking each level's limits,
// subtree and usage up by node and flavor-resource hashed three or four
// strings a level, a sixth of an admission run with preemption.
type quotaCell struct {
	n  quotaNode
	fr flavorResource
	// id numbers the cells of an index in the order made, for
	// [cohortSums.usageAt].
	id    int
	cycle bool // [quotaTree.inCycle] of n
	lim   quotaLimits
	// sub is [quotaTree.subtreeLocal], once hasSub.
	sub    quotaSubtree
	hasSub bool
	// parent is the cell of fr at n's parent, nil at a root, once
	// hasParent: made when first walked to, as a walk from a node
	// under a cycle of spec.parentName would never end.
	parent    *quotaCell
	hasParent bool
}

// cell is n's cell of fr, made when first asked for.
func (t quotaTree) cell(n quotaNode, fr flavorResource) *quotaCell {
	m := t.q.idx
	k := quotaMemoKey{n, fr}
	if c := m.cells[k]; c != nil {
		return c
	}
	c := &quotaCell{n: n, fr: fr, id: len(m.cells), cycle: t.inCycle(n)}
	c.lim.nominal, c.lim.borrow, c.lim.lend = t.limitsOf(n, fr)
	m.cells[k] = c
	return c
}

// parentCell is c's parent cell, nil at a root; for c not under a cycle.
func (t quotaTree) parentCell(c *quotaCell) *quotaCell {
	if !c.hasParent {
		if p := t.q.parentOf(c.n); p != "" {
			c.parent = t.cell(quotaNode{cohort: p}, c.fr)
		}
		c.hasParent = true
	}
	return c.parent
}

// limitsOf is [quotaTree.limits], read from the spec.
func (t quotaTree) limitsOf(n quotaNode, fr flavorResource) (nominal int64, borrow, lend *int64) {
	if n.cq != nil {
		return groupLimits(n.cq.Groups, fr)
	}
	if c := t.q.Cohorts[n.cohort]; c != nil {
		return groupLimits(c.Groups, fr)
	}
	return 0, nil, nil // an implicit cohort has no quota
}

// groupLimits are the nominal quota and limits of fr in groups.
func groupLimits(groups []KueueResourceGroup, fr flavorResource) (nominal int64, borrow, lend *int64) {
	for _, g := range groups {
		if !slices.Contains(g.Covered, fr.Resource()) {
			continue
		}
		for _, fq := range g.Flavors {
			if fq.Flavor != fr.Flavor() {
				continue
			}
			nominal = fq.Nominal[fr.Resource()]
			if v, ok := fq.Borrowing[fr.Resource()]; ok {
				borrow = &v
			}
			if v, ok := fq.Lending[fr.Resource()]; ok {
				lend = &v
			}
		}
	}
	return nominal, borrow, lend
}

// children are the ClusterQueues and cohorts whose parent is cohort, by
// name: ClusterQueues first, then Cohorts, as [KueueQueues.indexed]
// listed them. The caller must not change the slice.
func (t quotaTree) children(cohort string) []quotaNode {
	return t.q.idx.kids[cohort]
}

// quotaIndex is what [KueueQueues.indexed] reads once from the specs of
// the queues for the quota walks and the admission checks. Every quota
// walk visits a cohort's children, and scanning every ClusterQueue and
// Cohort there made each walk linear in all of them; every room and
// usage walk reads each child's limits and subtree quota, and summing a
// cohort's subtree again at each read made a walk quadratic in its
// ClusterQueues.
type quotaIndex struct {
	// kids are each cohort's children, ClusterQueues then Cohorts, by
	// name.
	kids map[string][]quotaNode
	// cycle holds the cohorts whose chain of parents runs into a cycle of
	// spec.parentName ([quotaTree.inCycle]).
	cycle map[string]bool
	// cells keep each node's limits and subtree and local quota of a
	// flavor-resource, as the walks first read them ([quotaCell]).
	cells map[quotaMemoKey]*quotaCell
	// frs are each node's flavor-resources ([quotaTree.flavorResources]),
	// made when first asked for.
	frs map[quotaNode][]flavorResource
	// lendable is what each cohort could lend a child, per resource
	// ([quotaTree.lendable]), made when first asked for.
	lendable map[string]map[placement.ResourceName]int64
	// heights are each cohort's [quotaTree.height], made when first
	// asked for.
	heights map[string]int
	// onAllFlavors says, per ClusterQueue, whether every check rule of
	// the queue covers all its flavors ([rulesOnAllFlavors]).
	onAllFlavors map[*KueueClusterQueue]bool
	// byName are the ClusterQueues by metadata.name, as usage names them.
	byName map[string]*KueueClusterQueue
	// labelKeys are the node label keys of each resource group's
	// flavors ([KueueQueues.groupLabelKeys]), made when first asked for.
	labelKeys map[cqGroup]map[string]bool
	// kueueWords is [KueueOptions].KueueWords.
	kueueWords bool
}

// cqGroup is resource group g of a ClusterQueue.
type cqGroup struct {
	cq *KueueClusterQueue
	g  int
}

// indexed is a shallow copy of q with its [quotaIndex], which every quota
// walk ([quotaTree]) reads. The copy shares q's maps and must not outlive
// changes to them; [AdmitKueueWorkloads] makes one per call.
func (q *KueueQueues) indexed() *KueueQueues {
	c := *q
	x := &quotaIndex{kids: map[string][]quotaNode{}, cycle: map[string]bool{}, cells: map[quotaMemoKey]*quotaCell{},
		onAllFlavors: map[*KueueClusterQueue]bool{}, byName: map[string]*KueueClusterQueue{}}
	for _, name := range slices.Sorted(maps.Keys(q.ClusterQueues)) {
		if cq := q.ClusterQueues[name]; cq != nil {
			x.kids[cq.Cohort] = append(x.kids[cq.Cohort], quotaNode{cq: cq})
			x.onAllFlavors[cq] = rulesOnAllFlavors(cq)
			x.byName[cq.Name] = cq
		}
	}
	for _, name := range slices.Sorted(maps.Keys(q.Cohorts)) {
		if co := q.Cohorts[name]; co != nil {
			x.kids[co.Parent] = append(x.kids[co.Parent], quotaNode{cohort: name})
		}
	}
	// A cohort neither listed nor named as a parent is implicit and
	// without a parent: never in a cycle. Each chain of parents is walked
	// until it ends, meets a cohort an earlier walk settled, or meets
	// itself (a cycle); its cohorts then share that answer, so each
	// cohort is walked once (a chain of n walked from every cohort cost
	// n²/2 steps: 134 s of CPU for 20,000).
	settled, onWalk := map[string]bool{}, map[string]bool{}
	for _, cohort := range slices.Concat(slices.Collect(maps.Keys(x.kids)), slices.Collect(maps.Keys(q.Cohorts))) {
		var walk []string
		c := cohort
		for c != "" && !settled[c] && !onWalk[c] {
			onWalk[c] = true
			walk = append(walk, c)
			c = q.parentOf(quotaNode{cohort: c})
		}
		cyclic := onWalk[c] || x.cycle[c]
		for _, w := range walk {
			delete(onWalk, w)
			settled[w] = true
			if cyclic {
				x.cycle[w] = true
			}
		}
	}
	c.idx = x
	return &c
}

// quotaMemoKey is a node of the quota tree and a flavor-resource.
type quotaMemoKey struct {
	n  quotaNode
	fr flavorResource
}

// quotaLimits are [quotaTree.limits]' results; the pointers are shared,
// never written through.
type quotaLimits struct {
	nominal      int64
	borrow, lend *int64
}

// quotaSubtree are [quotaTree.subtreeLocal]'s results.
type quotaSubtree struct{ subtree, local int64 }

// eachChild calls f for each ClusterQueue and cohort whose parent is
// cohort, for sums, which saturate only upwards and so do not depend on
// the order.
func (t quotaTree) eachChild(cohort string, f func(quotaNode)) {
	for _, n := range t.q.idx.kids[cohort] {
		f(n)
	}
}

// inCycle reports whether the chain of parents above n runs into a cycle
// of spec.parentName (a node on the cycle included). Kueue admits nothing
// under such a cohort, but a walk of the tree there would never end; a
// walk that starts outside one stays outside (going down, a child's parent
// is the node itself; going up, the chain is acyclic), so the walks below
// check only where they start.
func (t quotaTree) inCycle(n quotaNode) bool {
	c := n.cohort
	if n.cq != nil {
		c = n.cq.Cohort
	}
	return t.q.idx.cycle[c]
}

// subtree is n's subtree quota of fr: its nominal quota and what its
// children lend it; 0 for a cohort under a cycle ([quotaTree.inCycle]).
func (t quotaTree) subtree(n quotaNode, fr flavorResource) int64 {
	c := t.cell(n, fr)
	if n.cq == nil && c.cycle {
		return 0
	}
	return t.subAt(c).subtree
}

// subtreeOf is [quotaTree.subtree] for n not under a cycle.
func (t quotaTree) subtreeOf(n quotaNode, fr flavorResource) int64 {
	v, _ := t.subtreeLocal(n, fr)
	return v
}

// subtreeLocal is n's subtree quota of fr and the part of it n's
// lendingLimit keeps from its parent, for n not under a cycle. Each child
// is walked once for both: reading them apart walked a child's subtree
// twice per level, 2^depth times in a chain of Cohorts with lendingLimits.
func (t quotaTree) subtreeLocal(n quotaNode, fr flavorResource) (subtree, local int64) {
	v := t.subAt(t.cell(n, fr))
	return v.subtree, v.local
}

// subAt is [quotaTree.subtreeLocal] of c's node, summed over the subtree
// when first asked for.
func (t quotaTree) subAt(c *quotaCell) quotaSubtree {
	if c.hasSub {
		return c.sub
	}
	v, lend := c.lim.nominal, c.lim.lend
	if c.n.cq == nil {
		t.eachChild(c.n.cohort, func(k quotaNode) {
			s := t.subAt(t.cell(k, c.fr))
			v = sum(v, s.subtree-s.local) // min(sub, lendingLimit): not negative
		})
	}
	var local int64
	if lend != nil {
		local = max(0, v-*lend)
	}
	c.sub, c.hasSub = quotaSubtree{v, local}, true
	return c.sub
}

// local is the part of n's subtree quota its lendingLimit keeps from its
// parent; 0 for a cohort under a cycle.
func (t quotaTree) local(n quotaNode, fr flavorResource) int64 {
	c := t.cell(n, fr)
	if n.cq == nil && c.cycle {
		return 0
	}
	return t.localAt(c)
}

// localOf is [quotaTree.local] for n not under a cycle.
func (t quotaTree) localOf(n quotaNode, fr flavorResource) int64 {
	return t.localAt(t.cell(n, fr))
}

// localAt is [quotaTree.localOf] of c's node.
func (t quotaTree) localAt(c *quotaCell) int64 {
	if c.lim.lend == nil {
		return 0 // without walking its subtree
	}
	return t.subAt(c).local
}

// usage is what counts against n's subtree quota: a ClusterQueue's usage,
// a cohort's children's usage beyond their local quota (0 for a cohort
// under a cycle).
func (t quotaTree) usage(n quotaNode, fr flavorResource) int64 {
	if n.cq != nil {
		return t.used[n.cq.Name][fr]
	}
	c := t.cell(n, fr)
	if c.cycle {
		return 0
	}
	return t.sums.usageAt(c)
}

// usageOf is [quotaTree.usage] for n not under a cycle: a cohort's is
// kept in t.sums.
func (t quotaTree) usageOf(n quotaNode, fr flavorResource) int64 {
	if n.cq != nil {
		return t.used[n.cq.Name][fr]
	}
	return t.sums.usage(n.cohort, fr)
}

// usageAt is [quotaTree.usageOf] of c's node.
func (t quotaTree) usageAt(c *quotaCell) int64 {
	if c.n.cq != nil {
		return t.used[c.n.cq.Name][c.fr]
	}
	return t.sums.usageAt(c)
}

// available is what n may still take of fr: its local quota left unused,
// and what its parent has left, within its borrowingLimit. It is negative
// when more is in use than the quota allows; 0 under a cycle.
func (t quotaTree) available(n quotaNode, fr flavorResource) int64 {
	c := t.cell(n, fr)
	if c.cycle {
		return 0
	}
	return t.availableAt(c)
}

// availableOf is [quotaTree.available] for n not under a cycle.
func (t quotaTree) availableOf(n quotaNode, fr flavorResource) int64 {
	return t.availableAt(t.cell(n, fr))
}

// availableAt is [quotaTree.availableOf] of c's node.
func (t quotaTree) availableAt(c *quotaCell) int64 {
	parent := t.parentCell(c)
	if parent == nil {
		return t.subAt(c).subtree - t.usageAt(c)
	}
	fromParent := t.availableAt(parent)
	local := t.localAt(c)
	if borrow := c.lim.borrow; borrow != nil {
		stored := t.subAt(c).subtree - local
		usedThere := max(0, t.usageAt(c)-local)
		fromParent = min(fromParent, sum(stored-usedThere, *borrow))
	}
	return sum(max(0, local-t.usageAt(c)), fromParent)
}

// potential is the most of fr n could take with nothing in use; 0 under a
// cycle.
func (t quotaTree) potential(n quotaNode, fr flavorResource) int64 {
	c := t.cell(n, fr)
	if c.cycle {
		return 0
	}
	return t.potentialAt(c)
}

// potentialOf is [quotaTree.potential] for n not under a cycle.
func (t quotaTree) potentialOf(n quotaNode, fr flavorResource) int64 {
	return t.potentialAt(t.cell(n, fr))
}

// potentialAt is [quotaTree.potentialOf] of c's node.
func (t quotaTree) potentialAt(c *quotaCell) int64 {
	parent := t.parentCell(c)
	if parent == nil {
		return t.subAt(c).subtree
	}
	v := sum(t.localAt(c), t.potentialAt(parent))
	if borrow := c.lim.borrow; borrow != nil {
		v = min(v, sum(t.subAt(c).subtree, *borrow))
	}
	return v
}

// sum is a+b, saturating at math.MaxInt64 when both are non-negative
// (quotas near it add up past int64); a negative term cannot overflow.
func sum(a, b int64) int64 {
	if a < 0 || b < 0 {
		return a + b
	}
	return arith.SatAdd(a, b)
}

// room is the most of fr ClusterQueue cq could ever take (Kueue's
// potential available) and what it may take now (its available, 0 when
// negative): its nominal quota, and unused nominal quota, without a
// cohort.
func (t quotaTree) room(cq *KueueClusterQueue, fr flavorResource) (capacity, free int64) {
	n := quotaNode{cq: cq}
	return t.potential(n, fr), max(0, t.available(n, fr))
}

// borrowWords words what a Workload taking usage u in ClusterQueue cq,
// which already holds used, borrows from its cohort: "borrows from cohort
// c: cpu 2 in flavor f", or "" when it stays within nominal quota.
func borrowWords(cq *KueueClusterQueue, used map[flavorResource]int64, u map[flavorResource]int64) string {
	if cq.Cohort == "" {
		return ""
	}
	var out []string
	for _, fr := range slices.SortedFunc(maps.Keys(u), compareFlavorResources) {
		nominal, _, _ := groupLimits(cq.Groups, fr)
		if over := min(u[fr], sum(used[fr], u[fr])-nominal); over > 0 {
			out = append(out, amountWords(fr, over))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return fmt.Sprintf("borrows from cohort %s: %s", cq.Cohort, strings.Join(out, ", "))
}
