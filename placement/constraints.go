package placement

import (
	"fmt"
	"iter"
	"maps"
	"slices"
)

// cons is a group's pod affinity terms and sub-groups compiled over "all
// members": the bound members first (their nodes are fixed), then the
// pending members in the solver's member order. A position of -1 means the
// member is not placed.
type cons struct {
	s *Snapshot
	// pods are the members (see memberPods): no list of pointers a member
	// is written into pooled memory and cleared again, under the
	// collector's write barriers.
	pods memberPods
	nb   int
	// terms are the terms of runs of consecutive members that carry terms
	// of the same classes (a gang's template, the rule): one record a
	// term of the run, not one a member — its owners are from to to-1.
	terms []term
	// classes are the distinct terms (selector, key, kind, weight): alike
	// members carry equal terms, so a selector is matched against every
	// member once per class rather than once per owner, and the members a
	// term matches are one list per class — O(members × classes), not
	// O(members²), to compile.
	classes []termClass
	// A member's terms (owned) and the classes that select it (matchers)
	// are spans of two flat arrays, own[i] and start: no table of slice
	// headers to clear and fill, under the collector's write barrier,
	// member by member. The members of one run share their span.
	own []span
	// pendingAlike says every pending member owns the same span of terms
	// and is selected by the same classes: termsAlike holds of every pair
	// (a gang made from one template, the rule), without comparing them.
	pendingAlike bool
	subs         []subc
	subOf        []int32     // sub-group of each member, or -1
	maxPref      int64       // sum of all preferred weights of all members
	prefBuf      []prefTerm  // prefsOf's, reused: a member's prefs are done with before the next's
	bonusBuf     []prefBonus // the same
	// domKeys and doms are the node domains of each topology key the
	// checks asked about (see domain).
	domKeys []string
	doms    [][]int32
	// check and checkWords are checker's, reused member after member.
	check      checker
	checkWords []uint64
	// counts is countsOf's, reused.
	counts classCounts
	// ids is the identity (owned's spans), only ever extended (see
	// fixedTable); start, flat (matchers' spans), fill and byCls (the
	// classes' terms) are compileConsInto's arrays, kept for the next
	// Solve when the cons is pooled.
	ids, start, flat, fill, byCls []int32
}

// span is the terms from to to-1.
type span struct{ from, to int32 }

// owned is the terms member i owns, ascending.
func (c *cons) owned(i int) []int32 {
	s := c.own[i]
	return c.ids[s.from:s.to:s.to]
}

// selfMatch reports whether class k's selector matches member o: whether
// a term of k that o owns counts o among its matches, which every reader
// skips.
func (c *cons) selfMatch(o int32, k int32) bool {
	for _, m := range c.matchers(int(o)) {
		if m >= k {
			return m == k
		}
	}
	return false
}

// matchers is the classes whose selector matches member i, ascending.
func (c *cons) matchers(i int) []int32 {
	from, to := c.start[i], c.start[i+1]
	return c.flat[from:to:to]
}

// term is one affinity term carried by a run of consecutive members, its
// owners from to to-1: a member of a gang made from a template costs no
// term of its own, only its span (cons.own). It holds no pointer — its
// key and matches are its class's (keyOf, matchesOf) — and its fields
// are ordered to take 24 bytes, not 32.
type term struct {
	weight   int64 // 0 for a required term
	cls      int32 // its class in cons.classes
	from, to int32 // its owners
	anti     bool
}

// keyOf is term t's topology key.
func (c *cons) keyOf(t *term) string { return c.classes[t.cls].key }

// matchesOf is the members term t's selector matches, ascending: an
// owner itself is among them when selfMatch, and every reader skips it.
func (c *cons) matchesOf(t *term) []int32 { return c.classes[t.cls].matches }

