package placement

import (
	"fmt"
	"iter"
	"testing"

	"pgregory.net/rapid"
)

// violationRef and prefRef are violation's term checks and pref as they
// were before the counts: every term walks its matches. They are the
// reference the counts are held to.
func (c *cons) violationRef(pos []NodeID) string {
	for o, t := range c.ownedTerms() {
		if t.weight != 0 || pos[o] < 0 {
			continue
		}
		placed, shared := false, false
		for _, q := range c.matchesOf(t) {
			if q == o || pos[q] < 0 || (int(o) < c.nb && int(q) < c.nb) {
				continue
			}
			placed = true
			if c.same(pos[o], pos[q], c.keyOf(t)) {
				shared = true
				if t.anti {
					return fmt.Sprintf("%s and %s share a %s domain against required pod anti-affinity", c.pod(int(o)).Key(), c.pod(int(q)).Key(), c.keyOf(t))
				}
			}
		}
		if !t.anti && int(o) >= c.nb && !shared {
			for _, q := range c.matchesOf(t) {
				placed = placed || (q != o && pos[q] >= 0)
			}
			if _, ok := c.label(pos[o], c.keyOf(t)); !ok || placed || !c.selfMatch(o, t.cls) {
				return fmt.Sprintf("%s has no matching member in its %s domain (required pod affinity)", c.pod(int(o)).Key(), c.keyOf(t))
			}
		}
	}
	return ""
}

// pref is judge's preference score.
func (c *cons) pref(pos []NodeID) int64 {
	_, p := c.judge(pos)
	return p
}

func (c *cons) prefRef(pos []NodeID) int64 {
	var sc int64
	for o, t := range c.ownedTerms() {
		if t.weight == 0 || pos[o] < 0 {
			continue
		}
		shared := false
		for _, q := range c.matchesOf(t) {
			if q != o && pos[q] >= 0 && c.same(pos[o], pos[q], c.keyOf(t)) {
				shared = true
				break
			}
		}
		if shared != t.anti {
			sc += t.weight
		}
	}
	return sc
}

// ownedTerms yields every member's terms, members in order, as a term a
// member was compiled before the runs.
func (c *cons) ownedTerms() iter.Seq2[int32, *term] {
	return func(yield func(int32, *term) bool) {
		for o := range c.members() {
			for _, ti := range c.owned(o) {
				if !yield(int32(o), &c.terms[ti]) {
					return
				}
			}
		}
	}
}

// drawAffinityPods draws nb bound and np pending pods labelled app=x|y|z,
// some with required and preferred affinity and anti-affinity terms
// against app=x|y on the host or zone key; pods drawn to share terms
// share one *Affinity, as a controller's pods share their template.
func drawAffinityPods(t *rapid.T, nb, np int) (bound, pending []*Pod) {
	term := func() PodAffinityTerm {
		return PodAffinityTerm{
			LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom([]string{"x", "y"}).Draw(t, "app")}},
			TopologyKey:   rapid.SampledFrom([]string{"host", "zone"}).Draw(t, "key"),
		}
	}
	pa := func() *PodAffinity {
		p := &PodAffinity{}
		for range rapid.IntRange(0, 1).Draw(t, "required") {
			p.Required = append(p.Required, term())
		}
		for range rapid.IntRange(0, 1).Draw(t, "preferred") {
			p.Preferred = append(p.Preferred, WeightedPodAffinityTerm{Weight: int32(rapid.IntRange(1, 100).Draw(t, "weight")), Term: term()})
		}
		return p
	}
	var shared *Affinity
	for k := range nb + np {
		p := &Pod{Namespace: "ns", Name: fmt.Sprint("p", k), Labels: map[string]string{"app": rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "label")}}
		switch rapid.IntRange(0, 2).Draw(t, "affinity") {
		case 1:
			p.Affinity = &Affinity{PodAffinity: pa(), PodAntiAffinity: pa()}
			shared = p.Affinity
		case 2:
			p.Affinity = shared
		}
		if k < nb {
			bound = append(bound, p)
		} else {
			pending = append(pending, p)
		}
	}
	return bound, pending
}

// TestProp_CountsAreTheWalk: violation's term checks and pref, judged by
// per-domain counts of each class's placed matches, say what walking
// every term's matches says — the same message, the same score — for
// any terms (affinity or anti, required or preferred, host or zone keys,
// nodes without the label or with an empty value, bound owners) and
// places.
func TestProp_CountsAreTheWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawLabelledSnapshot(t, 6)
		nb, np := rapid.IntRange(0, 3).Draw(t, "bound"), rapid.IntRange(1, 6).Draw(t, "pending")
		bound, pending := drawAffinityPods(t, nb, np)
		c := compileCons(s, &Group{}, bound, pending)
		if c == nil {
			return
		}
		for range 3 { // the counts are reused
			pos := drawPositions(t, s, nb, np)
			if got, want := c.violation(pos), c.violationRef(pos); got != want {
				t.Fatalf("violation %q, the walk %q", got, want)
			}
			if got, want := c.pref(pos), c.prefRef(pos); got != want {
				t.Fatalf("pref %d, the walk %d", got, want)
			}
		}
	})
}
