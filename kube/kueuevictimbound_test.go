package kube

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestProp_KueueVictimBound: proving victim searches empty by the bound
// ([admitter.attemptMayFind]) changes no decision, on the properties'
// random worlds and on their perturbed second pass.
func TestProp_KueueVictimBound(t *testing.T) {
	proofs := 0
	rapid.Check(t, func(rt *rapid.T) {
		w := genPropWorld(rt)
		for range 2 {
			off := w.clone()
			off.opts.noBound = true
			oc, _, oouts := off.admit(rt)
			on := w.clone()
			on.opts.boundProofs = &proofs
			c, _, outs := on.admit(rt)
			requireSameAdmission(rt, c, outs, oc, oouts)
			w.perturb(rt)
		}
	})
	t.Logf("searches proved empty: %d", proofs)
}

// TestKueueVictimBound_Fungibility: on genff.py's worlds of three cohorts
// (mixed fungibilities and the default alone), where most victim searches
// find nothing, the bound proves many of them empty and changes no
// decision.
func TestKueueVictimBound_Fungibility(t *testing.T) {
	for seed := range uint64(6) {
		for _, def := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d/default=%v", seed, def), func(t *testing.T) {
				world := fungibilityWorld(seed, 6, 9, 90, def)
				admit := func(noBound bool) (*Cluster, []KueueOutcome, int) {
					proofs := 0
					c, outs := admitWorld(t, world, func(o *KueueOptions) { o.noBound, o.boundProofs = noBound, &proofs })
					return c, outs, proofs
				}
				oc, oouts, none := admit(true)
				c, outs, proofs := admit(false)
				requireSameAdmission(t, c, outs, oc, oouts)
				require.Zero(t, none, "the bound is off")
				require.Positive(t, proofs, "no search was proved empty: the bound is not used")
			})
		}
	}
}

// TestProp_KueueVictimBoundCohorts: on small worlds of fungibilityWorld's
// kind (quota-only flavors, three cohorts, reclaim within them), drawn
// seed and size, the bound changes no decision; across the draws it
// proves searches empty (else the property would test nothing).
func TestProp_KueueVictimBoundCohorts(t *testing.T) {
	proofs := 0
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		nf := rapid.IntRange(2, 6).Draw(rt, "flavors")
		ncq := rapid.IntRange(3, 9).Draw(rt, "clusterQueues")
		nw := rapid.IntRange(1, 40).Draw(rt, "workloads")
		def := rapid.Bool().Draw(rt, "defaultFungibility")
		world := fungibilityWorld(seed, nf, ncq, nw, def)
		admit := func(noBound bool) (*Cluster, []KueueOutcome) {
			return admitWorld(rt, world, func(o *KueueOptions) {
				if o.noBound = noBound; !noBound {
					o.boundProofs = &proofs
				}
			})
		}
		oc, oouts := admit(true)
		c, outs := admit(false)
		requireSameAdmission(rt, c, outs, oc, oouts)
	})
	require.Positive(t, proofs, "no search was proved empty: the property tests nothing")
}
