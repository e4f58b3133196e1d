package replay

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
	"github.com/gangsched/gangsched/topology"
)

// A KEP-6012 hierarchy is decided whole: the scheduler queues its root, so
// one cycle binds, preempts for or requeues the members of several leaf
// PodGroups at once. The replay keeps outcomes per leaf (each starts when
// its first members bind, where its own decision put it), and one record
// per tree that parks and wakes the tree's pending members together, as
// the scheduler would retry them together.

// treePrefix keys a tree's record among the groups (by its root's
// namespace and name); ':' cannot occur in an object's name.
const treePrefix = "cpg:"

// queued is the record that parks g's members: its tree's for a leaf of a
// hierarchy, else g's own.
func (g *groupState) queued() *groupState {
	if g.tree != nil {
		return g.tree
	}
	return g
}

// linkTrees joins every leaf PodGroup of in to its tree's record, once the
// pods are read: the tree wakes for the highest priority of its root and
// leaves (a conservative hint: waking in vain costs a cycle) and names
// claims when a leaf does.
func (e *engine) linkTrees(in Input) {
	byKey := make(map[placement.Key]*gang.CompositePodGroup, len(in.CompositePodGroups))
	for _, cg := range in.CompositePodGroups {
		byKey[cg.Key()] = cg
	}
	roots := gang.TreeRoots(in.PodGroups, in.CompositePodGroups)
	for _, pg := range in.PodGroups {
		root, ok := roots[pg.Key()]
		if !ok {
			continue
		}
		tk := placement.Key{Namespace: root.Namespace, Name: treePrefix + root.Name}
		t, known := e.groups[tk]
		leaf := e.groups[pg.Key()]
		if !known {
			t = e.group(tk, "CompositePodGroup")
			t.out.Name = root.String()
			t.priority = leaf.priority
			if cg, ok := byKey[root]; ok && cg.Spec.Priority != nil {
				t.priority = *cg.Spec.Priority
			}
		}
		leaf.tree, leaf.out.Tree = t, root.String()
		t.priority = max(t.priority, leaf.priority)
		t.claims = t.claims || leaf.claims
	}
}

// applyTree carries out one cycle's result for a hierarchy.
func (e *engine) applyTree(r gang.Result) error {
	t := e.groups[placement.Key{Namespace: r.PodGroup.Namespace, Name: treePrefix + r.PodGroup.Name}]
	leaves, waiting := e.leavesOf(r)
	for _, l := range leaves {
		l.out.Attempts++
	}
	plan := r.Hierarchy.Preemption
	preempted := plan != nil && plan.Outcome == preemption.Preempt
	if preempted {
		var victims []placement.Key
		for _, v := range plan.Victims {
			victims = append(victims, v.Pods...)
		}
		slices.SortFunc(victims, placement.Key.Compare)
		e.noteTreeEvicts(leaves, &plan.Decision, victims)
		if err := e.evict(t.out.Name, victims); err != nil {
			return err
		}
	}
	if err := e.bind(r); err != nil {
		return err
	}
	results := map[string]leafResult{}
	collectLeaves(&r.Hierarchy.Decision.Root, r.Hierarchy.Decision.Status == placement.Scheduled, "", results)
	for _, l := range leaves {
		lr := results[l.out.key.Name]
		if nodes := e.nodeNames(r.Bind, l); len(nodes) > 0 && !l.out.Started {
			l.out.Started, l.out.Start = true, e.now
			l.out.Placement, l.out.Nodes = lr.domain, nodes
			e.stats.delay(l)
		}
		if !waiting[l] {
			continue // nothing of l waits: its reason stays its last wait's
		}
		l.out.Reason, l.out.Failed = reason(&r), r.Err != nil
		if r.Err == nil && r.Hierarchy.Decision.Status == placement.Scheduled {
			// A placed tree can leave a leaf out, or members of a leaf
			// beyond its minimum: the leaf's own line says why.
			l.out.Reason = lr.message
		}
		l.out.FirstReason = cmp.Or(l.out.FirstReason, l.out.Reason)
	}
	if len(r.Requeued) == 0 || len(r.Bind) > 0 || preempted {
		return nil // done, or the cluster changed: the scheduler's own retry may do more
	}
	e.park(t, r)
	return nil
}

// noteTreeEvicts gives each victim of a tree's preemption to the leaf the
// preemption's decision puts on the victim's node (the first leaf of
// leaves when none does), so that each eviction is counted once, by the
// leaf whose room it makes.
func (e *engine) noteTreeEvicts(leaves []*groupState, d *placement.HierarchyDecision, victims []placement.Key) {
	on := map[string]*groupState{}
	for i := range d.Decisions {
		leaf := e.groups[d.Decisions[i].Group]
		for _, a := range d.Decisions[i].Assignments {
			if _, ok := on[a.Node]; !ok && leaf != nil {
				on[a.Node] = leaf
			}
		}
	}
	by := map[*groupState][]placement.Key{}
	for _, v := range victims {
		leaf := leaves[0]
		if p, ok := e.snap.Pod(v); ok {
			if l, ok := on[p.NodeName]; ok {
				leaf = l
			}
		}
		by[leaf] = append(by[leaf], v)
	}
	for _, l := range leaves {
		l.noteEvicts(by[l])
	}
}

// leavesOf are the records of the leaves whose members r binds or
// requeues, in key order, and those of them with members requeued.
func (e *engine) leavesOf(r gang.Result) (leaves []*groupState, waiting map[*groupState]bool) {
	add := func(k placement.Key) *groupState {
		g := e.pods[k].group
		if !slices.Contains(leaves, g) {
			leaves = append(leaves, g)
		}
		return g
	}
	for i := range r.Bind {
		add(r.Bind[i].Key())
	}
	waiting = map[*groupState]bool{}
	for _, k := range r.Requeued {
		waiting[add(k)] = true
	}
	slices.SortFunc(leaves, func(a, b *groupState) int { return a.out.key.Compare(b.out.key) })
	return leaves, waiting
}

// leafResult is what a tree's decision says of one leaf: the path of the
// domains it was placed in (see collectLeaves) and its message.
type leafResult struct {
	domain, message string
}

// collectLeaves records, by leaf PodGroup name, the leaves below n, whose
// ancestors' domains have the path above; placed says the tree's decision
// is Scheduled (else no node has a domain). A leaf's path joins the
// domains of the placed nodes with a topology key from the root down to
// it, widest first, each value as a flat group's placement names it
// ([topology.Segment]): "b/r1", or `c/""` for a rack whose label value is
// empty (a domain under v1.36 and v1.37), which Domain alone cannot tell
// from none.
func collectLeaves(n *placement.NodeResult, placed bool, above string, out map[string]leafResult) {
	if placed && n.TopologyKey != "" && n.Status == placement.Scheduled {
		if above != "" {
			above += "/"
		}
		above += topology.Segment(n.Domain)
	}
	if name, ok := strings.CutPrefix(n.Name, "PodGroup "); ok && len(n.Children) == 0 {
		out[name] = leafResult{domain: above, message: n.Message}
		return
	}
	for i := range n.Children {
		collectLeaves(&n.Children[i], placed, above, out)
	}
}
