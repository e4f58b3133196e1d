package placement

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/internal/arith"
)

// NewSnapshot validates nodes and bound pods and builds a snapshot. The
// result does not depend on the order of either slice.
//
// Every pod must be bound (NodeName set) to a node in nodes: pending pods are
// not cluster state; pass them to [Solve] in a [Group]. A node's bound pods
// may exceed its allocatable (a real cluster can be overcommitted); such a
// node simply has no room.
//
// The snapshot keeps the pods slice as given, without copying it: neither
// the slice nor the pods in it may be modified afterwards.
//
// Errors (a [*FieldError], nothing is built): an empty or duplicate node
// name; a negative allocatable; a taint effect other than NoSchedule,
// PreferNoSchedule or NoExecute; an empty or duplicate pod namespace/name;
// a pod with an empty or unknown nodeName; a negative request or one for
// "pods"; a toleration operator other than Equal or Exists (or empty), or
// an effect not one of the three (or empty); a node whose summed requests
// overflow int64. When several objects
// are bad, the one reported is the first in name order.
//
// Cost: O(nodes log nodes + pods), O(nodes + pods) for nodes in name order,
// reading each pod's requests once (fastest for pods grouped by node in node
// order); the pods are never sorted by name, nor indexed by node, until
// something asks for that order ([Snapshot.Pods], [Snapshot.GroupMembers],
// [Snapshot.PodsOn]: each builds its index once, O(pods), for every snapshot
// derived from this one). Pods in key order (namespace, then name, as a LIST
// from the API server returns them) repeat no key, which needs no index to
// show: the key index is then built, from the hashes taken here, by the first
// lookup by key ([Snapshot.Pod], [Snapshot.Apply], [Solve]'s check that no
// member is bound), likewise once.
func NewSnapshot(nodes []Node, pods []Pod) (*Snapshot, error) {
	b := &base{}
	b.nodes = slices.Clone(nodes)
	increasing := namesIncrease(b.nodes)
	if !increasing {
		slices.SortFunc(b.nodes, func(x, y Node) int { return strings.Compare(x.Name, y.Name) })
	}
	// Names first, then contents, so that the error reported does not
	// depend on the input order when two objects share a name. In name
	// order an empty name comes first, and a repeated one next to itself
	// (never, if the names increase).
	if len(b.nodes) > 0 && b.nodes[0].Name == "" {
		return nil, Errorf(ErrInvalid, "node #0", "metadata.name", "must not be empty")
	}
	for i := 1; !increasing && i < len(b.nodes); i++ {
		if n := &b.nodes[i]; b.nodes[i-1].Name == n.Name {
			return nil, Errorf(ErrDuplicate, nodeObj(n.Name), "metadata.name", "appears twice")
		}
	}
	// Each node's allocatable is looked up by the resources seen so far
	// (cheaper than iterating a small map) and its values kept for the
	// allocatable rows, which can only be laid out once every resource is
	// known; only a node with a resource not seen yet, or a bad entry, or
	// far fewer entries than resources seen, has its map iterated.
	col := map[ResourceName]int{ResourcePods: 0} // column of each resource in seen
	seen := []ResourceName{ResourcePods}
	// vals holds node i's quantities of seen[0], seen[1], … (MaxInt64 for
	// an absent pods; resources seen later are absent) in a row as long as
	// seen was then: vals[off[i]:off[i+1]]. While every row is as long as
	// the first, off stays nil and row i is vals[i*width:(i+1)*width]; the
	// rows can then become the allocatable matrix in place.
	var off []int
	var vals []int64
	width := 0
	b.allNodes = make([]NodeID, len(b.nodes))
	for i := range b.nodes {
		n := &b.nodes[i]
		alloc := n.Allocatable
		k := len(vals)
		ok := len(seen) <= 2*len(alloc)+2
		if ok {
			found := 0
			for _, r := range seen {
				q, have := alloc[r]
				if have {
					found++
					ok = ok && q >= 0
				} else if r == ResourcePods {
					q = math.MaxInt64
				}
				vals = append(vals, q)
			}
			ok = ok && found == len(alloc)
		}
		if !ok {
			if err := checkList(func() string { return nodeObj(n.Name) }, "status.allocatable", alloc, false); err != nil {
				return nil, err
			}
			for r := range alloc {
				if _, have := col[r]; !have {
					col[r] = len(seen)
					seen = append(seen, r)
				}
			}
			if i == 0 {
				// No row is laid out yet: in name order, as in the
				// allocatable matrix, the rows need no permuting when
				// no node adds a resource.
				slices.Sort(seen)
				for j, r := range seen {
					col[r] = j
				}
			}
			vals = append(vals[:k], make([]int64, len(seen))...)
			vals[k+col[ResourcePods]] = math.MaxInt64
			for r, q := range alloc {
				vals[k+col[r]] = q
			}
		}
		if i == 0 {
			width = len(vals)
			vals = slices.Grow(vals, (len(b.nodes)-1)*width)
		} else if off == nil && len(vals)-k != width {
			off = make([]int, len(b.nodes)+1)
			for j := range i + 1 {
				off[j] = j * width
			}
		}
		if off != nil {
			off[i+1] = len(vals)
		}
		if err := checkTaints(n); err != nil {
			return nil, err
		}
		b.allNodes[i] = NodeID(i)
	}
	b.setResources(seen)

	// One pass over the pods: node, key hash, usage. A pod that requests a
	// resource no node has adds it to the index, and the pass starts over
	// (it happens at most once per such resource).
	b.pods = pods
	keys := podKeys{hashes: make([]uint32, len(pods))}
	keys.counts, keys.shift = keyBuckets(len(pods))
	var used []int64
	var ok bool
	for pass := 0; ; pass++ {
		used = make([]int64, len(b.nodes)*len(b.res))
		var unknown []ResourceName
		if pass == 0 {
			ok, unknown = b.sumPods(used, &keys)
		} else {
			ok, unknown = b.sumPods(used, nil)
		}
		grew := false
		for _, r := range unknown {
			grew = addResource(col, &seen, r) || grew
		}
		if !ok || !grew {
			break
		}
		b.setResources(seen)
	}
	if ok && keys.from == len(pods) {
		b.waiting, b.keysAscend = keys.hashes, true
	} else if ok {
		for _, h := range keys.hashes[:keys.from] {
			keys.counts[h>>keys.shift]++
		}
		b.keyOnce.Do(func() { ok = b.indexCounted(keys.hashes, keys.counts, keys.shift, false) })
	}
	if !ok {
		return nil, b.firstBadPod()
	}
	b.allocRows(seen, off, vals, width)
	b.nodeTypes()

	R := len(b.res)
	s := &Snapshot{b: b, nPods: len(pods), scoreReqs: b.scoreReqs}
	s.used = make([][]int64, (len(b.nodes)+pageNodes-1)/pageNodes)
	for pg := range s.used {
		lo := pg * pageNodes * R
		hi := min(lo+pageNodes*R, len(used))
		s.used[pg] = used[lo:hi:hi]
	}
	s.usedSum = make([]int64, R)
	for row := range slices.Chunk(used, R) {
		for r, q := range row {
			s.usedSum[r] = arith.SatAdd(s.usedSum[r], q)
		}
	}
	return s, nil
}

