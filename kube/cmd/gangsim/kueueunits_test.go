package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
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
	got := map[string]map[string]string{}
	for _, doc := range strings.Split(out, "\n---\n") {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
			Status struct {
				Admission *struct {
					PodSetAssignments []struct {
						ResourceUsage map[string]string `json:"resourceUsage"`
					} `json:"podSetAssignments"`
				} `json:"admission"`
			} `json:"status"`
		}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &obj))
		if obj.Kind != "Workload" || obj.Status.Admission == nil {
			continue
		}
		got[obj.Metadata.Namespace+"/"+obj.Metadata.Name] = obj.Status.Admission.PodSetAssignments[0].ResourceUsage
	}
	require.Len(t, want.Workloads, 5)
	for _, w := range want.Workloads {
		require.True(t, w.Admitted, w.Workload)
		require.Equal(t, w.ResourceUsage, got[w.Workload], w.Workload)
	}
	checkFixedPoint(t, out, code)
}
