package placement

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_CheckerIsAllow: a member's checker, set up once, admits exactly
// the nodes cons.allow admits under the sequential rule — whatever the
// required affinity and anti-affinity terms (owned by the member or
// matching it, host or zone keys, nodes without the label or with an
// empty value), the sub-groups and the other members' places — checked
// twice in a row, so that a reused checker forgets the last member's.
func TestProp_CheckerIsAllow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawLabelledSnapshot(t, 70) // past one 64-bit word of domains
		nNodes := s.NumNodes()
		key := rapid.SampledFrom([]string{"host", "zone"})
		app := rapid.SampledFrom([]string{"x", "y"})
		terms := func(name string) []PodAffinityTerm {
			var ts []PodAffinityTerm
			for range rapid.IntRange(0, 2).Draw(t, name) {
				ts = append(ts, PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": app.Draw(t, "app")}}, TopologyKey: key.Draw(t, "key")})
			}
			return ts
		}
		g := &Group{}
		for k := range rapid.IntRange(0, 2).Draw(t, "subGroups") {
			sg := SubGroup{Name: fmt.Sprint("s", k), Selector: LabelSelector{MatchLabels: map[string]string{"app": app.Draw(t, "subApp")}}}
			if rapid.Bool().Draw(t, "subKey") {
				sg.TopologyKey = key.Draw(t, "key")
			}
			g.SubGroups = append(g.SubGroups, sg)
		}
		nb, np := rapid.IntRange(0, 2).Draw(t, "bound"), rapid.IntRange(1, 6).Draw(t, "pending")
		var bound, pending []*Pod
		for k := range nb + np {
			p := &Pod{Namespace: "ns", Name: fmt.Sprint("p", k), Labels: map[string]string{"app": rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "label")}}
			if rapid.Bool().Draw(t, "hasAffinity") {
				p.Affinity = &Affinity{PodAffinity: &PodAffinity{Required: terms("affinity")}, PodAntiAffinity: &PodAffinity{Required: terms("anti")}}
			}
			if k < nb {
				bound = append(bound, p)
			} else {
				pending = append(pending, p)
			}
		}
		c := compileCons(s, g, bound, pending)
		if c == nil {
			return
		}
		pos := drawPositions(t, s, nb, np)
		for range 2 {
			i := nb + rapid.IntRange(0, np-1).Draw(t, "member")
			pos[i] = -1
			k := c.checker(i, pos)
			for n := range NodeID(nNodes) {
				if want := c.allow(i, n, pos, true, nil); k.allow(n) != want {
					t.Fatalf("member %d on node %d: allow says %v, the checker %v", i, n, want, !want)
				}
			}
		}
	})
}
