package dra

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// rclaim is one distinct claim that the pending members of a solve use.
type rclaim struct {
	// key is an existing claim's key; for a claim still to be generated,
	// its namespace only (keyOf names it: a gang of thousands generates a
	// claim a member every solve, and few are ever named).
	key   placement.Key
	entry *claimEntry // nil for a claim still to be generated
	spec  *spec
	owner *Owner                 // of a claim to be generated
	tmpl  *ResourceClaimTemplate // its template
	base  *AllocationResult      // allocation in the ledger, nil if none
	held  []ConsumerRef          // reservedFor in the ledger
	hasPG bool                   // the PodGroup is already in reservedFor
	gmask uint32                 // bit k: the PodGroup's device constraint k covers the claim
}

// keyOf is c's key: for a claim still to be generated, the name it would
// get, owner and entry joined by "-" (before Commit makes it unique).
func (c *rclaim) keyOf() placement.Key {
	if c.entry == nil && c.owner != nil {
		return placement.Key{Namespace: c.key.Namespace, Name: c.owner.Name + "-" + c.owner.ClaimName}
	}
	return c.key
}

// memberRef is one member's use of a claim.
type memberRef struct {
	claim    int32
	viaGroup bool // through the PodGroup's spec.resourceClaims: reserved for the PodGroup
}

type resolved struct {
	pg     *PodGroup
	gcons  []gcons // the PodGroup's device constraints
	claims []*rclaim
	// pods are the members as resolve was given them, in member order,
	// and lists[refIx[i]] the refs of pods[i] (members alike share a
	// list; list 0 is empty). byPtr and byKey, built on first need, find
	// a member the solver does not hand over in order (see refsOf).
	pods  []*placement.Pod
	lists [][]memberRef
	refIx []int32
	byPtr map[*placement.Pod]int
	byKey map[placement.Key]int
	at    int     // the member refsOf found last
	users []int32 // per claim: members using it
	// solo counts the members using a claim not through the PodGroup:
	// each reserves in a frame of its own (see stack), and asks about
	// the devices near its node.
	solo int
	mem  resolveMem
}

// resolveMem is the memory of a resolve that the next one, by the same
// pooled reserver, reuses (see Ledger.takeReserver): each solve of a
// gang with per-pod claims resolves a claim a member.
type resolveMem struct {
	ids   map[claimID]int32
	viaPG []int32
	flat  []memberRef
	buf   []memberRef
	gis   []int
	gen   []genClaim // the largest block of generated claims
}

// refsOf returns the refs of member p, nil for a pod that is not a
// member. The solver hands the hook its own pointers, mostly in member
// order or its reverse, starting over at either end: the member next to
// the last one found and the ends are tried before a map by pointer,
// then (for a copy) one by key.
func (rs *resolved) refsOf(p *placement.Pod) []memberRef {
	if i := rs.at + 1; i < len(rs.pods) && rs.pods[i] == p { // the usual case first
		rs.at = i
		return rs.lists[rs.refIx[i]]
	}
	for _, i := range [5]int{rs.at + 1, rs.at - 1, rs.at, 0, len(rs.pods) - 1} {
		if i >= 0 && i < len(rs.pods) && rs.pods[i] == p {
			rs.at = i
			return rs.lists[rs.refIx[i]]
		}
	}
	if rs.byPtr == nil {
		rs.byPtr, rs.byKey = make(map[*placement.Pod]int, len(rs.pods)), make(map[placement.Key]int, len(rs.pods))
		for i, m := range rs.pods {
			rs.byPtr[m], rs.byKey[m.Key()] = i, i
		}
	}
	i, ok := rs.byPtr[p]
	if !ok {
		if i, ok = rs.byKey[p.Key()]; !ok {
			return nil
		}
	}
	rs.at = i
	return rs.lists[rs.refIx[i]]
}

func groupObj(pg *PodGroup) string { return fmt.Sprintf("PodGroup %q", pg.Key().String()) }