// termClass is the terms equal but for their owner.
type termClass struct {
	sel     *LabelSelector
	key     string
	anti    bool
	weight  int64
	matches []int32 // members the selector matches, ascending
	terms   []int32 // the terms of the class, ascending (a span of cons.byCls)
	// nterms is compileConsInto's: how many terms the class has.
	nterms int
	// dom and domains are the domains of key (see cons.domain) and how
	// many there are, set on the first countsOf.
	dom     []int32
	domains int
}

type subc struct {
	name    string
	min     int
	key     string
	levels  []string // the labels that identify a domain of key: the tree's path down to it, or key alone
	members []int32
}

func (c *cons) empty() bool { return c == nil || (len(c.terms) == 0 && len(c.subs) == 0) }

// memberPods is how a cons reads all members: the bound ones, then the
// pending ones in member order — the group's Members through the
// solver's rows or, when ptrs is not nil, a list of pointers.
type memberPods struct {
	bound   []*Pod
	ptrs    []*Pod
	members []Pod
	rows    []member
}

// len returns how many members m has, bound and pending.
func (m *memberPods) len() int {
	if m.ptrs != nil {
		return len(m.bound) + len(m.ptrs)
	}
	return len(m.bound) + len(m.rows)
}

// at returns member j.
func (m *memberPods) at(j int) *Pod {
	if nb := len(m.bound); j < nb {
		return m.bound[j]
	} else if m.ptrs != nil {
		return m.ptrs[j-nb]
	} else {
		return &m.members[m.rows[j-nb].row]
	}
}

// pod returns member j: see memberPods.
func (c *cons) pod(j int) *Pod { return c.pods.at(j) }

// members returns how many members c has, bound and pending.
func (c *cons) members() int { return c.pods.len() }

// compileCons returns nil when the group has no affinity terms and no
// sub-groups.
func compileCons(s *Snapshot, g *Group, bound []*Pod, pending []*Pod) *cons {
	return compileConsInto(new(cons), s, g, memberPods{bound: bound, ptrs: pending})
}

