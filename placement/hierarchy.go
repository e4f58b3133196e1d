package placement

import (
	"fmt"
	"slices"
	"strings"
)

// MaxHierarchyDepth is the deepest tree [SolveHierarchy] accepts, leaves
// included: KEP-6012 allows CompositePodGroup hierarchies of up to four
// levels.
const MaxHierarchyDepth = 4

// HierarchyNode is one node of a tree of groups, as KEP-6012
// (CompositePodGroup) defines it: an inner node (a CompositePodGroup) has
// Children and no Group; a leaf (a PodGroup naming its parent) has a Group
// and no Children.
//
// An inner node is satisfied when at least MinGroupCount of its children
// are (a gang), or at least one (basic; it then takes as many more as fit).
// A leaf is satisfied when [Solve] schedules its Group. With a TopologyKey,
// the node's whole subtree — every placed pod and every bound member of
// its leaves — lies in one domain of that key (one value of that node
// label, inside the domains its ancestors chose).
type HierarchyNode struct {
	// Name identifies the node in results and errors and orders siblings
	// (ascending); it must be unique in the tree.
	Name string
	// Policy of an inner node: [PolicyGang] (or empty) or [PolicyBasic]
	// (KEP-6012 schedulingPolicy). A leaf's policy is its Group's.
	Policy Policy
	// MinGroupCount is gang.minGroupCount of an inner gang node: how many
	// children must be satisfied together, 1..len(Children).
	MinGroupCount int32
	// TopologyKey, if set, is a node label every node used by the subtree
	// must carry with one common value. It must be a label of some node of
	// the snapshot.
	TopologyKey string
	// Children are the inner node's children; order does not matter.
	Children []*HierarchyNode
	// Group is the leaf's PodGroup, solved with [Solve]. A leaf whose
	// bound members (in the snapshot) meet its minimum was scheduled in an
	// earlier cycle: it is satisfied whether or not its pending members
	// fit, and pins its ancestors' domains. A leaf with no pending members
	// is not solved; it is satisfied only so.
	Group *Group
}

// HierarchyDecision is the answer of [SolveHierarchy] for a KEP-6012
// CompositePodGroup tree. The root is all-or-nothing: Decisions is empty
// unless Status is Scheduled.
type HierarchyDecision struct {
	// Status is the root's: Scheduled, Unschedulable (freeing resources
	// may help), Unresolvable (no child combination can reach the
	// minimum even judged child by child on an empty cluster) or
	// BudgetExhausted.
	Status Status
	// Root is the per-level account of the tree.
	Root NodeResult
	// Decisions are the Scheduled decisions of the placed leaves, in the
	// order they were solved (depth first, siblings by name); each was
	// solved on the snapshot left by the ones before it, so committing
	// them in order commits the hierarchy.
	Decisions []Decision
	// FailedAt names the node where the search failed: the deepest node
	// whose subtree cannot be placed even alone (every child of it can),
	// or a leaf that cannot be placed at all. Empty when Scheduled.
	FailedAt string
	// Message explains the root's status in one line.
	Message string
	// Steps is the work spent, in [Options].Budget's units plus one per
	// alternative tried.
	Steps int64
	// Proven is set when the answer needs no larger budget: the search
	// over children, domains and the two variants of each leaf (all the
	// members that fit, or exactly its minimum) finished, and every leaf
	// decision it rests on was Proven. It does not cover assignments of a
	// leaf other than the ones tried: [Solve]'s in the leaf's domain and
	// in each domain of the tree's other keys inside it (so a leaf that
	// must split its pods between two racks in given counts, to leave room
	// to siblings, may be missed).
	Proven bool
}

