package kube

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/topology"
)

// Kueue v0.17's count of a failing request over the leaves of a Topology
// whose lowest level is not the hostname (aboveHostDomains): its phase 1
// sums each leaf's counts up the Topology (tas_flavor_snapshot.go,
// fillInCountsHelper) and its phase 2a searches them (findLevelWithFitDomains),
// and the reason it gives is the count of the domain or domains that search
// looked at last: "allows to fit only N", or, for slices in several layers,
// each layer's slices in the searched level's fullest domain
// (multiLayerNotFitMessage). gangsim's plan counts one host's room per pod;
// this recounts on Kueue's summed room, a PodSetGroup's leader and inner
// slice layers included.

// kueueCount is one domain's counts as Kueue's TAS keeps them: its pods
// and slices (state, sliceState), those beside a PodSetGroup's leader
// (stateWithLeader, sliceStateWithLeader: the same without one) and
// whether the leader fits in it (leaderState, 0 or 1).
type kueueCount struct {
	values                   []string // the domain's values down to its level
	pods, podsWL             int64
	slices, slicesWL, leader int64
}

// kueueCountTree counts Kueue's domains level by level from the leaves
// doms (in the order of their values): a leaf counts its pods, and its
// slices when it is the slice level sl (slice size z); a domain above sums
// its children's pods, each rounded down to a multiple of inner[child's
// level] where an inner slice layer sets one, its slices the same way
// unless it is level sl, where they are its pods over z; beside the
// leader, it keeps the least any child loses to the leader (a child where
// the leader does not fit loses none), and the leader fits where it fits
// in a child.
func kueueCountTree(doms []aboveHostDomain, sl int, z int64, inner map[int]int64) [][]kueueCount {
	L := len(doms[0].values)
	tree := make([][]kueueCount, L)
	low := make([]kueueCount, len(doms))
	for i, d := range doms {
		c := kueueCount{values: d.values, pods: d.pods, podsWL: d.withLeader}
		if d.leader {
			c.leader = 1
		}
		if sl == L-1 {
			c.slices, c.slicesWL = c.pods/z, c.podsWL/z
		}
		low[i] = c
	}
	tree[L-1] = low
	for l := L - 2; l >= 0; l-- {
		kids := tree[l+1]
		size, rounded := inner[l+1]
		var up []kueueCount
		for i := 0; i < len(kids); {
			c := kueueCount{values: kids[i].values[:l+1]}
			minPods, minSlices := int64(math.MaxInt64), int64(math.MaxInt64)
			for ; i < len(kids) && slices.Equal(kids[i].values[:l+1], c.values); i++ {
				k := kids[i]
				pods, podsWL := k.pods, k.podsWL
				if rounded {
					pods, podsWL = pods/size*size, podsWL/size*size
				}
				c.pods += pods
				c.slices += k.slices
				minPods = min(minPods, pods-podsWL)
				minSlices = min(minSlices, k.slices-k.slicesWL)
				c.leader = max(c.leader, k.leader)
			}
			c.podsWL, c.slicesWL = c.pods-minPods, c.slices-minSlices
			if l == sl {
				c.slices, c.slicesWL = c.pods/z, c.podsWL/z
			}
			up = append(up, c)
		}
		tree[l] = up
	}
	return tree
}

// kueueSearch is one request as Kueue's phase 2a searches it: its slices,
// leaders (0 or 1), whether a level is required, and whether Kueue fills
// the least free first (an unconstrained, implied or slice-only request)
// rather than the best fit.
type kueueSearch struct {
	tree          [][]kueueCount
	need, leaders int64
	required      bool
	leastFree     bool
}

// notFit is the slices Kueue's reason says fit when its search from level
// l fails, and the level it failed at; ok is false where the search finds
// room for the request, and Kueue gives no reason.
func (k kueueSearch) notFit(l int) (fit int64, at int, ok bool) {
	ds := slices.Clone(k.tree[l])
	slices.SortFunc(ds, k.byLeader)
	top := ds[0]
	if !k.leastFree && top.slicesWL >= k.need && top.leader >= k.leaders {
		top = k.bestFit(ds, k.need, k.leaders)
	}
	if k.leastFree {
		for _, d := range ds {
			if d.slices >= k.need {
				return 0, 0, false
			}
		}
	}
	if top.slicesWL >= k.need && top.leader >= k.leaders {
		return 0, 0, false
	}
	if k.required {
		return top.slices, l, true
	}
	if l > 0 && !k.leastFree {
		return k.notFit(l - 1)
	}
	// The widest level, filled: the leader's domain first, then the rest.
	slicesLeft, leadersLeft := k.need, k.leaders
	i := 0
	for ; leadersLeft > 0 && i < len(ds) && ds[i].leader > 0; i++ {
		d := ds[i]
		if !k.leastFree && d.slicesWL >= slicesLeft {
			d = k.bestFit(ds[i:], slicesLeft, leadersLeft)
		}
		leadersLeft -= d.leader
		slicesLeft -= d.slicesWL
	}
	if leadersLeft > 0 {
		return k.leaders - leadersLeft, l, true
	}
	rest := slices.Clone(ds[i:])
	slices.SortFunc(rest, k.bySlices)
	for j := 0; slicesLeft > 0 && j < len(rest); j++ {
		d := rest[j]
		if !k.leastFree && d.slices >= slicesLeft {
			d = k.bestFit(rest[j:], slicesLeft, 0)
		}
		slicesLeft -= d.slices
	}
	if slicesLeft > 0 {
		return k.need - slicesLeft, l, true
	}
	return 0, 0, false
}

