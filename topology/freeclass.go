package topology

import (
	"encoding/binary"

	"github.com/gangsched/gangsched/placement"
)

// freeClasses sorts nodes into classes of equal free rows, so that a plan
// counts a template's pods once per class and reads one int32 per node
// (sumQuick), and the generator a group's copies per class (slots): a
// cluster has few node shapes and few usage states of each,
// and a row of R int64 per node is the memory a cold count streams
// through. Only nodes every pod without a nodeSelector passes (plainNode)
// get a class. A class's row never changes: a node whose free row
// changes moves to another class, so counts per class stay valid for as
// long as the template is the same.
type freeClasses struct {
	r     int
	of    []int32 // per node: its class, -1 for a node that is not plain
	rows  []int64 // class*r+i: the class's free row
	index map[string]int32
	key   []byte
}

// plainNode reports whether every pod without a nodeSelector (or required
// node affinity) passes node n: it has no taints and is schedulable.
// Nodes never change across Apply.
func plainNode(n *placement.Node) bool { return len(n.Taints) == 0 && !n.Unschedulable }

// freeClassesOf returns c's classes, classing every node of c's snapshot
// by its row of free resources on first use: a tree that neither plans
// nor counts a domain whose nodes differ (slots) keeps none.
func (c *capacity) freeClassesOf() *freeClasses {
	if c.classes == nil {
		R := len(c.res)
		c.classes = &freeClasses{r: R, key: make([]byte, 8*R)}
		c.classes.build(c.snap, c.nodeFree)
	}
	return c.classes
}

func (fc *freeClasses) build(s *placement.Snapshot, nodeFree []int64) {
	N := s.NumNodes()
	fc.of, fc.rows, fc.index = make([]int32, N), fc.rows[:0], map[string]int32{}
	for id := range placement.NodeID(N) {
		fc.of[id] = -1
		fc.set(s, id, nodeFree)
	}
}

// set classes node id by its current row of nodeFree.
func (fc *freeClasses) set(s *placement.Snapshot, id placement.NodeID, nodeFree []int64) {
	if !plainNode(s.Node(id)) {
		return
	}
	row := nodeFree[int(id)*fc.r : int(id+1)*fc.r]
	for i, v := range row {
		binary.LittleEndian.PutUint64(fc.key[8*i:], uint64(v))
	}
	c, ok := fc.index[string(fc.key)]
	if !ok {
		c = int32(len(fc.rows) / max(fc.r, 1))
		fc.index[string(fc.key)] = c
		fc.rows = append(fc.rows, row...)
	}
	fc.of[id] = c
}

// moved re-classes the changed nodes; when the classes no node holds any
// more could outnumber the nodes, it classes every node afresh (new class
// numbers: counts kept per class must be dropped, as each plan's use does).
func (fc *freeClasses) moved(s *placement.Snapshot, changed []placement.NodeID, nodeFree []int64) {
	for _, id := range changed {
		fc.set(s, id, nodeFree)
	}
	if len(fc.index) > 2*len(fc.of)+64 {
		fc.build(s, nodeFree)
	}
}

// classCounts are a plan's pods per class for one template: cnt[c] holds
// class c's count when at[c] is gen. A new template starts a new gen, so
// no count is cleared; class numbers that a rebuild reassigns are never
// read under an older template's gen either.
type classCounts struct {
	gen uint32
	at  []uint32
	cnt []int64
	all uint32 // the gen whose counts every class holds
}

// next starts the counts of a new template.
func (cc *classCounts) next() {
	if cc.gen++; cc.gen == 0 { // wrapped: at and all may hold any gen
		clear(cc.at)
		cc.gen, cc.all = 1, 0
	}
}

// fit makes room for n classes.
func (cc *classCounts) fit(n int) {
	if k := n - len(cc.at); k > 0 {
		cc.at = append(cc.at, make([]uint32, k)...)
		cc.cnt = append(cc.cnt, make([]int64, k)...)
	}
}