// NodeResult is one node's outcome in a [HierarchyDecision], following
// KEP-6012's PlacementFeasible model: the children of an inner node are
// counted as scheduled, remaining (not judged: the budget ran out),
// unschedulable or unresolvable, against Min.
type NodeResult struct {
	// Name is the node's name.
	Name string
	// Status is Scheduled for a node placed in the decision; otherwise how
	// the node fares on its own: Scheduled (it could be placed alone but
	// not beside its siblings), Unschedulable, Unresolvable or
	// BudgetExhausted.
	Status Status
	// Domain is the value of TopologyKey the subtree was placed in, or ""
	// when it has no key or was not placed.
	Domain string
	// Min is MinGroupCount for an inner gang, 1 for an inner basic node,
	// and the leaf group's minimum (its MinCount, 1 for basic) for a leaf.
	Min int
	// Scheduled, Remaining, Unschedulable and Unresolvable count the
	// children of an inner node (zero for a leaf). In a Scheduled
	// decision, Scheduled counts the placed children and Unschedulable the
	// others; otherwise each child is judged alone.
	Scheduled, Remaining, Unschedulable, Unresolvable int
	// Message explains Status.
	Message string
	// Children are the children's results, by name.
	Children []NodeResult
	// Decision is a leaf's decision: the placed one, or the one it gets
	// alone when not placed.
	Decision *Decision
}

// hnode is a validated HierarchyNode.
type hnode struct {
	src      *HierarchyNode
	children []*hnode
	need     int
	pins     []string // domains of TopologyKey holding bound members of the subtree (0 or 1)
	// done marks a leaf with no pending members: its bound members
	// satisfy it (done > 0) or cannot (done < 0); it is never solved.
	done int
	// boundMeets: the leaf's bound members meet its minimum, so it is
	// satisfied even when none of its pending members fits (extrasLeft).
	boundMeets, extrasLeft bool
	bound                  int // the leaf's bound members
	// least is what the subtree needs at the least, per resource of the
	// snapshot (see hierarchy_prune.go); never is set when it needs a
	// resource no node has.
	least []int64
	never bool
	// childLeast is, per resource, the smallest least of an inner node's
	// children that can be satisfied; childKey their common topology key
	// ("" when they differ or have none). See slots.
	childLeast []int64
	childKey   string
	// rows are a leaf's members' usage rows (see leafRows), R apiece, in
	// member order; uniform when every pending pod's row is the same,
	// sorted when the members' names ascend.
	rows            []int64
	uniform, sorted bool
	byKey           map[Key]int // member index by key, when not sorted; built on first use
	// twin: the previous child of the parent (by name) is an identical
	// subtree, so the two are tried in one order only (hierarchy_twins.go).
	// It is found when the search enters the node a second time, and
	// known from then on: a search that never backtracks to it does not
	// pay for comparing the two.
	twin, twinKnown, entered bool
	// search state
	placed bool
	domain string
	dec    Decision
}

func hierObj(n *HierarchyNode) string { return fmt.Sprintf("hierarchy node %q", n.Name) }

// SolveHierarchy decides a tree of groups (KEP-6012 CompositePodGroup) on
// s: every leaf group with [Solve], each on the usage that the leaves
// placed before it leave, confined to the domains its ancestors' topology
// keys chose. (The usage is an overlay on a private copy of s, undone on
// backtrack; when opts carries hooks of the caller's — Filters,
// Reservers, Scorer, PlacementFilters, NodeScorer — which may read pods
// or key caches to a snapshot, each leaf is committed with
// [Snapshot.Apply] instead. Both give the same decision.) Unlike
// upstream's greedy pass (children in order, no backtracking), it
// backtracks across siblings, domains and,
// for each leaf, two variants — as many members as fit, then exactly its
// minimum — so that a greedy first child cannot starve a sibling
// (KEP-6012's "resource stealing"). Children are tried in name order,
// domains in value order, and a child is tried placed before skipped, so
// the first placement found, which is returned, places as many children
// as that order allows. A leaf is tried in each domain of its key, then
// confined to each domain of the tree's other keys inside it, so that it
// can leave a rack to a sibling that needs it. Within opts.Budget this
// finds a placement whenever one exists in which every leaf's pods lie
// where one of those tries puts them — every placement when each leaf is
// confined to single-node domains (TestHierarchy_PropCompleteAgainstOracle).
//
// opts is passed to every leaf's Solve except Generator, which the
// hierarchy supplies (one placement per domain); Budget bounds the whole
// search. It is pure: no goroutines, clocks or randomness; the same input
// gives the same decision.
//
// Cost: a Solve per leaf tried, plus O(nodes of the leaf's domain) to add
// or take off its usage; the domains of each topology key are indexed
// once per snapshot base (shared by every snapshot Apply derives); a
// domain whose free capacity is short of a subtree's least need is
// skipped without a solve, and identical sibling subtrees are tried in
// one order only.
//
// Errors (a [*FieldError] naming the node and field): a nil root or s, a
// node with both or neither of Children and Group, a cycle or a node
// reached twice, depth beyond [MaxHierarchyDepth], an empty or duplicate
// name, an unknown policy, MinGroupCount outside 1..len(Children) for a
// gang, a TopologyKey no node carries, bound members already in two
// domains of a key (or on a node without it), a pod listed by two leaves,
// opts.Generator set; and any error of Solve.
func SolveHierarchy(s *Snapshot, root *HierarchyNode, opts Options) (HierarchyDecision, error) {
	return SolveHierarchyWith(s, root, opts, HierarchyOptions{})
}

