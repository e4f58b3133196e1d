package placement

// Short domains a sibling found. Siblings are placed in name order, each
// over the same domains of the parent's (allowed, the same list when
// they share a topology key and pin none), each in the continuation of
// the previous sibling's place or after it returned. A domain the
// previous sibling's mayHold found short then stays short for the next
// when the next needs at least as much: mayHold compares per resource a
// least need with the domain's free sum, and counts how many children
// fit by their smallest least need (slots), both of which only fall as
// usage grows (the search only adds usage between the two calls), and
// only fall as the needs grow. So a leaf of a gang of alike leaves starts
// at the first domain its previous sibling could hold, instead of reading
// again every rack that the leaves before it filled.
// TestHierarchy_PropSkipIsExact holds the search with the skip to the
// search without it.

// heldRange is a range lo ≤ i < hi of a node's domains (indexes into
// hsolver.domains' lists).
type heldRange struct{ lo, hi int }

// needsNoLess reports whether c's mayHold refuses every domain that p's
// refused on a snapshot with no more usage: both are tried on the same
// domains (one key, no pin), c needs per resource at least what p does,
// and when a child count bounds them, over one key with c's children
// needing at least p's and at least as many of them. A node that is never
// satisfied refuses every domain; a node with no pending members (done)
// takes no mayHold, and is never skipped.
func needsNoLess(c, p *hnode) bool {
	if c.done != 0 || p.done != 0 || p.never || c.ld != p.ld || c.pins != nil || p.pins != nil {
		return false
	}
	if c.never {
		return true
	}
	if c.childKey != p.childKey || c.childLD != p.childLD || len(c.least) != len(p.least) ||
		len(c.childLeast) != len(p.childLeast) || (c.childKey != "" && c.need < p.need) {
		return false
	}
	for r, q := range p.least {
		if c.least[r] < q {
			return false
		}
	}
	for r, q := range p.childLeast {
		if c.childLeast[r] < q {
			return false
		}
	}
	return true
}
