package preemption

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// result is the victim set found for one placement.
type result struct {
	ok      bool
	victims []*unit // eviction order
	snap    *placement.Snapshot
	d       placement.Decision
	last    placement.Decision // with every candidate removed, when !ok
	name    string             // placement name
	rank    int                // placement rank
	// solved is set when d is placement.Solve's own decision on snap
	// (not one carried over from a snapshot with other pods or objects).
	solved bool
}

func podKeys(units []*unit) []placement.Key {
	n := 0
	for _, u := range units {
		n += len(u.v.Pods)
	}
	out := make([]placement.Key, 0, n)
	for _, u := range units {
		out = append(out, u.v.Pods...)
	}
	return out
}

// prefixBound returns the length of the shortest prefix of units whose
// removal leaves enough member slots in the placement, or false when even
// all of units do not. The placement is every node when inP is nil, else
// the nodes marked in inP, which nodes lists (nil: scan inP). No shorter
// prefix can let the group fit, and any victim set that does contains a
// unit at least as late in eviction order as the prefix's last.
func (f *finder) prefixBound(units *queue, nodes []placement.NodeID, inP []bool) (int, bool) {
	sl := f.newSlots(f.s, nodes, inP)
	k := 0
	for k < units.len() && !sl.enough() {
		sl.shift(units.upto(k + 1)[k], 1)
		k++
	}
	return k, sl.enough()
}

// vain returns the result of a placement where removing every one of
// units does not make room: the decision with all of them removed.
func (f *finder) vain(units []*unit, opts placement.Options) (result, error) {
	snap, err := f.without(units)
	if err != nil {
		return result{}, err
	}
	d, err := f.solve(snap, opts, false)
	return result{last: d}, err
}

// search finds the victims among units (in eviction order) that let the
// group fit with opts, starting from the prefix of length kmin (see
// prefixBound). inP, when set, marks the nodes of the placement opts is
// restricted to.
func (f *finder) search(opts placement.Options, units *queue, inP []bool, kmin int) (result, error) {
	var r result
	kmin = max(kmin, 1)
	lo, loSnap := 0, f.s
	hi, hiSnap := -1, (*placement.Snapshot)(nil)
	var hiDec placement.Decision
	for k, step := kmin, 1; ; k, step = min(k+step, units.len()), 2*step {
		snap, err := loSnap.Apply(placement.Change{Remove: podKeys(units.upto(k)[lo:k])})
		if err != nil {
			return r, err
		}
		d, err := f.solve(snap, opts, k < units.len()) // shown when all are removed
		if err != nil {
			return r, err
		}
		if d.Status == placement.Scheduled {
			hi, hiSnap, hiDec = k, snap, d
			break
		}
		lo, loSnap, r.last = k, snap, d
		if k == units.len() {
			return r, nil // never evict in vain
		}
	}
	for hi-lo > 1 && hi > kmin {
		mid := lo + (hi-lo)/2
		snap, err := loSnap.Apply(placement.Change{Remove: podKeys(units.upto(mid)[lo:mid])})
		if err != nil {
			return r, err
		}
		d, err := f.solve(snap, opts, true)
		if err != nil {
			return r, err
		}
		if d.Status == placement.Scheduled {
			hi, hiSnap, hiDec = mid, snap, d
		} else {
			lo, loSnap = mid, snap
		}
	}
	prefix := units.upto(hi)[:hi:hi]
	victims := f.reprieveFixed(hiSnap, hiDec, prefix)
	snap, dec, solved := hiSnap, hiDec, true
	if len(victims) < len(prefix) {
		var err error
		if snap, err = f.s.Apply(placement.Change{Remove: podKeys(victims)}); err != nil {
			return r, err
		}
		if dec, err = f.solve(snap, opts, true); err != nil {
			return r, err
		}
		if dec.Status != placement.Scheduled {
			// The solver packs differently with the pods given back; the
			// assignment found before still holds unless a caller filter
			// objects to a pod given back.
			dec, solved = hiDec, false
			if placement.Verify(snap, f.g, dec, opts.Filters...) != nil {
				victims, snap, solved = prefix, hiSnap, true
			}
		}
	}
	victims, snap, dec, changed, err := f.minimize(snap, dec, victims, opts, inP)
	if err != nil {
		return r, err
	}
	return result{ok: true, victims: victims, snap: snap, d: dec, solved: solved && !changed}, nil
}

