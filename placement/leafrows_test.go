package placement

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// leafRows reads what a plain reading of every pending pod's map gives:
// each pod's row (its tracked requests, the pod count 1 more), uniform
// when every row is the first's, compiled when every member's map holds
// tracked resources alone, none negative nor the pod count, with a name
// and valid score requests, sorted and alike as defined, and the least
// need and never from those rows. Members mostly share a map or copy the
// first's, so that leafRows' shortcut for a member whose requests are the
// first's (sameRun) is taken; others differ from it in one value, in
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

// memberChecks reads what a plain reading of each member gives, one
// member at a time and each field compared by value: members drawn alike
// (the usual gang) or differing from the first in one field each — the
// namespace (also an equal one built afresh, so that no compare may
// trust the string's address), the name's order or its absence, the
// group name, the node name, affinity, claims, score requests, priority,
// queue time, selector, tolerations or node affinity — with a first
// member that has a selector, tolerations or node affinity or not.
func TestHierarchy_PropMemberChecksAsRead(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fresh := func(s string) string { return string([]byte(s)) } // equal, another address
		g := &Group{Namespace: "ns", Name: "g", Policy: PolicyGang}
		at := time.Unix(100, 0)
		base := Pod{Namespace: "ns", SchedulingGroup: "g", Priority: 3, QueuedAt: at}
		switch rapid.IntRange(0, 5).Draw(t, "first") {
		case 0:
			base.NodeSelector = map[string]string{"zone": "a"}
		case 1:
			base.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists}}
		case 2:
			base.NodeAffinity = &NodeAffinity{Required: []NodeSelectorTerm{{}}}
		}
		M := rapid.IntRange(1, 6).Draw(t, "members")
		for i := range M {
			p := base
			p.Name = fmt.Sprintf("g-%d", i)
			switch rapid.IntRange(0, 22).Draw(t, "differs in") {
			case 0:
				p.Namespace = "other"
			case 1:
				p.Namespace = fresh(p.Namespace)
				p.SchedulingGroup = fresh(p.SchedulingGroup)
			case 2:
				p.Name = fmt.Sprintf("g-%d", M-i) // out of order
			case 3:
				p.Name = ""
			case 4:
				p.SchedulingGroup = "h"
			case 5:
				p.NodeName = "n0"
			case 6:
				p.Affinity = &Affinity{}
			case 7:
				p.ResourceClaims = []PodResourceClaim{{Name: "c"}}
			case 8:
				p.ScoreRequests = ResourceList{ResourceCPU: 1}
			case 9:
				p.ScoreRequests = ResourceList{ResourceGPU: 1} // invalid
			case 10:
				p.Priority = 4
			case 11:
				p.QueuedAt = at.Add(time.Second)
			case 12:
				p.NodeSelector = map[string]string{"zone": "b"}
			case 13:
				p.NodeSelector = map[string]string{"zone": "a"}
			case 14:
				p.Tolerations = []Toleration{{Key: "j", Operator: TolerationOpExists}}
			case 15:
				p.NodeAffinity = &NodeAffinity{Required: []NodeSelectorTerm{{}, {}}}
			case 16:
				p.NodeSelector, p.Tolerations, p.NodeAffinity = nil, nil, nil
			}
			g.Members = append(g.Members, p)
		}
		sorted, alike, plain, named := memberChecks(g)
		wsorted, walike, wplain, wnamed := true, true, true, true
		m0 := &g.Members[0]
		for i := range g.Members {
			p := &g.Members[i]
			wsorted = wsorted && p.Namespace == g.Namespace && (i == 0 || g.Members[i-1].Name < p.Name)
			walike = walike && alikeBesidesRequests(m0, p)
			wplain = wplain && p.SchedulingGroup == g.Name && p.NodeName == "" && p.Affinity == nil &&
				len(p.ResourceClaims) == 0 && len(p.ScoreRequests) == 0 && p.Priority == m0.Priority && p.QueuedAt.Equal(m0.QueuedAt)
			wnamed = wnamed && p.Name != "" && validScoreRequests(p.ScoreRequests)
		}
		if sorted != wsorted || alike != walike || plain != wplain || named != wnamed {
			t.Fatalf("sorted %v alike %v plain %v named %v; read %v %v %v %v", sorted, alike, plain, named, wsorted, walike, wplain, wnamed)
		}
	})
}
