package dra

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// GroupDeviceConstraint constrains devices across all the claims a
// PodGroup's members use, beyond upstream (whose constraints stop at one
// claim, resource.k8s.io/v1 DeviceConstraint): every device allocated for
// a covered request of a covered claim must carry the attribute
// MatchAttribute, all with one value (all NICs on one fabric, all GPUs in
// one NVLink domain published as a device attribute), or the attribute
// DistinctAttribute, each with a value of its own. Exactly one of the two
// is set.
//
// Claims names spec.resourceClaims entries ("nic"): a claim is covered when
// a member's entry, or the PodGroup's, that resolves to it has one of these
// names; empty covers every claim the members use. Requests names requests
// ("nic") or subrequests ("nic/fast") within the covered claims; empty
// covers every request. A name that no claim has covers nothing, so that
// one constraint may be written for groups whose members differ.
//
// Devices a covered claim already holds in the ledger count as chosen: a
// match constraint then follows their value. The constraint binds the
// pending members solved together; members bound before are not read.
type GroupDeviceConstraint struct {
	Claims            []string
	Requests          []string
	MatchAttribute    QualifiedName
	DistinctAttribute QualifiedName
}

// MaxGroupDeviceConstraints is the most constraints a PodGroup may carry,
// as many as a claim may (resource.k8s.io/v1 DeviceConstraintsMaxSize).
const MaxGroupDeviceConstraints = 32

// CheckGroupDeviceConstraints validates cs as the constraints of object obj
// at field (e.g. "deviceConstraints"; entries are named field[i]).
//
// Errors ([placement.ErrInvalid] or [placement.ErrDuplicate]): more than
// [MaxGroupDeviceConstraints] entries; not exactly one of matchAttribute
// and distinctAttribute; an empty or repeated claim or request name.
func CheckGroupDeviceConstraints(obj, field string, cs []GroupDeviceConstraint) error {
	if len(cs) > MaxGroupDeviceConstraints {
		return placement.Errorf(placement.ErrInvalid, obj, field, "%d entries exceed the limit of %d", len(cs), MaxGroupDeviceConstraints)
	}
	for i, c := range cs {
		f := fmt.Sprintf("%s[%d]", field, i)
		if (c.MatchAttribute == "") == (c.DistinctAttribute == "") {
			return placement.Errorf(placement.ErrInvalid, obj, f, "exactly one of matchAttribute and distinctAttribute must be set")
		}
		for _, l := range []struct {
			name  string
			names []string
		}{{"claims", c.Claims}, {"requests", c.Requests}} {
			for j, n := range l.names {
				lf := fmt.Sprintf("%s.%s[%d]", f, l.name, j)
				if n == "" {
					return placement.Errorf(placement.ErrInvalid, obj, lf, "must not be empty")
				}
				if slices.Contains(l.names[:j], n) {
					return placement.Errorf(placement.ErrDuplicate, obj, lf, "%q appears twice", n)
				}
			}
		}
	}
	return nil
}

// gcons is a group constraint compiled: its requests and attribute as a
// claim's constraint has them, plus the entry names it covers.
type gcons struct {
	ccons
	claims []string
}

// coversEntry reports whether the constraint covers a claim used through
// the entry called name.
func (g *gcons) coversEntry(name string) bool {
	return len(g.claims) == 0 || slices.Contains(g.claims, name)
}

// coversResult reports whether the constraint covers a result of the
// request or subrequest named name ("req" or "req/sub").
func (c *ccons) coversResult(name string) bool {
	if len(c.names) == 0 || slices.Contains(c.names, name) {
		return true
	}
	req, _, ok := strings.Cut(name, "/")
	return ok && slices.Contains(c.names, req)
}

func compileGroupConstraints(pg *PodGroup) ([]gcons, error) {
	if err := CheckGroupDeviceConstraints(groupObj(pg), "deviceConstraints", pg.DeviceConstraints); err != nil {
		return nil, err
	}
	out := make([]gcons, len(pg.DeviceConstraints))
	for i, c := range pg.DeviceConstraints {
		out[i] = gcons{ccons: ccons{attr: c.MatchAttribute + c.DistinctAttribute, distinct: c.DistinctAttribute != "", names: slices.Clone(c.Requests)}, claims: slices.Clone(c.Claims)}
	}
	return out, nil
}

// groupCovers reports whether group constraint k covers alternative a of
// request q of var v.
func (x *dfs) groupCovers(k int, v int, q *creq, a *calt) bool {
	return x.r.rs.claims[x.vars[v].claim].gmask&(1<<k) != 0 && x.r.rs.gcons[k].covers(q, a)
}

