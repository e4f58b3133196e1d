package dra

import (
	"sync/atomic"

	"github.com/gangsched/gangsched/placement"
)

// nearMemo remembers, for one alternative of a compiled spec, what makes
// its list of devices near a node (see reserver.nearOf) a node's local
// devices themselves: whether any device outside the nodes (a
// network-attached one, whatever node it serves) is usable for the
// alternative, and, per node of [Inventory].locals, whether all its
// local devices are. Neither depends on a snapshot, a node's labels or
// the ledger's allocations, so the memo lives as long as the spec, as
// useMemo does: a template's members on a thousand nodes of one shape
// read two bits a node rather than build a list a node each solve.
// Concurrent readers of one ledger may fill it twice with the same bits.
type nearMemo struct {
	net    atomic.Uint32 // 0 not known yet, 1 no usable network device, 2 some
	locals lazyMemo      // per index of Inventory.locals: every local device usable
}

// localNear returns the local devices of node n when they are, in
// order, the alternative's whole list of devices near n (no usable
// network-attached device, every local device usable); ok is false
// otherwise, and nearOf builds the list.
func (a *calt) localNear(inv *Inventory, n *placement.Node) (own []int32, ok bool) {
	m := a.near
	if m == nil || a.netUsable(inv) {
		return nil, false
	}
	ix, found := inv.nodeIx[n.Name]
	if !found {
		return nil, true // no local device, no usable other one: empty
	}
	own = inv.locals[ix]
	all := m.locals.get(len(inv.locals)).answer(ix, func() bool {
		for _, d := range own {
			if !a.usable(inv, d) {
				return false
			}
		}
		return true
	})
	return own[:len(own):len(own)], all
}

// netUsable reports whether some device reachable otherwise than as a
// node's local device is usable for a.
func (a *calt) netUsable(inv *Inventory) bool {
	switch a.near.net.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	some := false
	for _, ds := range [][]int32{inv.selective, inv.everyNode} {
		for _, d := range ds {
			some = some || a.usable(inv, d)
		}
	}
	if some {
		a.near.net.Store(2)
	} else {
		a.near.net.Store(1)
	}
	return some
}
