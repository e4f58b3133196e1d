package placement_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/gangsched/gangsched/internal/arith"
	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

const adv6Seeds = 400

// adv6Listing hides a scorer's ScoreSums: the solver must then list the
// assignments of every placement it scores, and the decision must be the
// same as with the sums.
func adv6Listing(sc PlacementScorer) PlacementScorer {
	return PlacementScorerFunc(sc.Score)
}

func adv6JSON(t *testing.T, d Decision, err error) string {
	t.Helper()
	if err != nil {
		return "error: " + err.Error()
	}
	b, jerr := json.Marshal(d)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return string(b)
}

// TestAdv6_ClassesAndSums solves adv6Draw's inputs and checks: every
// Scheduled decision verifies; the hooks read each pending pod's requests
// from Group.RequestVector and Group.RequestCounts as its map gives them,
// during the solve and after every solve has returned; hiding the scorer's
// ScoreSums (so that the solver lists assignments) changes nothing; and the
// decision's Score is the scorer's Score of its own assignments, read
// through the caller's Group outside any solve.
func TestAdv6_ClassesAndSums(t *testing.T) {
	var kept []adv6Seen
	outcomes := map[Status]int{}
	for seed := range uint64(adv6Seeds) {
		c, err := adv6Draw(seed)
		if err != nil {
			t.Fatalf("seed %d: draw: %v", seed, err)
		}
		d, err := Solve(c.s, c.g, c.opts)
		got := adv6JSON(t, d, err)
		for _, e := range *c.errs {
			t.Errorf("seed %d (%s): %s", seed, c.desc, e)
		}
		kept = append(kept, *c.seen...)
		if err != nil {
			continue
		}
		outcomes[d.Status]++
		if d.Status == Scheduled {
			if verr := Verify(c.s, c.g, d, c.opts.Filters...); verr != nil {
				t.Errorf("seed %d (%s): Verify: %v", seed, c.desc, verr)
			}
		}
		sc := c.opts.Scorer
		if sc == nil {
			sc = DefaultScorer{}
		}
		if _, sums := sc.(SumScorer); sums {
			o := c.opts
			o.Scorer = adv6Listing(sc)
			d2, err2 := Solve(c.s, c.g, o)
			if want := adv6JSON(t, d2, err2); got != want {
				t.Errorf("seed %d (%s): with the sums\n%s\nlisting the assignments\n%s", seed, c.desc, got, want)
			}
		}
		if d.Status == Scheduled && !c.opts.StatusOnly {
			as := slices.Clone(d.Assignments)
			for _, ps := range d.PodSetAssignments {
				as = append(as, Assignment{Pod: Key{Namespace: c.g.Namespace, Name: ps.PodSet}, Node: ps.Node, NodeID: ps.NodeID, Count: ps.Count})
			}
			if s := sc.Score(c.s, c.g, &d.Placement, as); s != d.Score {
				t.Errorf("seed %d (%s): Decision.Score %d, the scorer's Score of its assignments %d", seed, c.desc, d.Score, s)
			}
		}
	}
	// Hooks may keep the group they were handed: it still reads right
	// after later solves reused the pooled memory.
	many := 0 // groups past the class index's eight scanned classes
	for i, sn := range kept {
		for _, e := range adv6CheckGroup(sn.s, sn.g, fmt.Sprintf("kept #%d", i)) {
			t.Error(e)
		}
		classes := 0
		for range sn.g.RequestCounts(sn.s) {
			classes++
		}
		if classes > 8 {
			many++
		}
	}
	if many == 0 {
		t.Error("no hook saw a group of more than eight classes")
	}
	if outcomes[Scheduled] == 0 || outcomes[Scheduled] == adv6Seeds {
		t.Errorf("outcomes %v: want both scheduled and not", outcomes)
	}
}

