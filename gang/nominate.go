package gang

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// Nomination is a pending pod's nominated node (the pod's
// status.nominatedNodeName): the node where preemption made room for it.
// Node "" means the nomination was cleared.
type Nomination struct {
	Pod  placement.Key
	Node string
}

// nominations hold the room that preemption freed for its preemptors, as
// kube-scheduler's nominator does (pkg/scheduler/backend/queue/nominator.go,
// and framework.addGENominatedPods): while a member is nominated to a node,
// a cycle of another group whose priority is at most the member's decides
// as if the member were bound there, so that it cannot take the room; a
// group of higher priority ignores it, as upstream. The same holds for a
// CompositePodGroup tree's cycle, at the root's priority it preempts
// with, against every nominee outside its leaves, and for a tree's
// nominees (at that same root priority) against other cycles. A group's
// (or tree's) own nominations never hold room against itself: it is
// solved whole, and may place its members elsewhere. Pure data: no clock,
// no I/O.
type nominations struct {
	byPod map[placement.Key]nominee
}

// nominee is one nominated member: a copy of the pending pod with NodeName
// set to the nominated node, its group, and the priority it holds the room
// with: the priority preemption ranks it with ([Scheduler.preemptionPriority]).
type nominee struct {
	pod      placement.Pod
	group    placement.Key
	priority int32
}

// memberPriority is the priority a nominee p of pg outside a hierarchy
// holds its room with: the PodGroup's override when set, else the pod's
// own, in every profile. Unlike a victim's ([Profile.groupOverride]), an
// unset spec.priority does not make it 0 since v1.37: upstream's
// nominator (addGENominatedPods, pkg/scheduler/framework/runtime/
// framework.go) compares pods' own priorities, and a group whose pods
// differ from its unset priority fails its own v1.37 cycle, so only a
// host's [Scheduler.Nominate] can make such a nominee.
func memberPriority(pg *PodGroup, p *placement.Pod) int32 {
	if pg != nil && pg.Spec.Priority != nil {
		return *pg.Spec.Priority
	}
	return p.Priority
}

// groupPriority is the priority a cycle of pg's members holds room
// against: the PodGroup's override, else the lowest member priority, as
// preemption ranks a preemptor. A nominee of at least this priority keeps
// its room; since preemption evicts only pods of lower priority than the
// group, no nominee is ever a victim.
func groupPriority(pg *PodGroup, members []placement.Pod) int32 {
	if pg != nil && pg.Spec.Priority != nil {
		return *pg.Spec.Priority
	}
	prio := members[0].Priority
	for i := range members[1:] {
		prio = min(prio, members[i+1].Priority)
	}
	return prio
}

// set nominates pod p (a pending member of group, with its priority) to
// node.
func (n *nominations) set(p placement.Pod, node string, group placement.Key, priority int32) {
	if n.byPod == nil {
		n.byPod = map[placement.Key]nominee{}
	}
	p.NodeName = node
	n.byPod[p.Key()] = nominee{pod: p, group: group, priority: priority}
}

// clear forgets pod k's nomination and reports whether it had one.
func (n *nominations) clear(k placement.Key) bool {
	if _, ok := n.byPod[k]; !ok {
		return false
	}
	delete(n.byPod, k)
	return true
}

// node returns pod k's nominated node, or "".
func (n *nominations) node(k placement.Key) string { return n.byPod[k].pod.NodeName }

// hold returns snap with the room nominated for pods of groups other than
// own, of priority at least prio, taken: those pods bound to their
// nominated nodes. own are the groups the cycle decides: a PodGroup's
// cycle passes its group, a tree's cycle every leaf of the tree, so that
// a tree, like a PodGroup, never holds room against itself. A nominee
// whose node snap lacks, or that snap already holds, is left out. It
// returns snap itself when nothing is held. Cost: O(n log n) in the
// nominations plus O(own) plus the Apply.
func (n *nominations) hold(snap *placement.Snapshot, own []*group, prio int32) *placement.Snapshot {
	if len(n.byPod) == 0 {
		return snap
	}
	mine := make(map[placement.Key]bool, len(own))
	for _, g := range own {
		mine[g.key] = true
	}
	var held []placement.Pod
	for _, k := range slices.SortedFunc(maps.Keys(n.byPod), placement.Key.Compare) {
		e := n.byPod[k]
		if mine[e.group] || e.priority < prio {
			continue
		}
		if _, ok := snap.NodeID(e.pod.NodeName); !ok {
			continue
		}
		if _, bound := snap.Pod(k); bound {
			continue
		}
		held = append(held, e.pod)
	}
	if len(held) == 0 {
		return snap
	}
	if out, err := snap.Apply(placement.Change{Bind: held}); err == nil {
		return out
	}
	// A nominee snap refuses (a resource no node has): hold the others.
	out := snap
	for _, p := range held {
		if next, err := out.Apply(placement.Change{Bind: []placement.Pod{p}}); err == nil {
			out = next
		}
	}
	return out
}

