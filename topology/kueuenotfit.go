package topology

import (
	"math"

	"github.com/gangsched/gangsched/placement"
)

// KueueNotFit is Kueue v0.17's own account of a pod set its TAS does not
// fit ([Plan].KueueNotFit, with [PlanOptions].KueueNotFit): the numbers
// its failure reason gives (pkg/cache/scheduler/tas_flavor_snapshot.go,
// findLevelWithFitDomains, notFitMessage, multiLayerNotFitMessage), for a
// caller that words the reason as Kueue does. gangsim's own reason (the
// level that failed, the best domain and what it holds) stays in the
// decision's Message.
type KueueNotFit struct {
	// PodSet is the set whose request Kueue counted: the set, or a
	// PodSetGroup's workers.
	PodSet string
	// Leader is a PodSetGroup's leader set, "" for a set alone. Kueue
	// gives both sets of the group the same reason and names one of them
	// in Go map order (TASAssignmentsResult.Failure).
	Leader string
	// Fit is how many slices (pods, when SliceSize is 1) Kueue says fit:
	// for a required level, those of the first domain in its order (the
	// most; for a PodSetGroup, the domain its best fit looked at last,
	// which may hold more than Total and lack the leader's room); for a
	// preferred, unconstrained or slice-only request, those of every
	// domain of the widest level searched (the narrowest for an
	// unconstrained one) added up. Negative where nodes in deficit weigh
	// more than the rest ([PlanOptions].KueueNegativeCounts).
	Fit int64
	// Total is the slices asked: the set's count over SliceSize.
	Total int64
	// SliceSize is the outermost slice layer's size, 1 without slices
	// (Kueue then counts pods).
	SliceSize int64
	// Layers, for a request of several slice layers, are the slices of
	// each layer (outermost first) that the domain of the searched level
	// with the most outer slices (then the first path) holds: Kueue words
	// the reason from them instead of Fit and Total.
	Layers []KueueLayerFit
	// Balanced, when not 0, is why Kueue's TASBalancedPlacement failed
	// the request once it chose to balance it ([PlanOptions].KueueBalanced):
	// its reason is then that sentence alone, and the counts are unset.
	Balanced KueueBalancedReason
	// Full are the nodes where Kueue counts no pod of the request at all
	// for want of room, in NodeID order, each with the resource that
	// limits it: Kueue counts them in its reason's exclusions unless a
	// taint, the node selector or the affinity leaves them out first,
	// which a caller knowing Kueue's nodes decides. The room is the free
	// room less what the Workload's sets planned before took (and plus
	// what [PlanOptions].KueueLift gives back); nodes whose count is below
	// zero are not in it, as Kueue counts only a count of exactly zero.
	Full []KueueFullNode
	// Before are the sets of the plan's group planned before this one,
	// each with its pods per node (Node and NodeID set, in node order):
	// Kueue's TAS counts them as assumed usage of their domains before it
	// counts this request (FindTopologyAssignmentsForFlavor), as Full
	// does. A caller that counts Kueue's room itself — its summed room
	// per lowest-level domain over a tree with [PlanOptions].KueueHostAppended
	// — takes them off that room. A count is below 1 only where Kueue's
	// answer writes one so ([PlanOptions].KueueNegativeCounts), and
	// Kueue then charges it so. nil when none.
	Before []placement.PodSetUsage
}

// KueueBalancedReason is which of Kueue v0.17's three reasons its
// balanced placement gives (pkg/cache/scheduler/tas_balanced_placement.go,
// applyBalancedPlacementAlgorithm and placeSlicesOnDomainsBalanced) once
// a group of domains gave a threshold above 0; 0 is none.
type KueueBalancedReason uint8

const (
	// KueueBalancedNoDomainSet: no set of as few domains as the
	// largest-first fill takes holds the request ("Cannot find optimal
	// domain set to fit the request").
	KueueBalancedNoDomainSet KueueBalancedReason = iota + 1
	// KueueBalancedThreshold: the domains chosen, each taking the
	// threshold, need more slices than the request has ("Not enough
	// slices to meet the threshold").
	KueueBalancedThreshold
	// KueueBalancedLeftOver: slices (or the leader) are left once each
	// chosen domain took the threshold and the largest their room ("Not
	// all slices or leaders could be placed").
	KueueBalancedLeftOver
)

// KueueLayerFit is one slice layer of [KueueNotFit].Layers.
type KueueLayerFit struct {
	// Key is the layer's level.
	Key string
	// Fit is the layer's slices the domain holds (each of its domains of
	// Key holding its pods over Size, truncated), Need the set's count
	// over Size.
	Fit, Need int64
}

