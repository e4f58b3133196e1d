package placement_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	. "github.com/gangsched/gangsched/placement"
)

const shapeSeeds = 400

// listingScorer hides a scorer's ScoreSums: the solver must then list the
// assignments of every placement it scores, and the decision must be the
// same as with the sums.
func listingScorer(sc PlacementScorer) PlacementScorer {
	return PlacementScorerFunc(sc.Score)
}

func decisionJSON(t *testing.T, d Decision, err error) string {
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

// TestShapeCases_HooksSeeStableVectorsAndSums solves drawShapeCase's inputs
// and checks: every Scheduled decision verifies; the hooks read each pending
// pod's requests from GroupView.RequestVector and GroupView.RequestCounts as
// its map gives them, during the solve and after every solve has returned;
// hiding the scorer's ScoreSums (so that the solver lists assignments)
// changes nothing; and the decision's Score is the scorer's Score of its own
// assignments, read through the caller's Group outside any solve.
func TestShapeCases_HooksSeeStableVectorsAndSums(t *testing.T) {
	var kept []shapeSeen
	outcomes := map[Status]int{}
	for seed := range uint64(shapeSeeds) {
		c, err := seeded(seed, drawShapeCase)
		if err != nil {
			t.Fatalf("seed %d: draw: %v", seed, err)
		}
		d, err := Solve(c.s, c.g, c.opts)
		got := decisionJSON(t, d, err)
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
			o.Scorer = listingScorer(sc)
			d2, err2 := Solve(c.s, c.g, o)
			if want := decisionJSON(t, d2, err2); got != want {
				t.Errorf("seed %d (%s): with the sums\n%s\nlisting the assignments\n%s", seed, c.desc, got, want)
			}
		}
		if d.Status == Scheduled && !c.opts.StatusOnly {
			as := slices.Clone(d.Assignments)
			for _, ps := range d.PodSetAssignments {
				as = append(as, Assignment{Pod: Key{Namespace: c.g.Namespace, Name: ps.PodSet}, Node: ps.Node, NodeID: ps.NodeID, Count: ps.Count})
			}
			if s, _ := sc.Score(c.s, GroupView{Group: c.g}, &d.Placement, as); s != d.Score {
				t.Errorf("seed %d (%s): Decision.Score %d, the scorer's Score of its assignments %d", seed, c.desc, d.Score, s)
			}
		}
	}
	// Hooks may keep the view they were handed: it still reads right
	// after later solves reused the pooled memory.
	many := 0 // groups past the class index's eight scanned classes
	for i, sn := range kept {
		for _, e := range checkShapeGroup(sn.s, sn.g, fmt.Sprintf("kept #%d", i)) {
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
	if outcomes[Scheduled] == 0 || outcomes[Scheduled] == shapeSeeds {
		t.Errorf("outcomes %v: want both scheduled and not", outcomes)
	}
}

// vectorHash is the solver's hash of a request vector (FNV-1a over the
// int64 values), which the class index buckets by.
func vectorHash(v []int64) uint64 {
	h := uint64(14695981039346656037)
	for _, q := range v {
		h = (h ^ uint64(q)) * 1099511628211
	}
	return h
}

// collidingShapes returns two request maps over resources x and y (the last
// two of res that the vectors vary) whose vectors differ but hash alike.
func collidingShapes(t *testing.T, res []ResourceName, x, y ResourceName, base ResourceList) (ResourceList, ResourceList) {
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
		if vectorHash(vec(a)) != vectorHash(vec(b)) {
			t.Fatalf("no collision: %v %v", vec(a), vec(b))
		}
		return a, b
	}
	t.Fatal("no collision found")
	return nil, nil
}

// TestClassIndex_HashCollision gives a group two member shapes whose
// request vectors hash alike, among the first eight classes and past them
// (where the class index is a map): they must stay two classes, each read
// back with its own requests.
func TestClassIndex_HashCollision(t *testing.T) {
	nodes := []Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 64000, ResourceMemory: 1 << 40, "example.com/x": 1 << 62, "example.com/y": 1 << 62}}}
	s, err := NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := collidingShapes(t, s.Resources(), "example.com/x", "example.com/y", ResourceList{ResourceCPU: 100})
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
			gen := PlacementGeneratorFunc(func(s *Snapshot, g GroupView) ([]Placement, error) {
				errs = append(errs, checkShapeGroup(s, g, "Generate")...)
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
