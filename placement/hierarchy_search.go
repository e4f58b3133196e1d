package placement

import (
	"fmt"
	"slices"
	"strings"
)

// domains splits allowed by n's key: one (value, nodes) per domain, by
// value; the pinned domain only when bound members pin one.
func (h *hsolver) domains(n *hnode, s *Snapshot, allowed []NodeID) ([]string, [][]NodeID) {
	if n.ld == nil {
		return []string{""}, [][]NodeID{allowed}
	}
	sp := h.split(n.ld, allowed)
	if n.pins == nil {
		return sp.vals, sp.sets
	}
	if i, ok := slices.BinarySearch(sp.vals, n.pins[0]); ok {
		return sp.vals[i : i+1], sp.sets[i : i+1]
	}
	return nil, nil
}

// domainSplit is allowed split by one key: the values ascending and the
// nodes of each.
type domainSplit struct {
	vals []string
	sets [][]NodeID
}

// splitKey identifies a split: siblings share their parent's node set,
// so each is computed once per search. A key is named by its index (one
// per key and snapshot base), which hashes as a word.
type splitKey struct {
	ld    *labelDomains
	first *NodeID
	n     int
}

// split returns allowed split by ld's key, cached (read-only to
// callers): by the key's index, O(allowed), and whole domains of the
// index shared rather than copied.
func (h *hsolver) split(ld *labelDomains, allowed []NodeID) domainSplit {
	var sk splitKey
	if len(allowed) > 0 {
		sk = splitKey{ld, &allowed[0], len(allowed)}
		if sp, ok := h.hs.splits[sk]; ok {
			return sp
		}
	}
	var sp domainSplit
	if len(allowed) == len(ld.of) { // every node
		sp.vals, sp.sets = carve(&h.hs.strs, len(ld.values))[:0], carve(&h.hs.sets, len(ld.values))[:0]
		for v, val := range ld.values {
			if val != "" || !h.noEmpty {
				sp.vals = append(sp.vals, val)
				sp.sets = append(sp.sets, ld.nodes[v])
			}
		}
	} else if hs, ok := h.splitHosts(ld, allowed); ok {
		sp = hs
	} else {
		// The values of allowed, in runs as node IDs follow names: the
		// last one is checked first.
		// While the values ascend (nodes named by domain, as a host key
		// always does) a value above the greatest so far is new, with no
		// search, and the values need no sort.
		ids, count := h.hs.splitVals[:0], h.hs.splitCount[:0]
		last, ascending := -1, true
		for i := 0; i < len(allowed); i++ {
			id := allowed[i]
			v := ld.of[id]
			if v < 0 || (h.noEmpty && ld.values[v] == "") {
				continue
			}
			switch {
			case last >= 0 && ids[last] == v:
			case ascending && (len(ids) == 0 || v > ids[len(ids)-1]):
				ids, count, last = append(ids, v), append(count, 0), len(ids)
			default:
				if last = slices.Index(ids, v); last < 0 {
					ids, count, last, ascending = append(ids, v), append(count, 0), len(ids), false
				}
			}
			// A whole domain lying next in allowed (a block's rack) is
			// counted at once.
			if count[last] == 0 {
				if k := wholeRun(allowed[i:], ld.nodes[v]); k > 1 {
					count[last], i = k, i+k-1
					continue
				}
			}
			count[last]++
		}
		order := grow(h.hs.order, len(ids))
		for i := range order {
			order[i] = i
		}
		// The index numbers values in ascending order.
		if !ascending {
			slices.SortFunc(order, func(a, b int) int { return int(ids[a] - ids[b]) })
		}
		sp.vals, sp.sets = carve(&h.hs.strs, len(ids)), carve(&h.hs.sets, len(ids))
		sorted := grow(h.hs.splitSorted, len(ids))
		h.hs.splitVals, h.hs.splitCount, h.hs.order, h.hs.splitSorted = ids, count, order, sorted
		partial := false
		for i, k := range order {
			v := ids[k]
			sorted[i] = v
			sp.vals[i] = ld.values[v]
			if count[k] == len(ld.nodes[v]) {
				sp.sets[i] = ld.nodes[v] // the whole domain lies in allowed
			} else {
				partial = true
				sp.sets[i] = make([]NodeID, 0, count[k])
			}
		}
		for _, id := range allowed {
			if !partial {
				break
			}
			v := ld.of[id]
			if v < 0 || (h.noEmpty && ld.values[v] == "") {
				continue
			}
			// A whole domain shared from the index is full (len = cap).
			if i, _ := slices.BinarySearch(sorted, v); len(sp.sets[i]) < cap(sp.sets[i]) {
				sp.sets[i] = append(sp.sets[i], id)
			}
		}
	}
	if len(allowed) > 0 {
		h.hs.splits[sk] = sp
	}
	return sp
}

