package placement

import "sync"

// hscratch is the memory a SolveHierarchy works in and drops when it
// returns: the usage overlay's page table, sums, logs and the usage pages
// it copied, the split cache, the buffers a split and a push sort in, and
// the maps build checks the tree with. Kept in a pool between solves, it
// spares the collector about half of what a decision allocated besides
// its answer. Nothing in it reaches a HierarchyDecision: the splits'
// node sets, which leaf decisions point to, are allocated per solve and
// only the map that indexes them is reused; a usage page is reused only
// when the overlay owned it alone at the end (a view handed to the
// caller's hooks shares none of those, see usageOverlay.view); and every
// field is reset or overwritten before it is read, so nothing carries from
// one solve to the next (TestSolveHierarchy_SameAfterOtherSolves).
type hscratch struct {
	ov                usageOverlay
	splits            map[splitKey]domainSplit
	splitVals         []int32 // split's values of allowed, in order found
	splitCount, order []int
	splitSorted       []int32
	names             map[string]*HierarchyNode // build's: the nodes by name
	groups            map[Key]bool              // build's: the leaves' groups
	spans             []keySpan                 // uniquePods'; emptied after use
	// Arenas the search carves its short slices from (see carve): the
	// nodes' least needs, the splits' values and node sets. None of these
	// slices reaches the answer (a leaf decision points to a node set, never
	// to the slice of them).
	ints []int64
	strs []string
	sets [][]NodeID
	// The tree's compiled nodes and their children lists (build's): no
	// HierarchyDecision points to them.
	nodes []hnode
	kids  []*hnode
	// fast is fastLeaf's candidate nodes, scored the resources its score
	// reads and scoreSums their sums (no pointers: kept as they are).
	fast      []fastCand
	fastBuf   []fastCand // sortCands' second buffer
	scored    []int
	scoreSums []int64
	// msgs is the buffer placedMessages writes a decision's messages in
	// before copying them into one string (no pointers: kept as is);
	// msgSpans where each lies.
	msgs     []byte
	msgSpans []msgSpan
	// solver is the search's own state, overwritten by each solve.
	solver hsolver
	// own is what each leaf's Solve would allocate for hooks, when the
	// caller has none (see compiledRows.own).
	own hookOwned
}

// carve returns n zeroed entries of *arena, growing it (into a new array;
// slices carved before keep the old one) when it is short. They are zero
// without clearing: an arena is only ever emptied by reuse, which zeroes
// every entry carved, so entries past its length are as make left them.
func carve[T any](arena *[]T, n int) []T {
	a := *arena
	if cap(a)-len(a) < n {
		a = make([]T, 0, max(2*cap(a), n, 64))
	}
	k := len(a)
	a = a[:k+n]
	*arena = a
	return a[k : k+n : k+n]
}

// reuse empties an arena, dropping what its entries point to. Entries
// past its length were never carved since it was made or last emptied:
// they are zero already.
func reuse[T any](arena *[]T) {
	clear(*arena)
	*arena = (*arena)[:0]
}

var hscratchPool = sync.Pool{New: func() any {
	return &hscratch{
		splits: map[splitKey]domainSplit{},
		names:  map[string]*HierarchyNode{}, groups: map[Key]bool{},
	}
}}

// release returns hs to the pool, keeping the pages the overlay owned
// alone and dropping every reference into the solve's input and answer.
func (hs *hscratch) release() {
	hs.ov.recycle()
	clear(hs.splits)
	clear(hs.names)
	clear(hs.groups)
	reuse(&hs.ints)
	reuse(&hs.strs)
	reuse(&hs.sets)
	reuse(&hs.nodes)
	reuse(&hs.kids)
	reuse(&hs.msgSpans)
	hs.own = hookOwned{}
	hs.solver = hsolver{}
	hscratchPool.Put(hs)
}