// compileConsInto is compileCons into c, whose memory (a pooled cons, see
// reuse) it keeps where it can, over all members pods. c reads them,
// never writes them.
func compileConsInto(c *cons, s *Snapshot, g *Group, pods memberPods) *cons {
	n := pods.len()
	any := len(g.SubGroups) > 0
	for k := 0; k < n && !any; k++ {
		any = pods.at(k).Affinity != nil
	}
	if !any {
		return nil
	}
	c.reuse(s, len(pods.bound))
	c.pods = pods
	// Members of one class carry one *Affinity (a gang's template, the
	// rule): its terms are sorted into classes once, at the first member
	// of the run, and the others join the run — a span stored, no
	// selector compared, no term written. A member whose terms are of the
	// same classes as the previous member's (a copy of its template)
	// joins it too, so that copies compile as a shared template does. A
	// member with last's terms after a gap copies their classes.
	own := grow(c.own, n)
	c.own = own
	var last *Affinity
	from, to, prev := 0, 0, -2 // the open run: its terms, its last member
	closeRun := func() {
		for k := from; k < to; k++ {
			c.terms[k].to = int32(prev + 1)
		}
	}
	for i := range n {
		a := c.pod(i).Affinity
		switch {
		case a == nil:
			own[i] = span{}
			continue
		case a == last && prev == i-1:
			own[i], prev = span{int32(from), int32(to)}, i
			continue
		}
		k0 := len(c.terms)
		if a == last {
			for k := from; k < to; k++ {
				c.terms = append(c.terms, term{cls: c.terms[k].cls, weight: c.terms[k].weight, anti: c.terms[k].anti, from: int32(i)})
			}
		} else {
			for kind, pa := range []*PodAffinity{a.PodAffinity, a.PodAntiAffinity} {
				if pa == nil {
					continue
				}
				for j := range pa.Required {
					c.terms = append(c.terms, term{cls: c.classOf(&pa.Required[j], kind == 1, 0), anti: kind == 1, from: int32(i)})
				}
				for j := range pa.Preferred {
					w := int64(pa.Preferred[j].Weight)
					c.terms = append(c.terms, term{cls: c.classOf(&pa.Preferred[j].Term, kind == 1, w), anti: kind == 1, weight: w, from: int32(i)})
				}
			}
			last = a
		}
		if prev == i-1 && sameClasses(c.terms[from:to], c.terms[k0:]) {
			c.terms = c.terms[:k0]
		} else {
			closeRun()
			from, to = k0, len(c.terms)
		}
		own[i], prev = span{int32(from), int32(to)}, i
	}
	closeRun()
	for k := range c.terms {
		t := &c.terms[k]
		c.classes[t.cls].nterms++
		c.maxPref += t.weight * int64(t.to-t.from)
	}
	// A run's terms are consecutive: its list is a span of the identity
	// (owned). A class's terms are one span of one array too,
	// and so are the classes matching a member (matchers), cut by counts:
	// no allocation per member or class.
	fixedTable(&c.ids, len(c.terms), func(i int) int32 { return int32(i) })
	byCls := grow(c.byCls, len(c.terms))
	c.byCls = byCls
	off := 0
	for k := range c.classes {
		cl := &c.classes[k]
		cl.terms, off, cl.nterms = byCls[off:off+cl.nterms:off+cl.nterms], off+cl.nterms, 0
	}
	for ti := range c.terms { // nterms counts again, as the fill
		cl := &c.classes[c.terms[ti].cls]
		cl.terms[cl.nterms] = int32(ti)
		cl.nterms++
	}
	start := zeroed(c.start, n+1)
	c.start = start
	for k := range c.classes {
		for _, j := range c.classes[k].matches {
			start[j+1]++
		}
	}
	for j := range n {
		start[j+1] += start[j]
	}
	flat, fill := grow(c.flat, int(start[n])), append(c.fill[:0], start[:n]...)
	c.flat, c.fill = flat, fill
	for k := range c.classes {
		for _, j := range c.classes[k].matches {
			flat[fill[j]] = int32(k)
			fill[j]++
		}
	}
	c.pendingAlike = pendingAlike(c, n)
	c.subOf = grow(c.subOf, n)
	for i := range c.subOf {
		c.subOf[i] = -1
	}
	for si, sg := range g.SubGroups {
		sc := subc{name: sg.Name, min: int(sg.MinCount), key: sg.TopologyKey, levels: []string{sg.TopologyKey}}
		if l := slices.Index(g.TopologyLevels, sg.TopologyKey); l >= 0 {
			sc.levels = g.TopologyLevels[:l+1]
		}
		for i := range n {
			if firstSubGroup(g, c.pod(i)) == si {
				c.subOf[i] = int32(si)
				sc.members = append(sc.members, int32(i))
			}
		}
		c.subs = append(c.subs, sc)
	}
	return c
}

// pendingAlike computes cons.pendingAlike of c, compiled over n members:
// one span for every pending member, and each class selecting all of them
// or none (its matches ascend, so their pending ones are a suffix).
func pendingAlike(c *cons, n int) bool {
	for i := c.nb + 1; i < n; i++ {
		if c.own[i] != c.own[c.nb] {
			return false
		}
	}
	for k := range c.classes {
		m := c.classes[k].matches
		x, _ := slices.BinarySearch(m, int32(c.nb))
		if p := len(m) - x; p != 0 && p != n-c.nb {
			return false
		}
	}
	return true
}