// splitHosts is split for a key whose every domain is one node (a host
// key), when allowed's values ascend as its IDs do (as host names
// usually follow IDs): each node of allowed in a domain is one, the
// index's, with no count or sort. ok is false otherwise, and split
// takes its general path.
func (h *hsolver) splitHosts(ld *labelDomains, allowed []NodeID) (sp domainSplit, ok bool) {
	if len(ld.values) != ld.labelled {
		return sp, false
	}
	vals, sets := carve(&h.hs.strs, len(allowed))[:0], carve(&h.hs.sets, len(allowed))[:0]
	prev := int32(-1)
	for _, id := range allowed {
		v := ld.of[id]
		if v < 0 || (h.noEmpty && ld.values[v] == "") {
			continue
		}
		if v <= prev {
			return sp, false // the arena's entries stay carved, unread
		}
		prev = v
		vals, sets = append(vals, ld.values[v]), append(sets, ld.nodes[v])
	}
	return domainSplit{vals: vals, sets: sets}, true
}

// wholeRun returns len(dn) when a starts with the nodes dn, whose IDs
// are consecutive, and 0 otherwise (or for a domain of one node). It
// reads a's first len(dn) IDs and dn's ends only: IDs strictly
// ascending from dn's first to its last can only be dn's.
func wholeRun(a, dn []NodeID) int {
	k := len(dn)
	if k < 2 || k > len(a) || a[0] != dn[0] || a[k-1] != dn[k-1] || dn[k-1]-dn[0] != NodeID(k-1) {
		return 0
	}
	for j := 1; j < k; j++ {
		if a[j] <= a[j-1] {
			return 0
		}
	}
	return k
}

func (h *hsolver) tick() bool {
	h.steps++
	if h.steps > h.budget {
		h.exhausted = true
		return false
	}
	return true
}

// place tries every placement of n's subtree on s within allowed, calling
// k with the snapshot each leaves; it stops at the first k that accepts.
// Domains before from (a value of n's key) are not tried: see
// hierarchy_twins.go. Domains skip.lo ≤ i < skip.hi (indexes of n's
// domains) are known short of n's least need, as mayHold would find
// them: see hierarchy_skip.go. place records in n.held the domains it
// found short.
func (h *hsolver) place(n *hnode, s *Snapshot, allowed []NodeID, from string, skip heldRange, k func(*Snapshot) (bool, error)) (bool, error) {
	vals, sets := h.domains(n, s, allowed)
	first := 0
	if from != "" {
		first, _ = slices.BinarySearch(vals, from)
	}
	n.held = heldRange{first, first}
	for i := first; i < len(vals); i++ {
		if i >= skip.lo && i < skip.hi {
			h.skipped += skip.hi - i
			if n.held.hi == i {
				n.held.hi = skip.hi
			}
			i = skip.hi - 1
			continue
		}
		if n.done == 0 && !h.mayHold(n, s, sets[i]) {
			if n.held.hi == i {
				n.held.hi = i + 1
			}
			continue // the domain's free capacity is short of the subtree's least need
		}
		if !h.tick() {
			return false, nil
		}
		n.domain = vals[i]
		var ok bool
		var err error
		if n.done != 0 {
			if n.done > 0 {
				ok, err = k(s)
			}
		} else if n.src.Group != nil {
			ok, err = h.placeLeaf(n, s, vals[i], sets[i], true, k)
			if !ok && err == nil && !h.exhausted {
				// Split only when the whole domain failed: ok means the
				// rest of the tree placed too, and the search ends.
				for _, part := range h.refine(n, sets[i]) {
					if ok || err != nil || h.exhausted || !h.tick() {
						break
					}
					ok, err = h.placeLeaf(n, s, vals[i], part, false, k)
				}
			}
			if !ok && err == nil && !h.exhausted && n.done == 0 && n.boundMeets {
				// Scheduled before: its extra members need not fit.
				n.extrasLeft = true
				if ok, err = k(s); !ok {
					n.extrasLeft = false
				}
			}
		} else {
			ok, err = h.placeChildren(n, 0, 0, s, sets[i], k)
		}
		if ok || err != nil || h.exhausted {
			return ok, err
		}
	}
	return false, nil
}

