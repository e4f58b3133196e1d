package topology_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// sliceWorld is a random block > rack > host cluster of 1-CPU pods and a
// sliced set required in the domain of one of its nodes, drawn for the
// properties of sets with pods that never move (bound members, an elastic
// set's existing pods).
type sliceWorld struct {
	nodes    []placement.Node
	byName   map[string]placement.Node
	free     map[string]int64 // free pods per node, less the fixed pods taken
	reqLevel int              // 0 block, 1 rack
	levels   []int            // slice layers' levels, outermost first
	sizes    []int64          // their sizes
	anchor   placement.Node   // a node of the required domain
}

// empty is the world's cluster with no pod: its snapshot and the tree
// over planKeys.
func (w *sliceWorld) empty(t require.TestingT) (*placement.Snapshot, *topology.Tree) {
	s, err := placement.NewSnapshot(w.nodes, nil)
	require.NoError(t, err)
	tr, err := topology.NewTree(s, planKeys)
	require.NoError(t, err)
	return s, tr
}

// drawSliceWorld draws the cluster (1–2 blocks, 1–3 racks, 1–3 hosts of
// 0–6 CPUs), the required level and one to three slice layers at distinct
// levels from it down, each size a multiple of the one inside.
func drawSliceWorld(t *rapid.T) *sliceWorld {
	w := &sliceWorld{byName: map[string]placement.Node{}, free: map[string]int64{}}
	for b := range rapid.IntRange(1, 2).Draw(t, "blocks") {
		for r := range rapid.IntRange(1, 3).Draw(t, "racks") {
			for h := range rapid.IntRange(1, 3).Draw(t, "hosts") {
				name := fmt.Sprintf("b%d-r%d-h%d", b+1, r+1, h+1)
				cores := rapid.Int64Range(0, 6).Draw(t, "cores")
				n := node(name, cores*1000, blockKey, fmt.Sprintf("b%d", b+1), rackKey, fmt.Sprintf("r%d", r+1), hostKey, name)
				w.nodes = append(w.nodes, n)
				w.byName[name] = n
				w.free[name] = cores
			}
		}
	}
	w.reqLevel = rapid.IntRange(0, 1).Draw(t, "required")
	for lv := w.reqLevel; lv <= 2; lv++ {
		if rapid.Bool().Draw(t, fmt.Sprint("layerAt", lv)) {
			w.levels = append(w.levels, lv)
		}
	}
	if len(w.levels) == 0 {
		w.levels = []int{rapid.IntRange(w.reqLevel, 2).Draw(t, "sliceLevel")}
	}
	w.sizes = make([]int64, len(w.levels))
	if len(w.levels) == 1 {
		w.sizes[0] = int64(rapid.IntRange(2, 4).Draw(t, "size"))
	} else {
		w.sizes[len(w.levels)-1] = int64(rapid.IntRange(1, 2).Draw(t, "innermost"))
		for i := len(w.levels) - 2; i >= 0; i-- {
			w.sizes[i] = w.sizes[i+1] * int64(rapid.IntRange(1, 2).Draw(t, "times"))
		}
	}
	w.anchor = w.nodes[rapid.IntRange(0, len(w.nodes)-1).Draw(t, "anchor")]
	return w
}

// request is the set "w"'s request: Required at the drawn level, the
// drawn layers.
func (w *sliceWorld) request() topology.PodSetRequest {
	req := topology.PodSetRequest{PodSet: "w", Required: planKeys[w.reqLevel]}
	for i, lv := range w.levels {
		req.Slices = append(req.Slices, topology.SliceLayer{Key: planKeys[lv], Size: int32(w.sizes[i])})
	}
	return req
}

// domOf is n's domain of level: its label path.
func domOf(n placement.Node, level int) string {
	path := ""
	for l := 0; l <= level; l++ {
		path += "/" + n.Labels[planKeys[l]]
	}
	return path
}

// inScope reports whether n is in the required domain.
func (w *sliceWorld) inScope(n placement.Node) bool {
	return domOf(n, w.reqLevel) == domOf(w.anchor, w.reqLevel)
}