// classOf returns the class of term t (anti-affinity or not, weight w, 0
// when required), adding it — its selector matched against every member —
// when no class is equal.
func (c *cons) classOf(t *PodAffinityTerm, anti bool, w int64) int32 {
	for k := range c.classes {
		cl := &c.classes[k]
		if cl.key == t.TopologyKey && cl.anti == anti && cl.weight == w && equalSelector(cl.sel, &t.LabelSelector) {
			return int32(k)
		}
	}
	cl := termClass{sel: &t.LabelSelector, key: t.TopologyKey, anti: anti, weight: w}
	if k := len(c.classes); k < cap(c.classes) {
		// A pooled cons's lists, written over: their old contents belong
		// to a finished Solve.
		cl.matches = c.classes[:k+1][k].matches[:0]
	}
	// The selector's pairs are read out of its map once: ranging over a
	// map costs an iterator, and the members are many.
	pairs := make([][2]string, 0, len(t.LabelSelector.MatchLabels))
	for k, v := range t.LabelSelector.MatchLabels {
		pairs = append(pairs, [2]string{k, v})
	}
	exprs := LabelSelector{MatchExpressions: t.LabelSelector.MatchExpressions}
pods:
	for j := range c.members() {
		q := c.pod(j)
		for _, kv := range pairs {
			if v, ok := q.Labels[kv[0]]; !ok || v != kv[1] {
				continue pods
			}
		}
		if len(exprs.MatchExpressions) == 0 || exprs.Matches(q.Labels) {
			cl.matches = append(cl.matches, int32(j))
		}
	}
	c.classes = append(c.classes, cl)
	return int32(len(c.classes) - 1)
}

// equalSelector reports whether two selectors select alike: the same
// pairs and the same requirements in the same order.
func equalSelector(a, b *LabelSelector) bool {
	if a == b {
		return true
	}
	eq := func(x, y SelectorRequirement) bool {
		return x.Key == y.Key && x.Operator == y.Operator && slices.Equal(x.Values, y.Values)
	}
	return maps.Equal(a.MatchLabels, b.MatchLabels) && slices.EqualFunc(a.MatchExpressions, b.MatchExpressions, eq)
}

// sameClasses reports whether two members' terms are of the same classes
// in the same order (a class fixes kind and weight).
func sameClasses(a, b []term) bool {
	return slices.EqualFunc(a, b, func(x, y term) bool { return x.cls == y.cls })
}

// matching yields the terms of the classes keep admits whose selector
// matches member i, with each of their owners but i.
func (c *cons) matching(i int, keep func(*termClass) bool) iter.Seq2[int32, *term] {
	return func(yield func(int32, *term) bool) {
		for _, k := range c.matchers(i) {
			cl := &c.classes[k]
			if !keep(cl) {
				continue
			}
			for _, ti := range cl.terms {
				t := &c.terms[ti]
				for o := t.from; o < t.to; o++ {
					if int(o) != i && !yield(o, t) {
						return
					}
				}
			}
		}
	}
}

func requiredAnti(cl *termClass) bool { return cl.weight == 0 && cl.anti }
func preferred(cl *termClass) bool    { return cl.weight != 0 }

// domain returns, for each node, the index of its value of label key
// among the values the nodes carry, or -1 where the node lacks the label.
// The checks below compare domains for every member × node × term match;
// two label lookups by string each time made up about half of a Solve
// with affinity. The snapshot base indexes a key once (labelDomains);
// the few keys of one Solve are kept here to skip its lock.
func (c *cons) domain(key string) []int32 {
	for i, k := range c.domKeys {
		if k == key {
			return c.doms[i]
		}
	}
	ids := c.s.b.labelDomains(key).of
	c.domKeys, c.doms = append(c.domKeys, key), append(c.doms, ids)
	return ids
}

// label returns node n's domain of key (see domain), false when n lacks
// the label.
func (c *cons) label(n NodeID, key string) (int32, bool) {
	id := c.domain(key)[n]
	return id, id >= 0
}

// same reports whether nodes a and b are in one domain of key: both carry
// the label with equal values (hostname-like keys included).
func (c *cons) same(a, b NodeID, key string) bool {
	d := c.domain(key)
	return d[a] >= 0 && d[a] == d[b]
}

