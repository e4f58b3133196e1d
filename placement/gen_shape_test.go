package placement_test

import (
	"fmt"
	"math"
	"slices"

	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// shapeCase is an input aimed at the solver's classes of identical pods:
// groups of many shapes (past the eight a class index scans before it builds
// a map), shapes that differ only in what the request vector does not show
// (an untracked resource, a node selector, tolerations, a priority, labels
// under affinity), pod sets identical to members, quantities that saturate
// int64 sums, and hooks that read GroupView.RequestVector and
// GroupView.RequestCounts during the solve and keep the group to read them
// again afterwards. Every hook only observes: the decision is the one without
// hooks of the same kinds.
type shapeCase struct {
	s    *Snapshot
	g    *Group
	opts Options
	desc string
	// errs collects what the observing hooks found wrong.
	errs *[]string
	// seen are the (snapshot, group) pairs hooks were handed, to read
	// again after Solve returns.
	seen *[]shapeSeen
}

type shapeSeen struct {
	s *Snapshot
	g GroupView
}

// wantRequestVector is pod p's request vector indexed like s.Resources(), read from
// its map: 1 for pods, untracked resources left out.
func wantRequestVector(s *Snapshot, p *Pod) []int64 {
	res := s.Resources()
	v := make([]int64, len(res))
	for j, r := range res {
		if r == ResourcePods {
			v[j] = 1
		} else {
			v[j] = p.Requests[r]
		}
	}
	return v
}

// pendingPod returns pending pod i of g (a member, or its set's
// template) from g's own fields.
func pendingPod(g *Group, i int) *Pod {
	if i < len(g.Members) {
		return &g.Members[i]
	}
	start := len(g.Members)
	for k := range g.PodSets {
		start += int(g.PodSets[k].Count)
		if i < start {
			return &g.PodSets[k].Template
		}
	}
	return nil
}

// checkShapeGroup compares every pending pod's RequestVector and the
// RequestCounts totals with the pods' maps.
func checkShapeGroup(s *Snapshot, g GroupView, where string) []string {
	var errs []string
	n := g.NumPending()
	R := len(s.Resources())
	want, huge := make([]int64, R), false
	for i := range n {
		p := pendingPod(g.Group, i)
		w := wantRequestVector(s, p)
		if got := g.RequestVector(s, i); !slices.Equal(got, w) {
			errs = append(errs, fmt.Sprintf("%s: RequestVector(%d) (%s) = %v, want %v", where, i, p.Name, got, w))
		}
		huge = huge || hugeVector(w)
		for r := range w {
			want[r] += w[r] // compared only when no quantity is huge
		}
	}
	got, pods := make([]int64, R), 0
	for v, c := range g.RequestCounts(s) {
		if c <= 0 {
			errs = append(errs, fmt.Sprintf("%s: RequestCounts yields count %d", where, c))
		}
		pods += c
		for r := range v {
			got[r] += v[r] * int64(c)
		}
	}
	if pods != n {
		errs = append(errs, fmt.Sprintf("%s: RequestCounts covers %d pods, want %d", where, pods, n))
	}
	if !huge && !slices.Equal(got, want) {
		errs = append(errs, fmt.Sprintf("%s: RequestCounts sums %v, want %v", where, got, want))
	}
	return errs
}

func hugeVector(v []int64) bool {
	for _, q := range v {
		if q > 1<<50 || q < 0 {
			return true
		}
	}
	return false
}

// observingGenerator wraps a generator to check the group it is handed.
type observingGenerator struct {
	inner PlacementGenerator
	c     *shapeCase
}

func (o observingGenerator) Generate(s *Snapshot, g GroupView) ([]Placement, error) {
	*o.c.errs = append(*o.c.errs, checkShapeGroup(s, g, "Generate")...)
	*o.c.seen = append(*o.c.seen, shapeSeen{s, g})
	return o.inner.Generate(s, g)
}

type noopReserver struct{}

func (noopReserver) Filter(*Pod, NodeInfo) Rejection { return Rejection{} }
func (noopReserver) Reserve(*Pod, NodeInfo)          {}
func (noopReserver) Unreserve(*Pod, NodeInfo)        {}

func drawShapeCase(t *rapid.T) (shapeCase, error) {
	r := choices{t}
	var n int
	switch r.IntN(6) {
	case 0, 1:
		n = 1 + r.IntN(8)
	case 2, 3:
		n = 9 + r.IntN(40)
	case 4:
		n = 100 + r.IntN(150)
	default:
		n = 500 + r.IntN(100) // across a chunk boundary of 512 nodes
	}
	huge := r.OneIn(8) // quantities whose sums saturate
	types := make([]genNodeType, 1+r.IntN(3))
	for t := range types {
		al := ResourceList{ResourceCPU: 2000 * int64(1+r.IntN(8)), ResourceMemory: int64(1+r.IntN(4)) << 30}
		if r.OneIn(2) {
			al[ResourceGPU] = int64(r.IntN(5))
		}
		if r.OneIn(3) {
			al["example.com/foo"] = int64(1 + r.IntN(4)) // tracked on some snapshots only
		}
		if r.OneIn(4) {
			al[ResourcePods] = int64(1 + r.IntN(8))
		}
		if huge {
			al[ResourceCPU] = math.MaxInt64 - int64(r.IntN(3))
			if r.OneIn(2) {
				al[ResourceMemory] = math.MaxInt64 / 2
			}
		}
		types[t] = genNodeType{alloc: al, taint: r.OneIn(5)}
	}
	block := []int{1, 3, 8, 64, 512}[r.IntN(5)]
	rackSize := []int{1, 2, 4, 8, 64}[r.IntN(5)]
	nodes := make([]Node, n)
	for i := range nodes {
		t := genTypeOf(r, i, block, len(types), 10)
		nodes[i] = genNode(fmt.Sprintf("n%04d", i), types[t],
			map[string]string{"zone": fmt.Sprintf("z%d", i/(rackSize*4)), "rack": fmt.Sprintf("r%03d", i/rackSize), "kind": fmt.Sprintf("k%d", t)})
		if i > 0 && r.OneIn(40) { // node 0 keeps it: the options need a node with the key
			delete(nodes[i].Labels, "rack")
		}
		if r.OneIn(30) {
			nodes[i].Unschedulable = true
		}
	}
	var pods []Pod
	busy := []int{0, 0, 2, 5}[r.IntN(4)] // in ten
	boundMembers := 0
	maxBound := []int{0, 0, 1, 3}[r.IntN(4)]
	for i := range nodes {
		if r.IntN(10) >= busy && (boundMembers >= maxBound || r.IntN(3) > 0) {
			continue
		}
		if q, ok := nodes[i].Allocatable[ResourcePods]; ok && q < 2 {
			continue
		}
		p := Pod{Namespace: "ns", Name: fmt.Sprintf("b%04d", i), NodeName: nodes[i].Name,
			Requests: ResourceList{ResourceCPU: 1000 * int64(1+r.IntN(2)), ResourceMemory: 1 << 28}}
		if huge && r.OneIn(2) {
			p.Requests[ResourceCPU] = math.MaxInt64 / 4
		}
		if !fitsCPUMemory(p, nodes[i]) {
			continue
		}
		if boundMembers < maxBound && r.OneIn(3) {
			p.SchedulingGroup = "pg"
			p.Labels = map[string]string{"role": []string{"a", "b"}[r.IntN(2)]}
			boundMembers++
		}
		pods = append(pods, p)
	}
	s, err := NewSnapshot(nodes, pods)
	if err != nil {
		return shapeCase{}, err
	}
	desc := fmt.Sprintf("nodes=%d types=%d block=%d rack=%d busy=%d bound=%d huge=%v", n, len(types), block, rackSize, busy, boundMembers, huge)
	if r.OneIn(4) {
		ch := genChange(r, s, nodes, 3, 10, func(k int, node string) Pod {
			return Pod{Namespace: "ns", Name: fmt.Sprintf("x%04d", k), NodeName: node, Requests: ResourceList{ResourceCPU: 1000}}
		})
		if d, err := s.Apply(ch); err == nil {
			s = d
			desc += " applied"
		}
	}

	// Shapes: some are twins of an earlier one that differ only where the
	// request vector cannot tell (untracked resources, selectors,
	// tolerations, priority).
	var nShapes int
	switch r.IntN(4) {
	case 0:
		nShapes = 1
	case 1:
		nShapes = 2 + r.IntN(3)
	case 2:
		nShapes = 7 + r.IntN(4) // around the eighth class
	default:
		nShapes = 11 + r.IntN(10)
	}
	shapes := make([]genShape, nShapes)
	for k := range shapes {
		if k > 0 && r.OneIn(3) {
			sh := shapes[r.IntN(k)]
			sh.req = maps2(sh.req)
			switch r.IntN(6) {
			case 0:
				sh.req["example.com/bar"] = int64(1 + r.IntN(2)) // no node has it
			case 1:
				sh.req["example.com/baz"] = 1
			case 2:
				sh.req["example.com/zero"] = 0 // untracked, but asks nothing
			case 3:
				sh.sel = map[string]string{"kind": fmt.Sprintf("k%d", r.IntN(len(types)))}
			case 4:
				sh.tol = genTolerations()
			default:
				sh.prio = int32(r.IntN(3)) * 10
			}
			shapes[k] = sh
			continue
		}
		sh := genShape{req: ResourceList{ResourceCPU: 250 * int64(1+r.IntN(8))}}
		if r.OneIn(2) {
			sh.req[ResourceMemory] = int64(r.IntN(4)) << 28
		}
		if r.OneIn(3) {
			sh.req[ResourceGPU] = int64(r.IntN(3))
		}
		if r.OneIn(5) {
			sh.req["example.com/foo"] = int64(1 + r.IntN(2))
		}
		if r.OneIn(12) {
			sh.req["example.com/bar"] = 1
		}
		if huge && r.OneIn(2) {
			sh.req[ResourceCPU] = math.MaxInt64/8 + int64(r.IntN(3))
		}
		genConstrain(r, &sh, len(types))
		shapes[k] = sh
	}
	g := &Group{Namespace: "ns", Name: "pg", Policy: PolicyGang}
	name := genNamer(r)
	perShape := 1 + r.IntN(4)
	for k := range shapes {
		if r.OneIn(5) {
			continue
		}
		for range 1 + r.IntN(perShape) {
			g.Members = append(g.Members, shapes[k].pod(name()))
		}
	}
	if r.OneIn(3) {
		for range 1 + r.IntN(3) {
			sh := shapes[r.IntN(len(shapes))]
			g.PodSets = append(g.PodSets, PodSet{Name: name(), Count: int32(1 + r.IntN(20)), Template: sh.pod("ignored")})
		}
	}
	if len(g.Members) == 0 && len(g.PodSets) == 0 {
		g.Members = append(g.Members, shapes[0].pod(name()))
	}
	pending := len(g.Members)
	for _, ps := range g.PodSets {
		pending += int(ps.Count)
	}
	total := boundMembers + pending
	g.MinCount = genMinCount(r, total, 3, func() int { return total / 2 })
	if r.OneIn(6) {
		g.Policy = PolicyBasic
	}
	r.Shuffle(len(g.Members), func(i, j int) { g.Members[i], g.Members[j] = g.Members[j], g.Members[i] })
	desc += fmt.Sprintf(" shapes=%d members=%d sets=%d min=%d %s", nShapes, len(g.Members), len(g.PodSets), g.MinCount, g.Policy)
	if len(g.PodSets) == 0 && len(g.Members) <= 24 && r.OneIn(4) {
		key := []string{"rack", "kind"}[r.IntN(2)]
		genAffinity(r, g.Members, key, 6, 2)
		if r.OneIn(2) {
			g.SubGroups = []SubGroup{{Name: "sg", Selector: LabelSelector{MatchLabels: map[string]string{"role": "a"}}, MinCount: 1, TopologyKey: key}}
		}
		desc += " affinity/" + key
	}

	c := shapeCase{s: s, g: g, errs: new([]string), seen: new([]shapeSeen)}
	var opts Options
	switch r.IntN(6) {
	case 0, 1:
		desc += " gen=nil"
	case 2, 3: // topology
		o, d, err := genZoneRackOptions(r, s, 4)
		if err != nil {
			return shapeCase{}, err
		}
		opts = o
		desc += d
	default: // windows
		opts.Generator = genWindows(r, n, false, 3)
		desc += " gen=windows"
	}
	if opts.Generator != nil && r.OneIn(2) {
		opts.Generator = observingGenerator{opts.Generator, &c}
		desc += " observe"
	}
	if r.OneIn(5) {
		m := NodeID(2 + r.IntN(5))
		opts.Filters = []Filter{modFilter(m, false)}
		desc += fmt.Sprintf(" filter=mod%d", m)
	}
	// A scorer hook that lists the assignments (not a SumScorer) but
	// scores as the options' scorer does, and checks the group.
	if r.OneIn(3) {
		inner := opts.Scorer
		if inner == nil {
			inner = DefaultScorer{}
		}
		opts.Scorer = PlacementScorerFunc(func(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error) {
			*c.errs = append(*c.errs, checkShapeGroup(s, g, "Score")...)
			*c.seen = append(*c.seen, shapeSeen{s, g})
			return inner.Score(s, g, p, a)
		})
		desc += " scorer=listing"
	}
	if r.OneIn(5) {
		opts.PlacementFilters = []PlacementFilter{PlacementFilterFunc(func(s *Snapshot, g GroupView, _ *Placement, a []Assignment) Rejection {
			*c.errs = append(*c.errs, checkShapeGroup(s, g, "PlacementFilter")...)
			for j, i := range g.PendingIndexes(a) {
				if i < 0 {
					*c.errs = append(*c.errs, fmt.Sprintf("PlacementFilter: assignment %d (%v) names no pending pod", j, a[j].Pod))
					continue
				}
				if w := wantRequestVector(s, pendingPod(g.Group, i)); !slices.Equal(g.RequestVector(s, i), w) {
					*c.errs = append(*c.errs, fmt.Sprintf("PlacementFilter: assignment %d: vector %v, want %v", j, g.RequestVector(s, i), w))
				}
			}
			return Rejection{}
		})}
		desc += " pfilter"
	}
	if len(g.PodSets) == 0 && r.OneIn(6) {
		opts.Reservers = []NewReserverFunc{func(s *Snapshot, g GroupView) (Reserver, error) {
			*c.errs = append(*c.errs, checkShapeGroup(s, g, "NewReserver")...)
			*c.seen = append(*c.seen, shapeSeen{s, g})
			return noopReserver{}, nil
		}}
		desc += " reserver"
	}
	if r.OneIn(8) {
		opts.StatusOnly = true
		desc += " statusOnly"
	}
	if r.OneIn(6) {
		opts.Budget = int64(50 + r.IntN(5000))
		desc += fmt.Sprintf(" budget=%d", opts.Budget)
	}
	opts.SearchBudget = int64(1 + r.IntN(3000))
	c.opts, c.desc = opts, desc
	return c, nil
}

func maps2(m ResourceList) ResourceList {
	out := ResourceList{}
	for k, v := range m {
		out[k] = v
	}
	return out
}
