package placement

import (
	"fmt"

	"github.com/gangsched/gangsched/internal/buffers"
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
	// is not solved; it is satisfied only so. Its pending pods may be
	// listed (Members), given as pod sets (PodSets: a template and a
	// count, answered in pods per node), or both: a set "w" decides as
	// its pods listed "w-0", "w-1", … would, also where the search cuts
	// the leaf to its minimum (its first pods by name, a set's under its
	// name).
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
	// Message explains the root's status in one line, without repeating
	// Status (as [Decision].Message), then where the search failed.
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
	// BudgetExhausted. A child a Scheduled decision leaves out is
	// Unschedulable ("does not fit beside its placed siblings") when it
	// would fit alone in its parent's domain or the budget left it
	// unjudged, else Unschedulable or Unresolvable with its own reason;
	// in the former case each node below it is Unschedulable too, its
	// message naming the child left out.
	Status Status
	// Domain is the value of TopologyKey the subtree was placed in, or ""
	// when it has no key or was not placed. Under v1.36 and v1.37 a node
	// labelled with the empty value is in domain "": TopologyKey tells
	// that domain from none.
	Domain string
	// TopologyKey is the node's HierarchyNode.TopologyKey.
	TopologyKey string
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
	// Decision is a leaf's decision: the placed one (in a Scheduled
	// HierarchyDecision, the leaf's entry of its Decisions), or the one it
	// gets alone when not placed.
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
	boundIn                int // the bound members of the subtree's leaves
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
	// ld and childLD are the label indexes of TopologyKey and childKey
	// (nil for ""), looked up once per solve: a lookup locks the index
	// and hashes the key.
	ld, childLD *labelDomains
	// rows are a leaf's members' usage rows (see leafRows), R apiece, in
	// member order — or, when uniform (every pending pod's row is the
	// same), the one row; sorted when the members' names ascend.
	rows            []int64
	uniform, sorted bool
	// setRows are a leaf's pod sets' template rows (as rows, R apiece), in
	// Group.PodSets order: each template read once.
	setRows []int64
	alike   bool // see compiledRows.alike
	// plain: every member names the group, no node, no affinity, claims
	// or score requests, and the first's priority and queue time (==, as
	// validate compares), as leafRows read them: fastLeaf's member checks
	// but the bound one.
	plain bool
	byKey map[Key]int // member index by key, when not sorted; built on first use
	// compiled: every member's row is what Solve compiles from its map
	// (compiledRows), so that the leaf's Solve reads rows, not maps.
	compiled bool
	pre      compiledRows // what solveLeaf hands Solve when compiled
	// twin: the previous child of the parent (by name) is an identical
	// subtree, so the two are tried in one order only (hierarchy_twins.go).
	// It is found when the search enters the node a second time, and
	// known from then on: a search that never backtracks to it does not
	// pay for comparing the two.
	twin, twinKnown, entered bool
	vars                     []*Group  // see variants
	whole                    [1]*Group // vars' array when the leaf is not cut
	// held is the range of domains the last place of the node found short
	// (by mayHold, or known to be by its previous sibling's: see
	// hierarchy_skip.go), from the first it tried; heldOK, set by
	// placeChildren, says that place ran in the parent's frame, so that
	// the next sibling may read it.
	held   heldRange
	heldOK bool
	// search state
	placed bool
	domain string
	dec    Decision
	out    int // a placed leaf's index in HierarchyDecision.Decisions
	// msgDue: dec is fastLeaf's, its Message left for placedMessages to
	// write. msg is the node's message in a Scheduled decision, from
	// placedMessages ("" when placedResult writes its own).
	msgDue bool
	msg    string
}

func hierObj(n *HierarchyNode) string { return fmt.Sprintf("hierarchy node %q", n.Name) }

// SolveHierarchy decides a tree of groups (KEP-6012 CompositePodGroup) on
// s: every leaf group with [Solve], each on the usage that the leaves
// placed before it leave, confined to the domains its ancestors' topology
// keys chose. (The usage is an overlay on a private copy of s, undone on
// backtrack. When opts carries hooks of the caller's — Filters,
// Reservers, Scorer, PlacementFilters, NodeScorer — which may read pods,
// compare snapshots or key caches to one, the overlay indexes the placed
// leaves' pods too and each leaf's Solve gets a frozen snapshot of its
// own, equal in content to what committing each leaf with
// [Snapshot.Apply] gives: the hooks see the same calls either way, and
// the decision is the same.) Unlike
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
// domains of a key (or on a node without it), a member listed by two
// leaves or a pod set named as another leaf's member of its namespace
// ([ErrDuplicate]; pod sets of one name in two leaves are two groups'
// sets), a
// pod set's count outside 1..[MaxPending] (also in a leaf whose sets
// stand for no pod, which Solve is never called on), opts.Generator set;
// and any error of Solve.
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
	// Buffers, when set, is memory the decision's slices are carved from
	// instead of allocated (see [HierarchyBuffers]); the decision is then
	// valid only until the next call with the same Buffers.
	Buffers *HierarchyBuffers
}

