package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Kueue's second pass ends at a fixed point: read back, an admitted
// Workload is kept as it is (its topologyAssignment, delayedTopologyRequest
// Ready, Admitted True) and one left waiting waits again with the same
// status, under either topology profile.
func TestKueueSecondPassFixedPoint(t *testing.T) {
	for _, world := range []string{"sp1-second-pass-fits", "sp2-second-pass-no-fit", "sp3-second-pass-pod-set-updates"} {
		for _, prof := range []string{"gangsched", "kueue"} {
			t.Run(world+"/"+prof, func(t *testing.T) {
				flags := []string{"-topology-profile", prof}
				first, code := yamlRun("", append(flags, "-f", sp+"sp-cluster.yaml", "-f", sp+world+".yaml")...)
				require.NotEqual(t, exitInput, code, first)
				checkFixedPoint(t, first, code, flags...)
			})
		}
	}
}