// bestFit is the first of ds holding the fewest slices (beside the leader
// when leaders > 0) at or above need, else ds[0] (findBestFitDomainBy).
func (k kueueSearch) bestFit(ds []kueueCount, need, leaders int64) kueueCount {
	state := func(c kueueCount) int64 { return c.slices }
	if leaders > 0 {
		state = func(c kueueCount) int64 { return c.slicesWL }
	}
	best := ds[0]
	for _, d := range ds {
		if state(d) >= need && state(d) < state(best) {
			best = d
		}
	}
	return best
}

// byLeader is Kueue's order with a leader (sortedDomainsWithLeader):
// where the leader fits first, then the slices beside it (most first, or
// least under least-free), the pods beside it (least first), the values.
func (k kueueSearch) byLeader(a, b kueueCount) int {
	if a.leader != b.leader {
		return cmp.Compare(b.leader, a.leader)
	}
	if a.slicesWL != b.slicesWL {
		if k.leastFree {
			return cmp.Compare(a.slicesWL, b.slicesWL)
		}
		return cmp.Compare(b.slicesWL, a.slicesWL)
	}
	if a.podsWL != b.podsWL {
		return cmp.Compare(a.podsWL, b.podsWL)
	}
	return slices.Compare(a.values, b.values)
}

// bySlices is Kueue's order without a leader (sortedDomains): slices
// (most first, or least under least-free), pods (least first), values.
func (k kueueSearch) bySlices(a, b kueueCount) int {
	if a.slices != b.slices {
		if k.leastFree {
			return cmp.Compare(a.slices, b.slices)
		}
		return cmp.Compare(b.slices, a.slices)
	}
	if a.pods != b.pods {
		return cmp.Compare(a.pods, b.pods)
	}
	return slices.Compare(a.values, b.values)
}

// layerFits counts slice layers ls (outermost first; levels by index in
// idx) of a set of count pods in the domain of level at with the most
// slices, the first by its ID (values joined by ",") among equals, as
// multiLayerNotFitMessage does: each layer's slices are its level's
// domains' pods over the layer's size, summed under that domain.
func layerFits(tree [][]kueueCount, at int, ls []topology.SliceLayer, idx []int, count int64) []topology.KueueLayerFit {
	var best *kueueCount
	for i := range tree[at] {
		d := &tree[at][i]
		if best == nil || d.slices > best.slices || (d.slices == best.slices && strings.Join(d.values, ",") < strings.Join(best.values, ",")) {
			best = d
		}
	}
	out := make([]topology.KueueLayerFit, 0, len(ls))
	for j, layer := range ls {
		var fit int64
		for _, d := range tree[idx[j]] {
			if slices.Equal(d.values[:at+1], best.values) {
				fit += d.pods / int64(layer.Size)
			}
		}
		out = append(out, topology.KueueLayerFit{Key: layer.Key, Fit: fit, Need: count / int64(layer.Size)})
	}
	return out
}

// aboveHostFit is Kueue's account of nf over leaves doms of tree (a
// Topology with kubernetes.io/hostname appended) for the set's request r
// (nil: none, Kueue's implied one): the failing count, and for slices in
// several layers each layer's, counted on the leaves' summed room. ok is
// false where it is not recounted: TASBalancedPlacement's reason, a level
// the tree lacks, or a request Kueue's count finds room for, where
// Kueue's summed room holds the set and it gives no reason at all
// (docs/kueue.md, Not modelled).
func aboveHostFit(nf *topology.KueueNotFit, r *topology.PodSetRequest, tree *topology.Tree, doms []aboveHostDomain) (topology.KueueNotFit, bool) {
	if nf.Balanced != 0 || nf.SliceSize < 1 || len(doms) == 0 {
		return topology.KueueNotFit{}, false
	}
	keys := tree.Keys()
	levels := keys[:len(keys)-1]
	L := len(levels)
	k := kueueSearch{need: nf.Total, leastFree: true}
	if nf.Leader != "" {
		k.leaders = 1
	}
	level, sl := L-1, L-1
	var layers []topology.SliceLayer
	if r != nil {
		layers = r.Slices
		switch {
		case r.Required != "":
			level, k.required, k.leastFree = slices.Index(levels, r.Required), true, false
		case r.Preferred != "":
			level, k.leastFree = slices.Index(levels, r.Preferred), false
		case len(layers) > 0 && !r.Unconstrained:
			level = 0 // slices alone: searched from the widest level
		}
	}
	idx := make([]int, len(layers))
	for j, layer := range layers {
		if idx[j] = slices.Index(levels, layer.Key); idx[j] < 0 {
			return topology.KueueNotFit{}, false
		}
	}
	if len(layers) > 0 {
		sl = idx[0]
	}
	if level < 0 || level > sl {
		return topology.KueueNotFit{}, false
	}
	inner := map[int]int64{}
	if len(layers) > 1 {
		for j := 1; j < len(layers); j++ {
			for l := idx[j-1] + 1; l <= idx[j]; l++ {
				inner[l] = int64(layers[j].Size)
			}
		}
	}
	k.tree = kueueCountTree(doms, sl, nf.SliceSize, inner)
	fit, at, ok := k.notFit(level)
	if !ok {
		return topology.KueueNotFit{}, false
	}
	out := *nf
	out.Fit = fit
	if len(nf.Layers) > 0 {
		out.Layers = layerFits(k.tree, at, layers, idx, nf.Total*nf.SliceSize)
	}
	return out, true
}
