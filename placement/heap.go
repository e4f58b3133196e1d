package placement

// A binary heap over a slice, ordered by before (the top is the element
// before all others). container/heap boxes every popped element in an
// interface, an allocation per node a batch fills; these do not. before
// takes pointers: the elements (sources) are too large to copy per
// comparison.

func heapInit[T any](h []T, before func(a, b *T) bool) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i, before)
	}
}

// heapPop removes the top of h and returns it with the shorter heap.
func heapPop[T any](h []T, before func(a, b *T) bool) (T, []T) {
	top, n := h[0], len(h)-1
	h[0] = h[n]
	h = h[:n]
	heapDown(h, 0, before)
	return top, h
}

// heapDown restores the order below i after h[i] was made later.
func heapDown[T any](h []T, i int, before func(a, b *T) bool) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && before(&h[r], &h[c]) {
			c = r
		}
		if !before(&h[c], &h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