// inDomain reports whether node n is in some domain of sub-group sg's
// key: it carries every label of sg.levels.
func (c *cons) inDomain(n NodeID, sg *subc) bool {
	for _, k := range sg.levels {
		if _, ok := c.label(n, k); !ok {
			return false
		}
	}
	return true
}

// sameDomain reports whether nodes a and b are in one domain of sub-group
// sg's key: both in one, agreeing on every label of sg.levels.
func (c *cons) sameDomain(a, b NodeID, sg *subc) bool {
	if !c.inDomain(a, sg) || !c.inDomain(b, sg) {
		return false
	}
	for _, k := range sg.levels {
		if !c.same(a, b, k) {
			return false
		}
	}
	return true
}

// allow is the incremental check for putting member i on node n given pos.
// strict applies kube-scheduler's sequential rule to required affinity (a
// member joins the matching members already placed); otherwise a term that
// undecided members may still satisfy is let through, which keeps a search
// complete. undecided(j) reports whether member j may still be placed.
func (c *cons) allow(i int, n NodeID, pos []NodeID, strict bool, undecided func(int32) bool) bool {
	for _, ti := range c.owned(i) {
		t := &c.terms[ti]
		if t.weight != 0 {
			continue
		}
		if t.anti {
			for _, q := range c.matchesOf(t) {
				if int(q) != i && pos[q] >= 0 && c.same(n, pos[q], c.keyOf(t)) {
					return false
				}
			}
			continue
		}
		if _, ok := c.label(n, c.keyOf(t)); !ok {
			return false
		}
		placed, shared, open := false, false, false
		for _, q := range c.matchesOf(t) {
			switch {
			case int(q) == i:
			case pos[q] >= 0:
				placed = true
				shared = shared || c.same(n, pos[q], c.keyOf(t))
			case undecided != nil && undecided(q):
				open = true
			}
		}
		self := c.selfMatch(int32(i), t.cls)
		switch {
		case shared:
		case strict && (placed || !self):
			return false
		case !strict && !open && (placed || !self):
			return false
		}
	}
	for o, t := range c.matching(i, requiredAnti) {
		if pos[o] >= 0 && c.same(n, pos[o], c.keyOf(t)) {
			return false
		}
	}
	if si := c.subOf[i]; si >= 0 && c.subs[si].key != "" {
		sg := &c.subs[si]
		if !c.inDomain(n, sg) {
			return false
		}
		for _, q := range sg.members {
			if pos[q] >= 0 && int(q) != i {
				return c.sameDomain(n, pos[q], sg)
			}
		}
	}
	return true
}

// violation returns "" when the complete assignment pos satisfies every
// required term and sub-group, else what is broken. Terms between bound
// members alone are not checked: like kube-scheduler's
// IgnoredDuringExecution, running pods are never re-judged. The terms
// are judged by per-domain counts of placed matches (countsOf),
// O(members' terms + classes' matches), not by every term's matches.
func (c *cons) violation(pos []NodeID) string {
	v, _ := c.judge(pos)
	return v
}