// namesIncrease reports whether the names of nodes strictly increase.
// Nodes usually come so, and checking costs less than sorting, whose
// comparator copies two nodes per call.
func namesIncrease(nodes []Node) bool {
	for i := 1; i < len(nodes); i++ {
		if nodes[i].Name <= nodes[i-1].Name {
			return false
		}
	}
	return true
}

// column is a resource a request may name, with its column in a usage row.
type column struct {
	j int
	r ResourceName
}

// podKeys is what NewSnapshot's pass learns of the pods' keys: hashes[i]
// is pod i's key hash; the keys of pods[:from] strictly increase
// (namespace, then name), so no two are equal, and from == len(pods) when
// every key does; counts[d] is the number of hashes h with h>>shift == d
// among pods[from:] (those before are counted only if needed).
type podKeys struct {
	hashes []uint32
	counts []int32
	shift  int
	from   int
}

// sumPods is one pass of NewSnapshot over b.pods: it adds each pod's
// requests, and 1 for the pod itself, to its node's row of used (R values per
// node, R = len(b.res)) and, when keys is not nil, stores each pod's key hash
// in keys (see [podKeys]), with whether the keys increase. It reports whether
// every pod is valid as far as the tracked resources tell (node known, name
// not empty, requests neither negative nor for "pods" nor unnamed, no node's
// sum overflowing int64), and the requested resources that b.res lacks, each
// once.
//
// It is NewSnapshot's inner loop; the rare cases (a node not next in name
// order, requests not all tracked) are left to helpers.
func (b *base) sumPods(used []int64, keys *podKeys) (ok bool, unknown []ResourceName) {
	R, podsR := len(b.res), b.podsR
	// The resources a request may name, with their columns: every tracked
	// one but pods, and but "" (a pod naming it is invalid, and found by
	// iterating its map).
	track := make([]column, 0, R)
	for j, r := range b.res {
		if j != podsR && r != "" {
			track = append(track, column{j, r})
		}
	}
	// sign ORs every request and every sum after adding it: requests are
	// never negative and sums start at 0, so it turns negative exactly when
	// a request is negative or a sum first overflows (two values up to
	// MaxInt64 sum to less than 2^64, which wraps to negative; what a sum
	// does afterwards no longer matters).
	var sign int64
	ok = true
	// Bound pods usually come grouped by node, often in node order: the
	// last node found, then the next one by name, save most of the name
	// lookups. Their namespace is often the previous pod's too.
	lastName, lastID, row := "", -1, -1 // row: lastID's offset in used
	lastNs, nsh := "", nsHash("")
	// lastKey is the last pod's name while the keys increase: any name
	// follows "" in a namespace after the last.
	ordered, lastKey, from := true, "", len(b.pods)
	var hashes []uint32
	var counts []int32
	shift := 0
	if keys != nil {
		hashes, counts, shift = keys.hashes, keys.counts, keys.shift
	}
	pods := b.pods
	for i := range pods {
		p := &pods[i]
		// Hashing here, between the map look-ups, costs less than in a
		// loop of its own: it runs while they wait for memory, and the
		// first look at the names is the cheapest.
		if hashes != nil {
			if p.Namespace != lastNs {
				if ordered && p.Namespace < lastNs {
					ordered, from = false, i
				}
				lastNs, nsh, lastKey = p.Namespace, nsHash(p.Namespace), ""
			}
			if ordered {
				if p.Name > lastKey {
					lastKey = p.Name
				} else {
					ordered, from = false, i
				}
			}
			h := nameHash(nsh, p.Name)
			hashes[i] = h
			if !ordered {
				counts[h>>shift]++
			}
		}
		if row < 0 || p.NodeName != lastName {
			id, known := b.nextNode(lastID, p.NodeName)
			if !known {
				ok = false
				continue
			}
			lastName, lastID, row = p.NodeName, id, id*R
		}
		if p.Name == "" || (p.Tolerations != nil && !validTolerations(p.Tolerations)) {
			ok = false
		}
		if p.ScoreRequests != nil {
			b.scoreReqs = true
			ok = ok && validScoreRequests(p.ScoreRequests)
		}
		used[row+podsR]++
		// Looking up each tracked resource is cheaper than iterating a
		// small map; the map is iterated only when it holds a name not
		// looked up (an unknown resource, "pods", "") or when it is much
		// smaller than the resource index.
		rl := p.Requests
		n := len(rl)
		if n == 0 {
			continue
		}
		if len(track) <= 2*n+2 {
			found := 0
			for _, c := range track {
				if q, have := rl[c.r]; have {
					j := row + c.j
					used[j] += q
					sign |= q | used[j]
					// Once every request is found, the other columns
					// need no look-up.
					if found++; found == n {
						break
					}
				}
			}
			if found == n {
				continue
			}
		}
		valid, s := b.addOther(rl, used[row:row+R], &unknown, len(track) > 2*n+2)
		ok = ok && valid
		sign |= s
	}
	if keys != nil {
		keys.from = from
	}
	return ok && sign >= 0, unknown
}