// reprieveFixed gives back the units of prefix, most important first, whose
// pods fit beside the members on the nodes d assigned them to. It returns
// the units still evicted, in eviction order. Cost: O(assignments +
// pods of prefix) × resources.
func (f *finder) reprieveFixed(snap *placement.Snapshot, d placement.Decision, prefix []*unit) []*unit {
	R := len(f.res)
	// Per assigned node, R values of room then R of the members' demand,
	// in one slab (at most one pair per assignment, so it never grows);
	// pos[node] is 1 + the offset of its pair, 0 for a node not assigned.
	pos := f.nodeScratch(f.s.NumNodes()).pos
	var assigned []placement.NodeID
	defer func() {
		for _, id := range assigned {
			pos[id] = 0
		}
	}()
	at := func(id placement.NodeID) (int, bool) { o := int(pos[id]) - 1; return o, o >= 0 }
	slab := make([]int64, 0, 2*R*(len(d.Assignments)+len(d.PodSetAssignments)))
	// pair returns the members' demand on node id, making its pair.
	pair := func(id placement.NodeID) []int64 {
		o, ok := at(id)
		if !ok {
			o = len(slab)
			slab = snap.AppendFree(slab, id)
			slab = slab[:o+2*R]
			pos[id] = int32(o + 1)
			assigned = append(assigned, id)
		}
		return slab[o+R : o+2*R]
	}
	// The member of each assignment: found by walking the members along
	// the assignments, which usually follow them, else by name.
	i := 0
	var byKey map[placement.Key]int
	for _, a := range d.Assignments {
		for byKey == nil && i < len(f.g.Members) && (f.g.Members[i].Name != a.Pod.Name || f.g.Members[i].Namespace != a.Pod.Namespace) {
			i++
		}
		if i == len(f.g.Members) && byKey == nil {
			byKey = make(map[placement.Key]int, len(f.g.Members))
			for m := range f.g.Members {
				byKey[f.g.Members[m].Key()] = m
			}
		}
		if byKey != nil {
			i = byKey[a.Pod]
		}
		demand := pair(a.NodeID)
		for r, q := range f.memberReq[i*R : (i+1)*R] {
			demand[r] += q
		}
	}
	for _, a := range d.PodSetAssignments {
		i := len(f.g.Members) + slices.IndexFunc(f.g.PodSets, func(ps placement.PodSet) bool { return ps.Name == a.PodSet })
		demand := pair(a.NodeID)
		for r, q := range f.memberReq[i*R : (i+1)*R] {
			demand[r] += int64(a.Count) * q
		}
	}
	shift := func(u *unit, sign int64) {
		req := u.rows(f)
		for j, id := range u.nodeIDs(f.s) {
			o, ok := at(id)
			if !ok {
				continue
			}
			for r, q := range req[j*R : (j+1)*R] {
				slab[o+r] -= sign * q
			}
		}
	}
	fits := func(u *unit) bool {
		for _, id := range u.nodeIDs(f.s) {
			if o, ok := at(id); ok {
				avail, demand := slab[o:o+R], slab[o+R:o+2*R]
				for r := range R {
					if demand[r] > 0 && avail[r] < demand[r] {
						return false
					}
				}
			}
		}
		return true
	}
	keep := make([]bool, len(prefix))
	for i := len(prefix) - 1; i >= 0; i-- {
		u := prefix[i]
		shift(u, 1)
		if fits(u) {
			continue // given back
		}
		shift(u, -1)
		keep[i] = true
	}
	var out []*unit
	for i, u := range prefix {
		if keep[i] {
			out = append(out, u)
		}
	}
	return out
}

// minimize tries to give back each victim, most important first, with a
// full solve — but only when enough member slots remain after its return
// (see [slots]), which a packed cluster rarely has. It returns the victims
// left, the snapshot without them and the decision there, and whether it
// gave any back (the decision then comes from a snapshot with the same
// contents, not the one returned).
func (f *finder) minimize(snap *placement.Snapshot, d placement.Decision, victims []*unit, opts placement.Options, inP []bool) ([]*unit, *placement.Snapshot, placement.Decision, bool, error) {
	sl := f.slotsWithout(snap, victims, inP)
	keep := make([]bool, len(victims))
	cur, changed := snap, false
	for i := len(victims) - 1; i >= 0; i-- {
		u := victims[i]
		sl.shift(u, -1)
		if sl.enough() {
			bind := make([]placement.Pod, len(u.pods))
			for j, p := range u.pods {
				bind[j] = *p
			}
			trial, err := cur.Apply(placement.Change{Bind: bind})
			if err != nil {
				return nil, nil, d, false, err
			}
			td, err := f.solve(trial, opts, true)
			if err != nil {
				return nil, nil, d, false, err
			}
			if td.Status == placement.Scheduled {
				cur, d, changed = trial, td, true
				continue
			}
		}
		sl.shift(u, 1)
		keep[i] = true
	}
	if !changed {
		return victims, snap, d, false, nil
	}
	var out []*unit
	for i, u := range victims {
		if keep[i] {
			out = append(out, u)
		}
	}
	// The same contents as cur, without re-bound copies of pods.
	clean, err := f.s.Apply(placement.Change{Remove: podKeys(out)})
	return out, clean, d, true, err
}

// without returns the snapshot with every pod of units removed, derived
// from s with Apply so that hooks keyed to s (a topology tree) accept it.
func (f *finder) without(units []*unit) (*placement.Snapshot, error) {
	return f.s.Apply(placement.Change{Remove: podKeys(units)})
}