// seedGroup fills the state of the group constraints from the devices
// that claims outside the search hold: in the ledger and, with useAll, in
// the solve's assignment. It reports false when those devices already
// break a constraint (or lack its attribute), so nothing can be added.
func (x *dfs) seedGroup() bool {
	r := x.r
	gc := r.rs.gcons
	// Reset each state, keeping its buffers for the next search.
	for len(x.gst) < cap(x.gst) && len(x.gst) < len(gc) {
		x.gst = x.gst[:len(x.gst)+1]
	}
	for len(x.gst) < len(gc) {
		x.gst = append(x.gst, consState{})
	}
	for k := range x.gst {
		x.gst[k].n, x.gst[k].vals = 0, x.gst[k].vals[:0]
	}
	if x.use == useNone {
		return true
	}
	x.inSearch = slices.Grow(x.inSearch[:0], len(r.rs.claims))[:len(r.rs.claims)]
	clear(x.inSearch)
	for _, v := range x.vars {
		x.inSearch[v.claim] = true
	}
	for ci, c := range r.rs.claims {
		if c.gmask == 0 || x.inSearch[ci] {
			continue
		}
		if c.base != nil {
			for _, dr := range c.base.Devices {
				if !x.seed(c.gmask, r.inv.byID[dr.DeviceID], dr.Request) {
					return false
				}
			}
			continue
		}
		if a := r.alloc[ci]; a != nil && x.use == useAll {
			for k, d := range a.devs {
				if !x.seed(c.gmask, d, a.alts[k].name) {
					return false
				}
			}
		}
	}
	return true
}

// seed adds device d, serving the result named req of a claim covered by
// mask, to the group constraints' state.
func (x *dfs) seed(mask uint32, d int32, req string) bool {
	dv := &x.r.inv.devs[d]
	for k := range x.r.rs.gcons {
		c := &x.r.rs.gcons[k]
		if mask&(1<<k) == 0 || !c.coversResult(req) {
			continue
		}
		v, ok := Attr(dv.id.Driver, dv.d, c.attr)
		st := &x.gst[k]
		if !ok || !st.admits(c.distinct, v) {
			return false
		}
		st.add(c.distinct, v)
	}
	return true
}

// meetsGroup reports whether dv serving alt of slot st keeps the group's
// distinct constraints; match constraints are kept by filtering the
// candidates to one value (see byValue).
func (x *dfs) meetsGroup(st *slotState, alt *calt, dv *device) bool {
	for k := range x.r.rs.gcons {
		c := &x.r.rs.gcons[k]
		if !c.distinct || !x.groupCovers(k, st.v, &x.vars[st.v].spec.reqs[st.req], alt) {
			continue
		}
		v, ok := Attr(dv.id.Driver, dv.d, c.attr)
		if !ok || !x.gst[k].admits(true, v) {
			return false
		}
	}
	return true
}

// markGroup keeps the distinct constraints' values as picks are made
// (take) and taken back.
func (x *dfs) markGroup(st *slotState, alt *calt, dv *device, take bool) {
	for k := range x.r.rs.gcons {
		c := &x.r.rs.gcons[k]
		if c.distinct && x.groupCovers(k, st.v, &x.vars[st.v].spec.reqs[st.req], alt) {
			v, _ := Attr(dv.id.Driver, dv.d, c.attr)
			if take {
				x.gst[k].add(true, v)
			} else {
				x.gst[k].remove(true, v)
			}
		}
	}
}

