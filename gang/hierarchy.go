package gang

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// HierarchyResult is the part of a [Result] for a cycle that decided a
// KEP-6012 hierarchy: a root CompositePodGroup and every PodGroup and
// CompositePodGroup below it, all at once.
type HierarchyResult struct {
	// Root is the root CompositePodGroup's key.
	Root placement.Key
	// Decision is the tree's decision, level by level
	// ([placement.SolveHierarchy]); zero when Result.Err is set.
	Decision placement.HierarchyDecision
	// Conditions are the conditions this cycle changed: PodGroupScheduled
	// on leaf PodGroups and, unless the profile is v1.37,
	// CompositePodGroupScheduled on CompositePodGroups; by kind
	// (CompositePodGroup first), then key.
	Conditions []GroupCondition
	// Preemption is the plan of preemption for the whole tree when it ran
	// (Options.Preemption and an Unschedulable tree;
	// [preemption.FindHierarchy] at the root's priority): on Preempt the
	// host evicts its victims and every leaf is retried at once, as
	// Result.Preemption says for a PodGroup.
	Preemption *preemption.HierarchyPlan
}

// GroupCondition is one condition to write on one object of a hierarchy.
type GroupCondition struct {
	// Kind is "PodGroup" or "CompositePodGroup".
	Kind      string
	Key       placement.Key
	Condition Condition
}

// SetCompositePodGroup adds or replaces a CompositePodGroup. Gated leaves
// of hierarchies are tried again at the next cycle (the tree's quorum may
// be met now); a change of its schedulingPolicy (minGroupCount, or gang
// and basic) makes its tree's backing-off leaves active too, so the
// change takes effect at the next cycle, never moving bound members
// (minGroupCount is mutable in v1.37 and v1.38). Leaves queue by their root's
// priority, so a change of it refiles them. The scheduler keeps its own
// copy and, as for PodGroups, its own CompositePodGroupScheduled
// condition once it has one.
//
// Errors: c fails [CompositePodGroup.Validate]; nothing changes.
func (s *Scheduler) SetCompositePodGroup(c *CompositePodGroup) error {
	if err := c.Validate(); err != nil {
		return err
	}
	cp := *c
	cp.Status.Conditions = slices.Clone(c.Status.Conditions)
	var woken *placement.Key
	if old, ok := s.cpgs[c.Key()]; ok {
		if cond, ok := old.Condition(CompositePodGroupScheduled); ok {
			setConditionIn(&cp.Status, cond)
		}
		if policyChanged(old, &cp) {
			woken = s.rootKeyOf(&cp)
		}
	}
	s.cpgs[c.Key()] = &cp
	s.refileLeaves(true, woken)
	s.victims, s.podVictims = nil, nil
	return nil
}

// DeleteCompositePodGroup removes a CompositePodGroup and reports whether
// it existed; the leaves below it wait, gated, until it exists again.
func (s *Scheduler) DeleteCompositePodGroup(k placement.Key) bool {
	if _, ok := s.cpgs[k]; !ok {
		return false
	}
	delete(s.cpgs, k)
	s.refileLeaves(false, nil) // its leaves no longer queue by its priority
	s.victims, s.podVictims = nil, nil
	return true
}

// CompositePodGroup returns a copy of CompositePodGroup k with the
// scheduler's current condition, and whether it exists.
func (s *Scheduler) CompositePodGroup(k placement.Key) (*CompositePodGroup, bool) {
	c, ok := s.cpgs[k]
	if !ok {
		return nil, false
	}
	cp := *c
	cp.Status.Conditions = slices.Clone(c.Status.Conditions)
	return &cp, true
}

func (s *Scheduler) sortedGroupKeys() []placement.Key {
	keys := make([]placement.Key, 0, len(s.q.groups))
	for k := range s.q.groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, placement.Key.Compare)
	return keys
}

