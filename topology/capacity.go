package topology

import (
	"math"
	"math/bits"

	"github.com/gangsched/gangsched/placement"
)

// sum128 is a signed 128-bit running sum. Domain sums are kept exact so
// that adding and later subtracting a node's change gives back the same
// value even where an int64 sum would saturate (a node without a pods limit
// has math.MaxInt64 of it).
type sum128 struct{ hi, lo uint64 }

func (a *sum128) add(v int64) {
	var c uint64
	a.lo, c = bits.Add64(a.lo, uint64(v), 0)
	a.hi, _ = bits.Add64(a.hi, uint64(v>>63), c)
}

// get returns the sum clamped to 0..math.MaxInt64, which equals a
// saturating int64 sum of the same non-negative terms in any order.
func (a sum128) get() int64 {
	switch {
	case int64(a.hi) < 0:
		return 0
	case a.hi > 0 || a.lo > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(a.lo)
}

// capacity holds, for one snapshot, each node's free and requested
// quantities and each domain's aggregates, per resource of the snapshot.
type capacity struct {
	snap     *placement.Snapshot
	res      []placement.ResourceName
	resIdx   map[placement.ResourceName]int
	podsR    int
	nodeFree []int64       // node*R+r: allocatable - requested, may be negative
	nodeUsed []int64       // node*R+r: requested (pods: count)
	negFree  int           // entries of nodeFree below zero: nodes in deficit (PlanOptions.KueueNegativeCounts)
	sumFree  []sum128      // dom*R+r: Σ max(free, 0) over the domain's nodes
	freeSum  []int64       // sumFree[i].get(), kept beside it: the generator's per-domain tests read one word
	sumUsed  []sum128      // dom*R+r: Σ requested
	sumAlloc []sum128      // dom*R+r: Σ allocatable (never changes)
	maxFree  []int64       // dom*R+r: largest free on one node
	dirty    []bool        // scratch for moving: per domain
	classes  *freeClasses  // nil until a plan or slots counts by class (freeClassesOf)
	shareIx  []*shareIndex // per level, nil until GenerateHolding asks (shares)
	scratch  []int64       // scratch for scoring
}

func newCapacity(t *Tree, s *placement.Snapshot) *capacity {
	res := s.Resources()
	R, N, D := len(res), s.NumNodes(), len(t.doms)
	c := &capacity{snap: s, res: res, resIdx: map[placement.ResourceName]int{},
		nodeFree: make([]int64, N*R), nodeUsed: make([]int64, N*R),
		sumFree: make([]sum128, D*R), sumUsed: make([]sum128, D*R), sumAlloc: make([]sum128, D*R),
		freeSum: make([]int64, D*R), maxFree: make([]int64, D*R), dirty: make([]bool, D)}
	for i, r := range res {
		c.resIdx[r] = i
		if r == placement.ResourcePods {
			c.podsR = i
		}
	}
	for i := range c.maxFree {
		c.maxFree[i] = math.MinInt64
	}
	L := len(t.keys)
	for id := range placement.NodeID(N) {
		for r, name := range res {
			free, used := s.Free(id, name), s.Requested(id, name)
			c.nodeFree[int(id)*R+r], c.nodeUsed[int(id)*R+r] = free, used
			if free < 0 {
				c.negFree++
			}
			alloc := s.Allocatable(id, name)
			for l := range L {
				d := t.nodeDom[int(id)*L+l]
				if d < 0 {
					break
				}
				i := int(d)*R + r
				c.sumFree[i].add(max(free, 0))
				c.sumUsed[i].add(used)
				c.sumAlloc[i].add(alloc)
				c.maxFree[i] = max(c.maxFree[i], free)
			}
		}
	}
	for i := range c.sumFree {
		c.freeSum[i] = c.sumFree[i].get()
	}
	return c
}

// moveTo brings c to snapshot s, which must share c's node set, in
// O(changed nodes × (levels × R + the size of their domains' child lists)).
func (c *capacity) moveTo(t *Tree, s *placement.Snapshot) bool {
	changed, ok := t.changedNodes(s, c.snap)
	if !ok {
		return false
	}
	c.snap = s
	if len(changed) == 0 {
		return true
	}
	if c.classes != nil {
		defer c.classes.moved(s, changed, c.nodeFree)
	}
	R, L := len(c.res), len(t.keys)
	perLevel := make([][]DomainID, L)
	row := make([]int64, 0, R)
	for _, id := range changed {
		// The node's free row at once (Free and Requested look each
		// resource up by name); its allocatable, the same on every snapshot
		// of the node set, is the kept free plus the kept used.
		row = s.AppendFree(row[:0], id)
		for r, free := range row {
			i := int(id)*R + r
			used := c.nodeFree[i] + c.nodeUsed[i] - free
			dFree, dUsed := max(free, 0)-max(c.nodeFree[i], 0), used-c.nodeUsed[i]
			if c.nodeFree[i] < 0 {
				c.negFree--
			}
			if free < 0 {
				c.negFree++
			}
			c.nodeFree[i], c.nodeUsed[i] = free, used
			for l := range L {
				d := t.nodeDom[int(id)*L+l]
				if d < 0 {
					break
				}
				c.sumFree[int(d)*R+r].add(dFree)
				c.freeSum[int(d)*R+r] = c.sumFree[int(d)*R+r].get()
				c.sumUsed[int(d)*R+r].add(dUsed)
			}
		}
		for l := range L {
			d := t.nodeDom[int(id)*L+l]
			if d < 0 {
				break
			}
			if !c.dirty[d] {
				c.dirty[d] = true
				perLevel[l] = append(perLevel[l], d)
			}
		}
	}
	// The largest free of a domain is recounted from its direct nodes and
	// its children, deepest level first so that children are current.
	for l := L - 1; l >= 0; l-- {
		for _, d := range perLevel[l] {
			c.dirty[d] = false
			dom := &t.doms[d]
			row := c.maxFree[int(d)*R : int(d)*R+R]
			for r := range row {
				row[r] = math.MinInt64
			}
			for _, n := range dom.direct {
				for r := range row {
					row[r] = max(row[r], c.nodeFree[int(n)*R+r])
				}
			}
			for _, ch := range dom.children {
				for r := range row {
					row[r] = max(row[r], c.maxFree[int(ch)*R+r])
				}
			}
			if l < len(c.shareIx) && c.shareIx[l] != nil {
				c.shareIx[l].moved(c, d)
			}
		}
	}
	return true
}

// checkBuilt refuses a nil Tree or one not built with [NewTree] (a
// zero value), which would otherwise panic or blame the snapshot.
func (t *Tree) checkBuilt() error {
	if t == nil || t.snap == nil {
		return placement.Errorf(placement.ErrInvalid, "topology", "tree", "not built with NewTree (nil or a zero Tree)")
	}
	return nil
}

// capacityFor returns the aggregates for s; t.mu must be held.
func (t *Tree) capacityFor(s *placement.Snapshot) (*capacity, error) {
	if s == nil {
		return nil, placement.Errorf(placement.ErrInvalid, "topology tree", "snapshot", "must not be nil")
	}
	if t.cap == nil {
		if _, ok := s.ChangedNodes(t.snap); !ok {
			return nil, errForeign()
		}
		t.cap = newCapacity(t, s)
		return t.cap, nil
	}
	if t.cap.snap != s && !t.cap.moveTo(t, s) {
		return nil, errForeign()
	}
	return t.cap, nil
}

func errForeign() error {
	return placement.Errorf(placement.ErrInvalid, "topology tree", "snapshot",
		"the snapshot was not derived (with Apply) from the one the tree was built from; build a new tree for it")
}

// Free returns, for domain d on snapshot s, the summed free quantity of r
// over d's nodes (an overcommitted node counts 0; capped at math.MaxInt64)
// and the largest free quantity of r on one of them, in canonical units. A
// resource the snapshot does not track is 0. The answer comes from
// aggregates kept per domain: O(1) after the tree has caught up with s,
// which costs O(nodes changed since the snapshot it last served).
//
// Errors (a [*placement.FieldError] wrapping placement.ErrInvalid or
// placement.ErrNotFound): s is nil or was not derived with Apply from the
// snapshot the tree was built from; d is not a domain of the tree.
func (t *Tree) Free(s *placement.Snapshot, d DomainID, r placement.ResourceName) (sum, largest int64, err error) {
	if err := t.checkBuilt(); err != nil {
		return 0, 0, err
	}
	if !t.valid(d) {
		return 0, 0, placement.Errorf(placement.ErrNotFound, "topology tree", "domain", "no domain with ID %d", d)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c, err := t.capacityFor(s)
	if err != nil {
		return 0, 0, err
	}
	i, ok := c.resIdx[r]
	if !ok {
		return 0, 0, nil
	}
	R := len(c.res)
	return c.freeSum[int(d)*R+i], c.maxFree[int(d)*R+i], nil
}
