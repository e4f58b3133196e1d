package placement

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// A leaf's rows that leafRows marks compiled are, member for member, what
// Solve's compile reads from the maps, which accepts each member and
// finds no untracked resource in it; and a Solve given them decides (and
// fails) exactly as one that reads the maps. Members draw tracked,
// untracked, negative and pod-count requests, empty names and invalid
// score requests, so that both outcomes of leafRows are seen; and members
// of one row that pick other nodes (a selector no node has, a
// toleration), so that leaves alike and not are seen.
func TestHierarchy_PropCompiledRowsAreCompile(t *testing.T) {
	seen, seenAlike := map[bool]int{}, map[bool]int{}
	prop := func(t *rapid.T) {
		var nodes []Node
		for i := range rapid.IntRange(1, 6).Draw(t, "nodes") {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), Allocatable: ResourceList{
				ResourceCPU: 4000, ResourceMemory: 8 << 30, ResourceGPU: int64(rapid.IntRange(0, 2).Draw(t, "gpu"))}})
		}
		s, err := NewSnapshot(nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		names := []ResourceName{ResourceCPU, ResourceMemory, ResourceGPU, "example.com/untracked", ResourcePods}
		g := &Group{Namespace: "ns", Name: "g", Policy: PolicyGang}
		alike := rapid.Bool().Draw(t, "alike")
		var shape ResourceList
		for i := range rapid.IntRange(0, 6).Draw(t, "members") {
			p := Pod{Namespace: "ns", Name: fmt.Sprintf("g-%d", i), SchedulingGroup: "g", Requests: ResourceList{}}
			if alike && shape != nil {
				p.Requests = shape
			} else {
				for _, r := range names {
					if k := rapid.IntRange(0, 12).Draw(t, "req"); k > 0 {
						var q int64
						switch {
						case k == 1:
							q = -1
						case k == 2:
							q = 0
						default:
							q = int64(k) * 300
						}
						if r == ResourceGPU || r == ResourcePods {
							q = min(q, 1)
						}
						if (r == "example.com/untracked" || r == ResourcePods) && k > 3 {
							continue // mostly absent
						}
						p.Requests[r] = q
					}
				}
				shape = p.Requests
			}
			if rapid.IntRange(0, 15).Draw(t, "bad name") == 0 {
				p.Name = ""
			}
			if rapid.IntRange(0, 15).Draw(t, "score requests") == 0 {
				p.ScoreRequests = ResourceList{ResourceGPU: 1}
			}
			switch rapid.IntRange(0, 11).Draw(t, "picks nodes") { // members otherwise alike that pick other nodes
			case 0:
				p.NodeSelector = map[string]string{"zone": "a"} // no node has it
			case 1:
				p.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists}}
			}
			g.Members = append(g.Members, p)
		}
		if rapid.IntRange(0, 3).Draw(t, "pod set") == 0 {
			g.PodSets = []PodSet{{Name: "w", Count: 2, Template: Pod{Requests: ResourceList{ResourceCPU: 500}}}}
		}
		if g.NumPending() == 0 {
			return
		}
		g.MinCount = int32(rapid.IntRange(1, g.NumPending()).Draw(t, "min"))
		n := &hnode{src: &HierarchyNode{Name: "g", Group: g}, least: make([]int64, len(s.b.res)), need: 1}
		n.leafRows(s.b, new([]int64))
		seen[n.compiled]++
		var pre *compiledRows
		if n.compiled {
			pre = &compiledRows{rows: n.rows, uniform: n.uniform, alike: n.alike}
			seenAlike[n.alike]++
			sv := &solver{s: s, g: g, R: len(s.b.res), prep: &prepared{b: s.b}}
			for j := range sv.R {
				if j != s.b.podsR {
					sv.cols = append(sv.cols, j)
				}
			}
			req := make([]int64, sv.R)
			for i := range g.Members {
				if !sv.compile(int32(i), req) {
					t.Fatalf("member %d: compile rejects what leafRows marked compiled", i)
				}
				if !slices.Equal(req, pre.of(i, sv.R)) {
					t.Fatalf("member %d: compile %v, leafRows %v", i, req, pre.of(i, sv.R))
				}
			}
			if sv.missing != nil || sv.prep.untracked {
				t.Fatalf("compile found untracked resources %v in members marked compiled", sv.missing)
			}
		}
		want, werr := Solve(s, g, Options{})
		got, gerr := solveRows(s, g, Options{}, pre)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
			t.Fatalf("with rows: %v %v %s; from maps: %v %v %s", gerr, got.Status, got.Message, werr, want.Status, want.Message)
		}
	}
	// One run of 100 cases sees about 4 compiled leaves alike and 4.5 not
	// (measured over 20 runs), so it misses one kind about once in 30; run
	// again (at most 20 rounds) until every kind was seen.
	for round := 0; round < 20 && (seen[true] == 0 || seen[false] == 0 || seenAlike[true] == 0 || seenAlike[false] == 0); round++ {
		rapid.Check(t, prop)
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("leafRows compiled %d leaves and refused %d: both must be seen", seen[true], seen[false])
	}
	if seenAlike[true] == 0 || seenAlike[false] == 0 {
		t.Fatalf("leafRows found %d compiled leaves alike and %d not: both must be seen", seenAlike[true], seenAlike[false])
	}
}
