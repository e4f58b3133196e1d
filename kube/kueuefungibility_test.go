package kube

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// spec.flavorFungibility is read as Kueue v0.17's v1beta2 API defaults
// and validates it: unset policies are MayStopSearch (borrow) and
// TryNextFlavor (preempt); other values, v1beta1's deprecated spellings
// and a preference without both policies TryNextFlavor are refused,
// naming the ClusterQueue and the field.
func TestConvertClusterQueue_FlavorFungibility(t *testing.T) {
	const cq = `Kueue ClusterQueue "a": `
	for _, c := range []struct {
		name, ff string
		want     KueueFungibility
		msg      string
	}{
		{"unset", "", KueueFungibility{}, ""},
		{"empty", "flavorFungibility: {}", KueueFungibility{}, ""},
		{"explicit defaults", "flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor}", KueueFungibility{}, ""},
		{"borrow next", "flavorFungibility: {whenCanBorrow: TryNextFlavor}", KueueFungibility{BorrowTryNext: true}, ""},
		{"preempt stop", "flavorFungibility: {whenCanPreempt: MayStopSearch}", KueueFungibility{PreemptStop: true}, ""},
		{"preemption over borrowing", "flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: PreemptionOverBorrowing}",
			KueueFungibility{BorrowTryNext: true, PreemptionOverBorrowing: true}, ""},
		{"borrowing over preemption", "flavorFungibility: {whenCanBorrow: TryNextFlavor, preference: BorrowingOverPreemption}", KueueFungibility{BorrowTryNext: true}, ""},
		{"bad borrow", "flavorFungibility: {whenCanBorrow: Never}", KueueFungibility{},
			cq + `spec.flavorFungibility.whenCanBorrow: "Never" is not MayStopSearch or TryNextFlavor`},
		{"deprecated Borrow", "flavorFungibility: {whenCanBorrow: Borrow}", KueueFungibility{},
			cq + `spec.flavorFungibility.whenCanBorrow: "Borrow" is v1beta1's deprecated name of MayStopSearch`},
		{"deprecated Preempt", "flavorFungibility: {whenCanPreempt: Preempt}", KueueFungibility{},
			cq + `spec.flavorFungibility.whenCanPreempt: "Preempt" is v1beta1's deprecated name of MayStopSearch`},
		{"bad preference", "flavorFungibility: {whenCanBorrow: TryNextFlavor, preference: Cheapest}", KueueFungibility{},
			cq + `spec.flavorFungibility.preference: "Cheapest" is not BorrowingOverPreemption or PreemptionOverBorrowing`},
		{"preference with the default whenCanBorrow", "flavorFungibility: {preference: PreemptionOverBorrowing}", KueueFungibility{},
			cq + `spec.flavorFungibility.preference: "PreemptionOverBorrowing" is set while whenCanBorrow or whenCanPreempt is not TryNextFlavor`},
		{"preference with MayStopSearch preemption", "flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: MayStopSearch, preference: BorrowingOverPreemption}", KueueFungibility{},
			cq + `spec.flavorFungibility.preference: "BorrowingOverPreemption" is set while whenCanBorrow or whenCanPreempt is not TryNextFlavor`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := preemptCQ("a", "c", 4, "")
			if c.ff != "" {
				doc = strings.Replace(doc, "spec: {", "spec: {"+c.ff+", ", 1)
			}
			objs, err := manifest.Decode("f.yaml", strings.NewReader(cohortQueues(doc)), manifest.Options{})
			require.NoError(t, err)
			got, err := Load(objs)
			if c.msg != "" {
				require.ErrorIs(t, err, placement.ErrInvalid)
				require.Contains(t, err.Error(), c.msg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got.KueueQueues.ClusterQueues["a"].Fungibility)
		})
	}
}

