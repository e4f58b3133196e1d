package placement

import (
	"fmt"
	"slices"
	"strings"
)

// Repair asks [SolveRepair] to find replacement nodes for the pods of a
// pod set that ran on failed nodes — Kueue's node hot swap
// (TASFailedNodeReplacement) — without moving any other pod of the set.
type Repair struct {
	// PodSet names the set of the group whose pods are repaired; its
	// Template gives the replacements' requests and constraints.
	PodSet string
	// Existing are the set's pods per node before the failure, as a
	// Decision's or a [PodSetUsage]'s entries for the set (Node names
	// the node, NodeID is ignored, one entry per node).
	Existing []PodSetAssignment
	// Failed names the nodes that failed, were removed or were newly
	// tainted: their pods need new nodes, and none of them is one.
	Failed []string
	// Keep are the topology keys whose domain a replacement must share
	// with the node it replaces: the required level and every pod-set
	// slice level, e.g. [block, rack]. A replacement carries the failed
	// node's value of every key listed (a label the failed node lacks
	// must be lacking on it too); list the wider levels as well when a
	// narrower key's values repeat across them (rack r1 of two blocks).
	// Without keys, any node will do. Keep holds every lost pod to its
	// failed node's domain, a slice lost whole included (at the hostname
	// level, to the failed host itself, which no replacement can be);
	// Kueue holds only the slices left incomplete to their domains and
	// the rest to the required domain, as the topology package's
	// Tree.ReplacePodSet does (there Keep must be empty), and reads no
	// failed node's labels. SolveRepair needs the failed nodes in the
	// snapshot.
	Keep []string
}

// Repaired is what [SolveRepair] decided.
type Repaired struct {
	// Repairable is set when every lost pod found a replacement; when it
	// is not, the workload cannot be repaired in place and must be
	// evicted whole (Kueue evicts it), and Reason says why.
	Repairable bool
	// Reason names the domain that could not hold its lost pods and why
	// ("3 pods of failed node n4 need nodes in rack=r2: …"), or is empty.
	Reason string
	// Assignments are the set's pods per node after the repair, in node
	// order: Existing without the failed nodes, plus Replacements. Just
	// Existing when the set is not repairable.
	Assignments []PodSetAssignment
	// Replacements are the new pods per node, in node order.
	Replacements []PodSetAssignment
	// Decisions are the solver's decisions, one per domain of Keep that
	// lost pods, in domain order; each places a pod set named like the
	// set for the PodGroup "<group>/repair" (a name no real PodGroup can
	// have, so that the set's bound members do not join the decision).
	// The decisions stop at the first domain that cannot be repaired.
	Decisions []Decision
}