// rootOf walks up from a leaf PodGroup to its hierarchy's root; reason
// says why there is none yet (a missing parent, a cycle). A tree deeper
// than placement.MaxHierarchyDepth has a root: its cycle fails
// (cycleTree), as upstream's does.
func (s *Scheduler) rootOf(pg *PodGroup) (root *CompositePodGroup, reason string) {
	root, reason = s.rootFrom(pg.Namespace, pg.Spec.ParentCompositePodGroupName)
	if root == nil && reason == "" {
		c := s.parentCycle(pg.Namespace, pg.Spec.ParentCompositePodGroupName)
		return nil, fmt.Sprintf("CompositePodGroups %s/%s name each other as parent (spec.parentCompositePodGroupName): a cycle has no root",
			pg.Namespace, strings.Join(c, " → "))
	}
	return root, reason
}

// parentCycle is the cycle of CompositePodGroups that the walk up from
// ns/name enters, from its first member back to it; nil when the walk
// ends. Only a leaf that found no root pays for it, O(length of the walk),
// which visits each CompositePodGroup at most once.
func (s *Scheduler) parentCycle(ns, name string) []string {
	var path []string
	at := map[string]int{}
	for {
		if i, ok := at[name]; ok {
			return append(path[i:], name)
		}
		c, ok := s.cpgs[placement.Key{Namespace: ns, Name: name}]
		if !ok || c.Spec.ParentCompositePodGroupName == "" {
			return nil
		}
		at[name] = len(path)
		path = append(path, name)
		name = c.Spec.ParentCompositePodGroupName
	}
}

// rootFrom walks up from CompositePodGroup ns/name to its root, at any
// depth; nil with a reason when one is missing, nil without one when the
// walk enters a cycle (it then takes more steps than there are
// CompositePodGroups).
func (s *Scheduler) rootFrom(ns, name string) (*CompositePodGroup, string) {
	for range len(s.cpgs) {
		c, ok := s.cpgs[placement.Key{Namespace: ns, Name: name}]
		switch {
		case !ok:
			return nil, fmt.Sprintf("waiting for CompositePodGroup %s/%s to exist", ns, name)
		case c.Spec.ParentCompositePodGroupName == "":
			return c, ""
		}
		name = c.Spec.ParentCompositePodGroupName
	}
	if _, ok := s.cpgs[placement.Key{Namespace: ns, Name: name}]; !ok {
		return nil, fmt.Sprintf("waiting for CompositePodGroup %s/%s to exist", ns, name)
	}
	return nil, ""
}

// tree is one hierarchy gathered for a cycle.
type tree struct {
	root    *CompositePodGroup
	leaves  []*group // every leaf PodGroup record below root, by key, detached
	cpgs    []*CompositePodGroup
	node    *placement.HierarchyNode // the ready part, for SolveHierarchy; nil when not ready
	groups  map[placement.Key]*placement.Group
	reason  string             // of the False conditions when the cycle fails
	tooDeep *CompositePodGroup // the first CompositePodGroup at depth placement.MaxHierarchyDepth or more (root at 1), if any
	opts    placement.Options  // the leaves' solver options (solveTree)
	hopts   placement.HierarchyOptions
}

