package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// classRunsCase is an input of classRunsDraw, with its description for
// failure messages.
type classRunsCase struct {
	s    *Snapshot
	g    *Group
	opts Options
	desc string
}

// classRunsDraw is an input aimed at attempts of several runs filled
// by node class (placeRunClasses): the whole cluster or domains of 64+
// consecutive IDs (racks, or a topology tree's with required or preferred
// keys) over few node types, so that a later run starts with nodes an
// earlier one touched; groups of one to four shapes mixing members and pod
// sets of the same and other requests; groups too large to fit, for the
// diagnosis; caller Filters, Reservers, PlacementFilters and budgets now
// and then.
func classRunsDraw(t *rapid.T) (classRunsCase, error) {
	r := choices{t}
	n := []int{64, 65, 100, 128, 200, 256, 511, 512, 513, 700, 1024, 1100}[r.IntN(12)]
	types := make([]genNodeType, 1+r.IntN(4))
	for t := range types {
		al := ResourceList{ResourceCPU: 2000 * int64(1+r.IntN(8)), ResourceMemory: int64(1+r.IntN(4)) << 30}
		if r.OneIn(3) {
			al[ResourceGPU] = int64(1 + r.IntN(4))
		}
		if r.OneIn(4) {
			al[ResourcePods] = int64(1 + r.IntN(10))
		}
		types[t] = genNodeType{alloc: al, taint: r.OneIn(8), cord: r.OneIn(15)}
	}
	block := []int{1, 3, 16, 64, 100, 512}[r.IntN(6)]
	rack := []int{64, 64, 100, 128, 256, 512}[r.IntN(6)]
	nodes := make([]Node, n)
	for i := range nodes {
		t := genTypeOf(r, i, block, len(types), 10+r.IntN(20))
		nodes[i] = genNode(fmt.Sprintf("n%05d", i), types[t],
			map[string]string{"zone": fmt.Sprintf("z%d", i/(rack*2)), "rack": fmt.Sprintf("r%03d", i/rack), "kind": fmt.Sprintf("k%d", t), "stripe": fmt.Sprint(i % 4)})
	}
	var pods []Pod
	busy := []int{0, 1, 3, 6}[r.IntN(4)]
	for i := range nodes {
		if r.IntN(10) >= busy {
			continue
		}
		if q, ok := nodes[i].Allocatable[ResourcePods]; ok && q < 2 {
			continue
		}
		lvl := int64(1 + r.IntN(3))
		p := Pod{Namespace: "ns", Name: fmt.Sprintf("b%05d", i), NodeName: nodes[i].Name,
			Requests: ResourceList{ResourceCPU: 1000 * lvl, ResourceMemory: lvl << 28}}
		if !fitsCPUMemory(p, nodes[i]) {
			continue
		}
		pods = append(pods, p)
	}
	s, err := NewSnapshot(nodes, pods)
	if err != nil {
		return classRunsCase{}, err
	}
	desc := fmt.Sprintf("nodes=%d types=%d block=%d rack=%d busy=%d", n, len(types), block, rack, busy)
	if r.OneIn(4) {
		ch := genChange(r, s, nodes, 3, 30, func(k int, node string) Pod {
			return Pod{Namespace: "ns", Name: fmt.Sprintf("x%04d", k), NodeName: node, Requests: ResourceList{ResourceCPU: 500}}
		})
		if d, err := s.Apply(ch); err == nil {
			s = d
			desc += " applied"
		}
	}
	shapes := make([]genShape, 1+r.IntN(4))
	for k := range shapes {
		sh := genShape{req: ResourceList{ResourceCPU: 500 * int64(1+r.IntN(8))}}
		if r.OneIn(2) {
			sh.req[ResourceMemory] = int64(r.IntN(4)) << 28
		}
		if r.OneIn(4) {
			sh.req[ResourceGPU] = 1
		}
		if r.OneIn(8) {
			sh.tol = genTolerations()
		}
		if r.OneIn(12) {
			sh.sel = map[string]string{"kind": fmt.Sprintf("k%d", r.IntN(len(types)))}
		} else if k > 0 && r.OneIn(2) {
			// Labels are no part of a node's class: a run on every
			// fourth node touches nodes of a class other than its first
			// ones in ID order, which a later run by class must skip.
			sh.sel = map[string]string{"stripe": fmt.Sprint(r.IntN(4))}
		}
		shapes[k] = sh
	}
	g := &Group{Namespace: "ns", Name: "pg", Policy: PolicyGang}
	name := genNamer(r)
	scale := []int{4, 20, 100, 600}[r.IntN(4)]
	for range r.IntN(5) {
		sh := shapes[r.IntN(len(shapes))]
		for range 1 + r.IntN(scale) {
			g.Members = append(g.Members, sh.pod(name()))
		}
	}
	for range r.IntN(4) {
		sh := shapes[r.IntN(len(shapes))]
		g.PodSets = append(g.PodSets, PodSet{Name: name(), Count: int32(1 + r.IntN(scale*3)), Template: sh.pod("ignored")})
	}
	if len(g.Members) == 0 && len(g.PodSets) == 0 {
		g.Members = append(g.Members, shapes[0].pod(name()))
	}
	pending := len(g.Members)
	for _, ps := range g.PodSets {
		pending += int(ps.Count)
	}
	g.MinCount = genMinCount(r, pending, 3, func() int { return pending / 2 })
	if r.OneIn(6) {
		g.Policy = PolicyBasic
	}
	if r.OneIn(2) {
		r.Shuffle(len(g.Members), func(i, j int) { g.Members[i], g.Members[j] = g.Members[j], g.Members[i] })
	}
	desc += fmt.Sprintf(" shapes=%d members=%d sets=%d min=%d %s", len(shapes), len(g.Members), len(g.PodSets), g.MinCount, g.Policy)
	var opts Options
	switch r.IntN(5) {
	case 0:
		desc += " gen=nil"
	case 1:
		var gen fixedPlacements
		for lo := 0; lo < n; lo += rack {
			gen = append(gen, Placement{Name: fmt.Sprintf("r%03d", lo/rack), Nodes: nodeIDs(lo, min(lo+rack, n)), Rank: r.IntN(2)})
		}
		opts.Generator = gen
		desc += " gen=racks"
	default:
		o, d, err := genZoneRackOptions(r, s, 5)
		if err != nil {
			return classRunsCase{}, err
		}
		opts = o
		desc += d
	}
	if r.OneIn(6) {
		opts.Filters = []Filter{modFilter(NodeID(2+r.IntN(5)), r.OneIn(2))}
		desc += " filter"
	}
	if len(g.PodSets) == 0 && r.OneIn(8) {
		opts.Reservers = []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) { return noopReserver{}, nil }}
		desc += " reserver"
	}
	if r.OneIn(8) {
		opts.PlacementFilters = []PlacementFilter{PlacementFilterFunc(func(_ *Snapshot, _ GroupView, _ *Placement, a []Assignment) Rejection {
			if len(a)%3 == 0 {
				return Rejection{Reason: "div3"}
			}
			return Rejection{}
		})}
		desc += " pfilter"
	}
	if r.OneIn(8) {
		opts.Budget = int64(50 + r.IntN(20000))
		desc += " budget"
	}
	return classRunsCase{s, g, opts, desc}, nil
}

