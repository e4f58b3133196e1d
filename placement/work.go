package placement

import "slices"

// work is the solver's scratch usage: what the current attempt has assumed
// onto each node, on top of the snapshot. It is sparse, so an attempt costs
// O(nodes it touches), not O(nodes): an open-addressing table finds a
// node's row while few nodes are touched, sized once for the nodes an
// attempt is expected to touch; past half of it, or from the start when
// that expectation is a sizable share of the cluster, a dense table of
// every node does.
type work struct {
	R       int
	nodes   int      // nodes in the snapshot
	slots   []slot   // open addressing, linear probing, while sparse
	shift   uint     // 32 - log2(len(slots))
	dense   []int32  // node -> offset+1 into slab (0: untouched), once dense
	slab    []int64  // the touched nodes' rows, in order of touch
	touched []NodeID // in order of touch
	// bits has the bit of every touched node: asking whether a node is
	// touched costs a load, not a probe of slots (see isTouched).
	bits []uint64
}

// slot is one entry of the sparse table: id+1 (0: empty) and the offset
// of the node's row in slab. Zeroed memory is an empty table.
type slot struct {
	key uint32
	off int32
}

// newWork returns empty scratch usage for a snapshot of nodes nodes, with
// room for the rows of expect nodes (an attempt touches at most one node
// per member it places).
func newWork(R, nodes, expect int) *work {
	expect = max(min(expect, nodes), 4)
	// Members often share nodes: rows for a quarter of them to start with.
	rows := expect/4 + 4
	w := &work{R: R, nodes: nodes, slab: make([]int64, 0, rows*R), touched: make([]NodeID, 0, rows), bits: make([]uint64, (nodes+63)/64)}
	// A slot costs 8 bytes and the table keeps them at most half full;
	// a dense entry costs 4: dense is smaller past a quarter of the nodes.
	if 4*expect >= nodes {
		w.dense = make([]int32, nodes)
		return w
	}
	size := 8
	for size < 2*expect {
		size *= 2
	}
	w.slots = make([]slot, size)
	w.shift = uint(32 - log2(size))
	return w
}

func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}

// isTouched reports whether node id has a row.
func (w *work) isTouched(id NodeID) bool { return w.bits[id/64]&(1<<(id%64)) != 0 }

// home is id's first slot: Fibonacci hashing spreads runs of IDs.
func (w *work) home(id NodeID) uint32 { return (uint32(id) * 0x9e3779b1) >> w.shift }

// offset returns the offset of node id's row in slab and whether it has one.
func (w *work) offset(id NodeID) (int32, bool) {
	if w.dense != nil {
		o := w.dense[id]
		return o - 1, o != 0
	}
	mask := uint32(len(w.slots) - 1)
	for i := w.home(id); ; i = (i + 1) & mask {
		switch s := w.slots[i]; s.key {
		case uint32(id) + 1:
			return s.off, true
		case 0:
			return 0, false
		}
	}
}

func (w *work) extra(id NodeID, r int) int64 {
	if o, ok := w.offset(id); ok {
		return w.slab[int(o)+r]
	}
	return 0
}

// row returns node id's scratch row, creating it.
func (w *work) row(id NodeID) []int64 {
	o, ok := w.offset(id)
	if !ok {
		// Growing by reslicing writes back only the lengths: no write
		// barrier per node touched.
		o = int32(len(w.slab))
		if cap(w.slab)-len(w.slab) < w.R {
			w.slab = slices.Grow(w.slab, w.R)
		}
		w.slab = w.slab[:int(o)+w.R]
		clear(w.slab[o:])
		w.touched = append(w.touched, id)
		w.bits[id/64] |= 1 << (id % 64)
		switch {
		case w.dense != nil:
			w.dense[id] = o + 1
		case 2*len(w.touched) > len(w.slots): // a search went wide: go dense
			w.dense = make([]int32, w.nodes)
			for k, t := range w.touched {
				w.dense[t] = int32(k*w.R) + 1
			}
			w.slots = nil
		default:
			w.put(id, o)
		}
	}
	return w.slab[o : int(o)+w.R]
}

func (w *work) put(id NodeID, o int32) {
	mask := uint32(len(w.slots) - 1)
	i := w.home(id)
	for w.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	w.slots[i] = slot{uint32(id) + 1, o}
}

func (w *work) add(id NodeID, req []int64, k int64) {
	row := w.row(id)
	for i, q := range req {
		row[i] += q * k
	}
}

func (w *work) sub(id NodeID, req []int64) {
	row := w.row(id)
	for i, q := range req {
		row[i] -= q
	}
}

// reset empties the scratch state in O(nodes touched).
func (w *work) reset() {
	if w.dense != nil {
		for _, id := range w.touched {
			w.dense[id] = 0
		}
	} else {
		// Every occupied slot belongs to a touched node: clearing them
		// all leaves no probe chain broken.
		mask := uint32(len(w.slots) - 1)
		for _, id := range w.touched {
			i := w.home(id)
			for w.slots[i].key != uint32(id)+1 {
				i = (i + 1) & mask
			}
			w.slots[i] = slot{}
		}
	}
	for _, id := range w.touched {
		w.bits[id/64] = 0
	}
	w.slab = w.slab[:0]
	w.touched = w.touched[:0]
}
