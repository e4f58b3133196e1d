package placement

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_SharedTermsCompileAsCopies: compileConsInto takes a member whose
// *Affinity is the last member's with terms as carrying those terms (it
// joins their run, or after a gap copies their classes, not looked up
// again). Compiling members that share one *Affinity gives exactly the
// cons that compiling each with its own copy of the terms gives — terms
// and their runs of owners, classes, their matches and terms, each
// member's terms and matching classes — whatever the templates, bound
// members and members without terms between them (drawAlikeCase).
func TestProp_SharedTermsCompileAsCopies(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, g := drawAlikeCase(t)
		bound := s.GroupMembers(g.Key())
		pending := make([]*Pod, len(g.Members))
		copies := make([]*Pod, len(g.Members))
		for i := range g.Members {
			pending[i] = &g.Members[i]
			p := g.Members[i]
			p.Affinity = cloneAffinity(p.Affinity)
			copies[i] = &p
		}
		shared := consSummary(compileCons(s, g, bound, pending))
		own := consSummary(compileCons(s, g, bound, copies))
		if shared != own {
			t.Fatalf("shared terms compile differently:\nshared: %s\ncopies: %s", shared, own)
		}
	})
}

// cloneAffinity is a deep copy of a, its terms at new addresses.
func cloneAffinity(a *Affinity) *Affinity {
	if a == nil {
		return nil
	}
	pa := func(p *PodAffinity) *PodAffinity {
		if p == nil {
			return nil
		}
		c := &PodAffinity{}
		for _, t := range p.Required {
			t.LabelSelector.MatchLabels = maps.Clone(t.LabelSelector.MatchLabels)
			c.Required = append(c.Required, t)
		}
		for _, t := range p.Preferred {
			t.Term.LabelSelector.MatchLabels = maps.Clone(t.Term.LabelSelector.MatchLabels)
			c.Preferred = append(c.Preferred, t)
		}
		return c
	}
	return &Affinity{PodAffinity: pa(a.PodAffinity), PodAntiAffinity: pa(a.PodAntiAffinity)}
}

// consSummary is what the checks read of a compiled cons, printed.
func consSummary(c *cons) string {
	if c == nil {
		return "nil"
	}
	out := fmt.Sprintf("terms %v maxPref %d\n", c.terms, c.maxPref)
	for k := range c.classes {
		cl := &c.classes[k]
		out += fmt.Sprintf("class %d: %s %v %v %d matches %v terms %v\n", k, cl.key, cl.sel.MatchLabels, cl.anti, cl.weight, cl.matches, cl.terms)
	}
	for i := range c.members() {
		out += fmt.Sprintf("member %d: owns %v matched by %v\n", i, c.owned(i), c.matchers(i))
	}
	return out
}

// TestProp_PendingAlikeIsEveryPair: cons.pendingAlike, which lets
// termsAlike answer without comparing, holds exactly when every two
// pending members own the same span of terms and are selected by the same
// classes, whatever the terms, labels, bound members and members without
// terms (drawAffinityPods: pods drawn to share terms share one *Affinity).
func TestProp_PendingAlikeIsEveryPair(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawLabelledSnapshot(t, 4)
		nb, np := rapid.IntRange(0, 2).Draw(t, "bound"), rapid.IntRange(1, 4).Draw(t, "pending")
		bound, pending := drawAffinityPods(t, nb, np)
		c := compileCons(s, &Group{}, bound, pending)
		if c == nil {
			return
		}
		want := true
		for i := nb + 1; i < nb+np; i++ {
			want = want && c.own[i] == c.own[nb] && slices.Equal(c.matchers(i), c.matchers(nb))
		}
		if c.pendingAlike != want {
			t.Fatalf("pendingAlike %v, every pair alike %v", c.pendingAlike, want)
		}
	})
}