// refine splits a leaf's domain by the other keys of the tree, so that a
// leaf can leave a domain of another key to a sibling that needs it: the
// parts, key by key (ascending), then by value, each once (a part equal to
// the domain or to an earlier part is not tried again).
func (h *hsolver) refine(n *hnode, nodes []NodeID) [][]NodeID {
	var out [][]NodeID
	if len(nodes) < 2 {
		return nil // a part of one node is the domain itself
	}
	for _, key := range h.treeKeys {
		if key == n.src.TopologyKey {
			continue
		}
		for _, part := range h.split(h.s.b.labelDomains(key), nodes).sets {
			if !slices.Equal(part, nodes) && !slices.ContainsFunc(out, func(o []NodeID) bool { return slices.Equal(o, part) }) {
				out = append(out, part)
			}
		}
	}
	return out
}

func (h *hsolver) placeChildren(n *hnode, i, sat int, s *Snapshot, allowed []NodeID, k func(*Snapshot) (bool, error)) (bool, error) {
	if i == len(n.children) {
		if sat < n.need {
			return false, nil
		}
		return k(s)
	}
	if sat+len(n.children)-i < n.need || h.exhausted {
		return false, nil
	}
	c := n.children[i]
	from := ""
	if i > 0 && c.entered && !c.twinKnown {
		c.twin, c.twinKnown = twins(n.children[i-1], c), true
	}
	c.entered = true
	// The previous sibling's record of short domains holds for c when it
	// was made in this frame (place(prev) ran on this s or one it led to,
	// with more usage) and c needs at least what prev does.
	var skip heldRange
	if i > 0 && !h.noSkip {
		if prev := n.children[i-1]; prev.heldOK && needsNoLess(c, prev) {
			skip = prev.held
		}
	}
	c.heldOK = false
	if c.twin {
		prev := n.children[i-1]
		if !prev.placed {
			// Skipped twin: placing this one instead would be the same
			// placement, tried already.
			return h.placeChildren(n, i+1, sat, s, allowed, k)
		}
		from = prev.domain
	}
	c.heldOK = c.done == 0
	ok, err := h.place(c, s, allowed, from, skip, func(s2 *Snapshot) (bool, error) {
		c.placed = true
		ok, err := h.placeChildren(n, i+1, sat+1, s2, allowed, k)
		if !ok {
			c.placed = false
		}
		return ok, err
	})
	if ok || err != nil || h.exhausted {
		return ok, err
	}
	c.placed = false
	return h.placeChildren(n, i+1, sat, s, allowed, k)
}

// variants are the leaf's group as given, then cut to its minimum;
// computed on first use, then kept in n.
func (n *hnode) variants() []*Group {
	if n.vars != nil {
		return n.vars
	}
	g := n.src.Group
	n.whole[0] = g
	out := n.whole[:]
	if g.NumPending() > n.need && len(g.SubGroups) == 0 {
		t := *g
		t.Members = slices.Clone(g.Members)
		slices.SortFunc(t.Members, func(a, b Pod) int { return a.Key().Compare(b.Key()) })
		t.PodSets = slices.Clone(g.PodSets)
		slices.SortFunc(t.PodSets, func(a, b PodSet) int { return strings.Compare(a.Name, b.Name) })
		// The first need pods by name, a set's pods under its name (the
		// members of the group's namespace, which validation requires):
		// so a set "w" of pods listed as "w-0", "w-1", … is cut as they
		// would be (TestHierarchy_PropPodSetsDecideAsListed).
		left, m, k := n.need, 0, 0
		var sets []PodSet
		for left > 0 && (m < len(t.Members) || k < len(t.PodSets)) {
			if k == len(t.PodSets) || (m < len(t.Members) && t.Members[m].Name < t.PodSets[k].Name) {
				m++
				left--
				continue
			}
			ps := t.PodSets[k]
			ps.Count = int32(min(int(ps.Count), left))
			left -= int(ps.Count)
			sets = append(sets, ps)
			k++
		}
		t.Members = t.Members[:m]
		t.PodSets = sets
		if t.NumPending() > 0 {
			out = append(out, &t)
		}
	}
	n.vars = out
	return out
}

