package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube"
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

// TestKueuePhantomLeaderOtherSetShrinks: when the other set of an admitted
// phantom leader's group shrinks to 0, both sets are of count 0: the
// phantom's one-pod assignment still reads back (count 0, holding
// nothing), the shrunk set releases its pod, and the output is a fixed
// point.
func TestKueuePhantomLeaderOtherSetShrinks(t *testing.T) {
	flags := []string{"-topology-profile", "kueue"}
	first, code := yamlRun("", append(flags, "-f", td+"kueue-oracle/preemption/cluster.yaml", "-f", td+"kueue-oracle/preemption/r19-group-zero-first.yaml")...)
	require.Equal(t, exitPlaced, code, first)
	const leader = "  - count: 1\n    name: leader\n"
	require.Equal(t, 1, strings.Count(first, leader))
	shrunk := strings.Replace(first, leader, "  - count: 0\n    name: leader\n", 1)
	var js, jerr bytes.Buffer
	code = run(append([]string{"-o", "json", "-f", "-"}, flags...), strings.NewReader(shrunk), &js, &jerr, false)
	require.Equal(t, exitPlaced, code, jerr.String())
	var rep Report
	require.NoError(t, json.Unmarshal(js.Bytes(), &rep))
	require.Equal(t, string(kube.KueueResized), rep.Kueue[0].Action)
	require.Equal(t, `pod set "leader" shrinks from 1 to 0 pods`, rep.Kueue[0].Message)
	second, code := yamlRun(shrunk, append(flags, "-f", "-")...)
	require.Equal(t, exitPlaced, code, second)
	checkFixedPoint(t, second, code, flags...)
}
