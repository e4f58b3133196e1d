package placement_test

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// batchCase is an input that aims at the batched greedy paths:
// clusters of a few node classes (so that domains of consecutive IDs are
// filled by class), some across the 512-node chunks of a class's bitmap,
// sometimes derived with Snapshot.Apply; groups of identical members
// interleaved in member order with pod sets of the same or other shapes;
// placements of every kind (the whole cluster, racks of consecutive IDs,
// windows with holes, scattered subsets, ranks); and hooks that force the
// one-by-one paths. expanded is the same group with every pod set listed
// as members "<set>-<i>", which sort where the set's pods do.
type batchCase struct {
	s        *Snapshot
	g        *Group
	expanded *Group
	opts     Options
	desc     string
	nodes    []Node   // the input of the first snapshot
	pods     []Pod    // (s is derived from it by changes)
	changes  []Change // applied in turn
}

// noopFilter is a caller Filter that accepts everything: it sends the solver
// down the one-by-one paths without changing what fits.
var noopFilter = FilterFunc(func(*Pod, NodeInfo) Rejection { return Rejection{} })

func drawBatchCase(t *rapid.T) (batchCase, error) {
	r := choices{t}
	var n int
	switch r.IntN(5) {
	case 0:
		n = 1 + r.IntN(12)
	case 1:
		n = 64 + r.IntN(64)
	case 2:
		n = 100 + r.IntN(200)
	case 3:
		n = 500 + r.IntN(700) // across a chunk boundary of 512 nodes
	default:
		n = 1020 + r.IntN(10)
	}
	types := make([]genNodeType, 1+r.IntN(3))
	for t := range types {
		al := ResourceList{ResourceCPU: 4000 * int64(1+r.IntN(6)), ResourceMemory: int64(1+r.IntN(4)) << 30}
		if r.OneIn(2) {
			al[ResourceGPU] = int64(1) << r.IntN(4)
		}
		if r.OneIn(3) {
			al[ResourcePods] = int64(2 + r.IntN(20))
		}
		types[t] = genNodeType{alloc: al, taint: r.OneIn(6), cord: r.OneIn(12)}
	}
	block := []int{1, 7, 64, 100, 256, 511, 512, 600}[r.IntN(8)]
	rackSize := []int{8, 64, 100, 128, 256, 512, 513}[r.IntN(7)]
	nodes := make([]Node, n)
	for i := range nodes {
		t := genTypeOf(r, i, block, len(types), 20)
		nodes[i] = genNode(fmt.Sprintf("n%05d", i), types[t],
			map[string]string{"rack": fmt.Sprintf("r%03d", i/rackSize), "kind": fmt.Sprintf("k%d", t)})
	}
	var pods []Pod
	busy := []int{0, 0, 1, 3, 8}[r.IntN(5)] // in ten
	boundMembers := 0
	for i := range nodes {
		if r.IntN(10) >= busy {
			continue
		}
		lvl := int64(1 + r.IntN(2))
		p := Pod{Namespace: "ns", Name: fmt.Sprintf("b%05d", i), NodeName: nodes[i].Name,
			Requests: ResourceList{ResourceCPU: 2000 * lvl, ResourceMemory: lvl << 28}}
		if r.OneIn(3) && nodes[i].Allocatable[ResourceGPU] > 0 {
			p.Requests[ResourceGPU] = 1
		}
		if q, ok := nodes[i].Allocatable[ResourcePods]; ok && q < 2 {
			continue
		}
		if !fitsCPUMemory(p, nodes[i]) {
			continue
		}
		if r.OneIn(40) && boundMembers < 2 {
			p.SchedulingGroup = "pg"
			boundMembers++
		}
		pods = append(pods, p)
	}
	s, err := NewSnapshot(nodes, pods)
	if err != nil {
		return batchCase{}, err
	}
	desc := fmt.Sprintf("nodes=%d types=%d block=%d rack=%d busy=%d", n, len(types), block, rackSize, busy)
	var changes []Change
	for step := range r.IntN(4) {
		// Derived snapshots: some pods gone, others bound; the class index
		// of the parent is built first (by a solve over the whole cluster)
		// when warm, so that the child derives its own from it.
		if r.OneIn(2) {
			warm := &Group{Namespace: "warm", Name: "w", MinCount: 1, Members: []Pod{{Namespace: "warm", Name: "w", SchedulingGroup: "w", Requests: ResourceList{ResourceCPU: 1}}}}
			if _, err := Solve(s, warm, Options{}); err != nil {
				return batchCase{}, err
			}
			desc += " warm"
		}
		ch := genChange(r, s, nodes, 4, 40, func(k int, node string) Pod {
			lvl := int64(1 + r.IntN(2))
			return Pod{Namespace: "ns", Name: fmt.Sprintf("x%d-%05d", step, k), NodeName: node,
				Requests: ResourceList{ResourceCPU: 2000 * lvl, ResourceMemory: lvl << 28}}
		})
		if d, err := s.Apply(ch); err == nil {
			s = d
			changes = append(changes, ch)
			desc += fmt.Sprintf(" applied(-%d+%d)", len(ch.Remove), len(ch.Bind))
		}
	}

	shapes := make([]genShape, 1+r.IntN(3))
	for k := range shapes {
		sh := genShape{req: ResourceList{ResourceCPU: 500 * int64(1+r.IntN(8))}}
		if r.OneIn(2) {
			sh.req[ResourceMemory] = int64(r.IntN(4)) << 28
		}
		if r.OneIn(3) {
			sh.req[ResourceGPU] = int64(1 + r.IntN(2))
		}
		if r.OneIn(15) {
			sh.req["example.com/foo"] = 1 // no node has it
		}
		genConstrain(r, &sh, len(types))
		shapes[k] = sh
	}
	g := &Group{Namespace: "ns", Name: "pg", Policy: PolicyGang}
	exp := &Group{Namespace: "ns", Name: "pg", Policy: PolicyGang}
	name := genNamer(r)
	big := r.OneIn(4)
	for range r.IntN(4) {
		sh := shapes[r.IntN(len(shapes))]
		count := 1 + r.IntN(30)
		if big {
			count = 1 + r.IntN(300)
		}
		for range count {
			p := sh.pod(name())
			g.Members = append(g.Members, p)
			exp.Members = append(exp.Members, p)
		}
	}
	sets := r.IntN(4)
	if r.OneIn(3) {
		sets = 0
	}
	for range sets {
		sh := shapes[r.IntN(len(shapes))]
		count := 1 + r.IntN(40)
		if big {
			count = 1 + r.IntN(2000)
		}
		nm := name()
		g.PodSets = append(g.PodSets, PodSet{Name: nm, Count: int32(count), Template: sh.pod("ignored")})
		for i := range count {
			exp.Members = append(exp.Members, sh.pod(fmt.Sprintf("%s-%05d", nm, i)))
		}
	}
	if len(exp.Members) == 0 {
		p := shapes[0].pod(name())
		g.Members = append(g.Members, p)
		exp.Members = append(exp.Members, p)
	}
	total := boundMembers + len(exp.Members)
	g.MinCount = genMinCount(r, total, 4, func() int { return total * (5 + r.IntN(5)) / 10 })
	if r.OneIn(6) {
		g.Policy = PolicyBasic
	}
	exp.MinCount, exp.Policy = g.MinCount, g.Policy
	r.Shuffle(len(g.Members), func(i, j int) { g.Members[i], g.Members[j] = g.Members[j], g.Members[i] })
	r.Shuffle(len(g.PodSets), func(i, j int) { g.PodSets[i], g.PodSets[j] = g.PodSets[j], g.PodSets[i] })
	desc += fmt.Sprintf(" members=%d sets=%d pending=%d min=%d %s", len(g.Members), len(g.PodSets), len(exp.Members), g.MinCount, g.Policy)

	var opts Options
	switch r.IntN(7) {
	case 0, 1:
		desc += " gen=nil"
	case 2: // racks: consecutive IDs
		var gen fixedPlacements
		for lo := 0; lo < n; lo += rackSize {
			gen = append(gen, Placement{Name: fmt.Sprintf("r%03d", lo/rackSize), Nodes: nodeIDs(lo, min(lo+rackSize, n))})
		}
		if r.OneIn(2) {
			gen = append(gen, Placement{Name: "all", Nodes: nodeIDs(0, n), Rank: 1})
		}
		opts.Generator = gen
		desc += " gen=racks"
	case 3, 4: // windows, some with a hole, some ranked
		opts.Generator = genWindows(r, n, true, 4)
		desc += " gen=windows"
	case 5: // windows across the class bitmaps' 512-node chunks
		var gen fixedPlacements
		for k := range 1 + r.IntN(3) {
			c := 512 * (1 + r.IntN(2))
			lo := max(0, min(n-1, c-r.IntN(80)))
			hi := min(n, max(lo+1, c+r.IntN(80)))
			if r.OneIn(3) {
				lo, hi = c-64, c
			}
			if lo < 0 || hi > n || lo >= hi {
				lo, hi = 0, n
			}
			gen = append(gen, Placement{Name: fmt.Sprintf("c%d", k), Nodes: nodeIDs(lo, hi)})
		}
		opts.Generator = gen
		desc += " gen=chunks"
	default: // scattered subsets
		var gen fixedPlacements
		for k := range 1 + r.IntN(3) {
			var nodes []NodeID
			for id := range n {
				if r.IntN(3) > 0 {
					nodes = append(nodes, NodeID(id))
				}
			}
			gen = append(gen, Placement{Name: fmt.Sprintf("s%d", k), Nodes: nodes})
		}
		opts.Generator = gen
		desc += " gen=subsets"
	}
	switch r.IntN(6) {
	case 0:
		opts.Filters = []Filter{noopFilter}
		desc += " filter=noop"
	case 1:
		m := NodeID(3 + r.IntN(5))
		unres := r.OneIn(2)
		opts.Filters = []Filter{modFilter(m, unres)}
		desc += fmt.Sprintf(" filter=mod%d", m)
	}
	if r.OneIn(3) {
		opts.Scorer = PlacementScorerFunc(func(_ *Snapshot, _ GroupView, _ *Placement, a []Assignment) (int64, error) {
			var sc int64
			for _, x := range a {
				sc += int64(x.NodeID%7) * int64(max(x.Count, 1))
			}
			return sc, nil
		})
		desc += " scorer=hook"
	}
	if r.OneIn(6) {
		limit := int32(1 + r.IntN(6))
		opts.PlacementFilters = []PlacementFilter{PlacementFilterFunc(func(_ *Snapshot, _ GroupView, _ *Placement, a []Assignment) Rejection {
			per := map[NodeID]int32{}
			for _, x := range a {
				per[x.NodeID] += max(x.Count, 1)
				if per[x.NodeID] > limit {
					return Rejection{Reason: "too many on a node"}
				}
			}
			return Rejection{}
		})}
		desc += " pfilter"
	}
	if r.OneIn(6) {
		opts.StatusOnly = true
		desc += " statusOnly"
	}
	if r.OneIn(5) {
		opts.Budget = int64(50 + r.IntN(20000))
		desc += fmt.Sprintf(" budget=%d", opts.Budget)
	}
	if r.OneIn(5) {
		opts.SearchBudget = int64(1 + r.IntN(5000))
		desc += fmt.Sprintf(" search=%d", opts.SearchBudget)
	}
	if len(g.PodSets) == 0 && len(g.Members) <= 40 && r.OneIn(3) {
		// Affinity terms or sub-groups: the one-by-one paths that replay
		// attempts member by member.
		key := []string{"rack", "kind"}[r.IntN(2)]
		genAffinity(r, g.Members, key, 5, 3)
		if r.OneIn(2) {
			a := 0
			for _, m := range g.Members {
				if m.Labels["role"] == "a" {
					a++
				}
			}
			if a > 0 {
				g.SubGroups = []SubGroup{{Name: "sg", Selector: LabelSelector{MatchLabels: map[string]string{"role": "a"}}, MinCount: int32(1 + r.IntN(a)), TopologyKey: key}}
			}
		}
		exp = &Group{Namespace: g.Namespace, Name: g.Name, Policy: g.Policy, MinCount: g.MinCount, Members: slices.Clone(g.Members), SubGroups: g.SubGroups}
		desc += " affinity/" + key
		if opts.SearchBudget == 0 {
			opts.SearchBudget = int64(1 + r.IntN(20000)) // a search under constraints costs microseconds a step
		}
	}
	return batchCase{s: s, g: g, expanded: exp, opts: opts, desc: desc, nodes: nodes, pods: pods, changes: changes}, nil
}