// Each policy combination on two quota-only flavors (reserved first, spot
// second), one independent ClusterQueue or cohort per case, as the header
// of testdata/kueue-oracle/preemption/ff1-fungibility-quota.yaml tells
// them (the real Kueue v0.17.0 gave the same answers): the flavor each
// Workload ends in ("" pending) and the Workload that preempted it.
func TestAdmitKueueWorkloads_FlavorFungibility(t *testing.T) {
	b, err := os.ReadFile("testdata/kueue-oracle/preemption/ff1-fungibility-quota.yaml")
	require.NoError(t, err)
	objs, err := manifest.Decode("ff1.yaml", bytes.NewReader(b), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	// Quota-only flavors: no Topology, no tree.
	_, outs, err := AdmitKueueWorkloads(c.Snapshot, nil, c.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: c.KueueQueues})
	require.NoError(t, err)
	type result struct{ flavor, preemptedBy string }
	got := map[string]result{}
	for _, o := range outs {
		r := result{preemptedBy: o.PreemptedBy.Name}
		if o.Action != KueuePending {
			r.flavor = strings.Join(o.Flavors, ",")
		}
		got[o.Workload.Name] = r
	}
	for _, c := range []struct {
		name, workload string
		want           result
	}{
		{"whenCanPreempt MayStopSearch preempts in the first flavor though the second fits", "a-high", result{"reserved", ""}},
		{"its victim comes back in the next flavor", "a-low", result{"spot", "a-high"}},
		{"the default tries the next flavor rather than preempt", "an-high", result{"spot", ""}},
		{"and preempts nothing", "an-low", result{"reserved", ""}},
		{"whenCanBorrow TryNextFlavor takes a later flavor within nominal quota", "b-w", result{"spot", ""}},
		{"the default borrows in the first flavor", "bd-w", result{"reserved", ""}},
		{"PreemptionOverBorrowing preempts rather than borrow", "p-high", result{"reserved", ""}},
		{"its victim then borrows", "p-low", result{"spot", "p-high"}},
		{"BorrowingOverPreemption borrows rather than preempt", "q-high", result{"spot", ""}},
		{"and preempts nothing", "q-low", result{"reserved", ""}},
		{"PreemptionOverBorrowing takes a flavor without victims that borrows nothing, and waits", "n-w", result{"", ""}},
		{"BorrowingOverPreemption borrows there", "o-w", result{"spot", ""}},
		{"MayStopSearch preemption with TryNextFlavor borrowing preempts first", "m-high", result{"reserved", ""}},
		{"its victim comes back borrowing, the best flavor tried", "m-low", result{"spot", "m-high"}},
		{"flavors borrowing alike: the first", "g-w", result{"reserved", ""}},
		{"a flavor fitting by borrowing beats one that preempts (BorrowingOverPreemption)", "h-high", result{"reserved", ""}},
		{"which preempts nothing", "h-low", result{"spot", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, got[c.workload], c.workload)
		})
	}
}

