package placement

import (
	"iter"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
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
	removed *btree.BTreeG[int32]   // indexes into b.pods
	added   *btree.BTreeG[*Pod]    // by key
	addedOn *btree.BTreeG[nodePod] // by node, then key
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
	nodes  []Node
	byName map[string]NodeID
	res    []ResourceName // sorted; always contains ResourcePods
	resIdx map[ResourceName]int
	podsR  int     // index of ResourcePods in res
	alloc  []int64 // len(nodes)*len(res)

	pods      []Pod    // bound pods sorted by key
	podNode   []NodeID // node of pods[i]
	nodeStart []int32  // pods on node n: nodePods[nodeStart[n]:nodeStart[n+1]]
	nodePods  []int32
	grouped   []int32 // indexes of pods with a group, by (namespace, group, name)
	allNodes  []NodeID
	largest   []int64  // per resource, the largest allocatable of any node
	allocSum  []int64  // per resource, Σ allocatable (saturating)
	typeOf    []int32  // static type of each node (see nodeTypes)
	typeRep   []NodeID // first node of each type
}

// NewSnapshot validates nodes and bound pods and builds a snapshot. The
// result does not depend on the order of either slice.
//
// Every pod must be bound (NodeName set) to a node in nodes: pending pods are
// not cluster state; pass them to [Solve] in a [Group]. A node's bound pods
// may exceed its allocatable (a real cluster can be overcommitted); such a
// node simply has no room.
//
// Errors (a [*FieldError], nothing is built): an empty or duplicate node
// name; a negative allocatable; an empty or duplicate pod namespace/name; a
// pod with an empty or unknown nodeName; a negative request or one for
// "pods"; a node whose summed requests overflow int64.
func NewSnapshot(nodes []Node, pods []Pod) (*Snapshot, error) {
	b := &base{byName: make(map[string]NodeID, len(nodes))}
	b.nodes = slices.Clone(nodes)
	slices.SortFunc(b.nodes, func(x, y Node) int { return strings.Compare(x.Name, y.Name) })
	resSet := map[ResourceName]struct{}{ResourcePods: {}}
	// Names first, then contents, so that the error reported does not
	// depend on the input order when two objects share a name.
	for i := range b.nodes {
		n := &b.nodes[i]
		if n.Name == "" {
			return nil, Errorf(ErrInvalid, "node #"+strconv.Itoa(i), "metadata.name", "must not be empty")
		}
		if i > 0 && b.nodes[i-1].Name == n.Name {
			return nil, Errorf(ErrDuplicate, nodeObj(n.Name), "metadata.name", "appears twice")
		}
	}
	for i := range b.nodes {
		n := &b.nodes[i]
		if err := checkList(func() string { return nodeObj(n.Name) }, "status.allocatable", n.Allocatable, false); err != nil {
			return nil, err
		}
		b.byName[n.Name] = NodeID(i)
		b.allNodes = append(b.allNodes, NodeID(i))
		for r := range n.Allocatable {
			resSet[r] = struct{}{}
		}
	}
	perm := make([]int32, len(pods))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(x, y int32) int { return pods[x].Key().Compare(pods[y].Key()) })
	b.pods = make([]Pod, len(pods))
	for i, j := range perm {
		b.pods[i] = pods[j]
	}
	b.podNode = make([]NodeID, len(b.pods))
	for i := range b.pods {
		p := &b.pods[i]
		if p.Name == "" {
			return nil, Errorf(ErrInvalid, podObj(p.Key()), "metadata.name", "must not be empty")
		}
		if i > 0 && b.pods[i-1].Key() == p.Key() {
			return nil, Errorf(ErrDuplicate, podObj(p.Key()), "metadata.name", "appears twice")
		}
	}
	for i := range b.pods {
		p := &b.pods[i]
		if err := checkPod(p); err != nil {
			return nil, err
		}
		id, ok := b.byName[p.NodeName]
		if !ok {
			if p.NodeName == "" {
				return nil, Errorf(ErrInvalid, podObj(p.Key()), "spec.nodeName", "is empty: a snapshot holds bound pods only; pass pending pods to Solve")
			}
			return nil, Errorf(ErrNotFound, podObj(p.Key()), "spec.nodeName", "node %q is not in the snapshot", p.NodeName)
		}
		b.podNode[i] = id
		for r := range p.Requests {
			resSet[r] = struct{}{}
		}
	}
	for r := range resSet {
		b.res = append(b.res, r)
	}
	slices.Sort(b.res)
	b.resIdx = make(map[ResourceName]int, len(b.res))
	for i, r := range b.res {
		b.resIdx[r] = i
	}
	b.podsR = b.resIdx[ResourcePods]
	R := len(b.res)
	b.alloc = make([]int64, len(b.nodes)*R)
	b.largest = make([]int64, R)
	for i := range b.nodes {
		row := b.alloc[i*R : (i+1)*R]
		row[b.podsR] = math.MaxInt64
		for r, q := range b.nodes[i].Allocatable {
			row[b.resIdx[r]] = q
		}
		for r, q := range row {
			b.largest[r] = max(b.largest[r], q)
		}
	}
	b.allocSum = make([]int64, R)
	for i, q := range b.alloc {
		b.allocSum[i%R] = satAdd(b.allocSum[i%R], q)
	}
	b.nodeTypes()

	// Per-node index (counting sort keeps key order inside a node) and usage.
	b.nodeStart = make([]int32, len(b.nodes)+1)
	for _, n := range b.podNode {
		b.nodeStart[n+1]++
	}
	for i := 1; i < len(b.nodeStart); i++ {
		b.nodeStart[i] += b.nodeStart[i-1]
	}
	b.nodePods = make([]int32, len(b.pods))
	next := slices.Clone(b.nodeStart[:len(b.nodes)])
	s := &Snapshot{b: b, nPods: len(b.pods)}
	s.used = make([][]int64, (len(b.nodes)+pageNodes-1)/pageNodes)
	for pg := range s.used {
		n := min(pageNodes, len(b.nodes)-pg*pageNodes)
		s.used[pg] = make([]int64, n*R)
	}
	for i := range b.pods {
		n := b.podNode[i]
		b.nodePods[next[n]] = int32(i)
		next[n]++
		if err := s.addUsage(n, &b.pods[i], s.used[int(n)/pageNodes]); err != nil {
			return nil, err
		}
		if b.pods[i].SchedulingGroup != "" {
			b.grouped = append(b.grouped, int32(i))
		}
	}
	slices.SortFunc(b.grouped, func(x, y int32) int { return compareGroupMember(&b.pods[x], &b.pods[y]) })
	s.usedSum = make([]int64, R)
	for _, page := range s.used {
		for i, q := range page {
			s.usedSum[i%R] = satAdd(s.usedSum[i%R], q)
		}
	}
	return s, nil
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
	for r, q := range p.Requests {
		row[s.b.resIdx[r]] -= q
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
	id, ok := s.b.byName[name]
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
// ResourcePods when the node sets no limit).
func (s *Snapshot) Allocatable(id NodeID, r ResourceName) int64 {
	i, ok := s.b.resIdx[r]
	if !ok {
		return 0
	}
	return s.allocRow(id)[i]
}

// Requested returns the sum of r requested by the pods bound to node id (for
// ResourcePods, their number).
func (s *Snapshot) Requested(id NodeID, r ResourceName) int64 {
	i, ok := s.b.resIdx[r]
	if !ok {
		return 0
	}
	return s.usedRow(id)[i]
}

// Free returns Allocatable minus Requested for r on node id; it is negative
// on an overcommitted node.
func (s *Snapshot) Free(id NodeID, r ResourceName) int64 {
	i, ok := s.b.resIdx[r]
	if !ok {
		return 0
	}
	return s.allocRow(id)[i] - s.usedRow(id)[i]
}

// podIndex finds k among the base pods. It compares through the index:
// slices.BinarySearchFunc would copy a whole Pod struct per comparison,
// which was most of the cost of removing pods with Apply.
func (b *base) podIndex(k Key) (int, bool) {
	i := sort.Search(len(b.pods), func(i int) bool { return b.pods[i].Key().Compare(k) >= 0 })
	return i, i < len(b.pods) && b.pods[i].Key() == k
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
		if p, ok := s.added.Get(&Pod{Namespace: k.Namespace, Name: k.Name}); ok {
			return p, -1
		}
	}
	i, ok := s.b.podIndex(k)
	if !ok || s.isRemoved(int32(i)) {
		return nil, -1
	}
	return &s.b.pods[i], i
}

