package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// kueueResourcesCase is a record of kube/testdata/kueue-oracle/resources:
// the real Kueue v0.17.0's answers under a Configuration's
// resources.transformations and excludeResourcePrefixes, or a namespace's
// LimitRanges, each admitted pod set with the resourceUsage Kueue wrote.
type kueueResourcesCase struct {
	Manifests []string `json:"manifests"`
	Args      []string `json:"gangsimArgs"`
	Workloads []struct {
		Workload string `json:"workload"`
		Admitted bool   `json:"admitted"`
		PodSets  []struct {
			Name          string            `json:"name"`
			ResourceUsage map[string]string `json:"resourceUsage"`
			Nodes         map[string]int32  `json:"nodes"`
		} `json:"podSets"`
		KueueMessage string `json:"kueueMessage"`
		// OtherMessages are Kueue's messages for the Workload in other
		// runs (it names the resources short in Go map order).
		OtherMessages   []string `json:"otherMessages"`
		KnownDifference string   `json:"knownDifference"`
	} `json:"workloads"`
}

// TestKueueResourcesOracle holds gangsim to the real Kueue's answers on
// what a Workload is charged and whether it may be tried at all: per
// Workload the same admitted-or-not, the same pods per node, the same
// resourceUsage written (the transformed, excluded charge), and, pending,
// Kueue's message word for word (one of them where Kueue's varied); a
// known difference must still differ.
func TestKueueResourcesOracle(t *testing.T) {
	n := eachRecord(t, "kueue-oracle/resources/*.json", func(t *testing.T, name string, c kueueResourcesCase) {
		got := kueueResultsOf(t, c.Args, td, c.Manifests)
		var args []string
		for _, m := range c.Manifests {
			args = append(args, "-f", td+m)
		}
		out, code := yamlRun("", args...)
		require.NotEqual(t, exitInput, code, out)
		usage := writtenUsage(t, out)
		for _, want := range c.Workloads {
			r, ok := got[want.Workload]
			require.True(t, ok, "gangsim has no answer for %s", want.Workload)
			admitted := r.Action == "Admitted"
			same := admitted == want.Admitted
			if same && admitted {
				for i, ps := range want.PodSets {
					nodes := map[string]int32{}
					for _, nd := range r.PodSets[i].Nodes {
						nodes[nd.Node] += nd.Count
					}
					same = same && len(nodes) == len(ps.Nodes) && r.PodSets[i].Name == ps.Name
					for nd, k := range ps.Nodes {
						same = same && nodes[nd] == k
					}
					if want.KnownDifference == "" {
						require.Equal(t, ps.ResourceUsage, usage[want.Workload][i], "%s: resourceUsage of %s", want.Workload, ps.Name)
					}
				}
			}
			if !admitted && !want.Admitted {
				msg := "Pending: " + r.Message
				same = msg == want.KueueMessage
				for _, m := range want.OtherMessages {
					same = same || msg == m
				}
			}
			if want.KnownDifference != "" {
				require.False(t, same, "%s: gangsim now agrees with Kueue; drop the known difference", want.Workload)
				continue
			}
			require.True(t, same, "%s: Kueue v0.17.0 admitted=%v %+v %q; gangsim %s %+v %q",
				want.Workload, want.Admitted, want.PodSets, want.KueueMessage, r.Action, r.PodSets, r.Message)
		}
	})
	require.GreaterOrEqual(t, n, 4)
}

// writtenUsage is, by Workload (namespace/name), the resourceUsage of each
// podSetAssignment of the admitted Workloads in gangsim's -o yaml output.
func writtenUsage(t *testing.T, out string) map[string][]map[string]string {
	got := map[string][]map[string]string{}
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
		for _, a := range obj.Status.Admission.PodSetAssignments {
			k := obj.Metadata.Namespace + "/" + obj.Metadata.Name
			got[k] = append(got[k], a.ResourceUsage)
		}
	}
	return got
}