// gather collects root's hierarchy: the CompositePodGroups and PodGroups
// below it (children found by their parent name), detached from the
// queue, and the ready part of it as KEP-6012's quorum defines it
// (upstream GangScheduling PreEnqueue): a leaf is ready with minCount
// members, pending or bound (1 for basic), a CompositePodGroup with
// minGroupCount ready children (1 for basic).
func (s *Scheduler) gather(root *CompositePodGroup, snap *placement.Snapshot) *tree {
	t := &tree{root: root, groups: map[placement.Key]*placement.Group{}}
	kids := map[string][]placement.Key{} // parent name -> child PodGroups
	for _, k := range s.sortedGroupKeys() {
		g := s.q.groups[k]
		if g.pg != nil && g.pg.Namespace == root.Namespace && g.pg.Spec.ParentCompositePodGroupName != "" {
			kids[g.pg.Spec.ParentCompositePodGroupName] = append(kids[g.pg.Spec.ParentCompositePodGroupName], k)
		}
	}
	ckids := map[string][]*CompositePodGroup{}
	for _, c := range s.cpgs {
		if c.Namespace == root.Namespace && c.Spec.ParentCompositePodGroupName != "" {
			ckids[c.Spec.ParentCompositePodGroupName] = append(ckids[c.Spec.ParentCompositePodGroupName], c)
		}
	}
	var walk func(c *CompositePodGroup, depth int) *placement.HierarchyNode
	walk = func(c *CompositePodGroup, depth int) *placement.HierarchyNode {
		t.cpgs = append(t.cpgs, c)
		n := &placement.HierarchyNode{Name: c.Name, TopologyKey: topologyKeyOf(c.Spec.SchedulingConstraints), Policy: placement.PolicyGang}
		if p := c.Spec.SchedulingPolicy.Gang; p != nil {
			n.MinGroupCount = p.MinGroupCount
		} else {
			n.Policy = placement.PolicyBasic
		}
		if depth >= placement.MaxHierarchyDepth && t.tooDeep == nil {
			// Its leaves would lie deeper than the limit. The levels below
			// are still read: their leaves get the failed cycle's
			// conditions, as upstream's do.
			t.tooDeep = c
		}
		children := slices.Clone(ckids[c.Name])
		slices.SortFunc(children, func(a, b *CompositePodGroup) int { return a.Key().Compare(b.Key()) })
		for _, cc := range children {
			if cn := walk(cc, depth+1); cn != nil {
				n.Children = append(n.Children, cn)
			}
		}
		for _, k := range kids[c.Name] {
			g := s.q.groups[k]
			s.q.detach(g)
			for m := range g.members {
				if _, bound := snap.Pod(m); bound {
					s.q.drop(g, m)
				}
			}
			t.leaves = append(t.leaves, g)
			members := g.sortedMembers()
			if len(members)+len(snap.GroupMembers(k)) < g.pg.minCount() || len(members)+len(snap.GroupMembers(k)) == 0 {
				continue
			}
			pg := g.pg.Group(members)
			t.groups[k] = pg
			n.Children = append(n.Children, &placement.HierarchyNode{Name: "PodGroup " + k.Name,
				TopologyKey: topologyKeyOf(g.pg.Spec.SchedulingConstraints), Group: pg})
		}
		if len(n.Children) < c.minChildren() {
			return nil
		}
		return n
	}
	t.node = walk(root, 1)
	slices.SortFunc(t.leaves, func(a, b *group) int { return a.key.Compare(b.key) })
	return t
}

// topologyKeyOf is the one topology key of a hierarchy node's constraints.
func topologyKeyOf(c SchedulingConstraints) string {
	if len(c.Topology) == 0 {
		return ""
	}
	return c.Topology[0].Key
}

