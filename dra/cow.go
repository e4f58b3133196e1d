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