// solveLeaf solves g, leaf n's group or a variant of it, on nodes (domain
// dom); n's group gets the rows leafRows compiled.
//
// fast says fastLeaf decided it; its Message is then empty while
// h.deferMsg holds (see placedMessages).
func (h *hsolver) solveLeaf(n *hnode, g *Group, s *Snapshot, dom string, nodes []NodeID) (d Decision, fast bool, err error) {
	opts := h.opts
	h.gen.pl[0] = Placement{Name: dom, Nodes: nodes}
	opts.Generator = &h.gen
	opts.Budget = max(h.budget-h.steps, 1)
	d, fast = h.fastLeaf(n, g, s, dom, nodes, opts.Budget)
	if !fast {
		if h.ov != nil && h.ov.pods {
			v := h.ov.view() // the caller's hooks get a snapshot of their own
			defer h.ov.adopt(v)
			s = v
		}
		if d, err = solveRows(s, g, opts, h.solveInput(n, g)); err != nil {
			return d, false, err
		}
	} else {
		h.fastLeaves++
	}
	h.steps += d.Steps
	if h.steps > h.budget {
		h.exhausted = true
	}
	return d, fast, nil
}

// solveInput is what solveLeaf hands the Solve of g, leaf n's group or a
// variant of it: n's compiled rows, or the hooks' memory alone.
func (h *hsolver) solveInput(n *hnode, g *Group) *compiledRows {
	var pre *compiledRows
	switch {
	case g == n.src.Group && n.compiled:
		n.pre = compiledRows{rows: n.rows, uniform: n.uniform, alike: n.alike, ascending: n.sorted, answer: &h.answer} // in n: no allocation a solve
		if !hasHooks(h.opts) {
			n.pre.own = &h.hs.own
		}
		pre = &n.pre
	case len(g.Members) == 0 && !hasHooks(h.opts):
		// Pod sets alone (the leaf or its cut): no member row to hand
		// over, Solve compiles each template once; only the hooks'
		// memory is lent.
		n.pre = compiledRows{own: &h.hs.own}
		pre = &n.pre
	}
	return pre
}

// placeLeaf tries leaf n's variants on nodes (domain dom); held says
// mayHold passed on nodes already.
func (h *hsolver) placeLeaf(n *hnode, s *Snapshot, dom string, nodes []NodeID, held bool, k func(*Snapshot) (bool, error)) (bool, error) {
	if !held && !h.mayHold(n, s, nodes) {
		return false, nil // not even the sum of its smallest minimum fits: no solve needed
	}
	for vi, g := range n.variants() {
		if h.exhausted {
			return false, nil
		}
		if vi == 1 && n.dec.Status == Scheduled && placedPods(n.dec) <= n.need {
			continue // the full variant placed no more than the minimum
		}
		d, fast, err := h.solveLeaf(n, g, s, dom, nodes)
		if err != nil {
			return false, err
		}
		n.dec, n.msgDue = d, fast && h.deferMsg
		if d.Status != Scheduled {
			if !d.Proven {
				h.proven = false
			}
			continue
		}
		if !g.IsGang() && d.Bound+len(d.Assignments)+len(d.PodSetAssignments) == 0 {
			continue
		}
		s2 := s
		var ch Change
		if h.ov == nil || h.ov.pods {
			if ch, err = h.change(n, g, d); err != nil {
				return false, err
			}
		}
		if h.ov != nil {
			if err := h.ov.push(n, d, ch.Bind); err != nil {
				return false, err
			}
		} else if s2, err = s.Apply(ch); err != nil {
			return false, err
		}
		h.stack = append(h.stack, n)
		ok, err := k(s2)
		if ok || err != nil {
			return ok, err
		}
		h.stack = h.stack[:len(h.stack)-1]
		if h.ov != nil {
			h.ov.pop()
		}
	}
	return false, nil
}

// change binds the pods of a Scheduled decision of leaf n's group g (n's
// own or a variant, whose members are n's): members as given, pod-set
// pods under names of the form "<set>.h<n>".
func (h *hsolver) change(n *hnode, g *Group, d Decision) (Change, error) {
	ch := Change{Bind: make([]Pod, 0, len(d.Assignments))}
	for _, a := range d.Assignments {
		i, ok := n.member(a.Pod)
		if !ok {
			return Change{}, Errorf(ErrNotFound, groupObj(g), "members", "decision places unknown pod %s", a.Pod)
		}
		q := n.src.Group.Members[i]
		q.NodeName = a.Node
		ch.Bind = append(ch.Bind, q)
	}
	sets := map[string]*PodSet{}
	for i := range g.PodSets {
		sets[g.PodSets[i].Name] = &g.PodSets[i]
	}
	for _, a := range d.PodSetAssignments {
		ps := sets[a.PodSet]
		for range a.Count {
			q := ps.Template
			h.seq++
			q.Namespace, q.Name, q.UID = g.Namespace, fmt.Sprintf("%s.h%d", ps.Name, h.seq), ""
			q.SchedulingGroup, q.NodeName = g.Name, a.Node
			ch.Bind = append(ch.Bind, q)
		}
	}
	return ch, nil
}