// TestProp_ClassRunsEqualOneByOne: the batched greedy over node classes,
// which looks a class's nodes up lazily and checks them against the
// attempt's touched nodes only in runs that begin with some touched, places
// exactly as the one-by-one greedy that a caller Filter accepting
// everything forces (the search cut at once, as in
// TestProp_NoopFilterEqualsBatched).
func TestProp_ClassRunsEqualOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, err := classRunsDraw(t)
		s, g, opts, desc := c.s, c.g, c.opts, c.desc
		require.NoError(t, err)
		opts.Filters, opts.Reservers = nil, nil
		opts.SearchBudget = 1
		opts.Budget = 0 // a filter's calls count: a tight budget runs out sooner one by one
		fast, err := Solve(s, g, opts)
		require.NoError(t, err, desc)
		opts.Filters = []Filter{noopFilter}
		slow, err := Solve(s, g, opts)
		require.NoError(t, err, desc)
		if fast.Status == Scheduled || slow.Status == Scheduled {
			require.Equal(t, slow.Status, fast.Status, "%s\nslow: %s\nfast: %s", desc, slow.Message, fast.Message)
			require.Equal(t, slow.Placement, fast.Placement, desc)
			require.Equal(t, slow.Assignments, fast.Assignments, desc)
			require.Equal(t, slow.PodSetAssignments, fast.PodSetAssignments, desc)
			require.Equal(t, slow.Waiting, fast.Waiting, desc)
			require.Equal(t, slow.Score, fast.Score, desc)
			require.NoError(t, Verify(s, g, fast), desc)
		}
		require.Equal(t, slow.MostFit, fast.MostFit, "%s\nslow: %s\nfast: %s", desc, slow.Message, fast.Message)
	})
}

