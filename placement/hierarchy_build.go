package placement

import (
	"fmt"
	"slices"
	"strings"
)

// build checks the subtree of n (depth, cycles, names, keys, groups) and
// compiles it into hnodes for the search. names holds each node built so
// far by its name; h.path the nodes from the root to n's parent.
func (h *hsolver) build(n *HierarchyNode, depth int, names map[string]*HierarchyNode) (*hnode, error) {
	// A node met before is in names under its own name: every node met
	// is entered there before its children, or its build failed, which
	// ends the whole build. So one lookup by name finds a node met again
	// (a cycle when it is on the path, else reached twice) and a name
	// taken by another node.
	met := names[n.Name]
	if met == n {
		if slices.Contains(h.path, n) {
			return nil, Errorf(ErrInvalid, hierObj(n), "children", "cycle: the node is its own descendant")
		}
		return nil, Errorf(ErrDuplicate, hierObj(n), "children", "the node is reached twice")
	}
	if depth > MaxHierarchyDepth {
		return nil, Errorf(ErrInvalid, hierObj(n), "depth", "%d exceeds %d levels", depth, MaxHierarchyDepth)
	}
	if n.Name == "" {
		return nil, Errorf(ErrInvalid, hierObj(n), "name", "must not be empty")
	}
	if met != nil {
		return nil, Errorf(ErrDuplicate, hierObj(n), "name", "two nodes are named %q", n.Name)
	}
	names[n.Name] = n
	h.path = append(h.path, n)
	defer func() { h.path = h.path[:len(h.path)-1] }()
	if n.TopologyKey != "" && !slices.Contains(h.treeKeys, n.TopologyKey) {
		h.treeKeys = append(h.treeKeys, n.TopologyKey)
		slices.Sort(h.treeKeys)
	}
	var ld *labelDomains
	if n.TopologyKey != "" {
		if ld = h.s.b.labelDomains(n.TopologyKey); !h.hasKey(ld) {
			return nil, Errorf(ErrNotFound, hierObj(n), "topologyKey", "unknown key %q: no node has that label", n.TopologyKey)
		}
	}
	hn := &carve(&h.hs.nodes, 1)[0]
	hn.src, hn.ld = n, ld
	switch {
	case n.Group != nil && len(n.Children) > 0:
		return nil, Errorf(ErrInvalid, hierObj(n), "children", "a leaf (with a group) has no children")
	case n.Group == nil && len(n.Children) == 0:
		return nil, Errorf(ErrInvalid, hierObj(n), "children", "an inner node needs children, a leaf a group")
	case n.Group != nil:
		g := n.Group
		if h.hs.groups[g.Key()] {
			return nil, Errorf(ErrDuplicate, hierObj(n), "group", "PodGroup %q is a leaf twice", g.Key().String())
		}
		h.hs.groups[g.Key()] = true
		bound := len(h.s.GroupMembers(g.Key()))
		hn.bound, hn.boundIn = bound, bound
		hn.need = 1 // as Solve's Decision.Required: at least one new pod
		if g.IsGang() {
			hn.need = max(int(g.MinCount)-bound, 1)
		}
		hn.boundMeets = bound > 0 && (!g.IsGang() || bound >= int(g.MinCount))
		// Solve checks a set's count, but a leaf whose sets stand for no
		// pod is never solved: without this it would wait, unexplained.
		for i := range g.PodSets {
			if ps := &g.PodSets[i]; ps.Count < 1 || ps.Count > MaxPending {
				return nil, Errorf(ErrInvalid, fmt.Sprintf("pod set %q of %s", ps.Name, groupObj(g)), "count", "%d is outside 1..%d", ps.Count, MaxPending)
			}
		}
		if g.NumPending() == 0 {
			// A leaf already placed in an earlier cycle: its bound members
			// satisfy it, or nothing will until members arrive.
			hn.done, hn.need = -1, 0
			if bound > 0 && (!g.IsGang() || bound >= int(g.MinCount)) {
				hn.done = 1
			}
		}
	default:
		hn.children = carve(&h.hs.kids, len(n.Children))[:0]
		for i, c := range n.Children {
			if c == nil {
				return nil, Errorf(ErrInvalid, hierObj(n), fmt.Sprintf("children[%d]", i), "nil node")
			}
			cn, err := h.build(c, depth+1, names)
			if err != nil {
				return nil, err
			}
			hn.children = append(hn.children, cn)
			hn.boundIn += cn.boundIn
		}
		slices.SortFunc(hn.children, func(a, b *hnode) int { return strings.Compare(a.src.Name, b.src.Name) })
		switch n.Policy {
		case PolicyGang, "":
			if n.MinGroupCount < 1 || int(n.MinGroupCount) > len(n.Children) {
				return nil, Errorf(ErrInvalid, hierObj(n), "minGroupCount", "%d is outside 1..%d (its children)", n.MinGroupCount, len(n.Children))
			}
			hn.need = int(n.MinGroupCount)
		case PolicyBasic:
			hn.need = 1
		default:
			return nil, Errorf(ErrInvalid, hierObj(n), "policy", "unknown policy %q", n.Policy)
		}
	}
	if n.TopologyKey != "" && hn.boundIn > 0 { // else no bound member pins a domain
		doms := map[string]bool{}
		var err error
		hn.walkLeaves(func(l *hnode) {
			if l.bound == 0 {
				return // no bound member to pin a domain (build counted them)
			}
			for _, p := range h.s.GroupMembers(l.src.Group.Key()) {
				id, ok := h.s.NodeOf(p)
				if !ok {
					continue
				}
				v, has := h.label(id, n.TopologyKey)
				if !has && err == nil {
					err = Errorf(ErrInvalid, hierObj(n), "topologyKey", "bound member %s is on node %q, which lacks %q", p.Key(), h.s.Node(id).Name, n.TopologyKey)
				}
				doms[v] = true
			}
		})
		if err != nil {
			return nil, err
		}
		if len(doms) > 1 {
			return nil, Errorf(ErrInvalid, hierObj(n), "topologyKey", "bound members already span %d domains of %q", len(doms), n.TopologyKey)
		}
		for v := range doms {
			hn.pins = []string{v}
		}
	}
	return hn, nil
}