// update records what cycle r of group g did to its nominations and
// returns the changes in pod order: every nomination of g's members is
// cleared (a member bound — upstream clears the nominated node after
// binding — or no longer a preemptor: upstream clears it when a cycle ends
// without preemption), then a cycle that preempts nominates each pending
// member to the node its plan assigns it (preemption.Plan.Decision).
func (n *nominations) update(g *group, r *Result) []Nomination {
	var plan []placement.Decision
	if p := r.Preemption; p != nil && p.Outcome == preemption.Preempt && r.Err == nil {
		plan = []placement.Decision{p.Decision}
	}
	return n.renominate([]*group{g}, plan, func(m *placement.Pod) int32 { return memberPriority(g.pg, m) })
}

// updateTree is update for cycle r of a CompositePodGroup tree whose
// leaves are leaves: their members are nominated to the nodes the
// hierarchy's plan assigns them (preemption.HierarchyPlan.Decision, leaf
// by leaf). Each holds the room at prio, the root's priority that the
// tree preempted with, as upstream, where every pod of a hierarchy
// carries its root's priority (v1.37 validatePodGroup) and preemption
// ranks it at the root's (GetPodPriority). At a leaf's lower priority, a
// group between the two would ignore the nominee and take the room the
// tree's victims left.
func (n *nominations) updateTree(leaves []*group, r *Result, prio int32) []Nomination {
	var plan []placement.Decision
	if h := r.Hierarchy; h != nil && h.Preemption != nil && h.Preemption.Outcome == preemption.Preempt && r.Err == nil {
		plan = h.Preemption.Decision.Decisions
	}
	return n.renominate(leaves, plan, func(*placement.Pod) int32 { return prio })
}

// renominate clears every nomination of groups' members, then nominates
// each of their pending members that plan (decisions, each of one of
// groups) assigns to the node it assigns, holding at prio(member); it
// returns the changes in pod order.
func (n *nominations) renominate(groups []*group, plan []placement.Decision, prio func(*placement.Pod) int32) []Nomination {
	of := make(map[placement.Key]*group, len(groups))
	for _, g := range groups {
		of[g.key] = g
	}
	old := map[placement.Key]string{}
	for k, e := range n.byPod {
		if of[e.group] != nil {
			old[k] = e.pod.NodeName
			delete(n.byPod, k)
		}
	}
	for _, d := range plan {
		g := of[d.Group]
		if g == nil {
			continue
		}
		for _, a := range d.Assignments {
			if m, ok := g.members[a.Pod]; ok {
				n.set(*m, a.Node, g.key, prio(m))
			}
		}
	}
	var out []Nomination
	for k, node := range old {
		if n.node(k) != node {
			out = append(out, Nomination{Pod: k, Node: n.node(k)})
		}
	}
	for k, e := range n.byPod {
		if _, had := old[k]; !had && of[e.group] != nil {
			out = append(out, Nomination{Pod: k, Node: e.pod.NodeName})
		}
	}
	slices.SortFunc(out, func(a, b Nomination) int { return a.Pod.Compare(b.Pod) })
	return out
}

// Nominate records that pending pod k is nominated to node (its
// status.nominatedNodeName as the host read it, e.g. from a pod that a
// previous scheduler nominated): until the pod's next cycle, the room it
// needs on node is held against groups (and trees) of equal or lower
// priority than the pod's in preemption: for a member of a
// CompositePodGroup hierarchy its root's priority, otherwise its
// PodGroup's spec.priority when set, else its own. The pod's next cycle
// keeps the nomination only if it preempts again.
//
// Errors (a [*placement.FieldError]; nothing changes): an empty node; a
// pod that is not queued ([placement.ErrNotFound]).
func (s *Scheduler) Nominate(k placement.Key, node string) error {
	obj := fmt.Sprintf("pod %q", k.String())
	if node == "" {
		return placement.Errorf(placement.ErrInvalid, obj, "status.nominatedNodeName", "must not be empty")
	}
	gk, ok := s.q.podGroup[k]
	if !ok {
		return placement.Errorf(placement.ErrNotFound, obj, "status.nominatedNodeName", "the pod is not queued")
	}
	g := s.q.groups[gk]
	p := g.members[k]
	s.nominated.set(*p, node, gk, s.preemptionPriority(g.pg, p))
	return nil
}

// Nominated returns pod k's nominated node and whether it has one.
func (s *Scheduler) Nominated(k placement.Key) (string, bool) {
	node := s.nominated.node(k)
	return node, node != ""
}
