package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A Workload that may be admitted partially is tried at smaller counts
// in the flavors of the scheduling attempt that found no victims for its
// whole count, before the next attempt starts from the flavor after: w
// (cq0, two one-CPU pods in a rack, minCount 1 where it has one) over fb
// (quota 4, rack rb: host b1 of 2 CPUs) then fa (quota 2, rack ra: host
// a1 of 2 CPUs), or fa then fb. Each case is a record of kueue-oracle/preemption (brk9's
// finding 04 and its variants), where the real Kueue v0.17 settled on
// these answers.
func TestAdmitKueueWorkloads_PartialBeforeNextFlavor(t *testing.T) {
	const dir = "testdata/kueue-oracle/preemption/"
	for _, c := range []struct {
		file string
		want []string // per Workload, in input order: action, flavors (message cut at "; ") pods
	}{
		// fb's quota holds w, its rack 1 pod (y, cq0's, is no victim):
		// 1 pod in fb, and x (cq1, borrowing cq0's fa) is left alone.
		{"ff16-partial-before-next-flavor", []string{
			"default/x: Kept [fa] () [a1:2]",
			"default/y: Kept [fb] () [b1:1]",
			"default/w: Admitted [fb] (partially admitted: pod set \"main\" with 1 of 2 pods (minCount 1)) [b1:1]",
		}},
		// Without minCount the next attempt, in fa, reclaims x.
		{"ff18-no-mincount-next-attempt", []string{
			"default/x: Preempted [] (preempted by default/w (InCohortReclamation)) []",
			"default/y: Kept [fb] () [b1:1]",
			"default/w: Admitted [fa] (preempted default/x (InCohortReclamation)) [a1:2]",
		}},
		// whenCanPreempt MayStopSearch: fb's quota fits, the same stop.
		{"ff19-maystop-partial", []string{
			"default/x: Kept [fa] () [a1:2]",
			"default/y: Kept [fb] () [b1:1]",
			"default/w: Admitted [fb] (partially admitted: pod set \"main\" with 1 of 2 pods (minCount 1)) [b1:1]",
		}},
		// y borrows in fb (cq1): the whole count's victim there.
		{"ff20-partial-victim-in-first", []string{
			"default/x: Kept [fa] () [a1:2]",
			"default/y: Preempted [] (preempted by default/w (InCohortReclamation)) []",
			"default/w: Admitted [fb] (preempted default/y (InCohortReclamation)) [b1:2]",
		}},
		// y fills b1: no count in fb, so fa, reclaiming x for 2 pods.
		{"ff21-partial-fails-next", []string{
			"default/x: Preempted [] (preempted by default/w (InCohortReclamation)) []",
			"default/y: Kept [fb] () [b1:2]",
			"default/w: Admitted [fa] (preempted default/x (InCohortReclamation)) [a1:2]",
		}},
		// fa is free for 2 pods, but 1 pod in fb finds z (cq1,
		// borrowing) first, in the attempt that starts at fb.
		{"ff23-partial-victim-before-next-fit", []string{
			"default/z: Readmitted [fa] (preempted by default/w (InCohortReclamation)) [a1:1]",
			"default/y: Kept [fb] () [b1:1]",
			"default/w: Admitted [fb] (preempted default/z (InCohortReclamation)) [b1:1]",
		}},
		// fa first (x may be reclaimed there), then fb: Kueue's attempt
		// passes fa and stops at fb, whose quota holds w; no victim
		// there, and its next attempt, after the last flavor, starts at
		// fa again and stops at fb again: x is never reclaimed.
		{"ff24-reclaim-before-quota-fit", []string{
			"default/x: Kept [fa] () [a1:2]",
			"default/y: Kept [fb] () [b1:1]",
			"default/w: Pending [] (in flavor fb: pod set \"main\" needs 2 pods in one rack domain) []",
		}},
		// The same with minCount 1: 1 pod in fb.
		{"ff25-reclaim-before-quota-fit-partial", []string{
			"default/x: Kept [fa] () [a1:2]",
			"default/y: Kept [fb] () [b1:1]",
			"default/w: Admitted [fb] (partially admitted: pod set \"main\" with 1 of 2 pods (minCount 1)) [b1:1]",
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			cl, _, outs := admitRecord(t, nil, dir+c.file+".yaml")
			require.Equal(t, c.want, linesInOrder(cl, outs, flavorLine))
		})
	}
}
