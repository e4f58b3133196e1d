package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