// cycleTree runs the cycle of the hierarchy that leaf g (popped, with
// pending members) belongs to. The profile's priority rule is checked on
// every pending and bound pod of the tree's leaves, against the root's
// priority (every pod of a hierarchy carries it, as upstream), and what a
// leaf cannot have is checked per leaf (checkLeaf): either fails the
// cycle with the profile's reason for an invalid configuration. It
// reports ok = false when the hierarchy is not ready (its root is missing
// or its quorum is not met): every leaf is then gated with the reason,
// and the caller pops the next group.
//
// As a PodGroup's cycle does, the tree decides (and preempts) on snap with
// the room nominated for other groups' members (PodGroups' or other
// trees') of at least the root's priority taken, and applies its bindings
// to snap itself.
func (s *Scheduler) cycleTree(snap *placement.Snapshot, now time.Time, g *group) (Result, bool) {
	root, reason := s.rootOf(g.pg)
	if root == nil {
		g.state, g.reason = Gated, reason
		return Result{}, false
	}
	t := s.gather(root, snap)
	if t.node == nil {
		for _, l := range t.leaves {
			if len(l.members) == 0 {
				s.q.place(l)
				continue
			}
			l.state, l.reason = Gated, fmt.Sprintf("waiting for CompositePodGroup %s tree to meet quorum", root.Key())
		}
		return Result{}, false
	}
	r := Result{PodGroup: root.Key(), Snapshot: snap, Hierarchy: &HierarchyResult{Root: root.Key()}}
	t.reason = ReasonSchedulerError
	var err error
	if s.opts.Profile.newest() != ProfileV138 {
		err = checkDepth(t) // v1.38 checks depth in its walk of the tree (checkTreeMembers)
	}
	if err == nil {
		err = s.opts.Profile.checkTreeMembers(t, s.opts.PodGroupPreemptionPolicy, snap.GroupMembers)
	}
	for _, l := range t.leaves {
		if pg := t.groups[l.key]; pg != nil && err == nil {
			err = checkLeaf(l.pg, pg.Members)
		}
	}
	if err != nil {
		t.reason = s.opts.Profile.invalidReason()
	}
	held := s.nominated.hold(snap, t.leaves, podGroupPriorityOf(root.Spec.Priority))
	if err == nil {
		err = s.solveTree(snap, held, t, &r)
	}
	if err == nil && r.Hierarchy.Decision.Status == placement.Unschedulable && s.preempts(t.firstLeaf()) {
		var plan preemption.HierarchyPlan
		if plan, err = preemption.FindHierarchy(held, t.node, podGroupPriorityOf(root.Spec.Priority), s.hierarchyInput(), t.opts, t.hopts); err == nil {
			r.Hierarchy.Preemption = &plan
		}
	}
	if err != nil {
		r.Err = fmt.Errorf("CompositePodGroup %s: %w", root.Key(), err)
		r.Decision, r.Bind, r.Snapshot, r.Hierarchy.Decision, r.Hierarchy.Preemption = placement.Decision{}, nil, snap, placement.HierarchyDecision{}, nil
	}
	s.treeConditions(t, &r, now)
	r.Nominations = s.nominated.updateTree(t.leaves, &r, podGroupPriorityOf(root.Spec.Priority))
	attempts := 0
	for _, l := range t.leaves {
		attempts = max(attempts, l.attempts)
	}
	attempts++
	for _, l := range t.leaves {
		if len(l.members) > 0 {
			l.attempts, l.retryAt, l.state = attempts, now.Add(s.backoffFor(attempts)), BackingOff
			if p := r.Hierarchy.Preemption; p != nil && p.Outcome == preemption.Preempt {
				l.retryAt = now // the room is being made: try again once the victims are gone
			}
			r.RetryAt = l.retryAt
			for _, p := range l.sortedMembers() {
				r.Requeued = append(r.Requeued, p.Key())
			}
		}
		s.q.place(l)
	}
	return r, true
}

// checkLeaf rejects what a leaf of a hierarchy cannot have, as an input
// error naming the object and field: ResourceClaims, on the PodGroup or on
// a pending member (the tree's leaves are placed by domain, without the
// claim ledger's hook), and topology constraints other than one required
// key.
func checkLeaf(pg *PodGroup, members []placement.Pod) error {
	const claims = "ResourceClaims in a CompositePodGroup hierarchy are not supported"
	if len(pg.Spec.ResourceClaims) > 0 {
		return placement.Errorf(placement.ErrInvalid, objRef("PodGroup", &pg.ObjectMeta), "spec.resourceClaims", "%s", claims)
	}
	for i := range members {
		if len(members[i].ResourceClaims) > 0 {
			return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", members[i].Key().String()), "spec.resourceClaims",
				"%s (the pod is a member of PodGroup %s)", claims, pg.Key())
		}
	}
	if cs := pg.Spec.SchedulingConstraints.Topology; len(cs) > 1 || (len(cs) == 1 && cs[0].Preferred) {
		return placement.Errorf(placement.ErrInvalid, objRef("PodGroup", &pg.ObjectMeta), "spec.schedulingConstraints.topology", "a leaf of a CompositePodGroup hierarchy takes one required key")
	}
	return nil
}