// KueueFullNode is a node where Kueue's TAS counts no pod of a request
// ([KueueNotFit].Full).
type KueueFullNode struct {
	Node placement.NodeID
	// Resource is the one that limits it, as Kueue's
	// Requests.CountInWithLimitingResource picks it: a requested resource
	// the node does not have at all, else the fewest pods, the first name
	// among equals; "" for a resource the snapshot does not track (the
	// caller knows the template's requests). A node without "pods" in its
	// allocatable has no pod-count limit ([placement.ResourcePods]); Kueue
	// counts it full, which the caller gives as an allocatable of 0 pods
	// (kube.LoadOptions.KueueNodePods), named "pods" here.
	Resource placement.ResourceName
}

// kueueNotFit is Kueue's account of failure f of request r (p.r), or nil
// where gangsim does not model Kueue's numbers for it. lead names a
// PodSetGroup's leader.
func (p *planner) kueueNotFit(f *failure, lead string) *KueueNotFit {
	if f == nil || !p.opts.KueueNotFit || (!f.kok && f.balanced == 0) {
		return nil
	}
	r := p.r
	z := r.sliceUnit()
	nf := &KueueNotFit{PodSet: r.name, Leader: lead, Fit: f.kfit, Total: r.count / z, SliceSize: z, Balanced: f.balanced}
	if f.balanced != 0 {
		return nf
	}
	if len(r.layers) > 1 {
		nf.Layers = p.kueueLayers()
	}
	nf.Full = p.kueueFull()
	return nf
}

// kueueLayers counts r's slice layers in the domain of Kueue's searched
// level with the most outer slices, the first path among equals
// (multiLayerNotFitMessage): the required level, the narrowest for an
// unconstrained request, else the widest.
func (p *planner) kueueLayers() []KueueLayerFit {
	r := p.r
	q := 0
	if r.required || r.unconstrained {
		q = min(r.level, p.L-1)
	}
	best := -1
	for _, u := range p.unitsAt(q, -1) {
		if best < 0 || p.slice[u] > p.slice[best] || (p.slice[u] == p.slice[best] && p.path(u) < p.path(best)) {
			best = u
		}
	}
	if best < 0 {
		return nil
	}
	p.fill(best, q, true)
	out := make([]KueueLayerFit, 0, len(r.layers))
	for _, l := range r.layers {
		var n int64
		for _, u := range p.unitsAt(l.level, best) {
			n += p.pods[u] / l.size
		}
		out = append(out, KueueLayerFit{Key: p.t.keys[min(l.level, p.L-1)], Fit: n, Need: r.count / l.size})
	}
	return out
}

// kueueFull lists the nodes where Kueue counts no pod of r for want of
// room (fillInCounts, CountInWithLimitingResource), whatever r's filters.
// A node counts none when a requested resource's free room is below one
// pod's request and none is a pod's request or more below zero (which
// counts negative): compared, not divided, as most nodes are not full;
// only a node counting none is looked up for the resource that limits it.
func (p *planner) kueueFull() []KueueFullNode {
	var out []KueueFullNode
	R := p.R
	for id := range placement.NodeID(p.s.NumNodes()) {
		if p.untr {
			out = append(out, KueueFullNode{Node: id})
			continue
		}
		base := int(id) * R
		zero, neg := false, false
		for i, j := range p.reqIdx {
			free := p.c.nodeFree[base+j]
			if p.extra != nil {
				free -= p.extra[base+j]
			}
			q := p.reqQ[i]
			if free <= -q {
				neg = true
				break
			}
			zero = zero || free < q
		}
		if zero && !neg {
			out = append(out, KueueFullNode{Node: id, Resource: p.limiting(id)})
		}
	}
	return out
}

// limiting is the resource Kueue names for node id, where r's pods count
// 0: one r requests that the node lacks altogether (not in its
// allocatable, nothing of it used), the first by name, as Kueue stops at
// such a resource; else the one giving the fewest pods, the first by name
// among equals. "pods" is lacking where the node's allocatable holds 0 of
// it and no pod is on it: a node listing no "pods" holds none under the
// Kueue profiles (kube.LoadOptions.KueueNodePods), and one listing 0 ties
// at 0 pods with whatever else gives none, which Kueue breaks in Go map
// order.
func (p *planner) limiting(id placement.NodeID) placement.ResourceName {
	n := p.s.Node(id)
	for j, name := range p.c.res {
		if p.r.req[j] <= 0 {
			continue
		}
		q, ok := n.Allocatable[name]
		if name == placement.ResourcePods {
			ok = !ok || q > 0 // absent: no limit, never lacking
		}
		if !ok && p.s.Requested(id, name) == 0 {
			return name
		}
	}
	count, lim := int64(math.MaxInt64), -1
	for j := range p.c.res { // name order: the first among equals
		q := p.r.req[j]
		if q <= 0 {
			continue
		}
		free := p.c.nodeFree[int(id)*p.R+j]
		if p.extra != nil {
			free -= p.extra[int(id)*p.R+j]
		}
		if c := free / q; c < count {
			count, lim = c, j
		}
	}
	return p.c.res[lim]
}
