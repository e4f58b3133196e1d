package placement

import (
	"cmp"
	"github.com/gangsched/gangsched/internal/arith"
	"iter"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// NodeID is a node's dense index in a [Snapshot]: 0..NumNodes()-1 in node
// name order. IDs are stable across every snapshot derived with
// [Snapshot.Apply], because Apply never adds or removes nodes.
type NodeID int32

// pageNodes is how many nodes share one copy-on-write page of usage.
const pageNodes = 64

// Snapshot is an immutable view of a cluster: nodes and the pods bound to
// them. Build one with [NewSnapshot]; derive what-if variants with
// [Snapshot.Apply], which returns a new snapshot that shares every unchanged
// part with its parent and leaves the parent untouched. A Snapshot is safe
// for concurrent use: any number of goroutines may read it, Solve on it and
// Apply to it at once.
//
// Node and pod values handed to NewSnapshot and Apply become owned by the
// snapshot: their maps and slices must not be modified afterwards, and
// pointers a snapshot returns must be treated as read-only.
type Snapshot struct {
	b *base
	// used holds each node's requested resources, R values per node, in
	// pages of pageNodes nodes; a derived snapshot copies only the pages it
	// changes.
	used [][]int64
	// Overlay of pod changes relative to b.pods; nil when empty.
	removed *btree.BTreeG[int32]    // indexes into b.pods
	added   *btree.BTreeG[keyedPod] // by key
	addedOn *btree.BTreeG[nodePod]  // by node, then key
	// addedGroup indexes the added pods that have a SchedulingGroup by
	// (namespace, group, name), so that GroupMembers costs O(log + members)
	// however many pods a chain of Apply calls has added.
	addedGroup *btree.BTreeG[*Pod]
	nPods      int
	// usedSum is Σ requested per resource over all nodes.
	usedSum []int64
	// cls is the class index (see nodeClasses), built on first use.
	cls atomic.Pointer[nodeClasses]
	// cloning guards the overlay trees while Apply clones them: btree's
	// Clone writes to the tree it copies, and Apply may run on one parent
	// from several goroutines.
	cloning sync.Mutex
}

// keyedPod carries its key by value, so that a lookup probe costs no
// allocation.
type keyedPod struct {
	k Key
	p *Pod
}

func lessKeyed(a, b keyedPod) bool { return a.k.Compare(b.k) < 0 }

type nodePod struct {
	node NodeID
	pod  *Pod
}

func lessPod(a, b *Pod) bool { return a.Key().Compare(b.Key()) < 0 }

func lessGroupMember(a, b *Pod) bool { return compareGroupMember(a, b) < 0 }
func lessNodePod(a, b nodePod) bool {
	if a.node != b.node {
		return a.node < b.node
	}
	return lessPod(a.pod, b.pod)
}

// base is the part of a snapshot that never changes after NewSnapshot.
type base struct {
	nodes      []Node
	nameOnce   sync.Once
	nameToNode map[string]NodeID // built on first use, by byName
	res        []ResourceName    // sorted; always contains ResourcePods
	resIdx     map[ResourceName]int
	podsR      int     // index of ResourcePods in res
	alloc      []int64 // len(nodes)*len(res)

	// pods is the caller's slice, kept as given (no copy, no sort): a
	// pod's base index is its position there.
	pods []Pod
	// The key index: the pods' key hashes in buckets by their top bits
	// (h >> keyShift), bucket d being keyHash[keyEnd[d-1]:keyEnd[d]]
	// (from 0 for d = 0), sorted by hash only when longer than
	// smallBucket; keyPos[i] is the pod whose key hashes to keyHash[i].
	// NewSnapshot builds it under keyOnce when it needs it to find a
	// repeated key. Pods in key order repeat none: their hashes wait, in
	// waiting, for the first lookup by key (see podIndex).
	keyOnce  sync.Once
	waiting  []uint32
	keyHash  []uint32
	keyPos   []int32
	keyEnd   []int32
	keyShift int
	// keyBits[d] has bit h%64 set for every hash h of bucket d: most
	// lookups of a key that is not there (a pending member's, as Solve
	// checks each one) end on this one word instead of a bucket scan.
	keyBits  []uint64
	allNodes []NodeID
	largest  []int64  // per resource, the largest allocatable of any node
	allocSum []int64  // per resource, Σ allocatable (saturating)
	typeOf   []int32  // static type of each node (see nodeTypes)
	typeRep  []NodeID // first node of each type

	// Orders built on first use: most decisions never need them.
	sortOnce  sync.Once
	sorted    []int32 // base pods by key
	groupOnce sync.Once
	grouped   []int32 // base pods with a group, by (namespace, group, name)
	nodeOnce  sync.Once
	nodeStart []int32 // pods on node n: nodePods[nodeStart[n]:nodeStart[n+1]]
	nodePods  []int32 // in input order; PodsOn sorts a node's few pods

	// Victim index of boundgroups.go, built on first use.
	boundOnce sync.Once
	bound     *boundIndex
}

// byName returns the ID of the node named name. Its index is built on
// first use, O(nodes): NewSnapshot needs none when pods come grouped by
// node in name order.
func (b *base) byName(name string) (NodeID, bool) {
	b.nameOnce.Do(func() {
		b.nameToNode = make(map[string]NodeID, len(b.nodes))
		for i := range b.nodes {
			b.nameToNode[b.nodes[i].Name] = NodeID(i)
		}
	})
	id, ok := b.nameToNode[name]
	return id, ok
}

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
// name; a negative allocatable; an empty or duplicate pod namespace/name; a
// pod with an empty or unknown nodeName; a negative request or one for
// "pods"; a node whose summed requests overflow int64. When several objects
// are bad, the one reported is the first in name order.
//
// Cost: O(nodes log nodes + pods), O(nodes + pods) for nodes in name
// order, reading each pod's requests once (fastest for pods grouped by node
// in node order); the pods are never sorted by name, nor indexed by node,
// until something asks
// for that order ([Snapshot.Pods], [Snapshot.GroupMembers],
// [Snapshot.PodsOn]: each builds its index once, O(pods), for every
// snapshot derived from this one). Pods in key order (namespace, then
// name, as a LIST from the API server returns them) repeat no key, which
// needs no index to show: the key index is then built, from the hashes
// taken here, by the first lookup by key ([Snapshot.Pod], [Snapshot.Apply],
// [Solve]'s check that no member is bound), likewise once.
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
		b.waiting = keys.hashes
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
	s := &Snapshot{b: b, nPods: len(pods)}
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
// requests, and 1 for the pod itself, to its node's row of used (R values
// per node, R = len(b.res)) and, when keys is not nil, stores each pod's
// key hash in keys (see [podKeys]), with whether the keys increase. It
// reports whether
// every pod is valid as far as the tracked resources tell (node known, name
// not empty, requests neither negative nor for "pods" nor unnamed, no
// node's sum overflowing int64), and the requested resources that b.res
// lacks, each once.
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
		if p.Name == "" {
			ok = false
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

// smallBucket is the longest bucket of the key index that is left
// unsorted: scanning it costs less than sorting it (whose compares
// mispredict), and it is checked for duplicates pair by pair.
const smallBucket = 32

// indexKeys makes the key index of hashes, the pods' key hashes in input
// order. It reports false when two pods share a key, which it does not
// look for when told that the keys are unique. Cost O(pods) for
// hashes that spread; a bucket of k > smallBucket is sorted in
// O(k log k). The order inside a bucket never reaches an output.
func (b *base) indexKeys(hashes []uint32, unique bool) bool {
	counts, shift := keyBuckets(len(hashes))
	for _, h := range hashes {
		counts[h>>shift]++
	}
	return b.indexCounted(hashes, counts, shift, unique)
}

// keyBuckets returns zero counts for the buckets of the key index of n
// pods, and the shift that maps a key hash to its bucket. Buckets of 4-8
// hashes keep the counts in a small cache.
func keyBuckets(n int) (counts []int32, shift int) {
	top := max(bits.Len(uint(n))-3, 0)
	return make([]int32, 1<<top), 32 - top
}

// indexCounted is indexKeys once the hashes are counted in their buckets:
// end[d] is the number of hashes h with h>>shift == d. It takes end over as
// the index's bucket ends.
func (b *base) indexCounted(hashes []uint32, end []int32, shift int, unique bool) bool {
	// A counting sort on the top bits. (Sorting in place, American flag
	// style, saves the copy but chains one cache miss to the next: slower.)
	// Each bucket's count becomes its start, which the scatter advances to
	// its end.
	sum := int32(0)
	for d, c := range end {
		end[d] = sum
		sum += c
	}
	b.keyHash = make([]uint32, len(hashes))
	b.keyPos = make([]int32, len(hashes))
	b.keyEnd, b.keyShift = end, shift
	b.keyBits = make([]uint64, len(end))
	for i, h := range hashes {
		d := h >> shift
		b.keyHash[end[d]], b.keyPos[end[d]] = h, int32(i)
		end[d]++
		b.keyBits[d] |= 1 << (h % 64)
	}
	var run []hashPos
	lo := 0
	for _, hi := range end {
		hs, ps := b.keyHash[lo:hi], b.keyPos[lo:hi]
		lo = int(hi)
		if len(hs) <= smallBucket {
			if unique {
				continue
			}
			// Two equal hashes set the same bit of a word: the pairs
			// are compared only when bits clash (a bucket in five), as
			// their loops mispredict.
			var mask, clash uint64
			for _, h := range hs {
				bit := uint64(1) << (h % 64)
				clash |= mask & bit
				mask |= bit
			}
			if clash == 0 {
				continue
			}
			for i := 1; i < len(hs); i++ {
				for j := range i {
					if hs[i] == hs[j] && b.pods[ps[i]].Key() == b.pods[ps[j]].Key() {
						return false
					}
				}
			}
			continue
		}
		run = run[:0]
		for k := range hs {
			run = append(run, hashPos{hs[k], ps[k]})
		}
		slices.SortFunc(run, func(x, y hashPos) int { return cmp.Compare(x.h, y.h) })
		for k, e := range run {
			hs[k], ps[k] = e.h, e.i
		}
		// Only pods of equal hash can share a key.
		for i := 0; !unique && i < len(hs); {
			j := i + 1
			for j < len(hs) && hs[j] == hs[i] {
				j++
			}
			if j-i > 1 && !b.uniqueKeys(ps[i:j]) {
				return false
			}
			i = j
		}
	}
	return true
}

// uniqueKeys reports whether the pods at positions ps have distinct keys.
func (b *base) uniqueKeys(ps []int32) bool {
	same := slices.Clone(ps)
	slices.SortFunc(same, b.cmpKey)
	for k := 1; k < len(same); k++ {
		if b.pods[same[k]].Key() == b.pods[same[k-1]].Key() {
			return false
		}
	}
	return true
}

// setResources makes the resource index from names, which are distinct.
func (b *base) setResources(names []ResourceName) {
	b.res = slices.Sorted(slices.Values(names))
	b.resIdx = make(map[ResourceName]int, len(b.res))
	for i, r := range b.res {
		b.resIdx[r] = i
	}
	b.podsR = b.resIdx[ResourcePods]
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
	// in that order, to push its node past int64.
	R := len(b.res)
	used := make([]int64, len(b.nodes)*R)
	for _, p := range order {
		id, _ := b.byName(p.NodeName)
		row := used[int(id)*R : int(id)*R+R]
		for _, r := range slices.Sorted(maps.Keys(p.Requests)) {
			j := b.resIdx[r]
			if row[j] > math.MaxInt64-p.Requests[r] {
				return Errorf(ErrInvalid, podObj(p.Key()), "requests["+string(r)+"]", "sum of requests on node %q overflows int64", p.NodeName)
			}
		}
		for r, q := range p.Requests {
			row[b.resIdx[r]] += q
		}
	}
	return Errorf(ErrInvalid, "pods", "", "invalid input")
}

// hashPos is a pod key's hash and the pod's position.
type hashPos struct {
	h uint32
	i int32
}

// keyHash hashes a pod key eight bytes at a time (FNV-1a's byte loop cost
// a third of a snapshot's build). It is deterministic, so the index never
// depends on the process. The key index buckets by the top bits, which
// hashString's last multiply already makes depend on every input bit: a
// further finaliser (MurmurHash3's fmix64) cost half the hashing. 32 bits
// halve the index (100,000 keys share a hash about once, and then their
// keys are compared).
func keyHash(ns, name string) uint32 { return nameHash(nsHash(ns), name) }

// nsHash and nameHash are keyHash in two steps, so that pods of one
// namespace share the first.
func nsHash(ns string) uint64 { return hashString(0x9e3779b97f4a7c15, ns) }

func nameHash(nsh uint64, name string) uint32 { return uint32(hashString(nsh, name) >> 32) }

// hashString mixes s into h. The tail of fewer than eight bytes is read as
// its first and last four (or first, middle and last) bytes together with
// its length, which determine it.
func hashString(h uint64, s string) uint64 {
	const m = 0x9ddfea08eb382d69
	for ; len(s) >= 8; s = s[8:] {
		h = (h ^ le64(s)) * m
		h ^= h >> 31
	}
	var t uint64
	switch n := len(s); {
	case n >= 4:
		t = le32(s) | le32(s[n-4:])<<32
	case n > 0:
		t = uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	h = (h ^ t) * m
	h ^= h>>31 ^ uint64(len(s))
	h *= m
	return h ^ h>>29
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

func compareGroupMember(a, b *Pod) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.SchedulingGroup, b.SchedulingGroup); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
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
	return checkList(func() string { return podObj(p.Key()) }, "requests", p.Requests, true)
}

// addUsage adds p's requests (and its pod count) to node n in page, which
// the caller owns. On overflow it changes nothing and names the first
// overflowing resource in name order.
func (s *Snapshot) addUsage(n NodeID, p *Pod, page []int64) error {
	R := len(s.b.res)
	row := page[(int(n)%pageNodes)*R : (int(n)%pageNodes+1)*R]
	overflows := func(r ResourceName) bool { return row[s.b.resIdx[r]] > math.MaxInt64-p.Requests[r] }
	for r := range p.Requests {
		if overflows(r) {
			for _, r := range slices.Sorted(maps.Keys(p.Requests)) {
				if overflows(r) {
					return Errorf(ErrInvalid, podObj(p.Key()), "requests["+string(r)+"]", "sum of requests on node %q overflows int64", s.b.nodes[n].Name)
				}
			}
		}
	}
	for r, q := range p.Requests {
		row[s.b.resIdx[r]] += q
	}
	row[s.b.podsR]++
	return nil
}

func (s *Snapshot) subUsage(n NodeID, p *Pod, page []int64) {
	R := len(s.b.res)
	row := page[(int(n)%pageNodes)*R : (int(n)%pageNodes+1)*R]
	// A bound pod requests no resource outside res (NewSnapshot adds
	// them, Apply refuses them): a lookup of each of the few resources
	// costs half a range over the pod's map.
	for r, name := range s.b.res {
		row[r] -= p.Requests[name]
	}
	row[s.b.podsR]--
}

// NumNodes returns the number of nodes.
func (s *Snapshot) NumNodes() int { return len(s.b.nodes) }

// NumPods returns the number of bound pods.
func (s *Snapshot) NumPods() int { return s.nPods }

// Node returns the node with the given ID. It panics if id is out of range,
// like a slice index; IDs come from this snapshot.
func (s *Snapshot) Node(id NodeID) *Node { return &s.b.nodes[id] }

// NodeID returns the ID of the named node.
func (s *Snapshot) NodeID(name string) (NodeID, bool) {
	id, ok := s.b.byName(name)
	return id, ok
}

// Resources returns the resource names this snapshot tracks, sorted. It
// always includes [ResourcePods].
func (s *Snapshot) Resources() []ResourceName { return slices.Clone(s.b.res) }

func (s *Snapshot) usedRow(id NodeID) []int64 {
	R := len(s.b.res)
	o := (int(id) % pageNodes) * R
	return s.used[int(id)/pageNodes][o : o+R]
}

func (s *Snapshot) allocRow(id NodeID) []int64 {
	R := len(s.b.res)
	return s.b.alloc[int(id)*R : int(id)*R+R]
}

// Allocatable returns node id's allocatable quantity of r (math.MaxInt64 for
// ResourcePods when the node sets no limit); 0 for a resource s does not
// track. Like [Snapshot.Node], it panics if id is out of range.
func (s *Snapshot) Allocatable(id NodeID, r ResourceName) int64 {
	i, ok := s.b.resIdx[r]
	if !ok {
		return 0
	}
	return s.allocRow(id)[i]
}

// Requested returns the sum of r requested by the pods bound to node id (for
// ResourcePods, their number). Like [Snapshot.Node], it panics if id is
// out of range.
func (s *Snapshot) Requested(id NodeID, r ResourceName) int64 {
	i, ok := s.b.resIdx[r]
	if !ok {
		return 0
	}
	return s.usedRow(id)[i]
}

// Free returns Allocatable minus Requested for r on node id; it is negative
// on an overcommitted node. Like [Snapshot.Node], it panics if id is out
// of range.
func (s *Snapshot) Free(id NodeID, r ResourceName) int64 {
	i, ok := s.b.resIdx[r]
	if !ok {
		return 0
	}
	return s.allocRow(id)[i] - s.usedRow(id)[i]
}

// podIndex finds k among the base pods through the hash index, which it
// builds on first use from the hashes NewSnapshot kept when the keys were
// in order.
func (b *base) podIndex(k Key) (int, bool) {
	return b.podIndexHashed(k, keyHash(k.Namespace, k.Name))
}

// podIndexHashed is podIndex for k, whose key hash is h.
func (b *base) podIndexHashed(k Key, h uint32) (int, bool) {
	b.keyOnce.Do(func() {
		b.indexKeys(b.waiting, true)
		b.waiting = nil
	})
	return b.findKey(k, h)
}

// findKey finds k, whose key hash is h, in the key index.
func (b *base) findKey(k Key, h uint32) (int, bool) {
	d, lo := h>>b.keyShift, int32(0)
	if b.keyBits[d]&(1<<(h%64)) == 0 {
		return 0, false
	}
	if d > 0 {
		lo = b.keyEnd[d-1]
	}
	hs, ps := b.keyHash[lo:b.keyEnd[d]], b.keyPos[lo:b.keyEnd[d]]
	sorted := len(hs) > smallBucket
	i := 0
	if sorted {
		i, _ = slices.BinarySearch(hs, h)
	}
	for ; i < len(hs); i++ {
		if hs[i] != h {
			if sorted {
				break
			}
			continue
		}
		if p := &b.pods[ps[i]]; p.Namespace == k.Namespace && p.Name == k.Name {
			return int(ps[i]), true
		}
	}
	return 0, false
}

// byKey returns the base pods' positions in key order, sorting on first use.
func (b *base) byKey() []int32 {
	b.sortOnce.Do(func() {
		b.sorted = make([]int32, len(b.pods))
		for i := range b.sorted {
			b.sorted[i] = int32(i)
		}
		slices.SortFunc(b.sorted, func(x, y int32) int { return b.pods[x].Key().Compare(b.pods[y].Key()) })
	})
	return b.sorted
}

// byGroup returns the positions of the base pods that belong to a group, by
// (namespace, group, name), sorting on first use.
func (b *base) byGroup() []int32 {
	b.groupOnce.Do(func() {
		for i := range b.pods {
			if b.pods[i].SchedulingGroup != "" {
				b.grouped = append(b.grouped, int32(i))
			}
		}
		slices.SortFunc(b.grouped, func(x, y int32) int { return compareGroupMember(&b.pods[x], &b.pods[y]) })
	})
	return b.grouped
}

// byNode returns the per-node index of the base pods, building it on first
// use (only PodsOn needs it): the pods on node n are
// nodePods[start[n]:start[n+1]], in input order (a counting sort).
func (b *base) byNode() (start, nodePods []int32) {
	b.nodeOnce.Do(func() {
		podNode := make([]NodeID, len(b.pods))
		b.nodeStart = make([]int32, len(b.nodes)+1)
		lastName, lastID := "", NodeID(-1)
		for i := range b.pods {
			if name := b.pods[i].NodeName; lastID < 0 || name != lastName {
				lastName = name
				lastID, _ = b.byName(name)
			}
			podNode[i] = lastID
			b.nodeStart[lastID+1]++
		}
		for i := 1; i < len(b.nodeStart); i++ {
			b.nodeStart[i] += b.nodeStart[i-1]
		}
		b.nodePods = make([]int32, len(b.pods))
		next := slices.Clone(b.nodeStart[:len(b.nodes)])
		for i, n := range podNode {
			b.nodePods[next[n]] = int32(i)
			next[n]++
		}
	})
	return b.nodeStart, b.nodePods
}

func (b *base) cmpKey(x, y int32) int { return b.pods[x].Key().Compare(b.pods[y].Key()) }

func (s *Snapshot) isRemoved(i int32) bool { return s.removed != nil && s.removed.Has(i) }

// Pod returns the bound pod with the given key.
func (s *Snapshot) Pod(k Key) (*Pod, bool) {
	p, _ := s.lookup(k)
	return p, p != nil
}

// lookup finds the bound pod k and, when it is a base pod, its index in
// s.b.pods (-1 for an added pod); nil when k is not bound here.
func (s *Snapshot) lookup(k Key) (*Pod, int) {
	if s.added != nil {
		if e, ok := s.added.Get(keyedPod{k: k}); ok {
			return e.p, -1
		}
	}
	i, ok := s.b.podIndex(k)
	if !ok || s.isRemoved(int32(i)) {
		return nil, -1
	}
	return &s.b.pods[i], i
}

// bound reports whether pod k is bound in s, as [Snapshot.Pod] would,
// given nsh = nsHash(k.Namespace): a group's members share a namespace,
// hashed once for all of them.
func (s *Snapshot) bound(k Key, nsh uint64) bool {
	if s.nPods == 0 {
		return false
	}
	if s.added != nil && s.added.Has(keyedPod{k: k}) {
		return true
	}
	i, ok := s.b.podIndexHashed(k, nameHash(nsh, k.Name))
	return ok && !s.isRemoved(int32(i))
}

// PodsOn yields the pods bound to node id in namespace/name order. Like
// [Snapshot.Node], it panics if id is out of range. The first call on any
// snapshot derived from one NewSnapshot indexes the base pods by node,
// O(pods); later calls cost O(k log k) for the k pods on the node.
func (s *Snapshot) PodsOn(id NodeID) iter.Seq[*Pod] {
	return func(yield func(*Pod) bool) {
		start, nodePods := s.b.byNode()
		baseIdx := nodePods[start[id]:start[id+1]]
		if !slices.IsSortedFunc(baseIdx, s.b.cmpKey) {
			baseIdx = slices.Clone(baseIdx)
			slices.SortFunc(baseIdx, s.b.cmpKey)
		}
		var extra []*Pod
		if s.addedOn != nil {
			s.addedOn.AscendGreaterOrEqual(nodePod{node: id, pod: &Pod{}}, func(np nodePod) bool {
				if np.node != id {
					return false
				}
				extra = append(extra, np.pod)
				return true
			})
		}
		j := 0
		for _, i := range baseIdx {
			if s.isRemoved(i) {
				continue
			}
			p := &s.b.pods[i]
			for j < len(extra) && lessPod(extra[j], p) {
				if !yield(extra[j]) {
					return
				}
				j++
			}
			if !yield(p) {
				return
			}
		}
		for ; j < len(extra); j++ {
			if !yield(extra[j]) {
				return
			}
		}
	}
}

// Pods yields every bound pod in namespace/name order.
func (s *Snapshot) Pods() iter.Seq[*Pod] {
	return func(yield func(*Pod) bool) {
		var extra []*Pod
		if s.added != nil {
			s.added.Ascend(func(e keyedPod) bool { extra = append(extra, e.p); return true })
		}
		j := 0
		for _, i := range s.b.byKey() {
			if s.isRemoved(i) {
				continue
			}
			p := &s.b.pods[i]
			for j < len(extra) && lessPod(extra[j], p) {
				if !yield(extra[j]) {
					return
				}
				j++
			}
			if !yield(p) {
				return
			}
		}
		for ; j < len(extra); j++ {
			if !yield(extra[j]) {
				return
			}
		}
	}
}

// NodeOf returns the ID of the node a bound pod runs on; ok is false for a
// nil or pending pod, or a node s lacks.
func (s *Snapshot) NodeOf(p *Pod) (id NodeID, ok bool) {
	if p == nil {
		return 0, false
	}
	return s.NodeID(p.NodeName)
}

// GroupMembers returns the bound members of the PodGroup g (pods in
// g.Namespace whose SchedulingGroup is g.Name), sorted by name.
func (s *Snapshot) GroupMembers(g Key) []*Pod {
	probe := Pod{Namespace: g.Namespace, SchedulingGroup: g.Name}
	grouped := s.b.byGroup()
	lo, _ := slices.BinarySearchFunc(grouped, &probe, func(i int32, q *Pod) int { return compareGroupMember(&s.b.pods[i], q) })
	var out []*Pod
	for _, i := range grouped[lo:] {
		p := &s.b.pods[i]
		if p.Namespace != g.Namespace || p.SchedulingGroup != g.Name {
			break
		}
		if !s.isRemoved(i) {
			out = append(out, p)
		}
	}
	if s.addedGroup != nil {
		n := len(out)
		s.addedGroup.AscendGreaterOrEqual(&probe, func(p *Pod) bool {
			if p.Namespace != g.Namespace || p.SchedulingGroup != g.Name {
				return false
			}
			out = append(out, p)
			return true
		})
		if len(out) > n && n > 0 {
			slices.SortFunc(out, func(a, b *Pod) int { return a.Key().Compare(b.Key()) })
		}
	}
	return out
}

// Change is a set of pod changes for [Snapshot.Apply]: Remove is applied
// before Bind, so a pod can be moved by listing it in both.
type Change struct {
	// Remove lists bound pods to take out (deleted, evicted).
	Remove []Key
	// Bind lists pods to add as bound; each must have NodeName set.
	Bind []Pod
}

// Apply returns a new snapshot with ch applied; s is not modified. It costs
// O(changes × log changes) plus one pointer per 64 nodes: unchanged usage
// pages and the whole base are shared.
//
// A snapshot's resources are fixed when it is built: Apply rejects a pod
// that requests a positive quantity of a resource the snapshot does not
// track (no node has it, so no decision places such a pod), where
// NewSnapshot would have added the resource.
//
// Errors (a [*FieldError]; nothing is applied): removing a pod that is not
// bound here or listed twice; binding a pod that already exists (after the
// removals), twice, with an empty or unknown nodeName, or with invalid
// requests; summed requests on a node overflowing int64.
func (s *Snapshot) Apply(ch Change) (*Snapshot, error) {
	n := &Snapshot{b: s.b, used: slices.Clone(s.used), nPods: s.nPods}
	s.cloning.Lock()
	if s.removed != nil {
		n.removed = s.removed.Clone()
	}
	if s.added != nil {
		n.added = s.added.Clone()
		n.addedOn = s.addedOn.Clone()
		n.addedGroup = s.addedGroup.Clone()
	}
	s.cloning.Unlock()
	owned := make([]bool, len(n.used)) // one byte per 64 nodes, as the clone above
	changed := make([]NodeID, 0, len(ch.Remove)+len(ch.Bind))
	page := func(id NodeID) []int64 {
		pg := int(id) / pageNodes
		if !owned[pg] {
			n.used[pg] = slices.Clone(n.used[pg])
			owned[pg] = true
		}
		changed = append(changed, id)
		return n.used[pg]
	}
	gone := func(k Key) error {
		if _, was := s.Pod(k); was {
			return Errorf(ErrDuplicate, podObj(k), "remove", "listed twice")
		}
		return Errorf(ErrNotFound, podObj(k), "remove", "no bound pod with this key")
	}
	for _, k := range ch.Remove {
		if n.added != nil {
			if e, ok := n.added.Delete(keyedPod{k: k}); ok {
				p := e.p
				id, _ := s.b.byName(p.NodeName)
				n.subUsage(id, p, page(id))
				n.nPods--
				n.addedOn.Delete(nodePod{id, p})
				if p.SchedulingGroup != "" {
					n.addedGroup.Delete(p)
				}
				continue
			}
		}
		i, ok := s.b.podIndex(k)
		if !ok {
			return nil, gone(k)
		}
		if n.removed == nil {
			n.removed = btree.NewG[int32](16, func(a, b int32) bool { return a < b })
		}
		// Inserting finds a base pod removed already (in s, or earlier in
		// this change) without a lookup of its own.
		if _, was := n.removed.ReplaceOrInsert(int32(i)); was {
			return nil, gone(k)
		}
		p := &s.b.pods[i]
		id, _ := s.b.byName(p.NodeName)
		n.subUsage(id, p, page(id))
		n.nPods--
	}
	for i := range ch.Bind {
		p := new(Pod)
		*p = ch.Bind[i]
		if err := checkPod(p); err != nil {
			return nil, err
		}
		if _, dup := n.Pod(p.Key()); dup {
			return nil, Errorf(ErrDuplicate, podObj(p.Key()), "metadata.name", "a bound pod with this key exists")
		}
		id, ok := s.b.byName(p.NodeName)
		if !ok {
			if p.NodeName == "" {
				return nil, Errorf(ErrInvalid, podObj(p.Key()), "spec.nodeName", "is empty")
			}
			return nil, Errorf(ErrNotFound, podObj(p.Key()), "spec.nodeName", "node %q is not in the snapshot", p.NodeName)
		}
		for r := range p.Requests {
			if _, known := s.b.resIdx[r]; !known && p.Requests[r] > 0 {
				return nil, Errorf(ErrInvalid, podObj(p.Key()), "requests["+string(r)+"]", "node %q has no %s", p.NodeName, r)
			}
		}
		if err := n.addUsage(id, p, page(id)); err != nil {
			return nil, err
		}
		if n.added == nil {
			n.added = btree.NewG(16, lessKeyed)
			n.addedOn = btree.NewG(16, lessNodePod)
			n.addedGroup = btree.NewG(16, lessGroupMember)
		}
		n.added.ReplaceOrInsert(keyedPod{p.Key(), p})
		n.addedOn.ReplaceOrInsert(nodePod{id, p})
		if p.SchedulingGroup != "" {
			n.addedGroup.ReplaceOrInsert(p)
		}
		n.nPods++
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	R := len(s.b.res)
	// The sums saturate as NewSnapshot's do: one that was saturated lost
	// what it held past the top, and one that would pass it is summed
	// again over every node (redo marks them; a sum is never negative).
	const redo = math.MinInt64
	n.usedSum = slices.Clone(s.usedSum)
	for r, q := range n.usedSum {
		if q == math.MaxInt64 {
			n.usedSum[r] = redo
		}
	}
	for _, id := range changed {
		before, after := s.usedRow(id), n.usedRow(id)
		for r := range R {
			switch d := after[r] - before[r]; {
			case n.usedSum[r] == redo:
			case d > 0 && n.usedSum[r] > math.MaxInt64-d:
				n.usedSum[r] = redo
			default:
				n.usedSum[r] += d
			}
		}
	}
	for r, q := range n.usedSum {
		if q == redo {
			n.usedSum[r] = 0
			for id := range len(s.b.nodes) {
				n.usedSum[r] = arith.SatAdd(n.usedSum[r], n.usedRow(NodeID(id))[r])
			}
		}
	}
	if c := s.cls.Load(); c != nil {
		n.cls.Store(c.derive(s.b, changed, s.usedRow, n.usedRow))
	}
	return n, nil
}

// ChangedNodes returns, ascending, the IDs of the nodes whose usage (summed
// requests or pod count) differs between s and o, and true; or nil and false
// when s and o do not descend from one [NewSnapshot] call (then their
// NodeIDs need not even name the same nodes). Any two snapshots derived with
// [Snapshot.Apply] from a common one qualify, whichever is older.
//
// It lets a cache keyed to one snapshot (e.g. the topology package's
// per-domain free capacity) move to another in O(changes) instead of
// recounting every node. Cost: one pointer comparison per 64 nodes, plus a
// row comparison for each node of a usage page that either side copied.
func (s *Snapshot) ChangedNodes(o *Snapshot) ([]NodeID, bool) {
	if o == nil || s.b != o.b {
		return nil, false
	}
	R := len(s.b.res)
	var out []NodeID
	for pg := range s.used {
		a, b := s.used[pg], o.used[pg]
		if len(a) == 0 || &a[0] == &b[0] {
			continue
		}
		for i := 0; i*R < len(a); i++ {
			if !slices.Equal(a[i*R:(i+1)*R], b[i*R:(i+1)*R]) {
				out = append(out, NodeID(pg*pageNodes+i))
			}
		}
	}
	return out, true
}
