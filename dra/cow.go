package dra

import "slices"

const pageLen = 1024

// cow is a fixed-length array in copy-on-write pages: a fork shares every
// page with its parent and copies one only when it first writes to it.
type cow[T any] struct {
	pages [][]T
	owned []bool // nil when frozen
}

func newCow[T any](n int) cow[T] {
	c := cow[T]{pages: make([][]T, (n+pageLen-1)/pageLen)}
	for p := range c.pages {
		c.pages[p] = make([]T, min(pageLen, n-p*pageLen))
	}
	c.owned = make([]bool, len(c.pages))
	return c
}

func (c cow[T]) get(i int) T { return c.pages[i/pageLen][i%pageLen] }

func (c *cow[T]) set(i int, v T) {
	p := i / pageLen
	if !c.owned[p] {
		c.pages[p] = slices.Clone(c.pages[p])
		c.owned[p] = true
	}
	c.pages[p][i%pageLen] = v
}

func (c cow[T]) fork() cow[T] {
	return cow[T]{pages: slices.Clone(c.pages), owned: make([]bool, len(c.pages))}
}

// lazy is a fixed-length array of zero values whose pages are made on
// first write: a solve touches the devices of a few nodes among
// thousands, and an array per device would cost more to clear than the
// search that uses it. Its pages are shorter than cow's: a solve of a
// gang on nodes of 8 GPUs writes to a few dozen devices here and there.
type lazy[T comparable] struct {
	pages [][]T
	spare [][]T // zeroed pages that reset took back, for set to reuse
}

const lazyPageLen = 256

func newLazy[T comparable](n int) lazy[T] {
	return lazy[T]{pages: make([][]T, (n+lazyPageLen-1)/lazyPageLen)}
}

func (a *lazy[T]) get(i int32) T {
	if p := a.pages[i/lazyPageLen]; p != nil {
		return p[i%lazyPageLen]
	}
	var zero T
	return zero
}

func (a *lazy[T]) set(i int32, v T) {
	p := a.pages[i/lazyPageLen]
	if p == nil {
		var zero T
		if v == zero {
			return
		}
		if k := len(a.spare) - 1; k >= 0 {
			p, a.spare[k] = a.spare[k], nil
			a.spare = a.spare[:k]
		} else {
			p = make([]T, lazyPageLen)
		}
		a.pages[i/lazyPageLen] = p
	}
	p[i%lazyPageLen] = v
}

// reset makes every element zero again, as newLazy left them: the pages
// written to are cleared and kept for the writes to come, so that a
// reserver reused by the next solve makes no page it made before.
func (a *lazy[T]) reset() {
	for i, p := range a.pages {
		if p != nil {
			clear(p)
			a.spare = append(a.spare, p)
			a.pages[i] = nil
		}
	}
}
