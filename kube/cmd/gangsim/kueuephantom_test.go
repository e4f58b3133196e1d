package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKueuePhantomLeaderFixedPoint: a Workload admitted with a
// PodSetGroup's phantom leader (a set of count 0 written with count 0 and
// a one-pod topologyAssignment) reads back from gangsim's -o yaml as the
// same admitted Workload, under each topology profile: the output is a
// fixed point, the set is written at count 0 with its one pod, and -o
// json marks it phantom.
func TestKueuePhantomLeaderFixedPoint(t *testing.T) {
	for _, f := range []string{"preemption/r19-group-zero-first", "preemption/r20-group-zero-second", "group-zero-leader-room", "group-zero-phantom-free", "group-zero-preferred"} {
		for _, prof := range []string{"gangsched", "kueue", "kueue-balanced"} {
			t.Run(f+"/"+prof, func(t *testing.T) {
				flags := []string{"-topology-profile", prof}
				first, code := yamlRun("", append(flags, "-f", td+"kueue-oracle/preemption/cluster.yaml", "-f", td+"kueue-oracle/"+f+".yaml")...)
				require.Equal(t, exitPlaced, code, first)
				require.Contains(t, first, "    - count: 0\n      flavors:\n        cpu: tas\n")
				checkFixedPoint(t, first, code, flags...)
				got := kueueResultsOf(t, flags, td, []string{"kueue-oracle/preemption/cluster.yaml", "kueue-oracle/" + f + ".yaml"})
				var phantoms []string
				for _, ps := range got["default/zw"].PodSets {
					if ps.Phantom {
						phantoms = append(phantoms, ps.Name)
					}
				}
				require.Equal(t, []string{map[bool]string{true: "workers", false: "leader"}[strings.HasPrefix(f, "preemption/")]}, phantoms)
			})
		}
	}
}