// TestClassRunsGen_FeasibleAndInfeasible: classRunsDraw yields groups that
// are scheduled and groups that are not.
func TestClassRunsGen_FeasibleAndInfeasible(t *testing.T) {
	seen := map[Status]int{}
	for seed := range uint64(100) {
		c, err := seeded(seed, classRunsDraw)
		s, g, opts, desc := c.s, c.g, c.opts, c.desc
		require.NoError(t, err)
		d, err := Solve(s, g, opts)
		require.NoError(t, err, desc)
		seen[d.Status]++
	}
	require.Positive(t, seen[Scheduled], "%v", seen)
	require.Positive(t, seen[Unschedulable]+seen[Unresolvable], "%v", seen)
}

// TestShortByClasses_CutByBudget: a group of one class short of room is
// answered from the node classes (shortByClasses), spending a step per
// class as the greedy's run would. When the budget cannot pay for those
// steps nothing is placed, so the diagnosis must see the nodes empty, as
// the one-by-one path (a no-op Filter) and the greedy's own cut attempt
// do: the first waiting member fits on an empty node, and no node may be
// reported short of cpu.
func TestShortByClasses_CutByBudget(t *testing.T) {
	noop := FilterFunc(func(*Pod, NodeInfo) Rejection { return Rejection{} })
	for _, n := range []int{2, 5, 70, 130} {
		for _, kinds := range []int{2, 3} {
			var nodes []Node
			for i := range n {
				nodes = append(nodes, Node{Name: fmt.Sprintf("n%04d", i), Allocatable: ResourceList{ResourceCPU: int64(1000 * (i%kinds + 1))}})
			}
			s, err := NewSnapshot(nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := &Group{Namespace: "ns", Name: "pg", MinCount: 400}
			for i := range 400 {
				g.Members = append(g.Members, Pod{Namespace: "ns", Name: fmt.Sprintf("p%04d", i), SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 600}})
			}
			name := fmt.Sprintf("nodes=%d kinds=%d", n, kinds)
			d, err := Solve(s, g, Options{Budget: 1})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := Solve(s, g, Options{Budget: 1, Filters: []Filter{noop}})
			if err != nil {
				t.Fatal(err)
			}
			if d.MostFit != 0 || ref.MostFit != 0 {
				t.Fatalf("%s: MostFit %d and %d (one by one), want 0: the budget of 1 step cannot pay for a run", name, d.MostFit, ref.MostFit)
			}
			if len(ref.Reasons) != 0 {
				t.Fatalf("%s: one by one, Reasons %v on empty nodes", name, ref.Reasons)
			}
			if len(d.Reasons) != 0 {
				t.Errorf("%s: nothing placed, yet Reasons %v (the nodes are diagnosed as if filled); message %q", name, d.Reasons, d.Message)
			}
		}
	}
}
