package placement

import "fmt"

// classCounts is, per term class, how many placed members its selector
// matches in each domain of its key: what judge judges a term by, at
// O(1) a term, instead of walking the term's matches — O(terms ×
// matches), quadratic when every member carries a term that matches the
// others.
type classCounts struct {
	all   [][]int32 // per class and domain: placed matches, bound ones included
	pend  [][]int32 // per class and domain: placed pending matches
	total []int32   // per class: placed matches anywhere, unlabelled nodes included
	buf   []int32
	sized bool // all, pend and total are cut for the cons's classes
}

// countsOf counts pos's placed members for every class. The counts are
// the cons's, reused: they are done with before the next call.
func (c *cons) countsOf(pos []NodeID) *classCounts {
	cc := &c.counts
	if !cc.sized {
		size := 0
		for k := range c.classes {
			cl := &c.classes[k]
			cl.dom = c.domain(cl.key)
			cl.domains = len(c.s.b.labelDomains(cl.key).values)
			size += 2 * cl.domains
		}
		cc.buf = grow(cc.buf, size) // the pool's, when the solver handed it one
		n := len(c.classes)
		cc.all, cc.pend, cc.total, cc.sized = grow(cc.all, n), grow(cc.pend, n), grow(cc.total, n), true
		off := 0
		for k := range c.classes {
			nd := c.classes[k].domains
			cc.all[k], cc.pend[k] = cc.buf[off:off+nd:off+nd], cc.buf[off+nd:off+2*nd:off+2*nd]
			off += 2 * nd
		}
	}
	clear(cc.buf)
	for k := range c.classes {
		dom, all, pend := c.classes[k].dom, cc.all[k], cc.pend[k]
		total := int32(0)
		for _, j := range c.classes[k].matches {
			n := pos[j]
			if n < 0 {
				continue
			}
			total++
			if d := dom[n]; d >= 0 {
				all[d]++
				if int(j) >= c.nb {
					pend[d]++
				}
			}
		}
		cc.total[k] = total
	}
	return cc
}

// sharing is violation's message for required anti-affinity term t of
// owner o: the first placed match that shares o's domain (not a bound
// member when o is bound).
func (c *cons) sharing(o int32, t *term, pos []NodeID) string {
	for _, q := range c.matchesOf(t) {
		if q == o || pos[q] < 0 || (int(o) < c.nb && int(q) < c.nb) {
			continue
		}
		if c.same(pos[o], pos[q], c.keyOf(t)) {
			return fmt.Sprintf("%s and %s share a %s domain against required pod anti-affinity", c.pod(int(o)).Key(), c.pod(int(q)).Key(), c.keyOf(t))
		}
	}
	panic("placement: sharing called for a term no placed match breaks")
}
