package placement

import (
	"slices"
	"sync"
)

// PlacementNarrower is a [PlacementGenerator] that can propose only the
// placements holding given nodes, without proposing the others first:
// [SolveResize] asks it for a growing set's delta, which must join the
// set's existing pods, so that a generator with one placement per domain
// (topology's, a placement per rack) need not answer every domain when
// the existing pods pin one.
type PlacementNarrower interface {
	PlacementGenerator
	// GenerateHolding returns, with ok, Generate's answer for s and g less
	// the placements that miss a node of nodes (ascending, at least one)
	// and do not hold every node of s: the rest in Generate's order, with
	// their names, nodes and ranks. When it has no cheaper way for this s
	// and g it returns Generate's whole answer with ok false, for the
	// caller to filter. nodes is the caller's, lent for the call: it must
	// not be modified or kept. Errors are Generate's.
	GenerateHolding(s *Snapshot, g GroupView, nodes []NodeID) (ps []Placement, ok bool, err error)
}

// holding narrows a generator's placements to those holding every node of
// existing (checked, in node order): an elastic set's delta joins its
// existing pods' domain. A [PlacementNarrower] is asked for them alone;
// any other generator's answer is filtered. It hands the answer back to a
// [PlacementReleaser] when Solve is done with it, as Solve would. Without
// a generator (SolveResize does not wrap none) the one placement holds
// every node.
type holding struct {
	gen      PlacementGenerator
	existing []PodSetAssignment
}

var _ PlacementReleaser = holding{}

// holdPool holds the buffers holding lists the existing nodes in.
var holdPool = sync.Pool{New: func() any { return new([]NodeID) }}

func (h holding) Generate(s *Snapshot, g GroupView) ([]Placement, error) {
	if h.gen == nil {
		return []Placement{{Nodes: s.b.allNodes}}, nil // holds every node
	}
	if len(h.existing) == 0 {
		return h.gen.Generate(s, g) // no nodes to hold: every placement holds them
	}
	// The existing nodes, in a pooled buffer: lent to the generator for
	// the call only, and read here until the answer is filtered. A set of
	// hundreds of nodes allocated them on every resize, and a failing
	// block resize allocates little else.
	buf := holdPool.Get().(*[]NodeID)
	defer holdPool.Put(buf)
	nodes := (*buf)[:0]
	for i := range h.existing {
		nodes = append(nodes, h.existing[i].NodeID)
	}
	*buf = nodes
	var ps []Placement
	var narrowed bool
	var err error
	if n, isN := h.gen.(PlacementNarrower); isN {
		ps, narrowed, err = n.GenerateHolding(s, g, nodes)
	} else {
		ps, err = h.gen.Generate(s, g)
	}
	if err != nil || narrowed {
		return ps, err
	}
	var out []Placement
	if _, own := h.gen.(PlacementReleaser); own {
		out = ps[:0] // Solve's until released: filtered in place
	} else {
		out = make([]Placement, 0, len(ps))
	}
	for _, p := range ps {
		if len(p.Nodes) == len(s.b.nodes) || !slices.ContainsFunc(nodes, func(id NodeID) bool { _, in := slices.BinarySearch(p.Nodes, id); return !in }) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ForgetsViews implements [ViewForgetter]: holding hands the view to the
// generator it wraps and keeps nothing, so it forgets them when that one
// does.
func (h holding) ForgetsViews() bool { return forgetsViews(h.gen) }

var _ ViewForgetter = holding{}

// ReleasePlacements implements [PlacementReleaser]: the answer goes back
// to the generator that made it, when that one reuses its answers.
func (h holding) ReleasePlacements(ps []Placement) {
	if r, ok := h.gen.(PlacementReleaser); ok {
		r.ReleasePlacements(ps)
	}
}
