package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// -o yaml writes status.admission.podSetAssignments[].resourceUsage as
// the real Kueue v0.17 wrote it (kueue-oracle/units, brk9's finding 02):
// 1G × 3 as 3G, not 3000000000, which read back was written 3G, so that
// the output was no fixed point ([TestProp_FixedPointTestdata] runs the
// manifest too).
func TestKueueResourceUsageUnits(t *testing.T) {
	dir := td + "kueue-oracle/units/"
	b, err := os.ReadFile(dir + "resource-usage-units.json")
	require.NoError(t, err)
	var want struct {
		Kueue     string   `json:"kueue"`
		Manifests []string `json:"manifests"`
		Workloads []struct {
			Workload      string            `json:"workload"`
			Admitted      bool              `json:"admitted"`
			ResourceUsage map[string]string `json:"resourceUsage"`
		} `json:"workloads"`
	}
	require.NoError(t, json.Unmarshal(b, &want))
	require.Equal(t, "v0.17.0", want.Kueue)
	args := []string{}
	for _, m := range want.Manifests {
		args = append(args, "-f", dir+m)
	}
	out, code := yamlRun("", args...)
	require.NotEqual(t, exitInput, code, out)
	got := writtenUsage(t, out)
	require.Len(t, want.Workloads, 5)
	for _, w := range want.Workloads {
		require.True(t, w.Admitted, w.Workload)
		require.Len(t, got[w.Workload], 1, w.Workload)
		require.Equal(t, w.ResourceUsage, got[w.Workload][0], w.Workload)
	}
	checkFixedPoint(t, out, code)
}