// SolveRepair finds replacement nodes for the pods of set r.PodSet that ran
// on r.Failed: for each domain of r.Keep that lost pods, the lost pods are
// placed all or nothing, with s, the set's template and opts as [Solve]
// places a pod set (opts.Generator is replaced by the domain's nodes less
// the failed ones). Domains of one set of keys are disjoint, so each is
// decided alone. The snapshot must hold the usage of the set's surviving
// pods (the failed nodes' usage does not matter). When some domain cannot
// hold its lost pods, the set is not repairable (see [Repaired]); a set
// that lost no pod is returned unchanged.
//
// Errors (a [*FieldError]): the set is not in g; Existing invalid or on
// unknown nodes; a failed node unknown or listed twice; a key of Keep
// empty or repeated; or Solve's error on a domain's pods.
//
// Cost: O(nodes × keys) to find the domains, plus a Solve per domain that
// lost pods.
func SolveRepair(s *Snapshot, g *Group, r Repair, opts Options) (Repaired, error) {
	set, err := podSetOf(s, g, "SolveRepair", "repair.podSet", r.PodSet)
	if err != nil {
		return Repaired{}, err
	}
	obj := fmt.Sprintf("pod set %q of %s", set.Name, groupObj(g))
	var existing []PodSetAssignment
	if len(r.Existing) > 0 {
		res, err := s.checkUsage(&PodSetUsage{Group: g.Key(), PodSet: set.Name, Requests: set.Template.Requests, Nodes: r.Existing}, "repair.existing")
		if err != nil {
			return Repaired{}, err
		}
		existing = res.u.Nodes
	}
	failed := make([]bool, len(s.b.nodes))
	for i, name := range r.Failed {
		id, ok := s.b.byName(name)
		switch {
		case !ok:
			return Repaired{}, Errorf(ErrNotFound, obj, fmt.Sprintf("repair.failed[%d]", i), "node %q is not in the snapshot", name)
		case failed[id]:
			return Repaired{}, Errorf(ErrDuplicate, obj, fmt.Sprintf("repair.failed[%d]", i), "node %q is listed twice", name)
		}
		failed[id] = true
	}
	for i, key := range r.Keep {
		if key == "" || slices.Contains(r.Keep[:i], key) {
			return Repaired{}, Errorf(ErrInvalid, obj, fmt.Sprintf("repair.keep[%d]", i), "%q is empty or repeated", key)
		}
	}
	// The lost pods per domain, and where they ran.
	type domain struct {
		path  string
		lost  int32
		from  []string // failed nodes, in node order
		nodes []NodeID
	}
	byPath := map[string]int{}
	var doms []domain
	var survivors []PodSetAssignment
	for _, a := range existing {
		if !failed[a.NodeID] {
			survivors = append(survivors, a)
			continue
		}
		path := domainPath(s.b.nodes[a.NodeID].Labels, r.Keep)
		j, ok := byPath[path]
		if !ok {
			j = len(doms)
			byPath[path] = j
			doms = append(doms, domain{path: path})
		}
		doms[j].lost += a.Count
		doms[j].from = append(doms[j].from, a.Node)
	}
	if len(doms) == 0 {
		return Repaired{Repairable: true, Assignments: existing}, nil
	}
	for id := range s.b.nodes {
		if failed[id] {
			continue
		}
		if j, ok := byPath[domainPath(s.b.nodes[id].Labels, r.Keep)]; ok {
			doms[j].nodes = append(doms[j].nodes, NodeID(id))
		}
	}
	slices.SortFunc(doms, func(a, b domain) int { return strings.Compare(a.path, b.path) })
	out := Repaired{Assignments: existing}
	var replaced []PodSetAssignment
	for _, d := range doms {
		ps := set
		ps.Count = d.lost
		rg := &Group{Namespace: g.Namespace, Name: g.Name + "/repair", Policy: PolicyGang, MinCount: d.lost, PodSets: []PodSet{ps}}
		o := opts
		p := Placement{Name: describeDomain(s, r.Keep, d.from[0]), Nodes: d.nodes}
		o.Generator = fixedPlacement{p}
		dec, err := Solve(s, rg, o)
		if err != nil {
			return Repaired{}, err
		}
		out.Decisions = append(out.Decisions, dec)
		if dec.Status != Scheduled {
			out.Reason = fmt.Sprintf("%d pods of failed node(s) %s need nodes in %s: %s; the workload must be evicted whole",
				d.lost, strings.Join(d.from, ", "), p.Name, dec.Message)
			return out, nil
		}
		replaced = append(replaced, dec.PodSetAssignments...)
	}
	slices.SortFunc(replaced, func(a, b PodSetAssignment) int { return int(a.NodeID) - int(b.NodeID) })
	out.Repairable, out.Replacements, out.Assignments = true, replaced, add(survivors, replaced, nil)
	return out, nil
}

// describeDomain names the domain of keys that node lies in, as
// "block=b1, rack=r2", or "any node" without keys.
func describeDomain(s *Snapshot, keys []string, node string) string {
	if len(keys) == 0 {
		return "any node"
	}
	id, _ := s.b.byName(node)
	labels := s.b.nodes[id].Labels
	parts := make([]string, len(keys))
	for i, k := range keys {
		if v, ok := labels[k]; ok {
			parts[i] = k + "=" + v
		} else {
			parts[i] = "no " + k
		}
	}
	return strings.Join(parts, ", ")
}

// fixedPlacement generates one placement.
type fixedPlacement struct{ p Placement }

func (f fixedPlacement) Generate(*Snapshot, GroupView) ([]Placement, error) {
	return []Placement{f.p}, nil
}

// podSetOf is the pod set of g named name, for the resize and the repair
// calls (fn, and field for the name's field in the error): an error when
// s or g is nil or g has no such set.
func podSetOf(s *Snapshot, g *Group, fn, field, name string) (PodSet, error) {
	if s == nil || g == nil {
		return PodSet{}, Errorf(ErrInvalid, fn, "arguments", "snapshot and group must not be nil")
	}
	k := slices.IndexFunc(g.PodSets, func(ps PodSet) bool { return ps.Name == name })
	if k < 0 {
		return PodSet{}, Errorf(ErrNotFound, groupObj(g), field, "the group has no pod set %q", name)
	}
	return g.PodSets[k], nil
}