// drawFixed draws up to max pods on random nodes of the required domain
// with room, taking their room; it returns their nodes, one per pod.
func (w *sliceWorld) drawFixed(t *rapid.T, max int) []string {
	var on []string
	for range rapid.IntRange(1, max).Draw(t, "fixed") {
		n := w.nodes[rapid.IntRange(0, len(w.nodes)-1).Draw(t, "on")]
		if !w.inScope(n) || w.free[n.Name] == 0 {
			continue
		}
		w.free[n.Name]--
		on = append(on, n.Name)
	}
	return on
}

// fits is the layer-by-layer oracle: whether count more pods of the set
// fit around the fixed pods (their nodes, one per pod) in the required
// domain. Innermost layer first, each domain's incomplete slice must fit
// its missing pods in whole slices of the layer inside, and the required
// domain then holds the remaining outermost slices. A domain of layer i
// holds ⌊U·size(i+1)/size(i)⌋ slices of its layer, U being the slices of
// layer i+1 its domains of that level hold (for the innermost, its free
// pods), whichever inner domains the missing pods took.
func (w *sliceWorld) fits(fixed []string, count int64) bool {
	m := len(w.levels) - 1
	// Per layer: the domains in scope, each with its parent domain of the
	// layer around it, and the set's pods there (fixed, then completed).
	doms := make([]map[string]string, len(w.levels))
	have := make([]map[string]int64, len(w.levels))
	for i := range w.levels {
		doms[i], have[i] = map[string]string{}, map[string]int64{}
	}
	units := map[string]int64{} // innermost: free pods; then the layer's slices of room
	for _, n := range w.nodes {
		if !w.inScope(n) {
			continue
		}
		for i, lv := range w.levels {
			doms[i][domOf(n, lv)] = ""
			if i > 0 {
				doms[i][domOf(n, lv)] = domOf(n, w.levels[i-1])
			}
		}
		units[domOf(n, w.levels[m])] += w.free[n.Name]
	}
	for _, name := range fixed {
		for i, lv := range w.levels {
			have[i][domOf(w.byName[name], lv)]++
		}
	}
	fits, missing := true, int64(0)
	inner := int64(1) // the size of the layer inside
	for i := m; i >= 0; i-- {
		next := map[string]int64{}
		for dom := range doms[i] {
			room := units[dom] // in slices of the layer inside
			need := (w.sizes[i] - have[i][dom]%w.sizes[i]) % w.sizes[i]
			fits = fits && need/inner <= room
			room -= need / inner
			missing += need
			for j := range i + 1 {
				// The completion counts in this domain and those around it.
				anc := dom
				for k := i; k > j; k-- {
					anc = doms[k][anc]
				}
				have[j][anc] += need
			}
			if i > 0 {
				next[doms[i][dom]] += max(room, 0) * inner / w.sizes[i]
			} else {
				next[dom] = max(room, 0) * inner / w.sizes[i]
			}
		}
		inner = w.sizes[i]
		units = next
	}
	var room int64
	for _, u := range units {
		room += u
	}
	return fits && missing <= count && room >= (count-missing)/w.sizes[0]
}

// checkWhole checks that the set's pods, the fixed ones and those of
// entries together, are all in the anchor's required domain and that
// Tree.VerifyPodSets accepts them as one placement of the set on the
// empty cluster: one required domain, whole slices in every domain of
// every slice level.
func (w *sliceWorld) checkWhole(t require.TestingT, fixed []string, entries []placement.PodSetAssignment) {
	perNode := map[string]int32{}
	for _, name := range fixed {
		perNode[name]++
	}
	for _, a := range entries {
		require.True(t, w.inScope(w.byName[a.Node]), "pods on %s, outside the required domain %s", a.Node, domOf(w.anchor, w.reqLevel))
		perNode[a.Node] += a.Count
	}
	s, tr := w.empty(t)
	d := placement.Decision{Status: placement.Scheduled}
	var total int32
	for _, name := range slices.Sorted(maps.Keys(perNode)) {
		id, _ := s.NodeID(name)
		d.PodSetAssignments = append(d.PodSetAssignments, placement.PodSetAssignment{PodSet: "w", Node: name, NodeID: id, Count: perNode[name]})
		total += perNode[name]
	}
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: total, PodSets: []placement.PodSet{
		{Name: "w", Count: total, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
	require.NoError(t, tr.VerifyPodSets(s, g, d, []topology.PodSetRequest{w.request()}))
}