// nextNode finds the node named name for sumPods: node last+1 when it has
// that name (pods grouped by node in node order, when the name index is
// never needed), else through byName.
func (b *base) nextNode(last int, name string) (int, bool) {
	if n := last + 1; n < len(b.nodes) && b.nodes[n].Name == name {
		return n, true
	}
	id, known := b.byName(name)
	return int(id), known
}

// addOther is sumPods on a pod whose requests rl are not all tracked, or
// far fewer than the tracked resources: it iterates rl, adding to row the
// tracked requests when add is set (sumPods has added them otherwise), and
// appends to unknown the names b.res lacks, each once. It reports whether
// every known name is valid (neither "pods" nor ""), and the sign of the
// requests and sums it added, as sumPods counts them.
func (b *base) addOther(rl ResourceList, row []int64, unknown *[]ResourceName, add bool) (valid bool, sign int64) {
	valid = true
	for r, q := range rl {
		j, have := b.resIdx[r]
		if !have {
			if !slices.Contains(*unknown, r) {
				*unknown = append(*unknown, r)
			}
			continue
		}
		valid = valid && j != b.podsR && r != ""
		if add {
			row[j] += q
			sign |= q | row[j]
		}
	}
	return valid, sign
}

// setResources makes the resource index from names, which are distinct.
func (b *base) setResources(names []ResourceName) {
	b.res = slices.Sorted(slices.Values(names))
	b.resIdx = make(map[ResourceName]int, len(b.res))
	for i, r := range b.res {
		b.resIdx[r] = i
	}
	b.podsR = b.resIdx[ResourcePods]
	// A failing solve's reasons name them: built once per snapshot, not
	// once per solve.
	b.insufficient = make([]string, len(b.res))
	for r, name := range b.res {
		b.insufficient[r] = "Insufficient " + string(name)
	}
	b.insufficient[b.podsR] = "Too many pods"
}