// byValue runs the search under the group's match constraints: for each
// constraint that covers some slot it fixes one value at a time (one of
// the elements the held devices share, else each element the covered
// candidates carry, in order of first appearance), keeps only the
// candidates whose value has it (a scalar is a set of one) and searches. Fixing the value first lets a member whose nodes reach
// only one fabric move every other claim there at once, where choosing
// devices first would try every combination on the wrong fabric. Each
// value tried costs one step of the budget.
func (x *dfs) byValue(sc *scratch) outcome {
	var ks []int
	for k := range x.r.rs.gcons {
		if x.r.rs.gcons[k].distinct {
			continue
		}
		for i := range x.slots {
			if x.slotCovered(k, i) {
				ks = append(ks, k)
				break
			}
		}
	}
	if len(ks) == 0 {
		return x.run(sc)
	}
	// Keep the unfiltered candidates: each combination filters afresh.
	// Kept in buffers that outlive the search, like the candidates'.
	for len(x.orig) < len(x.slots) {
		x.orig = append(x.orig, nil)
	}
	orig := x.orig[:len(x.slots)]
	for i := range x.slots {
		for len(orig[i]) < len(x.slots[i].cands) {
			orig[i] = append(orig[i], nil)
		}
		orig[i] = orig[i][:len(x.slots[i].cands)]
		for a, c := range x.slots[i].cands {
			orig[i][a] = append(orig[i][a][:0], c...)
		}
	}
	vals := make([][]Attribute, len(ks))
	for j, k := range ks {
		if st := &x.gst[k]; st.n > 0 {
			vals[j] = st.inter[st.n-1]
			continue
		}
		c := &x.r.rs.gcons[k]
		for i := range x.slots {
			for a, cands := range orig[i] {
				if !x.altCovered(k, i, a) {
					continue
				}
				for _, d := range cands {
					dv := &x.r.inv.devs[d]
					v, ok := Attr(dv.id.Driver, dv.d, c.attr)
					if !ok {
						continue
					}
					if v.List == nil {
						if !containsElem(vals[j], v) {
							vals[j] = append(vals[j], v)
						}
						continue
					}
					for _, e := range v.List {
						if !containsElem(vals[j], e) {
							vals[j] = append(vals[j], e)
						}
					}
				}
			}
		}
		if len(vals[j]) == 0 {
			return infeasible
		}
	}
	pick := make([]int, len(ks))
	for {
		if !x.spend() {
			return exhausted
		}
		x.filter(ks, vals, pick, orig)
		if out := x.run(sc); out != infeasible {
			return out
		}
		// Next combination, the last constraint's value first.
		j := len(ks) - 1
		for j >= 0 {
			pick[j]++
			if pick[j] < len(vals[j]) {
				break
			}
			pick[j] = 0
			j--
		}
		if j < 0 {
			return infeasible
		}
	}
}

func (x *dfs) slotCovered(k, i int) bool {
	for a := range x.slots[i].cands {
		if x.altCovered(k, i, a) {
			return true
		}
	}
	return false
}

func (x *dfs) altCovered(k, i, a int) bool {
	st := &x.slots[i]
	q := &x.vars[st.v].spec.reqs[st.req]
	return x.groupCovers(k, st.v, q, &q.alts[a])
}

// filter sets each covered alternative's candidates to those of orig
// whose attribute has the chosen value; an alternative of All mode with a
// matching device of another value gets none, since it would take it.
func (x *dfs) filter(ks []int, vals [][]Attribute, pick []int, orig [][][]int32) {
	for i := range x.slots {
		st := &x.slots[i]
		for a := range st.cands {
			all := x.vars[st.v].spec.reqs[st.req].alts[a].all
			out := st.cands[a][:0]
			for _, d := range orig[i][a] {
				if x.hasValues(ks, vals, pick, i, a, d) {
					out = append(out, d)
				} else if all {
					out = out[:0]
					break
				}
			}
			st.cands[a] = out
		}
	}
}

// hasValues reports whether device d carries the chosen value of every
// constraint of ks that covers alternative a of slot i.
func (x *dfs) hasValues(ks []int, vals [][]Attribute, pick []int, i, a int, d int32) bool {
	dv := &x.r.inv.devs[d]
	for j, k := range ks {
		if !x.altCovered(k, i, a) {
			continue
		}
		if v, ok := Attr(dv.id.Driver, dv.d, x.r.rs.gcons[k].attr); !ok || !v.has(vals[j][pick[j]]) {
			return false
		}
	}
	return true
}

// groupBlame names the PodGroup constraints that cover vars when vars
// would fit without them (as use says what is taken): those constraints,
// not the devices, keep them out. It returns "" otherwise. The extra
// search runs only for rejections of covered claims.
func (r *reserver) groupBlame(vars []svar, use usage) string {
	var mask uint32
	for _, v := range vars {
		mask |= r.rs.claims[v.claim].gmask
	}
	if mask == 0 {
		return ""
	}
	r.noGroup = true
	_, out := r.search(vars, use, false)
	r.noGroup = false
	if out != found {
		return ""
	}
	var names []string
	for k := range r.rs.gcons {
		if mask&(1<<k) != 0 {
			c := &r.rs.gcons[k]
			kind := "matchAttribute"
			if c.distinct {
				kind = "distinctAttribute"
			}
			names = append(names, fmt.Sprintf("deviceConstraints[%d] (%s %s)", k, kind, c.attr))
		}
	}
	return "no free devices keep the PodGroup's " + strings.Join(names, ", ")
}
