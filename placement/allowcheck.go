package placement

// checker answers cons.allow(i, n, pos, true, nil) — kube-scheduler's
// sequential rule — for one member i and every node n while pos stays as
// it was: the greedy pass asks it of every node for each member. allow
// walks every placed match of every term on each node, O(members) a node
// and O(members² × nodes) a pass when members carry terms;
// set up once per member, O(the terms' matches), a checker costs O(i's
// terms) a node. TestProp_CheckerIsAllow holds it to allow.
type checker struct {
	c       *cons
	own     []ownCheck // i's required terms
	targets []domCheck // required anti-affinity terms of placed owners that match i
	sub     *domCheck  // i's sub-group: the domain of its first placed member
	subKey  []int32    // the sub-group's domains, when it has a key
}

// ownCheck is one of i's required terms: the domains of its key that hold
// a placed match.
type ownCheck struct {
	dom    []int32
	anti   bool
	placed bool // some match is placed
	self   bool // the term's selector matches i
	held   []uint64
}

// domCheck is a domain of a key (-1: none).
type domCheck struct {
	dom []int32
	d   int32
}

func (o *ownCheck) has(d int32) bool { return d >= 0 && o.held[d>>6]&(1<<(d&63)) != 0 }

// checker sets up the checker of member i (an index into pos, i not
// placed) against pos. The checker and its sets are the cons's, reused:
// it is done with before the next member's is set up.
func (c *cons) checker(i int, pos []NodeID) *checker {
	k := &c.check
	k.c, k.own, k.targets, k.sub, k.subKey = c, k.own[:0], k.targets[:0], nil, nil
	words := (len(c.s.b.nodes) + 63) / 64
	used := 0
	for _, ti := range c.owned(i) {
		t := &c.terms[ti]
		if t.weight != 0 {
			continue
		}
		o := ownCheck{dom: c.domain(c.keyOf(t)), anti: t.anti, self: c.selfMatch(int32(i), t.cls)}
		if used += words; used > len(c.checkWords) {
			// Sets carved before keep the old array, which stays valid.
			c.checkWords = make([]uint64, 2*used)
		}
		o.held = c.checkWords[used-words : used]
		clear(o.held)
		for _, q := range c.matchesOf(t) {
			if int(q) == i || pos[q] < 0 {
				continue
			}
			o.placed = true
			if d := o.dom[pos[q]]; d >= 0 {
				o.held[d>>6] |= 1 << (d & 63)
			}
		}
		k.own = append(k.own, o)
	}
	for o, t := range c.matching(i, requiredAnti) {
		if pos[o] < 0 {
			continue
		}
		dom := c.domain(c.keyOf(t))
		if d := dom[pos[o]]; d >= 0 {
			k.targets = append(k.targets, domCheck{dom: dom, d: d})
		}
	}
	if si := c.subOf[i]; si >= 0 && c.subs[si].key != "" {
		sg := &c.subs[si]
		k.subKey = c.domain(sg.key)
		for _, q := range sg.members {
			if pos[q] >= 0 && int(q) != i {
				k.sub = &domCheck{dom: k.subKey, d: k.subKey[pos[q]]}
				break
			}
		}
	}
	return k
}

// allow is cons.allow(i, n, pos, true, nil) for the checker's i and pos.
func (k *checker) allow(n NodeID) bool {
	for j := range k.own {
		o := &k.own[j]
		d := o.dom[n]
		if o.anti {
			if o.has(d) {
				return false
			}
			continue
		}
		if d < 0 || (!o.has(d) && (o.placed || !o.self)) {
			return false
		}
	}
	for _, t := range k.targets {
		if t.dom[n] == t.d {
			return false
		}
	}
	if k.subKey != nil {
		d := k.subKey[n]
		if d < 0 {
			return false
		}
		if k.sub != nil {
			return k.sub.d >= 0 && d == k.sub.d
		}
	}
	return true
}
