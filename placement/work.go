package placement

// work is the solver's scratch usage: what the current attempt has assumed
// onto each node, on top of the snapshot. It is sparse, so an attempt costs
// O(nodes it touches), not O(nodes).
type work struct {
	R       int
	at      map[NodeID]int32 // node -> offset into slab
	slab    []int64
	touched []NodeID
}

func newWork(R int) *work { return &work{R: R, at: map[NodeID]int32{}} }

func (w *work) extra(id NodeID, r int) int64 {
	if o, ok := w.at[id]; ok {
		return w.slab[int(o)+r]
	}
	return 0
}

// row returns node id's scratch row, creating it.
func (w *work) row(id NodeID) []int64 {
	o, ok := w.at[id]
	if !ok {
		o = int32(len(w.slab))
		w.at[id] = o
		for range w.R {
			w.slab = append(w.slab, 0)
		}
		w.touched = append(w.touched, id)
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
	clear(w.at)
	w.slab = w.slab[:0]
	w.touched = w.touched[:0]
}
