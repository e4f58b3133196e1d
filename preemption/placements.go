package preemption

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// area is a placement searched with its own victims: the candidates that
// have a pod on its nodes, in eviction order, and its bound.
type area struct {
	p     placement.Placement
	units []*unit
	lb    bound
}

// searchPlacements searches each placement of opts.Generator on the
// snapshot with every candidate removed, improving f.best. It returns the
// decision to explain a failure with: with every candidate removed, or a
// placement's best failure.
func (f *finder) searchPlacements() (placement.Decision, error) {
	s0, err := f.without(f.q.all())
	if err != nil {
		return placement.Decision{}, err
	}
	d0, err := f.solve(s0, f.opts, false)
	if err != nil || d0.Status != placement.Scheduled {
		return d0, err // never evict in vain
	}
	places, err := f.opts.Generator.Generate(s0, placement.GroupView{Group: f.g})
	if err != nil {
		return d0, err
	}
	// Candidates per placement, in eviction order: one pass over the
	// candidates' pods through a node → placements index.
	N := f.s.NumNodes()
	onNode := make([][]int32, N)
	for i := range places {
		for _, id := range places[i].Nodes {
			if id >= 0 && int(id) < N {
				onNode[id] = append(onNode[id], int32(i))
			}
		}
	}
	perPlace := make([][]*unit, len(places))
	seen := make([]int, len(places)) // last unit index + 1 added to each placement
	for ui, u := range f.q.all() {
		for _, id := range u.nodeIDs(f.s) {
			for _, pi := range onNode[id] {
				if seen[pi] != ui+1 {
					seen[pi] = ui + 1
					perPlace[pi] = append(perPlace[pi], u)
				}
			}
		}
	}
	var areas []area
	for i := range places {
		if len(perPlace[i]) > 0 {
			if lb, ok := f.lowerBound(perPlace[i], places[i].Nodes, places[i].Rank, places[i].Name); ok {
				areas = append(areas, area{p: places[i], units: perPlace[i], lb: lb})
			}
		}
	}
	if last, err := f.searchAreas(areas); last != nil || err != nil {
		return derefOr(last, d0), err
	}
	return d0, nil
}

// searchNodes is the search of a group that needs one more member placed,
// without a generator: the member lands on one node, so the cheapest set
// evicts only candidates with a pod there (upstream's per-node preemption
// for a single pod). Each node with candidates is an area of its own.
func (f *finder) searchNodes() (placement.Decision, error) {
	N := f.s.NumNodes()
	perNode := make([][]*unit, N)
	for _, u := range f.q.all() {
		for _, id := range u.nodeIDs(f.s) {
			if k := len(perNode[id]); k == 0 || perNode[id][k-1] != u {
				perNode[id] = append(perNode[id], u)
			}
		}
	}
	// The solver skips a placement without the nodes of the group's
	// bound members: each area holds them beside its node.
	var boundOn []placement.NodeID
	for _, p := range f.s.GroupMembers(f.g.Key()) {
		if id, ok := f.s.NodeOf(p); ok && !slices.Contains(boundOn, id) {
			boundOn = append(boundOn, id)
		}
	}
	var areas []area
	for id, units := range perNode {
		if len(units) > 0 {
			name := f.s.Node(placement.NodeID(id)).Name
			nodes := []placement.NodeID{placement.NodeID(id)}
			for _, b := range boundOn {
				if b != nodes[0] {
					nodes = append(nodes, b)
				}
			}
			slices.Sort(nodes)
			if lb, ok := f.lowerBound(units, nodes, 0, name); ok {
				areas = append(areas, area{p: placement.Placement{Name: name, Nodes: nodes}, units: units, lb: lb})
			}
		}
	}
	last, err := f.searchAreas(areas)
	if err != nil || f.best == nil {
		return derefOr(last, placement.Decision{}), err
	}
	// The decision on the whole cluster, as without the search's
	// restriction to the node (the solver may as well use room the
	// victims free elsewhere).
	r := &f.best.r
	d, err := f.solve(r.snap, f.opts, true)
	if err == nil && d.Status == placement.Scheduled {
		r.d, r.solved = d, true
	} else {
		r.solved = false // the node's decision: Verify checks it
	}
	r.name = ""
	return derefOr(last, placement.Decision{}), err
}

func derefOr(d *placement.Decision, or placement.Decision) placement.Decision {
	if d == nil {
		return or
	}
	return *d
}

// searchAreas searches each area, cheapest lower bound first, until none
// can beat the best: exactly when it has at most MaxExactUnits candidates
// and budget is left, else with the heuristic [finder.search]. It returns
// the last failure a heuristic search saw (nil when none).
func (f *finder) searchAreas(areas []area) (*placement.Decision, error) {
	slices.SortFunc(areas, func(a, b area) int { return a.lb.compare(&b.lb) })
	N := f.s.NumNodes()
	inP := make([]bool, N)
	mark := func(p *placement.Placement, on bool) {
		for _, id := range p.Nodes {
			if id >= 0 && int(id) < N {
				inP[id] = on
			}
		}
	}
	var last *placement.Decision
	for i := range areas {
		a := &areas[i]
		if f.best != nil {
			if x := a.lb.cost.Compare(f.best.cost); x >= 0 {
				if x == 0 {
					f.sawTie(a.lb.cost)
				}
				break // every later area costs at least as much
			}
		}
		mark(&a.p, true)
		err := f.searchArea(a, inP, a.opts(f.opts), &last)
		mark(&a.p, false)
		if err != nil {
			return last, err
		}
	}
	if !f.mayTie() {
		return last, nil
	}
	return last, f.breakTies(areas, func(a *area) error {
		mark(&a.p, true)
		defer mark(&a.p, false)
		return f.exactSearch(a.units, a.p.Nodes, inP, a.opts(f.opts), a.p.Rank, a.p.Name, true)
	})
}

// opts returns opts restricted to the area's placement.
func (a *area) opts(opts placement.Options) placement.Options {
	p := a.p
	opts.Generator = placement.PlacementGeneratorFunc(func(*placement.Snapshot, placement.GroupView) ([]placement.Placement, error) {
		return []placement.Placement{p}, nil
	})
	return opts
}

// searchArea searches one area, its nodes marked in inP.
func (f *finder) searchArea(a *area, inP []bool, opts placement.Options, last **placement.Decision) error {
	if len(a.units) <= MaxExactUnits && f.left > 0 {
		if err := f.exactSearch(a.units, a.p.Nodes, inP, opts, a.p.Rank, a.p.Name, false); err != nil || !f.cut {
			return err
		}
	}
	switch {
	case len(a.units) > MaxExactUnits:
		f.limitBy(LimitUnits)
	case f.left <= 0:
		f.limitBy(LimitBudget)
	}
	f.heuristic = true
	k, ok := f.prefixBound(listOf(a.units), a.p.Nodes, inP)
	if !ok {
		return nil
	}
	r, err := f.search(opts, listOf(a.units), inP, k)
	if err != nil {
		return err
	}
	if !r.ok {
		*last = &r.last
		return nil
	}
	r.name, r.rank = a.p.Name, a.p.Rank
	f.offer(r)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ranked returns units sorted most important first.
func ranked(units []*unit) []*unit {
	out := slices.Clone(units)
	slices.SortFunc(out, func(a, b *unit) int { return VictimOrder(&a.v, &b.v) })
	return out
}