// HierarchyBuffers is memory a caller keeps between [SolveHierarchyWith]
// calls ([HierarchyOptions].Buffers) so that a decision's slices — its
// Decisions, their Assignments and Placement.Nodes, the placed tree's
// NodeResult children — reuse it rather than being allocated each call.
// A host that decides a tree every cycle then allocates little beyond
// the messages, and the garbage collector has nothing of the answer to
// scan: without Buffers, collecting a 2-level tree's 512-member answer is
// about a fifth of the decision's CPU on 10,000 hosts (BENCHMARKS.md,
// hierarchies). The slices of a decision made with Buffers — placed or
// not: a failed tree's leaf results are carved from them too — are
// overwritten by the next call with the same Buffers, whatever it
// decides: copy what you keep. The zero value is ready to use; one
// HierarchyBuffers serves one call at a time.
type HierarchyBuffers struct {
	answer    []Assignment
	decisions []Decision
	nodes     []NodeID
	results   []NodeResult
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
	return solveHierarchy(s, root, opts, hopts, hpath{})
}

// hasHooks reports whether opts carries a hook of the caller's: one may
// read the pods of the snapshot it is given, or key a cache to it, so the
// overlay then indexes pods too and hands out frozen views.
func hasHooks(opts Options) bool {
	return len(opts.Filters) > 0 || len(opts.Reservers) > 0 || opts.Scorer != nil ||
		len(opts.PlacementFilters) > 0 || opts.NodeScorer != nil
}

// hpath chooses how solveHierarchy places leaves; the zero value is
// SolveHierarchy's, the others are references the tests compare it with.
type hpath struct {
	// applied places each leaf with Snapshot.Apply rather than on a
	// usage overlay.
	applied bool
	// general solves every leaf with Solve, never with fastLeaf.
	general bool
	// fastLeaves, when set, counts the leaves fastLeaf decided.
	fastLeaves *int
	// noSkip tries every domain of a sibling its previous sibling found
	// short (hierarchy_skip.go); skipped, when set, counts those not tried.
	noSkip  bool
	skipped *int
}