// judge is violation and the preference score of pos together, over one
// count: a decision asks both of every complete assignment. The score is
// the weights of the preferred terms of placed members that hold, judged
// by per-domain counts as violation judges required ones. The terms are
// judged a run at a time, each owner's self match read off a cursor into
// its class's matches; only when one breaks are owners walked in member
// order for the message, so that it is the one a walk member by member
// meets first.
func (c *cons) judge(pos []NodeID) (string, int64) {
	cc := c.countsOf(pos)
	var sc int64
	bad := false
	for ti := range c.terms {
		t := &c.terms[ti]
		cl := &c.classes[t.cls]
		dom, all, m, x := cl.dom, cc.all[t.cls], cl.matches, 0
		for o := t.from; o < t.to; o++ {
			n := pos[o]
			if n < 0 {
				continue
			}
			for x < len(m) && m[x] < o {
				x++
			}
			self := int32(0)
			if x < len(m) && m[x] == o {
				self = 1
			}
			d := dom[n]
			switch {
			case t.weight == 0 && t.anti && int(o) >= c.nb:
				// broken's usual case, inline: a pending owner's required
				// anti-affinity term (broken is too big to inline: a call an owner).
				bad = bad || (d >= 0 && all[d]-self > 0)
			case t.weight == 0:
				bad = bad || c.broken(o, t, d, self, cc)
			default:
				if shared := d >= 0 && all[d]-self > 0; shared != t.anti {
					sc += t.weight
				}
			}
		}
	}
	if !bad {
		return c.subViolation(pos), sc
	}
	for o := range c.own {
		if pos[o] < 0 {
			continue
		}
		for _, ti := range c.owned(o) {
			t := &c.terms[ti]
			self := int32(0)
			if c.selfMatch(int32(o), t.cls) {
				self = 1
			}
			if t.weight != 0 || !c.broken(int32(o), t, c.classes[t.cls].dom[pos[o]], self, cc) {
				continue
			}
			if t.anti {
				return c.sharing(int32(o), t, pos), sc
			}
			return fmt.Sprintf("%s has no matching member in its %s domain (required pod affinity)", c.pod(int(o)).Key(), c.keyOf(t)), sc
		}
	}
	panic("placement: judge found a broken term no owner breaks")
}

// broken reports whether required term t of placed owner o, in domain d
// of its key (-1: none), is broken by cc's counts; self is 1 when o
// matches t's selector. Terms between bound members alone are never
// broken (see violation).
func (c *cons) broken(o int32, t *term, d int32, self int32, cc *classCounts) bool {
	if t.anti {
		switch {
		case d < 0:
			return false
		case int(o) < c.nb:
			return cc.pend[t.cls][d] > 0 // bound pairs are never re-judged
		default:
			return cc.all[t.cls][d]-self > 0
		}
	}
	if int(o) < c.nb || (d >= 0 && cc.all[t.cls][d]-self > 0) {
		return false
	}
	return d < 0 || cc.total[t.cls]-self > 0 || self == 0
}

// subViolation is violation's check of the sub-groups.
func (c *cons) subViolation(pos []NodeID) string {
	for si := range c.subs {
		sg := &c.subs[si]
		count, first := 0, NodeID(-1)
		for _, q := range sg.members {
			if pos[q] < 0 {
				continue
			}
			count++
			if sg.key == "" {
				continue
			}
			if first < 0 {
				first = pos[q]
				if !c.inDomain(first, sg) {
					return fmt.Sprintf("sub-group %s: node %q is in no %s domain", sg.name, c.s.b.nodes[first].Name, sg.key)
				}
			} else if !c.sameDomain(first, pos[q], sg) {
				return fmt.Sprintf("sub-group %s spans two %s domains", sg.name, sg.key)
			}
		}
		if count < sg.min {
			return fmt.Sprintf("sub-group %s: %d of min %d members", sg.name, count, sg.min)
		}
	}
	return ""
}

// boundConflict reports bound members of one sub-group that already sit in
// two domains of its key: no decision can repair that.
func (c *cons) boundConflict(g *Group) error {
	for si := range c.subs {
		sg := &c.subs[si]
		if sg.key == "" {
			continue
		}
		first := NodeID(-1)
		for _, q := range sg.members {
			if int(q) >= c.nb {
				break
			}
			n, _ := c.s.b.byName(c.pod(int(q)).NodeName)
			if first < 0 {
				first = n
			} else if !c.sameDomain(first, n, sg) {
				return Errorf(ErrInvalid, groupObj(g), "spec.subGroups["+sg.name+"].topologyKey",
					"bound members %s and %s are in different %s domains", c.pod(int(sg.members[0])).Key(), c.pod(int(q)).Key(), sg.key)
			}
		}
	}
	return nil
}