// TestAdv6_Concurrent solves the same inputs from several goroutines at
// once (the scratch pool and topology's locks are shared): each decision
// is the sequential one. Run with -race.
func TestAdv6_Concurrent(t *testing.T) {
	const n = 120
	want := make([]string, n)
	for seed := range n {
		c, err := adv6Draw(uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		d, err := Solve(c.s, c.g, c.opts)
		want[seed] = adv6JSON(t, d, err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*n)
	for w := range 4 {
		wg.Go(func() {
			for k := range n {
				seed := (k + w*31) % n
				c, err := adv6Draw(uint64(seed))
				if err != nil {
					errs <- err.Error()
					return
				}
				d, err := Solve(c.s, c.g, c.opts)
				if err == nil {
					b, _ := json.Marshal(d)
					if string(b) != want[seed] {
						errs <- fmt.Sprintf("seed %d: concurrent %s, sequential %s", seed, b, want[seed])
					}
				} else if "error: "+err.Error() != want[seed] {
					errs <- fmt.Sprintf("seed %d: concurrent error %v, sequential %s", seed, err, want[seed])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// adv6RefScore is DefaultScorer's score computed as its documentation
// says, from the snapshot's per-node sums and each assignment's pod's own
// request map, adding one assignment at a time (saturating).
func adv6RefScore(s *Snapshot, g *Group, p *Placement, a []Assignment) int64 {
	res := s.Resources()
	requested := map[ResourceName]bool{}
	pods := func(yield func(*Pod) bool) {
		for i := range g.Members {
			if !yield(&g.Members[i]) {
				return
			}
		}
		for k := range g.PodSets {
			if !yield(&g.PodSets[k].Template) {
				return
			}
		}
	}
	for p := range pods {
		for r, q := range p.Requests {
			if q > 0 && slices.Contains(res, r) {
				requested[r] = true
			}
		}
	}
	alloc, used := map[ResourceName]int64{}, map[ResourceName]int64{}
	for _, id := range p.Nodes {
		for r := range requested {
			alloc[r] = arith.SatAdd(alloc[r], s.Allocatable(id, r))
			used[r] = arith.SatAdd(used[r], max(s.Requested(id, r), 0))
		}
	}
	byKey := map[Key]*Pod{}
	for i := range g.Members {
		byKey[g.Members[i].Key()] = &g.Members[i]
	}
	for k := range g.PodSets {
		if _, dup := byKey[Key{Namespace: g.Namespace, Name: g.PodSets[k].Name}]; !dup {
			byKey[Key{Namespace: g.Namespace, Name: g.PodSets[k].Name}] = &g.PodSets[k].Template
		}
	}
	var placed int64
	for _, x := range a {
		placed += x.Pods()
		p, ok := byKey[x.Pod]
		if !ok {
			continue
		}
		for r := range requested {
			used[r] = arith.SatAdd(used[r], arith.MulSat(p.Requests[r], x.Pods()))
		}
	}
	const scale = 1_000_000
	var sum, n int64
	for r := range requested {
		sum += arith.MulDiv(used[r], scale, alloc[r])
		n++
	}
	var most int64
	if n > 0 {
		most = sum / n
	}
	bound := int64(g.BoundCount(s))
	total := bound + int64(g.NumPending())
	if total == 0 {
		return most
	}
	return most + (bound+placed)*scale/total
}

// TestAdv6_DefaultScoreOfLists checks DefaultScorer.Score and ScoreSums
// against the reference on assignment lists a hook could be handed or
// build itself: members and pod-set entries mixed, counts, keys of pods
// that are not pending (bound members, strangers), whole-cluster and
// partial placements, and quantities that saturate.
func TestAdv6_DefaultScoreOfLists(t *testing.T) {
	tried := 0
	for seed := range uint64(adv6Seeds) {
		c, err := adv6Draw(seed)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 7))
		n := c.s.NumNodes()
		var p Placement
		if r.IntN(2) == 0 {
			for id := range n {
				p.Nodes = append(p.Nodes, NodeID(id))
			}
		} else {
			for id := range n {
				if r.IntN(2) == 0 {
					p.Nodes = append(p.Nodes, NodeID(id))
				}
			}
		}
		var keys []Key
		for i := range c.g.Members {
			keys = append(keys, c.g.Members[i].Key())
		}
		for k := range c.g.PodSets {
			keys = append(keys, Key{Namespace: c.g.Namespace, Name: c.g.PodSets[k].Name})
		}
		for _, b := range c.s.GroupMembers(c.g.Key()) {
			keys = append(keys, b.Key())
		}
		keys = append(keys, Key{Namespace: "ns", Name: "stranger"})
		var a []Assignment
		for range r.IntN(12) {
			k := keys[r.IntN(len(keys))]
			id := NodeID(r.IntN(n))
			a = append(a, Assignment{Pod: k, Node: c.s.Node(id).Name, NodeID: id, Member: r.IntN(4), Count: int32(r.IntN(3))})
		}
		want := adv6RefScore(c.s, c.g, &p, a)
		if got := (DefaultScorer{}).Score(c.s, c.g, &p, a); got != want {
			t.Errorf("seed %d (%s): Score %d, reference %d; assignments %v", seed, c.desc, got, want, a)
		}
		placed, sums := AssignedSums(c.s, c.g, a)
		if got := (DefaultScorer{}).ScoreSums(c.s, c.g, &p, placed, sums); got != want {
			t.Errorf("seed %d (%s): ScoreSums %d, reference %d", seed, c.desc, got, want)
		}
		// topology's MostAllocated is documented to score exactly so.
		tr, err := topology.NewTree(c.s, []string{"zone", "rack"})
		if err != nil {
			t.Fatal(err)
		}
		o, err := tr.SolverOptions([]topology.Constraint{{Key: "zone"}}, topology.MostAllocated)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Scorer.Score(c.s, c.g, &p, a); got != want {
			t.Errorf("seed %d (%s): topology MostAllocated Score %d, reference %d", seed, c.desc, got, want)
		}
		if got := o.Scorer.(SumScorer).ScoreSums(c.s, c.g, &p, placed, sums); got != want {
			t.Errorf("seed %d (%s): topology MostAllocated ScoreSums %d, reference %d", seed, c.desc, got, want)
		}
		tried++
	}
	if tried == 0 {
		t.Fatal("no case")
	}
}

// adv6Hash is the solver's hash of a request vector (FNV-1a over the
// int64 values), which the class index buckets by.
func adv6Hash(v []int64) uint64 {
	h := uint64(14695981039346656037)
	for _, q := range v {
		h = (h ^ uint64(q)) * 1099511628211
	}
	return h
}

// adv6Collide returns two request maps over resources x and y (the last
// two of res that the vectors vary) whose vectors differ but hash alike.
func adv6Collide(t *testing.T, res []ResourceName, x, y ResourceName, base ResourceList) (ResourceList, ResourceList) {
	t.Helper()
	vec := func(rl ResourceList) []int64 {
		v := make([]int64, len(res))
		for j, r := range res {
			if r == ResourcePods {
				v[j] = 1
			} else {
				v[j] = rl[r]
			}
		}
		return v
	}
	ix, iy := slices.Index(res, x), slices.Index(res, y)
	if ix < 0 || iy < 0 || ix >= iy {
		t.Fatalf("resources %v: want %s before %s", res, x, y)
	}
	// The hash state just before y's entry, for a value of x.
	before := func(qx int64) uint64 {
		v := vec(base)
		v[ix] = qx
		h := uint64(14695981039346656037)
		for _, q := range v[:iy] {
			h = (h ^ uint64(q)) * 1099511628211
		}
		return h
	}
	a := maps2(base)
	a[x], a[y] = 1, 1
	for qx := int64(2); qx < 1000; qx++ {
		qy := int64(before(1) ^ 1 ^ before(qx))
		if qy < 0 {
			continue
		}
		b := maps2(base)
		b[x], b[y] = qx, qy
		if adv6Hash(vec(a)) != adv6Hash(vec(b)) {
			t.Fatalf("no collision: %v %v", vec(a), vec(b))
		}
		return a, b
	}
	t.Fatal("no collision found")
	return nil, nil
}

// TestAdv6_ClassHashCollision gives a group two member shapes whose
// request vectors hash alike, among the first eight classes and past them
// (where the class index is a map): they must stay two classes, each read
// back with its own requests.
func TestAdv6_ClassHashCollision(t *testing.T) {
	nodes := []Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 64000, ResourceMemory: 1 << 40, "example.com/x": 1 << 62, "example.com/y": 1 << 62}}}
	s, err := NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := adv6Collide(t, s.Resources(), "example.com/x", "example.com/y", ResourceList{ResourceCPU: 100})
	for _, before := range []int{0, 3, 7, 8, 12} {
		t.Run(fmt.Sprint(before), func(t *testing.T) {
			g := &Group{Namespace: "ns", Name: "pg", Policy: PolicyBasic, MinCount: 1}
			add := func(name string, rl ResourceList) {
				g.Members = append(g.Members, Pod{Namespace: "ns", Name: name, SchedulingGroup: "pg", Requests: rl})
			}
			for k := range before { // other classes first, in member order
				add(fmt.Sprintf("a%02d", k), ResourceList{ResourceCPU: int64(10 + k)})
			}
			add("b0", a)
			add("b1", b)
			add("b2", a)
			add("b3", b)
			var errs []string
			gen := PlacementGeneratorFunc(func(s *Snapshot, g *Group) ([]Placement, error) {
				errs = append(errs, adv6CheckGroup(s, g, "Generate")...)
				classes := 0
				for range g.RequestCounts(s) {
					classes++
				}
				if classes != before+2 {
					errs = append(errs, fmt.Sprintf("RequestCounts: %d classes, want %d", classes, before+2))
				}
				return []Placement{{Nodes: []NodeID{0}}}, nil
			})
			d, err := Solve(s, g, Options{Generator: gen})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				t.Error(e)
			}
			if err := Verify(s, g, d); err != nil && d.Status == Scheduled {
				t.Error(err)
			}
		})
	}
}

// TestAdv6_PoolHistory solves each input right after another one cut
// short by a small budget (which may leave pooled memory in any state a
// solve can) and right after a trivial one: the decisions are equal.
func TestAdv6_PoolHistory(t *testing.T) {
	s0, err := NewSnapshot([]Node{{Name: "n", Allocatable: ResourceList{ResourceCPU: 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	trivial := &Group{Namespace: "t", Name: "t", MinCount: 1, Members: []Pod{{Namespace: "t", Name: "t", SchedulingGroup: "t"}}}
	for seed := range uint64(adv6Seeds) {
		c, err := adv6Draw(seed)
		if err != nil {
			t.Fatal(err)
		}
		prev, err := adv6Draw(seed + 100_003)
		if err != nil {
			t.Fatal(err)
		}
		prev.opts.Budget = int64(1 + seed%97)
		_, _ = Solve(prev.s, prev.g, prev.opts)
		d1, err1 := Solve(c.s, c.g, c.opts)
		if _, err := Solve(s0, trivial, Options{}); err != nil {
			t.Fatal(err)
		}
		d2, err2 := Solve(c.s, c.g, c.opts)
		if a, b := adv6JSON(t, d1, err1), adv6JSON(t, d2, err2); a != b {
			t.Errorf("seed %d (%s): after a cut solve\n%s\nafter a trivial one\n%s", seed, c.desc, a, b)
		}
	}
}