// firstLeaf returns the PodGroup of t's first leaf (by key) that takes
// part in the decision, the one whose options SolveOptions and
// PreemptionFor are asked about; nil when none does.
func (t *tree) firstLeaf() *PodGroup {
	for _, l := range t.leaves {
		if t.groups[l.key] != nil {
			return l.pg
		}
	}
	return nil
}

// solveTree decides t on snap (cluster with the room held for other
// groups' nominees taken) and fills r: the decision, the pods to bind
// (each leaf's decision verified on the snapshot the ones before it left)
// and cluster with them applied.
func (s *Scheduler) solveTree(cluster, snap *placement.Snapshot, t *tree, r *Result) error {
	leafPG := t.firstLeaf()
	var opts placement.Options
	var err error
	if s.opts.SolveOptions != nil && leafPG != nil {
		if opts, err = s.opts.SolveOptions(leafPG, snap, opts); err != nil {
			return err
		}
		opts.Generator, opts.Scorer = nil, nil // the hierarchy places its leaves by domain
	}
	t.opts, t.hopts = opts, placement.HierarchyOptions{EmptyValueIsNoDomain: s.opts.Profile.emptyValueIsNoDomain()}
	d, err := placement.SolveHierarchyWith(snap, t.node, opts, t.hopts)
	if err != nil {
		return err
	}
	r.Hierarchy.Decision = d
	r.Decision = placement.Decision{Group: t.root.Key(), Status: d.Status, Message: d.Message, Steps: d.Steps, Proven: d.Proven}
	cur := snap
	for _, ld := range d.Decisions {
		l := s.q.groups[ld.Group]
		pg := t.groups[ld.Group]
		if err := placement.Verify(cur, pg, ld, opts.Filters...); err != nil {
			return err
		}
		var bind []placement.Pod
		for _, a := range ld.Assignments {
			m, ok := l.members[a.Pod]
			if !ok {
				return placement.Errorf(placement.ErrNotFound, objRef("PodGroup", &l.pg.ObjectMeta), "members", "the decision places unknown pod %s", a.Pod)
			}
			p := *m
			p.NodeName = a.Node
			bind = append(bind, p)
		}
		if cur, err = cur.Apply(placement.Change{Bind: bind}); err != nil {
			return err
		}
		r.Bind = append(r.Bind, bind...)
	}
	r.Snapshot = cur
	if snap != cluster { // cur holds other groups' nominees too
		r.Snapshot = cluster
		if len(r.Bind) > 0 {
			if r.Snapshot, err = cluster.Apply(placement.Change{Bind: r.Bind}); err != nil {
				return err
			}
		}
	}
	for _, p := range r.Bind {
		gk, _ := p.GroupKey()
		s.q.drop(s.q.groups[gk], p.Key())
	}
	return nil
}

