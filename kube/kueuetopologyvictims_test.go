package kube

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// A flavor whose quota holds a Workload but whose topology does not is
// where Kueue preempts for it, before any later flavor is tried: its
// flavor assigner picks flavors by quota and its TAS calls the failure
// Preempt. Without victims there, the next flavor. After a MayStopSearch
// stop at a flavor whose victims do not free the topology, from the
// flavor after it. Each case is a record of kueue-oracle/preemption (over
// its cluster.yaml: hosts h1, h2 in rack r1 and h3, h4 in r2), where the
// real Kueue settled on these answers.
func TestAdmitKueueWorkloads_TopologyVictimsFirst(t *testing.T) {
	const dir = "testdata/kueue-oracle/preemption/"
	cluster, err := os.ReadFile(dir + "cluster.yaml")
	require.NoError(t, err)
	for _, c := range []struct {
		file string
		want []string // per Workload, in input order: action, flavors (message cut at "; ") pods
	}{
		{"ff7-topology-preempts-first", []string{
			"default/low: Readmitted [fb] (preempted by default/high (InClusterQueue)) [h3:1 h4:1]",
			"default/high: Admitted [fa] (preempted default/low (InClusterQueue)) [h1:4]",
		}},
		{"ff8-topology-no-victims", []string{
			"default/low: Kept [fa] () [h1:1 h2:1]",
			"default/high: Admitted [fb] () [h3:4]",
		}},
		{"ff11-maystop-then-topology", []string{
			"default/z-low: Kept [fx] () [h1:1]",
			"default/y-occ: Kept [fx] () [h1:1]",
			"default/low: Readmitted [fb] (preempted by default/high (InClusterQueue)) [h3:1]",
			"default/high: Admitted [fa] (preempted default/low (InClusterQueue)) [h2:4]",
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			cl, _, outs := admitRecord(t, cluster, dir+c.file+".yaml")
			require.Equal(t, c.want, linesInOrder(cl, outs, flavorLine))
		})
	}
}
