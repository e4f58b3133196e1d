package placement

// work is the solver's scratch usage: what the current attempt has assumed
// onto each node, on top of the snapshot. It is sparse, so an attempt costs
// O(nodes it touches), not O(nodes): a map finds a node's row until the
// attempt has touched a 64th of the nodes (or 32), then a dense table does,
// whose size is then at most 64 entries (256 bytes) per node touched.
type work struct {
	R       int
	nodes   int              // nodes in the snapshot
	at      map[NodeID]int32 // node -> offset into slab, while sparse
	dense   []int32          // node -> offset+1 into slab (0: untouched), once dense
	slab    []int64
	touched []NodeID
}

// newWork returns empty scratch usage with room for a few nodes (a small
// gang touches a handful).
func newWork(R, nodes int) *work {
	const few = 16
	return &work{R: R, nodes: nodes, at: make(map[NodeID]int32, few), slab: make([]int64, 0, few*R), touched: make([]NodeID, 0, few)}
}

// offset returns the offset of node id's row in slab and whether it has one.
func (w *work) offset(id NodeID) (int32, bool) {
	if w.dense != nil {
		o := w.dense[id]
		return o - 1, o != 0
	}
	o, ok := w.at[id]
	return o, ok
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
		o = int32(len(w.slab))
		w.slab = append(w.slab, make([]int64, w.R)...) // grows without allocating the zeros
		w.touched = append(w.touched, id)
		switch {
		case w.dense != nil:
			w.dense[id] = o + 1
		case len(w.touched) > max(w.nodes/64, 32):
			w.dense = make([]int32, w.nodes)
			for k, t := range w.touched {
				w.dense[t] = int32(k*w.R) + 1
			}
			clear(w.at)
		default:
			w.at[id] = o
		}
	}
	return w.slab[o : int(o)+w.R]
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

func (w *work) reset() {
	if w.dense != nil {
		for _, id := range w.touched {
			w.dense[id] = 0
		}
	}
	clear(w.at)
	w.slab = w.slab[:0]
	w.touched = w.touched[:0]
}
