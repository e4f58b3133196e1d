package placement

import (
	"maps"
	"slices"
)

// checkScoreRequests reports ScoreRequests rl (at field of object) that
// name a resource other than cpu and memory, or a negative quantity.
func checkScoreRequests(object func() string, field string, rl ResourceList) error {
	if len(rl) == 0 {
		return nil // the rule: no sorted copy of no keys
	}
	for _, r := range slices.Sorted(maps.Keys(rl)) {
		f := field + "[" + string(r) + "]"
		switch q := rl[r]; {
		case r != ResourceCPU && r != ResourceMemory:
			return Errorf(ErrInvalid, object(), f, "only cpu and memory may be set (upstream's non-zero requests)")
		case q < 0:
			return Errorf(ErrInvalid, object(), f, "%d is negative", q)
		}
	}
	return nil
}

// validScoreRequests is checkScoreRequests without building an error.
func validScoreRequests(rl ResourceList) bool {
	if len(rl) == 0 {
		return true // the rule, and ranging over a map costs an iterator
	}
	for r, q := range rl {
		if (r != ResourceCPU && r != ResourceMemory) || q < 0 {
			return false
		}
	}
	return true
}

// scoreDelta is how much p's ScoreRequests exceed its Requests in cpu and
// memory (a request may also be lowered: an entry below Requests counts
// negative).
func scoreDelta(p *Pod) [2]int64 {
	var d [2]int64
	for k, r := range [2]ResourceName{ResourceCPU, ResourceMemory} {
		if q, ok := p.ScoreRequests[r]; ok {
			d[k] = q - p.Requests[r]
		}
	}
	return d
}

// nonZero carries Pod.ScoreRequests into an upstream node score
// ([NodeScoring] with a Strategy): NodeResourcesFit's score reads the pod's
// non-zero requests and each node's sum of its pods' non-zero requests,
// where fit reads Requests. The solver keeps the usual rows and adds, per
// node, the cpu and memory by which the ScoreRequests of its pods exceed
// their Requests: for bound pods counted on first use of the node, for
// the attempt's members kept up to date as members are put and taken.
type nonZero struct {
	cpu, mem int                 // the columns of cpu and memory, -1 when untracked
	rows     map[int32]rowDelta  // rows whose pod has ScoreRequests
	bound    map[NodeID][2]int64 // nodes whose bound pods were summed
	attempt  map[NodeID][2]int64 // the attempt's members, per node
}

// rowDelta is a row's request row as the score reads it, and the
// difference from its requests.
type rowDelta struct {
	req   []int64
	delta [2]int64
}

// fitAdj is what the fit score reads beyond the request row: the member's
// score row (nil: its request row) and how much the node's pods' score
// requests exceed their requests in cpu and memory.
type fitAdj struct {
	req      []int64
	cpu, mem int64
}

// newNonZero returns the solver's nonZero, or nil when no bound pod of s and
// no member has ScoreRequests or the profile's fit score reads neither cpu
// nor memory: the score then reads Requests, as before.
func newNonZero(sv *solver) *nonZero {
	if sv.ns == nil || !sv.ns.readsCPUOrMemory() {
		return nil
	}
	nz := &nonZero{cpu: -1, mem: -1, rows: map[int32]rowDelta{}}
	if j, ok := sv.s.b.resIdx[ResourceCPU]; ok {
		nz.cpu = j
	}
	if j, ok := sv.s.b.resIdx[ResourceMemory]; ok {
		nz.mem = j
	}
	rows := int32(len(sv.g.Members) + len(sv.g.PodSets))
	for row := range rows {
		p := sv.pod(row)
		if p.ScoreRequests == nil {
			continue
		}
		d := scoreDelta(p)
		req := slices.Clone(sv.req(row))
		if nz.cpu >= 0 {
			req[nz.cpu] += d[0]
		}
		if nz.mem >= 0 {
			req[nz.mem] += d[1]
		}
		nz.rows[row] = rowDelta{req, d}
	}
	if len(nz.rows) == 0 && !sv.s.scoreReqs {
		return nil
	}
	if sv.s.scoreReqs {
		nz.bound = map[NodeID][2]int64{}
	}
	if len(nz.rows) > 0 {
		nz.attempt = map[NodeID][2]int64{}
	}
	return nz
}

// adj is the fit score's view of row on node id.
func (nz *nonZero) adj(s *Snapshot, row int32, id NodeID) fitAdj {
	if nz == nil {
		return fitAdj{}
	}
	var a fitAdj
	if r, ok := nz.rows[row]; ok {
		a.req = r.req
	}
	if nz.bound != nil {
		d, ok := nz.bound[id]
		if !ok {
			for p := range s.PodsOn(id) {
				if p.ScoreRequests != nil {
					pd := scoreDelta(p)
					d[0], d[1] = d[0]+pd[0], d[1]+pd[1]
				}
			}
			nz.bound[id] = d
		}
		a.cpu, a.mem = d[0], d[1]
	}
	if d, ok := nz.attempt[id]; ok {
		a.cpu, a.mem = a.cpu+d[0], a.mem+d[1]
	}
	return a
}

// add counts k more members of row on node id in the attempt (k < 0 takes
// them back).
func (nz *nonZero) add(row int32, id NodeID, k int64) {
	if nz == nil || nz.attempt == nil {
		return
	}
	r, ok := nz.rows[row]
	if !ok {
		return
	}
	d := nz.attempt[id]
	d[0], d[1] = d[0]+k*r.delta[0], d[1]+k*r.delta[1]
	nz.attempt[id] = d
}

// reset forgets the attempt's members.
func (nz *nonZero) reset() {
	if nz != nil {
		clear(nz.attempt)
	}
}