// Kueue's grading of flavors: isPreferred under each preference and
// shouldTryNextFlavor under each policy.
func TestKueueFungibility_PreferredAndTryNext(t *testing.T) {
	fit0, fit1 := flavorMode{modeFit, 0}, flavorMode{modeFit, 1}
	reclaim0, preempt0 := flavorMode{modeReclaim, 0}, flavorMode{modePreempt, 0}
	none0 := flavorMode{modeNoCandidates, 0}
	bop, pob := KueueFungibility{BorrowTryNext: true}, KueueFungibility{BorrowTryNext: true, PreemptionOverBorrowing: true}
	for _, c := range []struct {
		name string
		f    KueueFungibility
		x, y flavorMode
		want bool
	}{
		{"noFit beats nothing", bop, noFitMode, none0, false},
		{"anything beats noFit", bop, none0, noFitMode, true},
		{"BorrowingOverPreemption: a borrowing fit beats a reclaim", bop, fit1, reclaim0, true},
		{"PreemptionOverBorrowing: a reclaim without borrowing beats a borrowing fit", pob, reclaim0, fit1, true},
		{"PreemptionOverBorrowing: no victims without borrowing beats a borrowing fit", pob, none0, fit1, true},
		{"reclaim beats preempt", bop, reclaim0, preempt0, true},
		{"equal modes: lower borrowing", bop, fit0, fit1, true},
		{"equal is not better", pob, fit1, fit1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, c.f.preferred(c.x, c.y))
		})
	}
	for _, c := range []struct {
		name string
		f    KueueFungibility
		m    flavorMode
		want bool
	}{
		{"default: fit borrowing stops", KueueFungibility{}, fit1, false},
		{"default: preempt goes on", KueueFungibility{}, preempt0, true},
		{"default: no victims goes on", KueueFungibility{}, none0, true},
		{"whenCanBorrow TryNextFlavor: fit borrowing goes on", bop, fit1, true},
		{"whenCanBorrow TryNextFlavor: fit within nominal stops", bop, fit0, false},
		{"whenCanPreempt MayStopSearch: reclaim stops", KueueFungibility{PreemptStop: true}, reclaim0, false},
		{"whenCanPreempt MayStopSearch: no victims goes on", KueueFungibility{PreemptStop: true}, none0, true},
		{"both: preempt while borrowing goes on", KueueFungibility{BorrowTryNext: true, PreemptStop: true}, flavorMode{modePreempt, 1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, c.f.tryNext(c.m))
		})
	}
}

// Under PreemptionOverBorrowing Kueue grades a flavor by its worst
// resource, borrowing first: p0's memory, fitting in reserved by
// borrowing, hides its cpu, short there within q1's nominal quota, so
// reserved is Fit to Kueue, no victim is sought, and its cycle skips p0 as
// no longer fitting (the real Kueue did so: kueue-oracle/preemption/ff4).
func TestAdmitKueueWorkloads_FlavorFungibilityMaskedShortage(t *testing.T) {
	b, err := os.ReadFile("testdata/kueue-oracle/preemption/ff4-random-masked-73.yaml")
	require.NoError(t, err)
	objs, err := manifest.Decode("ff4.yaml", bytes.NewReader(b), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	_, outs, err := AdmitKueueWorkloads(c.Snapshot, nil, c.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: c.KueueQueues})
	require.NoError(t, err)
	got := map[string]string{}
	for _, o := range outs {
		got[o.Workload.Name] = string(o.Action) + " " + strings.Join(o.Flavors, ",")
		if o.Workload.Name == "p0" {
			require.Equal(t, noLongerFits, o.Message)
		}
	}
	require.Equal(t, map[string]string{"p0": "Pending ", "p1": "Admitted reserved", "q0-a0": "Kept spot", "q0-a1": "Kept spot", "q1-a0": "Kept spot", "q1-a2": "Kept reserved"}, got)
}

// The world generator's flavorFungibility draws matter: in some worlds
// that draw one, admitting with every ClusterQueue's flavorFungibility
// unset decides otherwise (about one such world in four), so that
// TestProp_KueueAdmitQueues checks its invariants under policies that
// change the flavors chosen, not only under the default.
func TestProp_KueueAdmitQueuesFungibilityMatters(t *testing.T) {
	drawn, differ := 0, 0
	for range 5 {
		rapid.Check(t, func(rt *rapid.T) {
			w := genPropWorld(rt)
			_, _, outs := w.admit(rt)
			has := false
			for _, o := range w.rest {
				if cq, ok := o.(*kueue.ClusterQueue); ok && cq.Spec.FlavorFungibility != nil {
					cq.Spec.FlavorFungibility, has = nil, true
				}
			}
			if !has {
				return
			}
			drawn++
			_, _, outs2 := w.admit(rt)
			for i := range outs {
				if outs[i].Action != outs2[i].Action || !slices.Equal(outs[i].Flavors, outs2[i].Flavors) {
					differ++
					return
				}
			}
		})
		if differ > 0 {
			break
		}
	}
	require.Positive(t, differ, "no world of %d drawing a flavorFungibility decides otherwise than the default", drawn)
}