// PodsOn yields the pods bound to node id in namespace/name order.
func (s *Snapshot) PodsOn(id NodeID) iter.Seq[*Pod] {
	return func(yield func(*Pod) bool) {
		baseIdx := s.b.nodePods[s.b.nodeStart[id]:s.b.nodeStart[id+1]]
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
			s.added.Ascend(func(p *Pod) bool { extra = append(extra, p); return true })
		}
		j := 0
		for i := range s.b.pods {
			if s.isRemoved(int32(i)) {
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

// NodeOf returns the ID of the node a bound pod runs on.
func (s *Snapshot) NodeOf(p *Pod) (NodeID, bool) {
	return s.NodeID(p.NodeName)
}

// GroupMembers returns the bound members of the PodGroup g (pods in
// g.Namespace whose SchedulingGroup is g.Name), sorted by name.
func (s *Snapshot) GroupMembers(g Key) []*Pod {
	probe := Pod{Namespace: g.Namespace, SchedulingGroup: g.Name}
	lo, _ := slices.BinarySearchFunc(s.b.grouped, &probe, func(i int32, q *Pod) int { return compareGroupMember(&s.b.pods[i], q) })
	var out []*Pod
	for _, i := range s.b.grouped[lo:] {
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
	owned := map[int]bool{}
	var changed []NodeID
	page := func(id NodeID) []int64 {
		pg := int(id) / pageNodes
		if !owned[pg] {
			n.used[pg] = slices.Clone(n.used[pg])
			owned[pg] = true
		}
		changed = append(changed, id)
		return n.used[pg]
	}
	for _, k := range ch.Remove {
		p, i := n.lookup(k)
		if p == nil {
			if _, was := s.Pod(k); was {
				return nil, Errorf(ErrDuplicate, podObj(k), "remove", "listed twice")
			}
			return nil, Errorf(ErrNotFound, podObj(k), "remove", "no bound pod with this key")
		}
		id := s.b.byName[p.NodeName]
		n.subUsage(id, p, page(id))
		n.nPods--
		if n.added != nil {
			if _, ok := n.added.Delete(p); ok {
				n.addedOn.Delete(nodePod{id, p})
				if p.SchedulingGroup != "" {
					n.addedGroup.Delete(p)
				}
				continue
			}
		}
		if n.removed == nil {
			n.removed = btree.NewG[int32](16, func(a, b int32) bool { return a < b })
		}
		n.removed.ReplaceOrInsert(int32(i))
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
		id, ok := s.b.byName[p.NodeName]
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
			n.added = btree.NewG(16, lessPod)
			n.addedOn = btree.NewG(16, lessNodePod)
			n.addedGroup = btree.NewG(16, lessGroupMember)
		}
		n.added.ReplaceOrInsert(p)
		n.addedOn.ReplaceOrInsert(nodePod{id, p})
		if p.SchedulingGroup != "" {
			n.addedGroup.ReplaceOrInsert(p)
		}
		n.nPods++
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	R := len(s.b.res)
	n.usedSum = slices.Clone(s.usedSum)
	for _, id := range changed {
		before, after := s.usedRow(id), n.usedRow(id)
		for r := range R {
			n.usedSum[r] += after[r] - before[r]
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
	if s.b != o.b {
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