// prefs is the part of the preference score of member i's node that
// depends on that node, for the other members fixed at pos: the terms i
// owns and those whose selector matches i. The rest of the score is the
// same on every node, so ordering nodes by prefs.on orders them by the
// whole score, at O(those terms) a node instead of O(every term × its
// matches): set up once, O(their matches), for all of a member's nodes.
type prefs struct {
	terms []prefTerm // the preferred terms i owns
	// The terms of placed owners whose selector matches i: base is the
	// weight of those that hold wherever i goes, bonus, per topology key,
	// what the others add (or take) on the nodes of one domain — so that a
	// node costs O(keys), not O(terms): members that all carry a term
	// match each other's.
	base  int64
	bonus []prefBonus
}

type prefTerm struct {
	t   *term
	dom []int32 // t's key's domains (see cons.domain)
	// values are the domains of t's placed matches.
	values map[int32]bool
}

// prefBonus is the weight the matching terms of one key add on the nodes
// of each domain.
type prefBonus struct {
	key string
	dom []int32
	by  map[int32]int64
}

// prefsOf sets up prefs for member i (an index into pos, where i is not
// placed).
func (c *cons) prefsOf(i int, pos []NodeID) prefs {
	p := prefs{terms: c.prefBuf[:0], bonus: c.bonusBuf[:0]}
	for _, ti := range c.owned(i) {
		t := &c.terms[ti]
		if t.weight == 0 {
			continue
		}
		pt := prefTerm{t: t, dom: c.domain(c.keyOf(t))}
		for _, q := range c.matchesOf(t) {
			if q == int32(i) || pos[q] < 0 {
				continue
			}
			if v, ok := c.label(pos[q], c.keyOf(t)); ok {
				if pt.values == nil {
					pt.values = map[int32]bool{}
				}
				pt.values[v] = true
			}
		}
		p.terms = append(p.terms, pt)
	}
	for owner, t := range c.matching(i, preferred) {
		o := pos[owner]
		if o < 0 {
			continue // judge counts no term of an unplaced owner
		}
		// The term holds when some placed match shares its owner's domain
		// (for anti-affinity: when none does); i is not placed.
		shared := false
		for _, q := range c.matchesOf(t) {
			if q != owner && pos[q] >= 0 && c.same(o, pos[q], c.keyOf(t)) {
				shared = true
				break
			}
		}
		od := c.domain(c.keyOf(t))[o]
		switch {
		case shared || od < 0: // i cannot change whether it holds
			if shared != t.anti {
				p.base += t.weight
			}
		case t.anti: // holds unless i joins the owner's domain
			p.base += t.weight
			p.bonusOf(c, c.keyOf(t)).by[od] -= t.weight
		default: // holds if i joins it
			p.bonusOf(c, c.keyOf(t)).by[od] += t.weight
		}
	}
	c.prefBuf, c.bonusBuf = p.terms, p.bonus
	return p
}

// bonusOf returns p's bonus of key, adding an empty one (its map reused
// from an earlier member's) when p has none yet.
func (p *prefs) bonusOf(c *cons, key string) *prefBonus {
	for k := range p.bonus {
		if p.bonus[k].key == key {
			return &p.bonus[k]
		}
	}
	b := prefBonus{key: key, dom: c.domain(key)}
	if n := len(p.bonus); n < cap(p.bonus) {
		b.by = p.bonus[:n+1][n].by
		clear(b.by)
	}
	if b.by == nil {
		b.by = map[int32]int64{}
	}
	p.bonus = append(p.bonus, b)
	return &p.bonus[len(p.bonus)-1]
}

// on is the weight of i's terms that hold with i on node n: a term holds
// when some placed match shares its owner's domain, or, for an
// anti-affinity term, when none does (as judge counts it).
func (p *prefs) on(n NodeID) int64 {
	sc := p.base
	for k := range p.terms {
		pt := &p.terms[k]
		d := pt.dom[n]
		if shared := d >= 0 && pt.values[d]; shared != pt.t.anti {
			sc += pt.t.weight
		}
	}
	for k := range p.bonus {
		if d := p.bonus[k].dom[n]; d >= 0 {
			sc += p.bonus[k].by[d]
		}
	}
	return sc
}