func podObj(p *placement.Pod) string { return fmt.Sprintf("pod %q", p.Key().String()) }

// resolveInto maps each member's spec.resourceClaims entries to claims
// (KEP-5729), into rs: an entry equal in all fields to one of the
// PodGroup's uses the group's claim (the named claim, or the one
// generated once per PodGroup from the template); any other entry is the
// pod's own (the named claim, or one generated for the pod). Every field
// of rs is set afresh, and its memory from the resolve before (by a
// pooled reserver, see Ledger.takeReserver) reused.
func (l *Ledger) resolveInto(rs *resolved, pg *PodGroup, members []*placement.Pod) error {
	claims, users, lists, refIx := rs.claims, rs.users, rs.lists, rs.refIx
	*rs = resolved{pg: pg, pods: members, refIx: zeroedTo(refIx, len(members)), mem: rs.mem}
	mem := &rs.mem
	if pg.Name == "" && len(pg.ResourceClaims) > 0 {
		return placement.Errorf(placement.ErrInvalid, groupObj(pg), "metadata.name", "must not be empty when spec.resourceClaims is set")
	}
	for i, e := range pg.ResourceClaims {
		f := fmt.Sprintf("spec.resourceClaims[%d]", i)
		if err := checkEntry(groupObj(pg), f, e.Name, e.ResourceClaimName, e.ResourceClaimTemplateName); err != nil {
			return err
		}
		for _, o := range pg.ResourceClaims[:i] {
			if o.Name == e.Name {
				return placement.Errorf(placement.ErrDuplicate, groupObj(pg), f+".name", "entry %q appears twice", e.Name)
			}
		}
	}
	var err error
	if rs.gcons, err = compileGroupConstraints(pg); err != nil {
		return err
	}
	// Sized once for a gang whose members are alike (as most are): the
	// PodGroup's claims and, when the first member has entries of its
	// own, as many for every member (a gang of per-pod claims adds one a
	// member). Counting exactly would cost a pass over every member.
	most := len(pg.ResourceClaims) + 1
	if len(members) > 0 {
		for _, e := range members[0].ResourceClaims {
			if !slices.Contains(pg.ResourceClaims, PodGroupResourceClaim(e)) {
				most += len(members)
			}
		}
	}
	rs.claims, rs.users = sizedTo(claims, most), sizedTo(users, most)
	if mem.ids == nil {
		mem.ids = map[claimID]int32{}
	}
	ids := mem.ids
	clear(ids)
	// A pod's own claim is named by pod and entry, and a pod's entries
	// are distinct: with member names strictly increasing (as the solver
	// checks them) no two members' own claims can meet, and the map
	// need not hold them.
	var distinct int8                                    // 0: not known yet (found on the first own claim), 1 yes, -1 no
	viaPG := zeroedTo(mem.viaPG, len(pg.ResourceClaims)) // per PodGroup entry, its claim+1 once known
	mem.viaPG = viaPG
	add := func(id claimID, mk func() (*rclaim, error)) (int32, error) {
		if id.kind == byPod && distinct == 0 {
			distinct = 1
			for i := 1; i < len(members) && distinct > 0; i++ {
				if members[i-1].Name >= members[i].Name {
					distinct = -1
				}
			}
		}
		keep := id.kind != byPod || distinct < 0
		if keep {
			if i, ok := ids[id]; ok {
				return i, nil
			}
		}
		c, err := mk()
		if err != nil {
			return 0, err
		}
		i := int32(len(rs.claims))
		rs.claims, rs.users = append(rs.claims, c), append(rs.users, 0)
		if keep {
			ids[id] = i
		}
		return i, nil
	}
	gen := genSource{l: l, free: mem.gen, block: mem.gen}
	buf := mem.buf[:0]              // the member's refs, before they are kept
	flat := sizedTo(mem.flat, most) // the lists kept, end to end
	rs.lists = append(sizedTo(lists, most+1), nil)
	prevOwn := false   // the previous member has a claim generated for it
	gis := mem.gis[:0] // per entry of the previous member: its PodGroup entry, -1 if none
	for mi, p := range members {
		same := mi > 0 && slices.Equal(p.ResourceClaims, members[mi-1].ResourceClaims)
		if same && !prevOwn {
			// The previous member's entries, all for claims shared by
			// name or through the PodGroup: its claims, checked already.
			rs.refIx[mi] = rs.refIx[mi-1]
			for _, ref := range rs.lists[rs.refIx[mi]] {
				rs.users[ref.claim]++
			}
			continue
		}
		refs, own := buf[:0], false
		if !same {
			gis = gis[:0]
		}
		for i, e := range p.ResourceClaims {
			// The field's name is formatted only for an error: a gang of
			// thousands resolves every solve.
			f := func() string { return fmt.Sprintf("spec.resourceClaims[%d]", i) }
			var gi int
			if same {
				// The previous member's entries, checked and matched
				// against the PodGroup's already.
				gi = gis[i]
			} else {
				if e.Name == "" || (e.ResourceClaimName == "") == (e.ResourceClaimTemplateName == "") {
					return checkEntry(podObj(p), f(), e.Name, e.ResourceClaimName, e.ResourceClaimTemplateName)
				}
				for _, o := range p.ResourceClaims[:i] {
					if o.Name == e.Name {
						return placement.Errorf(placement.ErrDuplicate, podObj(p), f()+".name", "entry %q appears twice", e.Name)
					}
				}
				gi = slices.Index(pg.ResourceClaims, PodGroupResourceClaim(e))
				gis = append(gis, gi)
			}
			viaGroup := gi >= 0
			var ci int32
			var err error
			switch {
			case viaGroup && viaPG[gi] > 0:
				ci = viaPG[gi] - 1 // every member shares it: found once, not once a member
			case e.ResourceClaimName != "":
				k := placement.Key{Namespace: p.Namespace, Name: e.ResourceClaimName}
				ci, err = add(claimID{kind: byClaimName, name: k.Name}, func() (*rclaim, error) {
					ent, ok := l.entry(k)
					if !ok {
						obj, field := podObj(p), f()
						if viaGroup {
							obj, field = groupObj(pg), fmt.Sprintf("spec.resourceClaims[%d]", gi)
						}
						return nil, placement.Errorf(placement.ErrNotFound, obj, field+".resourceClaimName", "ResourceClaim %q does not exist", k.String())
					}
					return l.existing(ent, pg), nil
				})
			case viaGroup:
				ci, err = add(claimID{kind: byGroup, entry: e.Name}, func() (*rclaim, error) {
					return gen.claim(len(members)-mi, pg.Namespace, Owner{Kind: OwnerPodGroup, Name: pg.Name, UID: pg.UID, ClaimName: e.Name},
						e.ResourceClaimTemplateName, func() (string, string) { return groupObj(pg), fmt.Sprintf("spec.resourceClaims[%d]", gi) }, pg)
				})
			default:
				own = true
				ci, err = add(claimID{kind: byPod, name: p.Name, entry: e.Name}, func() (*rclaim, error) {
					return gen.claim(len(members)-mi, p.Namespace, Owner{Kind: OwnerPod, Name: p.Name, UID: p.UID, ClaimName: e.Name},
						e.ResourceClaimTemplateName, func() (string, string) { return podObj(p), f() }, pg)
				})
			}
			if err != nil {
				return err
			}
			if viaGroup {
				viaPG[gi] = ci + 1
			}
			for k := range rs.gcons {
				if rs.gcons[k].coversEntry(e.Name) {
					rs.claims[ci].gmask |= 1 << k
				}
			}
			if !slices.ContainsFunc(refs, func(r memberRef) bool { return r.claim == ci }) {
				refs = append(refs, memberRef{claim: ci, viaGroup: viaGroup})
			}
		}
		buf, prevOwn = refs, own
		switch {
		case mi > 0 && slices.Equal(refs, rs.lists[rs.refIx[mi-1]]):
			rs.refIx[mi] = rs.refIx[mi-1] // members alike share one list
		case len(refs) > 0:
			// A list's own end: flat growing later leaves it as it is.
			flat = append(flat, refs...)
			rs.refIx[mi] = int32(len(rs.lists))
			rs.lists = append(rs.lists, flat[len(flat)-len(refs):len(flat):len(flat)])
		}
		solo := false
		for _, ref := range rs.lists[rs.refIx[mi]] {
			rs.users[ref.claim]++
			solo = solo || !ref.viaGroup
		}
		if solo {
			rs.solo++
		}
	}
	mem.flat, mem.buf, mem.gis = flat[:0], buf[:0], gis[:0]
	if cap(gen.block) > cap(mem.gen) {
		mem.gen = gen.block
	}
	return nil
}