// HierarchyOptions adjust how [SolveHierarchyWith] reads the topology.
type HierarchyOptions struct {
	// EmptyValueIsNoDomain puts a node whose topology label value is ""
	// in no domain of that key, as a node without the label (Kubernetes
	// v1.38); otherwise "" is a domain like any other value (v1.36,
	// v1.37).
	EmptyValueIsNoDomain bool
}

// SolveHierarchyWith is [SolveHierarchy] with hopts.
func SolveHierarchyWith(s *Snapshot, root *HierarchyNode, opts Options, hopts HierarchyOptions) (HierarchyDecision, error) {
	if s == nil {
		return HierarchyDecision{}, Errorf(ErrInvalid, "SolveHierarchy", "s", "nil snapshot")
	}
	if root == nil {
		return HierarchyDecision{}, Errorf(ErrInvalid, "SolveHierarchy", "root", "nil node")
	}
	if opts.Generator != nil {
		return HierarchyDecision{}, Errorf(ErrInvalid, hierObj(root), "Options.Generator",
			"must be nil: the hierarchy generates the placements of its leaves")
	}
	return solveHierarchy(s, root, opts, hopts, hasHooks(opts))
}

// hasHooks reports whether opts carries a hook of the caller's: one may
// read the pods of the snapshot it is given, or key a cache to it, so the
// search then applies each leaf rather than overlay its usage.
func hasHooks(opts Options) bool {
	return len(opts.Filters) > 0 || len(opts.Reservers) > 0 || opts.Scorer != nil ||
		len(opts.PlacementFilters) > 0 || opts.NodeScorer != nil
}

// solveHierarchy is SolveHierarchyWith, placing leaves with Snapshot.Apply
// when applied, on a usage overlay otherwise; both give one decision.
func solveHierarchy(s *Snapshot, root *HierarchyNode, opts Options, hopts HierarchyOptions, applied bool) (HierarchyDecision, error) {
	h := &hsolver{s: s, opts: opts, budget: opts.Budget, noEmpty: hopts.EmptyValueIsNoDomain}
	if h.budget <= 0 {
		h.budget = DefaultBudget
	}
	hr, err := h.build(root, 1, map[*HierarchyNode]bool{}, map[*HierarchyNode]bool{}, map[string]bool{})
	if err != nil {
		return HierarchyDecision{}, err
	}
	h.prepare(hr)
	if err := h.uniquePods(hr); err != nil {
		return HierarchyDecision{}, err
	}
	if !applied {
		h.ov = newUsageOverlay(s)
		s = h.ov.s
	}
	all := s.b.allNodes
	h.proven = true
	found, err := h.place(hr, s, all, "", func(*Snapshot) (bool, error) { return true, nil })
	if err != nil {
		return HierarchyDecision{}, err
	}
	d := HierarchyDecision{}
	if found {
		d.Status = Scheduled
		d.Root = h.placedResult(hr)
		for _, l := range h.stack {
			d.Decisions = append(d.Decisions, ownNodes(l.dec))
		}
		d.Message = fmt.Sprintf("%d of min %d children of %q scheduled", d.Root.Scheduled, d.Root.Min, hr.src.Name)
		d.Proven = true
	} else {
		searchProven := h.proven && !h.exhausted
		res, _, err := h.diagnose(hr, s, all)
		if err != nil {
			return HierarchyDecision{}, err
		}
		d.Root = res
		d.Status = res.Status
		if d.Status == Scheduled { // each child fits alone; the tree does not
			d.Status = Unschedulable
		}
		if h.exhausted || (!searchProven && d.Status != Unresolvable) {
			d.Status = BudgetExhausted
		}
		d.Proven = searchProven || d.Status == Unresolvable
		d.FailedAt = failedAt(&d.Root)
		d.Message = fmt.Sprintf("%s: %s", d.Status, d.Root.Message)
		if d.FailedAt != "" && d.FailedAt != hr.src.Name {
			d.Message += fmt.Sprintf("; fails at %q", d.FailedAt)
		}
	}
	d.Steps = h.steps
	return d, nil
}