// addResource adds r to seen, with its column in col, unless it is there
// already; it reports whether it added it.
func addResource(col map[ResourceName]int, seen *[]ResourceName, r ResourceName) bool {
	if _, have := col[r]; have {
		return false
	}
	col[r] = len(*seen)
	*seen = append(*seen, r)
	return true
}

// allocRows fills the allocatable rows and the per-resource aggregates
// from the nodes' quantities as NewSnapshot kept them: by the columns of
// seen, node i's in vals[off[i]:off[i+1]], or vals[i*width:(i+1)*width]
// when off is nil.
func (b *base) allocRows(seen []ResourceName, off []int, vals []int64, width int) {
	R := len(b.res)
	perm := make([]int, len(seen))
	for k, r := range seen {
		perm[k] = b.resIdx[r]
	}
	if off == nil && width == R {
		// Rows as long as the matrix's: each one's values move to their
		// columns in place, unless all are there (perm, a permutation, is
		// sorted when it is the identity).
		b.alloc = vals[: len(b.nodes)*R : len(b.nodes)*R]
		if !slices.IsSorted(perm) {
			tmp := make([]int64, R)
			for row := range slices.Chunk(b.alloc, R) {
				copy(tmp, row)
				for k, q := range tmp {
					row[perm[k]] = q
				}
			}
		}
	} else {
		b.alloc = make([]int64, len(b.nodes)*R)
		for i := range b.nodes {
			lo, hi := i*width, (i+1)*width
			if off != nil {
				lo, hi = off[i], off[i+1]
			}
			row := b.alloc[i*R : (i+1)*R]
			for k, q := range vals[lo:hi] {
				row[perm[k]] = q
			}
		}
	}
	b.largest = make([]int64, R)
	b.allocSum = make([]int64, R)
	for row := range slices.Chunk(b.alloc, R) {
		for r, q := range row {
			b.largest[r] = max(b.largest[r], q)
			b.allocSum[r] = arith.SatAdd(b.allocSum[r], q)
		}
	}
}

