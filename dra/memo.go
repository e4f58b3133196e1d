package dra

import "sync/atomic"

// matchMemo remembers, per device of one inventory, whether a list of
// selectors accepts it. It lives as long as what it memoizes — a device
// class in the [Inventory], a request in a compiled claim or template spec
// — so every ledger derived from one another, and every solve on them,
// evaluates a (selector, device) pair at most once: CEL selectors may cost
// up to 0.1 s an evaluation (resource.k8s.io/v1
// CELSelectorExpressionMaxCost), far more than the search around them.
//
// Selectors are pure, so filling the memo lazily does not change any
// answer; the bits are atomic so that concurrent readers of one immutable
// ledger stay race-free (two of them may evaluate a device twice, and
// store the same bit).
type matchMemo struct {
	known, match []atomic.Uint64
}

func newMatchMemo(n int) *matchMemo {
	w := (n + 63) / 64
	return &matchMemo{known: make([]atomic.Uint64, w), match: make([]atomic.Uint64, w)}
}

// accepts reports whether every selector accepts device dv (index i),
// evaluating them only the first time device i is asked about.
func (m *matchMemo) accepts(sels []Selector, i int32, dv *device) bool {
	return m.answer(i, func() bool {
		for _, s := range sels {
			if !s(dv.id.Driver, dv.d) {
				return false
			}
		}
		return true
	})
}

// answer returns eval's answer about device i, calling it only the first
// time device i is asked about; eval must be pure.
func (m *matchMemo) answer(i int32, eval func() bool) bool {
	w, bit := i/64, uint64(1)<<(i%64)
	if m.known[w].Load()&bit != 0 {
		return m.match[w].Load()&bit != 0
	}
	ok := eval()
	if ok {
		m.match[w].Or(bit)
	}
	m.known[w].Or(bit) // after match: a reader that sees known sees match
	return ok
}

// lazyMemo allocates its memo on first use, so that claims loaded
// allocated, which are never matched again, cost no memory per device.
type lazyMemo struct {
	p atomic.Pointer[matchMemo]
}

func (l *lazyMemo) get(n int) *matchMemo {
	if m := l.p.Load(); m != nil {
		return m
	}
	l.p.CompareAndSwap(nil, newMatchMemo(n))
	return l.p.Load()
}