func checkEntry(obj, f, name, claim, tmpl string) error {
	if name == "" {
		return placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
	}
	if (claim == "") == (tmpl == "") {
		return placement.Errorf(placement.ErrInvalid, obj, f, "exactly one of resourceClaimName and resourceClaimTemplateName must be set")
	}
	return nil
}

func (l *Ledger) existing(e *claimEntry, pg *PodGroup) *rclaim {
	c := &rclaim{key: e.c.Key(), entry: e, spec: e.spec, base: e.c.Status.Allocation, held: e.c.Status.ReservedFor}
	c.hasPG = slices.ContainsFunc(c.held, PodGroupRef(pg.Name, "").same)
	return c
}

// claimID tells the claims of one resolve apart: one named by a member
// entry, one generated for a PodGroup entry, or one generated for a pod's.
type claimID struct {
	kind        uint8 // byClaimName, byGroup, byPod
	name, entry string
}

const (
	byClaimName uint8 = iota
	byGroup
	byPod
)

// genSource generates the claims of one resolve: from blocks of claims
// rather than one allocation each, and with the template found last kept,
// as a gang's members mostly generate theirs from one template.
type genSource struct {
	l     *Ledger
	free  []genClaim
	block []genClaim // the largest block free was cut from
	tkey  placement.Key
	tmpl  *template
}

