package placement

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_PrefsOrderNodesAsPref: for a member i not placed, prefs.on(n)
// differs from the group's whole preference score with i on n (cons.pref)
// by the same amount on every node, so both order i's nodes alike —
// whatever the terms (owned by i or matching it, affinity or anti,
// host or zone keys, nodes without the label or with an empty value) and
// the other members' places.
func TestProp_PrefsOrderNodesAsPref(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawLabelledSnapshot(t, 5)
		nNodes := s.NumNodes()
		term := func() PodAffinityTerm {
			return PodAffinityTerm{
				LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom([]string{"x", "y"}).Draw(t, "app")}},
				TopologyKey:   rapid.SampledFrom([]string{"host", "zone"}).Draw(t, "key"),
			}
		}
		weighted := func() []WeightedPodAffinityTerm {
			var ws []WeightedPodAffinityTerm
			for range rapid.IntRange(0, 2).Draw(t, "preferred") {
				ws = append(ws, WeightedPodAffinityTerm{Weight: int32(rapid.IntRange(1, 100).Draw(t, "weight")), Term: term()})
			}
			return ws
		}
		nb, np := rapid.IntRange(0, 2).Draw(t, "bound"), rapid.IntRange(1, 5).Draw(t, "pending")
		var bound, pending []*Pod
		for k := range nb + np {
			p := &Pod{Namespace: "ns", Name: fmt.Sprint("p", k), Labels: map[string]string{"app": rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "label")}}
			if rapid.Bool().Draw(t, "hasAffinity") {
				p.Affinity = &Affinity{PodAffinity: &PodAffinity{Preferred: weighted()}, PodAntiAffinity: &PodAffinity{Preferred: weighted()}}
				if rapid.Bool().Draw(t, "required") {
					p.Affinity.PodAntiAffinity.Required = []PodAffinityTerm{term()}
				}
			}
			if k < nb {
				bound = append(bound, p)
			} else {
				pending = append(pending, p)
			}
		}
		c := compileCons(s, &Group{}, bound, pending)
		if c == nil {
			return
		}
		pos := drawPositions(t, s, nb, np)
		i := nb + rapid.IntRange(0, np-1).Draw(t, "member")
		pos[i] = -1
		p := c.prefsOf(i, pos)
		var diff int64
		for n := range NodeID(nNodes) {
			pos[i] = n
			whole := c.pref(pos)
			pos[i] = -1
			if d := whole - p.on(n); n == 0 {
				diff = d
			} else if d != diff {
				t.Fatalf("node %d: pref %d, prefs.on %d: differ by %d, node 0 by %d", n, whole, p.on(n), d, diff)
			}
		}
	})
}