// validateAffinity checks the affinity terms of a member.
func validateAffinity(p *Pod) error {
	if p.Affinity == nil {
		return nil
	}
	// The object and field names are formatted only for a term that may
	// be invalid: every member of a group with terms is checked on every
	// Solve, and formatting them was a tenth of a small group's Solve.
	for k, pa := range []*PodAffinity{p.Affinity.PodAffinity, p.Affinity.PodAntiAffinity} {
		if pa == nil {
			continue
		}
		f := "spec.affinity.podAffinity"
		if k == 1 {
			f = "spec.affinity.podAntiAffinity"
		}
		for i, t := range pa.Required {
			if t.TopologyKey != "" && len(t.LabelSelector.MatchExpressions) == 0 {
				continue // valid: a selector's pairs cannot be wrong
			}
			obj, fi := podObj(p.Key()), fmt.Sprintf("%s.required[%d]", f, i)
			if t.TopologyKey == "" {
				return Errorf(ErrInvalid, obj, fi+".topologyKey", "must not be empty")
			}
			if err := t.LabelSelector.Validate(obj, fi+".labelSelector"); err != nil {
				return err
			}
		}
		for i, t := range pa.Preferred {
			if t.Weight >= 1 && t.Weight <= 100 && t.Term.TopologyKey != "" && len(t.Term.LabelSelector.MatchExpressions) == 0 {
				continue
			}
			obj, fi := podObj(p.Key()), fmt.Sprintf("%s.preferred[%d]", f, i)
			if t.Weight < 1 || t.Weight > 100 {
				return Errorf(ErrInvalid, obj, fi+".weight", "%d is outside 1..100", t.Weight)
			}
			if t.Term.TopologyKey == "" {
				return Errorf(ErrInvalid, obj, fi+".podAffinityTerm.topologyKey", "must not be empty")
			}
			if err := t.Term.LabelSelector.Validate(obj, fi+".podAffinityTerm.labelSelector"); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateSubGroups checks sub-group definitions against the members.
func validateSubGroups(g *Group, pods memberPods) error {
	if len(g.SubGroups) == 0 {
		return nil
	}
	obj := groupObj(g)
	for i, k := range g.TopologyLevels {
		f := fmt.Sprintf("topologyLevels[%d]", i)
		if k == "" {
			return Errorf(ErrInvalid, obj, f, "must not be empty")
		}
		if slices.Contains(g.TopologyLevels[:i], k) {
			return Errorf(ErrDuplicate, obj, f, "key %q is listed twice", k)
		}
	}
	var names []string
	for i, sg := range g.SubGroups {
		f := fmt.Sprintf("spec.subGroups[%d]", i)
		if sg.Name == "" {
			return Errorf(ErrInvalid, obj, f+".name", "must not be empty")
		}
		if slices.Contains(names, sg.Name) {
			return Errorf(ErrDuplicate, obj, f+".name", "sub-group %q defined twice", sg.Name)
		}
		names = append(names, sg.Name)
		if err := sg.Selector.Validate(obj, f+".selector"); err != nil {
			return err
		}
		n := 0
		for j := range pods.len() {
			if firstSubGroup(g, pods.at(j)) == i {
				n++
			}
		}
		if sg.MinCount < 0 || int(sg.MinCount) > n {
			return Errorf(ErrInvalid, obj, f+".minCount", "%d is outside 0..%d (members matching the selector)", sg.MinCount, n)
		}
	}
	return nil
}

// firstSubGroup returns the index of the first sub-group whose selector
// matches p, or -1.
func firstSubGroup(g *Group, p *Pod) int {
	for i := range g.SubGroups {
		if g.SubGroups[i].Selector.Matches(p.Labels) {
			return i
		}
	}
	return -1
}