// claim returns the claim generated for owner's entry, or plans one from
// the template; left is how many members, this one included, resolve has
// still to go through (a block holds as many claims). at names the
// entry's object and field, for an error only: a gang of thousands
// resolves every solve.
func (gs *genSource) claim(left int, ns string, o Owner, tmpl string, at func() (obj, field string), pg *PodGroup) (*rclaim, error) {
	l := gs.l
	if k, ok := l.Generated(o.Kind, placement.Key{Namespace: ns, Name: o.Name}, o.ClaimName); ok {
		e, _ := l.entry(k)
		return l.existing(e, pg), nil
	}
	if tk := (placement.Key{Namespace: ns, Name: tmpl}); gs.tmpl == nil || tk != gs.tkey {
		t, ok := l.templates[tk]
		if !ok {
			obj, field := at()
			return nil, placement.Errorf(placement.ErrNotFound, obj, field+".resourceClaimTemplateName", "ResourceClaimTemplate %q does not exist", tk.String())
		}
		gs.tkey, gs.tmpl = tk, t
	}
	if len(gs.free) == 0 {
		gs.free = make([]genClaim, max(left, 1))
		if len(gs.free) > len(gs.block) {
			gs.block = gs.free
		}
	}
	g := &gs.free[0] // the claim and its owner in one block
	gs.free = gs.free[1:]
	g.o = o
	g.c = rclaim{key: placement.Key{Namespace: ns}, spec: gs.tmpl.spec, owner: &g.o, tmpl: &gs.tmpl.t}
	return &g.c, nil
}

// genClaim is a claim to be generated, with its owner.
type genClaim struct {
	c rclaim
	o Owner
}

// sizedTo returns s emptied, or a new slice when s has less room than n.
func sizedTo[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// zeroedTo returns n zero elements in s's memory, or new ones when s has
// less room.
func zeroedTo[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