// firstBadPod finds the error the single pass detected, examining the pods
// in key order (names first, then contents) so that the error reported never
// depends on the input order.
func (b *base) firstBadPod() error {
	order := make([]*Pod, len(b.pods))
	for i := range b.pods {
		order[i] = &b.pods[i]
	}
	slices.SortFunc(order, func(x, y *Pod) int { return x.Key().Compare(y.Key()) })
	for i, p := range order {
		if p.Name == "" {
			return Errorf(ErrInvalid, podObj(p.Key()), "metadata.name", "must not be empty")
		}
		if i > 0 && order[i-1].Key() == p.Key() {
			return Errorf(ErrDuplicate, podObj(p.Key()), "metadata.name", "appears twice")
		}
	}
	for _, p := range order {
		if err := checkPod(p); err != nil {
			return err
		}
		if _, ok := b.byName(p.NodeName); !ok {
			if p.NodeName == "" {
				return Errorf(ErrInvalid, podObj(p.Key()), "spec.nodeName", "is empty: a snapshot holds bound pods only; pass pending pods to Solve")
			}
			return Errorf(ErrNotFound, podObj(p.Key()), "spec.nodeName", "node %q is not in the snapshot", p.NodeName)
		}
	}
	// Overflow: re-add in key order so that the pod named is the first,
	// in that order, to push its node past int64. Sums are kept by name:
	// the pass may have stopped before it indexed every resource a pod
	// requests (one no node lists).
	used := make([]map[ResourceName]int64, len(b.nodes))
	for _, p := range order {
		id, _ := b.byName(p.NodeName)
		if used[id] == nil {
			used[id] = make(map[ResourceName]int64, len(p.Requests))
		}
		row := used[id]
		for _, r := range slices.Sorted(maps.Keys(p.Requests)) {
			if row[r] > math.MaxInt64-p.Requests[r] {
				return Errorf(ErrInvalid, podObj(p.Key()), "requests["+string(r)+"]", "sum of requests on node %q overflows int64", p.NodeName)
			}
		}
		for r, q := range p.Requests {
			row[r] += q
		}
	}
	return Errorf(ErrInvalid, "pods", "", "invalid input")
}

// checkList validates a resource list: names not empty, quantities not
// negative, and for a pod's requests no "pods". When several entries are
// bad it reports the first in name order, never in map order. object names
// the owner only on error: formatting it for every pod of a large snapshot
// would cost more than the check.
func checkList(object func() string, field string, rl ResourceList, requests bool) error {
	bad := func(r ResourceName, q int64) bool { return r == "" || q < 0 || (requests && r == ResourcePods) }
	ok := true
	for r, q := range rl {
		if bad(r, q) {
			ok = false
			break
		}
	}
	if ok {
		return nil
	}
	obj := object()
	for _, r := range slices.Sorted(maps.Keys(rl)) {
		switch q := rl[r]; {
		case r == "":
			return Errorf(ErrInvalid, obj, field, "resource name must not be empty")
		case q < 0:
			return Errorf(ErrInvalid, obj, field+"["+string(r)+"]", "%d is negative", q)
		case requests && r == ResourcePods:
			return Errorf(ErrInvalid, obj, field+"[pods]", "a pod does not request the pods resource; each pod counts 1 implicitly")
		}
	}
	return nil
}

// checkPod validates the fields of a pod that do not depend on the cluster.
func checkPod(p *Pod) error {
	if p.Name == "" {
		return Errorf(ErrInvalid, podObj(p.Key()), "metadata.name", "must not be empty")
	}
	obj := func() string { return podObj(p.Key()) }
	if err := checkList(obj, "requests", p.Requests, true); err != nil {
		return err
	}
	if err := checkTolerations(obj, "spec.tolerations", p.Tolerations); err != nil {
		return err
	}
	return checkScoreRequests(obj, "scoreRequests", p.ScoreRequests)
}
