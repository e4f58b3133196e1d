package placement

// runClasses sets up runs of members under reservers: when every reserver
// is a [ClassReserver], it sets sv.runHooks and numbers the rows in
// sv.hclass, a row sharing its predecessor's number (in member order)
// when the two share a class of prepareMembers' (before splitClasses) and
// every reserver gives them one non-empty key. Equal numbers thus mean
// interchangeable members; identical members apart in member order only
// make shorter runs.
func (sv *solver) runClasses() {
	hooks := make([]ClassReserver, len(sv.reservers))
	for k, r := range sv.reservers {
		cr, ok := r.(ClassReserver)
		if !ok {
			return
		}
		hooks[k] = cr
	}
	sv.hclass = make([]int32, len(sv.class))
	keys, prevKeys := make([]string, len(hooks)), make([]string, len(hooks))
	prev, next := int32(-1), int32(0)
	for _, m := range sv.members { // pod sets never come with reservers: a row is a member
		same := prev >= 0
		for k, h := range hooks {
			keys[k] = h.ClassKey(sv.pod(m.row))
			same = same && keys[k] != "" && keys[k] == prevKeys[k]
		}
		if same && sv.class[prev] == sv.class[m.row] {
			sv.hclass[m.row] = sv.hclass[prev]
		} else {
			sv.hclass[m.row], next = next, next+1
		}
		prev, keys, prevKeys = m.row, prevKeys, keys
	}
	sv.runHooks = hooks
}

// placeHookedRun places the members idx, interchangeable to the solver and
// to its ClassReservers, exactly as placeOne would one by one: nodes in
// placeRun's order (score descending, ID ascending), each filled with as
// many members as its room and the reservers admit, and never visited
// again in the run (a node the reservers refused stays refused; one
// filled is full). The nodes come by class when placeRun's would (see
// classRange), so a run visits the nodes it fills or is refused by rather
// than every node of p; the budget is spent as for a visit of every node.
func (sv *solver) placeHookedRun(p *Placement, a *attempt, idx []int) {
	m := &sv.members[idx[0]]
	if sv.missingOf(m) != "" || !sv.spend(int64(len(p.Nodes))) {
		return
	}
	want := int64(len(idx))
	var h []source
	if cls, lo, hi, ok := sv.classRange(p, m); ok {
		h = sv.classSources(m, want, cls, lo, hi)
	} else {
		h = sv.groupSources(p, m, want)
	}
	heapInit(h, sourceBefore)
	k := 0
	for k < len(idx) && len(h) > 0 && !sv.exhausted {
		id := h[0].next
		run := idx[k : k+int(min(h[0].cap, int64(len(idx)-k)))]
		n := sv.reserveRun(run, id)
		if n > 0 { // putUsage for each, the usage added at once
			sv.w.add(id, sv.req(m.row), int64(n))
		}
		for _, i := range run[:n] {
			a.node[i] = id
			a.seq = append(a.seq, i)
			sv.nz.add(sv.members[i].row, id, 1)
			if sv.pos != nil {
				sv.pos[sv.bound+i] = id
			}
		}
		a.placed += n
		k += n
		h = sv.advance(h, want, k)
	}
}

// reserveRun reserves members run on node id with every ClassReserver and
// returns how many all of them admitted; what a reserver admitted beyond
// a later one's count it takes back, last first. A rejection counts as
// fits counts a reserver's.
func (sv *solver) reserveRun(run []int, id NodeID) int {
	ni := NodeInfo{sv.s, sv.w, id}
	pods := sv.runPods[:0]
	for _, i := range run {
		pods = append(pods, sv.pod(sv.members[i].row))
	}
	sv.runPods = pods
	n, got := len(pods), sv.runGot[:0]
	for k, h := range sv.runHooks {
		c, rej := h.ReserveRun(pods[:n], ni)
		c = min(max(c, 0), n) // a count out of range reserved nothing more
		got = append(got, c)
		if c < n {
			n = c
			sv.hookCut = sv.hookCut || rej.Cut
			sv.failedIn(rej, "Options.Reservers", k, pods[c], ni)
		}
	}
	sv.runGot = got
	for k := len(got) - 1; k >= 0; k-- {
		if got[k] > n {
			unreserveRun(sv.runHooks[k], pods[n:got[k]], ni)
		}
	}
	return n
}

// unreserveRun takes back pods, the last reserved by r on node ni in that
// order: at once when r is a [RunUnreserver], else one by one, last
// first.
func unreserveRun(r Reserver, pods []*Pod, ni NodeInfo) {
	if ru, ok := r.(RunUnreserver); ok {
		ru.UnreserveRun(pods, ni)
		return
	}
	for x := len(pods) - 1; x >= 0; x-- {
		r.Unreserve(pods[x], ni)
	}
}
