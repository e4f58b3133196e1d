package placement

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// leafRows reads what a plain reading of every pending pod's map gives:
// each pod's row (its tracked requests, the pod count 1 more), uniform
// when every row is the first's, compiled when every member's map holds
// tracked resources alone, none negative nor the pod count, with a name
// and valid score requests, sorted and alike as defined, and the least
// need and never from those rows. Members mostly share a map or copy the
// first's, so that leafRows' shortcut for a member whose requests are the
// first's (sameRequests) is taken; others differ from it in one value, in
// a key (untracked or the pod count among them), or by an extra key, so
// that the shortcut must refuse them.
func TestHierarchy_PropLeafRowsAsRead(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 4000, ResourceMemory: 8 << 30, ResourceGPU: 2}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, R := s.b, len(s.b.res)
		keys := []ResourceName{ResourceCPU, ResourceMemory, ResourceGPU, "example.com/untracked", ResourcePods}
		draw := func(label string) ResourceList {
			rl := ResourceList{}
			for _, k := range keys {
				if v := rapid.IntRange(-1, 3).Draw(t, label); v >= 0 && (v > 0 || k != ResourcePods) {
					rl[k] = int64(v - 1) // -1 (invalid), 0, 1, 2
				}
			}
			return rl
		}
		g := &Group{Namespace: "ns", Name: "g", Policy: PolicyGang}
		first := draw("first")
		for i := range rapid.IntRange(1, 7).Draw(t, "members") {
			p := Pod{Namespace: "ns", Name: fmt.Sprintf("g-%d", i), SchedulingGroup: "g"}
			switch rapid.IntRange(0, 6).Draw(t, "requests") {
			case 0, 1:
				p.Requests = first // one map
			case 2:
				p.Requests = ResourceList{}
				for k, v := range first {
					p.Requests[k] = v // a copy
				}
			case 3: // the first's with one value changed
				p.Requests = ResourceList{}
				for k, v := range first {
					p.Requests[k] = v
				}
				k := rapid.SampledFrom(keys).Draw(t, "changed")
				p.Requests[k] = int64(rapid.IntRange(-1, 2).Draw(t, "to"))
			case 4: // the first's with one key dropped
				p.Requests = ResourceList{}
				drop := rapid.SampledFrom(keys).Draw(t, "dropped")
				for k, v := range first {
					if k != drop {
						p.Requests[k] = v
					}
				}
			default:
				p.Requests = draw("other")
			}
			if rapid.IntRange(0, 12).Draw(t, "no name") == 0 {
				p.Name = ""
			}
			if rapid.IntRange(0, 12).Draw(t, "score requests") == 0 {
				p.ScoreRequests = ResourceList{ResourceGPU: 1}
			}
			if rapid.IntRange(0, 12).Draw(t, "selector") == 0 {
				p.NodeSelector = map[string]string{"zone": "a"}
			}
			g.Members = append(g.Members, p)
		}
		if rapid.IntRange(0, 6).Draw(t, "shuffle") == 0 {
			g.Members[0], g.Members[len(g.Members)-1] = g.Members[len(g.Members)-1], g.Members[0]
		}
		if rapid.IntRange(0, 3).Draw(t, "pod set") == 0 {
			g.PodSets = []PodSet{{Name: "w", Count: 2, Template: Pod{Requests: draw("template")}}}
		}
		need := rapid.IntRange(1, g.NumPending()).Draw(t, "need")
		n := &hnode{src: &HierarchyNode{Name: "g", Group: g}, least: make([]int64, R), need: need}
		n.leafRows(b, new([]int64))

		// The plain reading.
		row := func(p *Pod) []int64 {
			r := make([]int64, R)
			for k, q := range p.Requests {
				if i, ok := b.resIdx[k]; ok {
					r[i] += q
				}
			}
			r[b.podsR]++
			return r
		}
		var rows [][]int64
		compiled, sorted, alike := true, true, true
		missing := map[ResourceName]int{}
		for i := range g.Members {
			p := &g.Members[i]
			rows = append(rows, row(p))
			for k, q := range p.Requests {
				i, tracked := b.resIdx[k]
				compiled = compiled && tracked && q >= 0 && i != b.podsR
				if !tracked && q > 0 {
					missing[k]++
				}
			}
			compiled = compiled && p.Name != "" && validScoreRequests(p.ScoreRequests)
			sorted = sorted && p.Namespace == g.Namespace && (i == 0 || g.Members[i-1].Name < p.Name)
			alike = alike && alikeBesidesRequests(&g.Members[0], p)
		}
		pending := slices.Clone(rows)
		for _, ps := range g.PodSets {
			r := row(&ps.Template)
			for k, q := range ps.Template.Requests {
				if _, tracked := b.resIdx[k]; !tracked && q > 0 {
					missing[k] += int(ps.Count)
				}
			}
			for range ps.Count {
				pending = append(pending, r)
			}
		}
		uniform := !slices.ContainsFunc(pending, func(r []int64) bool { return !slices.Equal(r, pending[0]) })
		never := false
		for _, c := range missing {
			never = never || c >= len(pending)
		}
		least := make([]int64, R)
		for r := range R {
			if r == b.podsR {
				continue
			}
			var vs []int64
			for _, row := range pending {
				vs = append(vs, max(row[r], 0))
			}
			slices.Sort(vs)
			for _, v := range vs[:need] {
				least[r] += v
			}
		}

		if n.uniform != uniform || n.compiled != compiled || n.sorted != sorted || n.never != never {
			t.Fatalf("uniform %v compiled %v sorted %v never %v; read: %v %v %v %v",
				n.uniform, n.compiled, n.sorted, n.never, uniform, compiled, sorted, never)
		}
		if want := alike && uniform && compiled && len(g.PodSets) == 0; n.alike != want {
			t.Fatalf("alike %v, read %v", n.alike, want)
		}
		if !slices.Equal(n.least, least) {
			t.Fatalf("least %v, read %v (rows %v)", n.least, least, pending)
		}
		for i := range g.Members {
			got := n.rows[:R]
			if !n.uniform {
				got = n.rows[i*R : (i+1)*R]
			}
			if !slices.Equal(got, rows[i]) {
				t.Fatalf("member %d: row %v, read %v", i, got, rows[i])
			}
		}
	})
}