// solveHierarchy is SolveHierarchyWith, placing leaves as path says; every
// path gives one decision.
func solveHierarchy(s *Snapshot, root *HierarchyNode, opts Options, hopts HierarchyOptions, path hpath) (HierarchyDecision, error) {
	hs := hscratchPool.Get().(*hscratch)
	defer hs.release()
	h := &hs.solver
	*h = hsolver{s: s, opts: opts, budget: opts.Budget, noEmpty: hopts.EmptyValueIsNoDomain, hs: hs}
	h.treeKeys = h.keyBuf[:0]
	h.fast = !path.general && fastLeafOK(opts)
	if path.fastLeaves != nil {
		defer func() { *path.fastLeaves = h.fastLeaves }()
	}
	h.noSkip = path.noSkip
	if path.skipped != nil {
		defer func() { *path.skipped = h.skipped }()
	}
	if h.budget <= 0 {
		h.budget = DefaultBudget
	}
	h.path = h.pathBuf[:0]
	hr, err := h.build(root, 1, hs.names)
	if err != nil {
		return HierarchyDecision{}, err
	}
	h.prepare(hr)
	if err := h.uniquePods(hr); err != nil {
		return HierarchyDecision{}, err
	}
	members, leaves := 0, 0
	hr.walkLeaves(func(l *hnode) { members, leaves = members+len(l.src.Group.Members), leaves+1 })
	if h.fast {
		h.unbound = h.noneBound(hr)
	}
	var kept struct {
		answer    *[]Assignment
		decisions *[]Decision
		nodes     *[]NodeID
		results   *[]NodeResult
	}
	if b := hopts.Buffers; b != nil {
		kept.answer, kept.decisions, kept.nodes, kept.results = &b.answer, &b.decisions, &b.nodes, &b.results
	}
	h.answer = buffers.Take(kept.answer, members)
	h.stack = carve(&hs.kids, leaves)[:0] // a leaf is on it at most once
	if !path.applied {
		hs.ov.reset(s, hasHooks(opts))
		h.ov = &hs.ov
		s = h.ov.s
	}
	all := s.b.allNodes
	h.proven = true
	h.deferMsg = true
	found, err := h.place(hr, s, all, "", heldRange{}, func(*Snapshot) (bool, error) { return true, nil })
	h.deferMsg = false
	if err != nil {
		return HierarchyDecision{}, err
	}
	d := HierarchyDecision{}
	if found {
		d.Status = Scheduled
		if len(h.stack) > 0 {
			d.Decisions = buffers.Take(kept.decisions, len(h.stack))[:len(h.stack)]
		}
		// The placed leaves' nodes are the answer's own, in one array: a
		// domain's may be the label index's, shared by every snapshot.
		total := 0
		for _, l := range h.stack {
			total += len(l.dec.Placement.Nodes)
		}
		nodes := buffers.Take(kept.nodes, total)
		for i, l := range h.stack {
			d.Decisions[i], l.out = l.dec, i
			if l.dec.Placement.Nodes != nil {
				k := len(nodes)
				nodes = append(nodes, l.dec.Placement.Nodes...)
				d.Decisions[i].Placement.Nodes = nodes[k:len(nodes):len(nodes)]
			}
		}
		d.Message = h.placedMessages(hr, d.Decisions)
		n := placedResults(hr)
		h.results = buffers.Take(kept.results, n)[:n]
		d.Root = h.placedResult(hr, d.Decisions)
		if hasUnplaced(hr) {
			if h.ov != nil {
				for len(h.ov.frames) > 0 { // judged alone: the tree's leaves off
					h.ov.pop()
				}
			}
			if err := h.judgeUnplaced(hr, &d.Root, s, all); err != nil {
				return HierarchyDecision{}, err
			}
		}
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
		d.Message = d.Root.Message
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
	stack     []*hnode                  // placed leaves, in order
	treeKeys  []string                  // the tree's topology keys, ascending
	keyBuf    [MaxHierarchyDepth]string // treeKeys' first array
	path      []*HierarchyNode          // build's: the nodes from the root to the one built
	pathBuf   [MaxHierarchyDepth]*HierarchyNode
	seq       int       // names of bound pod-set pods (when pods are bound)
	noEmpty   bool      // HierarchyOptions.EmptyValueIsNoDomain
	hs        *hscratch // the pooled memory the search works in
	gen       leafGen   // the Generator each leaf's Solve is given
	// answer is the arena the leaves' Solves carve their member
	// assignments from (compiledRows.answer): room for every listed
	// member of the tree once, allocated per solve.
	answer []Assignment
	// fast: leaves of the usual shape are decided by fastLeaf, not
	// Solve (the options allow it); fastLeaves counts them.
	fast       bool
	fastLeaves int
	// results is the array placedResult carves the placed tree's
	// children results from, one per decision (placedResults).
	results []NodeResult
	// deferMsg: the search for a placement is running, whose leaves'
	// messages fastLeaf leaves to placedMessages (hnode.msgDue); a
	// diagnosis reads them, so it gets them written.
	deferMsg bool
	// unbound: no leaf's member is bound in the snapshot, shown for the
	// whole tree at once (noneBound).
	unbound bool
	// noSkip: siblings try the domains their previous sibling found
	// short (hpath.noSkip); skipped counts the domains not tried.
	noSkip  bool
	skipped int
	// ov is the usage (and, with hooks, the pods) the placed leaves add,
	// on a private snapshot; nil when the search applies each leaf.
	ov *usageOverlay
}

// hasKey reports whether some node is in a domain of ld's key.
func (h *hsolver) hasKey(ld *labelDomains) bool {
	return len(ld.values) > 1 || (len(ld.values) == 1 && (ld.values[0] != "" || !h.noEmpty))
}

// label is node id's value of key, and whether that puts it in a domain.
func (h *hsolver) label(id NodeID, key string) (string, bool) {
	ld := h.s.b.labelDomains(key)
	if v := ld.of[id]; v >= 0 && (!h.noEmpty || ld.values[v] != "") {
		return ld.values[v], true
	}
	return "", false
}

// leafGen is the Generator a leaf's Solve is given: the one placement
// solveLeaf sets (the leaf's domain, or a part of it), with no allocation
// a solve. Solve keeps a copy of the winner, never the slice.
type leafGen struct{ pl [1]Placement }

// Generate returns the placement solveLeaf set.
func (g *leafGen) Generate(*Snapshot, GroupView) ([]Placement, error) { return g.pl[:], nil }
