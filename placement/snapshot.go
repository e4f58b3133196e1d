package placement

import (
	"iter"
	"slices"
	"sort"
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
	// addedMask has bit nameHash%256 of every pod ever added set (a pod
	// removed again leaves its bit): a key whose bit is clear is not in
	// added, which spares a tree lookup per member in Group.validate.
	addedMask [4]uint64
	addedOn   *btree.BTreeG[nodePod] // by node, then key
	// addedGroup indexes the added pods that have a SchedulingGroup by
	// (namespace, group, name), so that GroupMembers costs O(log + members)
	// however many pods a chain of Apply calls has added.
	addedGroup *btree.BTreeG[*Pod]
	// addedPrio indexes the added pods by (priority, namespace, name) for
	// [Snapshot.PodsBelowPriority]. Apply keeps it; a snapshot made by
	// other means (the hierarchy search's overlay) leaves it nil, so an
	// added tree without it means "not indexed" (see indexesPriority).
	addedPrio *btree.BTreeG[*Pod]
	// reserved holds the pod sets committed as usage without pods
	// (podsetusage.go), by key; nil when none ever was.
	reserved *btree.BTreeG[*reservation]
	nPods    int
	// usedSum is Σ requested per resource over all nodes.
	usedSum []int64
	// scoreReqs is set when a bound pod (any, since NewSnapshot) has
	// ScoreRequests: only then does an upstream node score look at a
	// node's pods (nonzero.go).
	scoreReqs bool
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
	podsR      int // index of ResourcePods in res
	// insufficient is, per resource, the reason a node short of it gives
	// ("Insufficient cpu"; "Too many pods").
	insufficient []string
	alloc        []int64 // len(nodes)*len(res)

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
	keyOnce sync.Once
	waiting []uint32
	// keysAscend: pods are in strictly increasing key order as given
	// (see noneBoundIn).
	keysAscend bool
	keyHash    []uint32
	keyPos     []int32
	keyEnd     []int32
	keyShift   int
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

	// scoreReqs: some pod has ScoreRequests (see Snapshot.scoreReqs).
	scoreReqs bool

	// Base pods by (priority, key), for PodsBelowPriority; built on first
	// use (priorityindex.go).
	prioOnce sync.Once
	byPrio   []int32

	// Victim index of boundgroups.go, built on first use.
	boundOnce sync.Once
	bound     *boundIndex

	// labels are the domains of label keys asked about (labeldomains.go).
	labels labelIndex
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

func compareGroupMember(a, b *Pod) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.SchedulingGroup, b.SchedulingGroup); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// NumNodes returns the number of nodes.
func (s *Snapshot) NumNodes() int { return len(s.b.nodes) }

// NumPods returns the number of bound pods.
func (s *Snapshot) NumPods() int { return s.nPods }

// Node returns the node with the given ID. It panics if id is out of range,
// like a slice index; IDs come from this snapshot.
func (s *Snapshot) Node(id NodeID) *Node { return &s.b.nodes[id] }

// Nodes yields every node with its ID, in ID (node name) order. The nodes
// are the snapshot's own and read-only; Apply never adds or removes one,
// so every snapshot derived from this one yields the same nodes.
func (s *Snapshot) Nodes() iter.Seq2[NodeID, *Node] {
	return func(yield func(NodeID, *Node) bool) {
		for i := range s.b.nodes {
			if !yield(NodeID(i), &s.b.nodes[i]) {
				return
			}
		}
	}
}

// NodeID returns the ID of the named node.
func (s *Snapshot) NodeID(name string) (NodeID, bool) {
	id, ok := s.b.byName(name)
	return id, ok
}

// Resources returns the resource names this snapshot tracks, sorted. It
// always includes [ResourcePods].
func (s *Snapshot) Resources() []ResourceName { return slices.Clone(s.b.res) }

// usedRow and allocRow are node id's rows of used and allocatable
// quantities. Their index arithmetic is unsigned (an ID is never
// negative; one would still be out of range): a page and an offset are
// then a shift and a mask, on paths that read a row per node.
func (s *Snapshot) usedRow(id NodeID) []int64 {
	R, u := uint(len(s.b.res)), uint(id)
	o := (u % pageNodes) * R
	return s.used[u/pageNodes][o : o+R]
}

func (s *Snapshot) allocRow(id NodeID) []int64 {
	R, u := uint(len(s.b.res)), uint(id)
	return s.b.alloc[u*R : u*R+R]
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
	h := nameHash(nsh, k.Name)
	if s.added != nil && s.addedMask[h>>6&3]&(1<<(h&63)) != 0 && s.added.Has(keyedPod{k: k}) {
		return true
	}
	i, ok := s.b.podIndexHashed(k, h)
	return ok && !s.isRemoved(int32(i))
}

// noneBoundIn reports whether no pod of namespace ns named from lo to hi
// (inclusive) is bound in s, when that is cheap to show: no pod at all,
// or none of the base pods (when given in key order, with a binary
// search) nor of the added ones (the first at or after lo) in that range.
// False means "maybe": a base pod in range may have been removed since.
// A group whose member names ascend from lo to hi, none bound, is then
// known unbound with one search instead of a lookup a member.
// O(log pods).
func (s *Snapshot) noneBoundIn(ns, lo, hi string) bool {
	if s.nPods == 0 {
		return true
	}
	from, to := Key{ns, lo}, Key{ns, hi}
	if pods := s.b.pods; len(pods) > 0 {
		if !s.b.keysAscend {
			return false
		}
		i := sort.Search(len(pods), func(i int) bool { return pods[i].Key().Compare(from) >= 0 })
		if i < len(pods) && pods[i].Key().Compare(to) <= 0 {
			return false
		}
	}
	none := true
	if s.added != nil {
		s.added.AscendGreaterOrEqual(keyedPod{k: from}, func(e keyedPod) bool {
			none = e.k.Compare(to) > 0
			return false
		})
	}
	return none
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
		s.mergeBase(baseIdx, extra, lessPod, yield)
	}
}

// Pods yields every bound pod in namespace/name order.
func (s *Snapshot) Pods() iter.Seq[*Pod] {
	return func(yield func(*Pod) bool) {
		var extra []*Pod
		if s.added != nil {
			s.added.Ascend(func(e keyedPod) bool { extra = append(extra, e.p); return true })
		}
		s.mergeBase(s.b.byKey(), extra, lessPod, yield)
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
	grouped := s.b.byGroup()
	// compareGroupMember against a probe of g's namespace and group and
	// the empty name, without the probe (a Pod would escape to the heap).
	lo, _ := slices.BinarySearchFunc(grouped, g, func(i int32, k Key) int {
		p := &s.b.pods[i]
		if c := strings.Compare(p.Namespace, k.Namespace); c != 0 {
			return c
		}
		if c := strings.Compare(p.SchedulingGroup, k.Name); c != 0 {
			return c
		}
		return strings.Compare(p.Name, "")
	})
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
		// The probe escapes into the tree: allocated only here.
		probe := &Pod{Namespace: g.Namespace, SchedulingGroup: g.Name}
		n := len(out)
		s.addedGroup.AscendGreaterOrEqual(probe, func(p *Pod) bool {
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