// treeConditions sets the conditions of every object of t after its
// cycle: a leaf placed is Scheduled; any other leaf and CompositePodGroup
// of a Scheduled tree takes its own level's account; every object of a
// tree not Scheduled takes the tree's, with what preemption found as
// [Result.Message] words it for a PodGroup (or the error). True never
// turns False.
func (s *Scheduler) treeConditions(t *tree, r *Result, now time.Time) {
	results := map[string]*placement.NodeResult{}
	var index func(n *placement.NodeResult)
	index = func(n *placement.NodeResult) {
		results[n.Name] = n
		for i := range n.Children {
			index(&n.Children[i])
		}
	}
	d := &r.Hierarchy.Decision
	if r.Err == nil {
		index(&d.Root)
	}
	cond := func(res *placement.NodeResult) Condition {
		switch {
		case r.Err != nil:
			return Condition{Status: ConditionFalse, Reason: t.reason, Message: r.Err.Error()}
		case res == nil:
			return Condition{Status: ConditionFalse, Reason: ReasonUnschedulable, Message: "waiting for members: fewer than minCount exist"}
		case d.Status == placement.Scheduled && res.Status == placement.Scheduled:
			return Condition{Status: ConditionTrue, Reason: ReasonScheduled, Message: res.Message}
		case d.Status == placement.Scheduled:
			return Condition{Status: ConditionFalse, Reason: ReasonUnschedulable, Message: res.Message}
		}
		// As a PodGroup's: the tree's account, then what preemption
		// found (the victims it is waiting for, or why none would help).
		return Condition{Status: ConditionFalse, Reason: ReasonUnschedulable, Message: r.Message()}
	}
	if s.opts.Profile.WritesCompositeConditions() {
		cs := slices.Clone(t.cpgs)
		slices.SortFunc(cs, func(a, b *CompositePodGroup) int { return a.Key().Compare(b.Key()) })
		for _, c := range cs {
			nc := cond(results[c.Name])
			nc.Type = CompositePodGroupScheduled
			if nc.Reason == ReasonPodGroupError {
				// v1.38.0-beta.0 pkg/scheduler/schedule_one_podgroup.go
				// updatePodGroupConditionWithError: a CompositePodGroup
				// of an invalid tree reads CompositePodGroupError.
				nc.Reason = ReasonCompositePodGroupError
			}
			if changed, ok := updateCondition(&c.Status, nc, now); ok {
				r.Hierarchy.Conditions = append(r.Hierarchy.Conditions, GroupCondition{Kind: "CompositePodGroup", Key: c.Key(), Condition: changed})
			}
		}
	}
	for _, l := range t.leaves {
		if len(l.members) == 0 && t.groups[l.key] == nil {
			continue // nothing pending and nothing to decide
		}
		nc := cond(results["PodGroup "+l.key.Name])
		nc.Type = PodGroupScheduled
		if changed, ok := updateCondition(&l.pg.Status, nc, now); ok {
			r.Hierarchy.Conditions = append(r.Hierarchy.Conditions, GroupCondition{Kind: "PodGroup", Key: l.key, Condition: changed})
		}
	}
}

// updateCondition sets c on st unless st's is True already (the
// InitiallyScheduled conditions are terminal) or nothing changes, keeping the transition time when the status stays; it returns
// the condition written.
func updateCondition(st *PodGroupStatus, c Condition, now time.Time) (Condition, bool) {
	var old Condition
	had := false
	for _, x := range st.Conditions {
		if x.Type == c.Type {
			old, had = x, true
		}
	}
	if had && old.Status == ConditionTrue {
		return Condition{}, false // terminal: a later cycle for extra members changes nothing
	}
	if had && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
		return Condition{}, false
	}
	c.LastTransitionTime = now
	if had && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	setConditionIn(st, c)
	return c, true
}

// setConditionIn sets c in st, replacing the condition of the same type.
func setConditionIn(st *PodGroupStatus, c Condition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// checkDepth fails a tree with a CompositePodGroup at depth
// placement.MaxHierarchyDepth or more (root at 1): its leaves would lie
// deeper than the limit. The API server accepts such objects one by one;
// the scheduler finds it at runtime (v1.38.0-beta.0 validatePodGroupSubtree;
// v1.37.2 only where a walk passes it, see [Profile]).
func checkDepth(t *tree) error {
	if t.tooDeep == nil {
		return nil
	}
	return tooDeep(t.root, t.tooDeep)
}

// tooDeep is the error of root's tree, whose CompositePodGroup c lies at
// depth placement.MaxHierarchyDepth.
func tooDeep(root, c *CompositePodGroup) error {
	return placement.Errorf(placement.ErrInvalid, "CompositePodGroup "+c.Key().String(), "spec.parentCompositePodGroupName",
		"the hierarchy below CompositePodGroup %s is deeper than %d levels (its leaves counted)", root.Key(), placement.MaxHierarchyDepth)
}
