package kube

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// admitMemoOff admits world w as [propWorld.admit] does, without the
// nominations kept between heads ([nominationMemo]).
func (w *propWorld) admitMemoOff(t require.TestingT) (*Cluster, []KueueOutcome) {
	off := w.clone()
	off.opts.noMemo = true
	c, _, outs := off.admit(t)
	return c, outs
}

// requireSameAdmission fails unless two admissions of one world decided
// alike: the same outcomes, and the same status written on every Workload.
func requireSameAdmission(t require.TestingT, c *Cluster, outs []KueueOutcome, oc *Cluster, oouts []KueueOutcome) {
	require.Equal(t, oouts, outs, "the nominations kept change a decision")
	for i, x := range oc.KueueWorkloads {
		require.Equal(t, x.Obj.Status, c.KueueWorkloads[i].Obj.Status, "%s: the nominations kept change the status written", x.Key())
	}
}

// TestProp_KueueNominationMemo: keeping the heads' nominations between
// cycles changes no decision, on the properties' random worlds and on
// their perturbed second pass.
func TestProp_KueueNominationMemo(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := genPropWorld(rt)
		for range 2 {
			oc, oouts := w.admitMemoOff(rt)
			c, _, outs := w.admit(rt)
			requireSameAdmission(rt, c, outs, oc, oouts)
			w.perturb(rt)
		}
	})
}

// TestKueueNominationMemo_Fungibility: on genff.py's worlds of three
// cohorts (mixed fungibilities and the default alone), where most heads
// are tried again on the state they were nominated on, keeping the
// nominations changes no decision.
func TestKueueNominationMemo_Fungibility(t *testing.T) {
	for seed := range uint64(6) {
		for _, def := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d/default=%v", seed, def), func(t *testing.T) {
				world := fungibilityWorld(seed, 6, 9, 90, def)
				admit := func(noMemo bool) (*Cluster, []KueueOutcome) {
					return admitWorld(t, world, func(o *KueueOptions) { o.noMemo = noMemo })
				}
				oc, oouts := admit(true)
				c, outs := admit(false)
				requireSameAdmission(t, c, outs, oc, oouts)
				preempted := 0
				for _, o := range outs {
					if o.PreemptedBy != (placement.Key{}) {
						preempted++
					}
				}
				require.Positive(t, preempted, "a world without preemption tests little")
			})
		}
	}
}