// uniquePods rejects a pod key listed by two leaves: once one leaf is
// placed, the other's pod would be bound already; and a leaf's pod set
// named as another leaf's member of its namespace (setNamedAsMember).
// When every leaf's member names ascend, leaves whose key ranges do not
// overlap need no more: O(leaves log leaves); otherwise each key is
// looked up.
func (h *hsolver) uniquePods(root *hnode) error {
	spans := h.hs.spans[:0]
	defer func() { clear(spans); h.hs.spans = spans[:0] }()
	sorted, sets := true, false
	root.walkLeaves(func(l *hnode) {
		if ms := l.src.Group.Members; len(ms) > 0 {
			sorted = sorted && l.sorted && l.rows != nil
			spans = append(spans, keySpan{ms[0].Key(), ms[len(ms)-1].Key()})
		}
		sets = sets || len(l.src.Group.PodSets) > 0
	})
	if sets && len(spans) > 0 {
		if err := setNamedAsMember(root); err != nil {
			return err
		}
	}
	slices.SortFunc(spans, func(a, b keySpan) int { return a.lo.Compare(b.lo) })
	for i := 1; sorted && i < len(spans); i++ {
		sorted = spans[i-1].hi.Compare(spans[i].lo) < 0
	}
	if sorted {
		return nil
	}
	var err error
	seen := map[Key]string{}
	root.walkLeaves(func(l *hnode) {
		g := l.src.Group
		for i := range g.Members {
			k := g.Members[i].Key()
			if other, dup := seen[k]; dup && other != l.src.Name && err == nil {
				err = Errorf(ErrDuplicate, hierObj(l.src), "group.members", "pod %s is a member of leaf %q too", k, other)
			}
			seen[k] = l.src.Name
		}
	})
	return err
}

// setNamedAsMember rejects a leaf's pod set named as a member of another
// leaf in its namespace: the set's pods take its name, as Solve, which
// refuses the two within one group ("is also the name of a member"),
// and Decision.PodSetAssignments read it. Of several, the error names
// the set of the least leaf name, then set name, whatever the order of
// the children. Only trees with both members and sets pay for it:
// O(members + sets).
func setNamedAsMember(root *hnode) error {
	owner := map[Key]*hnode{}
	root.walkLeaves(func(l *hnode) {
		for i := range l.src.Group.Members {
			owner[l.src.Group.Members[i].Key()] = l
		}
	})
	var at *hnode // the leaf of the set reported, and its index
	set := 0
	root.walkLeaves(func(l *hnode) {
		g := l.src.Group
		for i := range g.PodSets {
			if m, clash := owner[Key{g.Namespace, g.PodSets[i].Name}]; !clash || m == l {
				continue
			}
			if at == nil || l.src.Name < at.src.Name || l == at && g.PodSets[i].Name < g.PodSets[set].Name {
				at, set = l, i
			}
		}
	})
	if at == nil {
		return nil
	}
	g := at.src.Group
	k := Key{g.Namespace, g.PodSets[set].Name}
	m := owner[k]
	return Errorf(ErrDuplicate, hierObj(at.src), fmt.Sprintf("group.podSets[%d].name", set),
		"pod set %q of %s has the name of pod %s, a member of leaf %q (%s)", k.Name, groupObj(g), k, m.src.Name, groupObj(m.src.Group))
}

// keySpan is the first and last key of a leaf's members (uniquePods').
type keySpan struct{ lo, hi Key }

func (n *hnode) walkLeaves(f func(*hnode)) {
	if n.src.Group != nil {
		f(n)
	}
	for _, c := range n.children {
		c.walkLeaves(f)
	}
}