type hsolver struct {
	s         *Snapshot
	opts      Options
	budget    int64
	steps     int64
	exhausted bool
	proven    bool
	stack     []*hnode // placed leaves, in order
	treeKeys  []string // the tree's topology keys, ascending
	seq       int      // names of bound pod-set pods (applied mode)
	noEmpty   bool     // HierarchyOptions.EmptyValueIsNoDomain
	splits    map[splitKey]domainSplit
	// ov is the usage the placed leaves add, on a private snapshot; nil
	// when the search applies each leaf (the caller's hooks may read pods).
	ov *usageOverlay
}

// hasKey reports whether some node is in a domain of key.
func (h *hsolver) hasKey(key string) bool {
	ld := h.s.b.labelDomains(key)
	return len(ld.values) > 1 || (len(ld.values) == 1 && (ld.values[0] != "" || !h.noEmpty))
}

// label is node id's value of key, and whether that puts it in a domain.
func (h *hsolver) label(id NodeID, key string) (string, bool) {
	ld := h.s.b.labelDomains(key)
	if v := ld.of[id]; v >= 0 && (ld.values[v] != "" || !h.noEmpty) {
		return ld.values[v], true
	}
	return "", false
}

func (h *hsolver) build(n *HierarchyNode, depth int, path, seen map[*HierarchyNode]bool, names map[string]bool) (*hnode, error) {
	if path[n] {
		return nil, Errorf(ErrInvalid, hierObj(n), "children", "cycle: the node is its own descendant")
	}
	if seen[n] {
		return nil, Errorf(ErrDuplicate, hierObj(n), "children", "the node is reached twice")
	}
	if depth > MaxHierarchyDepth {
		return nil, Errorf(ErrInvalid, hierObj(n), "depth", "%d exceeds %d levels", depth, MaxHierarchyDepth)
	}
	if n.Name == "" {
		return nil, Errorf(ErrInvalid, hierObj(n), "name", "must not be empty")
	}
	if names[n.Name] {
		return nil, Errorf(ErrDuplicate, hierObj(n), "name", "two nodes are named %q", n.Name)
	}
	names[n.Name] = true
	seen[n], path[n] = true, true
	defer delete(path, n)
	if n.TopologyKey != "" && !slices.Contains(h.treeKeys, n.TopologyKey) {
		h.treeKeys = append(h.treeKeys, n.TopologyKey)
		slices.Sort(h.treeKeys)
	}
	if n.TopologyKey != "" && !h.hasKey(n.TopologyKey) {
		return nil, Errorf(ErrNotFound, hierObj(n), "topologyKey", "unknown key %q: no node has that label", n.TopologyKey)
	}
	hn := &hnode{src: n}
	switch {
	case n.Group != nil && len(n.Children) > 0:
		return nil, Errorf(ErrInvalid, hierObj(n), "children", "a leaf (with a group) has no children")
	case n.Group == nil && len(n.Children) == 0:
		return nil, Errorf(ErrInvalid, hierObj(n), "children", "an inner node needs children, a leaf a group")
	case n.Group != nil:
		g := n.Group
		gk := "\x00" + g.Key().String() // not a node name
		if names[gk] {
			return nil, Errorf(ErrDuplicate, hierObj(n), "group", "PodGroup %q is a leaf twice", g.Key().String())
		}
		names[gk] = true
		bound := len(h.s.GroupMembers(g.Key()))
		hn.bound = bound
		hn.need = 1 // as Solve's Decision.Required: at least one new pod
		if g.IsGang() {
			hn.need = max(int(g.MinCount)-bound, 1)
		}
		hn.boundMeets = bound > 0 && (!g.IsGang() || bound >= int(g.MinCount))
		if g.NumPending() == 0 {
			// A leaf already placed in an earlier cycle: its bound members
			// satisfy it, or nothing will until members arrive.
			hn.done, hn.need = -1, 0
			if bound > 0 && (!g.IsGang() || bound >= int(g.MinCount)) {
				hn.done = 1
			}
		}
	default:
		for i, c := range n.Children {
			if c == nil {
				return nil, Errorf(ErrInvalid, hierObj(n), fmt.Sprintf("children[%d]", i), "nil node")
			}
			cn, err := h.build(c, depth+1, path, seen, names)
			if err != nil {
				return nil, err
			}
			hn.children = append(hn.children, cn)
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
	if n.TopologyKey != "" {
		doms := map[string]bool{}
		var err error
		hn.walkLeaves(func(l *hnode) {
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
// placed, the other's pod would be bound already. When every leaf's
// member names ascend, leaves whose key ranges do not overlap need no
// more: O(leaves log leaves); otherwise each key is looked up.
func (h *hsolver) uniquePods(root *hnode) error {
	type span struct{ lo, hi Key }
	var spans []span
	sorted := true
	root.walkLeaves(func(l *hnode) {
		if ms := l.src.Group.Members; len(ms) > 0 {
			sorted = sorted && l.sorted && l.rows != nil
			spans = append(spans, span{ms[0].Key(), ms[len(ms)-1].Key()})
		}
	})
	slices.SortFunc(spans, func(a, b span) int { return a.lo.Compare(b.lo) })
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

func (n *hnode) walkLeaves(f func(*hnode)) {
	if n.src.Group != nil {
		f(n)
	}
	for _, c := range n.children {
		c.walkLeaves(f)
	}
}

// domains splits allowed by n's key: one (value, nodes) per domain, by
// value; the pinned domain only when bound members pin one.
func (h *hsolver) domains(n *hnode, s *Snapshot, allowed []NodeID) ([]string, [][]NodeID) {
	key := n.src.TopologyKey
	if key == "" {
		return []string{""}, [][]NodeID{allowed}
	}
	sp := h.split(key, allowed)
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
// so each is computed once per search.
type splitKey struct {
	key   string
	first *NodeID
	n     int
}

// split returns allowed split by key, cached (read-only to callers): by
// the key's index, O(allowed), and whole domains of the index shared
// rather than copied.
func (h *hsolver) split(key string, allowed []NodeID) domainSplit {
	var sk splitKey
	if len(allowed) > 0 {
		sk = splitKey{key, &allowed[0], len(allowed)}
		if sp, ok := h.splits[sk]; ok {
			return sp
		}
	}
	ld := h.s.b.labelDomains(key)
	var sp domainSplit
	if len(allowed) == len(ld.of) { // every node
		for v, val := range ld.values {
			if val != "" || !h.noEmpty {
				sp.vals = append(sp.vals, val)
				sp.sets = append(sp.sets, ld.nodes[v])
			}
		}
	} else {
		// The values of allowed, in runs as node IDs follow names: the
		// last one is checked first.
		var ids []int32
		var count []int
		last := -1
		for _, id := range allowed {
			v := ld.of[id]
			if v < 0 || (ld.values[v] == "" && h.noEmpty) {
				continue
			}
			if last < 0 || ids[last] != v {
				if last = slices.Index(ids, v); last < 0 {
					ids, count, last = append(ids, v), append(count, 0), len(ids)
				}
			}
			count[last]++
		}
		order := make([]int, len(ids))
		for i := range order {
			order[i] = i
		}
		// The index numbers values in ascending order.
		slices.SortFunc(order, func(a, b int) int { return int(ids[a] - ids[b]) })
		sp.vals, sp.sets = make([]string, len(ids)), make([][]NodeID, len(ids))
		sorted := make([]int32, len(ids))
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
			if v < 0 || (ld.values[v] == "" && h.noEmpty) {
				continue
			}
			// A whole domain shared from the index is full (len = cap).
			if i, _ := slices.BinarySearch(sorted, v); len(sp.sets[i]) < cap(sp.sets[i]) {
				sp.sets[i] = append(sp.sets[i], id)
			}
		}
	}
	if len(allowed) > 0 {
		if h.splits == nil {
			h.splits = map[splitKey]domainSplit{}
		}
		h.splits[sk] = sp
	}
	return sp
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
// hierarchy_twins.go.
func (h *hsolver) place(n *hnode, s *Snapshot, allowed []NodeID, from string, k func(*Snapshot) (bool, error)) (bool, error) {
	vals, sets := h.domains(n, s, allowed)
	first := 0
	if from != "" {
		first, _ = slices.BinarySearch(vals, from)
	}
	for i := first; i < len(vals); i++ {
		if n.done == 0 && !h.mayHold(n, s, sets[i]) {
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
			ok, err = h.placeLeaf(n, s, vals[i], sets[i], k)
			for _, part := range h.refine(n, sets[i]) {
				if ok || err != nil || h.exhausted || !h.tick() {
					break
				}
				ok, err = h.placeLeaf(n, s, vals[i], part, k)
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
		for _, part := range h.split(key, nodes).sets {
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
	if c.twin {
		prev := n.children[i-1]
		if !prev.placed {
			// Skipped twin: placing this one instead would be the same
			// placement, tried already.
			return h.placeChildren(n, i+1, sat, s, allowed, k)
		}
		from = prev.domain
	}
	ok, err := h.place(c, s, allowed, from, func(s2 *Snapshot) (bool, error) {
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

// variants are the leaf's group as given, then cut to its minimum.
func (n *hnode) variants() []*Group {
	g := n.src.Group
	out := []*Group{g}
	if g.NumPending() > n.need && len(g.SubGroups) == 0 {
		t := *g
		t.Members = slices.Clone(g.Members)
		slices.SortFunc(t.Members, func(a, b Pod) int { return a.Key().Compare(b.Key()) })
		t.PodSets = slices.Clone(g.PodSets)
		slices.SortFunc(t.PodSets, func(a, b PodSet) int { return strings.Compare(a.Name, b.Name) })
		left := n.need
		if len(t.Members) > left {
			t.Members = t.Members[:left]
		}
		left -= len(t.Members)
		var sets []PodSet
		for _, ps := range t.PodSets {
			if left == 0 {
				break
			}
			ps.Count = int32(min(int(ps.Count), left))
			left -= int(ps.Count)
			sets = append(sets, ps)
		}
		t.PodSets = sets
		if t.NumPending() > 0 {
			out = append(out, &t)
		}
	}
	return out
}

func (h *hsolver) solveLeaf(g *Group, s *Snapshot, dom string, nodes []NodeID) (Decision, error) {
	opts := h.opts
	pl := Placement{Name: dom, Nodes: nodes}
	opts.Generator = PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) { return []Placement{pl}, nil })
	opts.Budget = max(h.budget-h.steps, 1)
	d, err := Solve(s, g, opts)
	h.steps += d.Steps
	if h.steps > h.budget {
		h.exhausted = true
	}
	return d, err
}

func (h *hsolver) placeLeaf(n *hnode, s *Snapshot, dom string, nodes []NodeID, k func(*Snapshot) (bool, error)) (bool, error) {
	if !h.mayHold(n, s, nodes) {
		return false, nil // not even the sum of its smallest minimum fits: no solve needed
	}
	for vi, g := range n.variants() {
		if h.exhausted {
			return false, nil
		}
		if vi == 1 && n.dec.Status == Scheduled && placedPods(n.dec) <= n.need {
			continue // the full variant placed no more than the minimum
		}
		d, err := h.solveLeaf(g, s, dom, nodes)
		if err != nil {
			return false, err
		}
		n.dec = d
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
		if h.ov != nil {
			if err := h.ov.push(n, d); err != nil {
				return false, err
			}
		} else {
			ch, err := h.change(g, d)
			if err != nil {
				return false, err
			}
			if s2, err = s.Apply(ch); err != nil {
				return false, err
			}
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

// change binds a Scheduled decision's pods: members as given, pod-set
// pods under names of the form "<set>.h<n>".
func (h *hsolver) change(g *Group, d Decision) (Change, error) {
	var ch Change
	byKey := map[Key]*Pod{}
	for i := range g.Members {
		byKey[g.Members[i].Key()] = &g.Members[i]
	}
	for _, a := range d.Assignments {
		p, ok := byKey[a.Pod]
		if !ok {
			return Change{}, Errorf(ErrNotFound, groupObj(g), "members", "decision places unknown pod %s", a.Pod)
		}
		q := *p
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
