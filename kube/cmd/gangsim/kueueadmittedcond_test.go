package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// admittedCondRecord is what TestKueueAdmittedConditionOracle reads of a
// first-pass record (kueue-oracle/preemption/fp*.json), whose harness read
// the Admitted condition of every Workload holding quota and not Admitted.
type admittedCondRecord struct {
	Manifests []string `json:"manifests"`
	Phases    []struct {
		Workloads []struct {
			Workload       string `json:"workload"`
			Admitted       bool   `json:"admitted"` // QuotaReserved True
			AwaitingChecks bool   `json:"awaitingChecks"`
			// AdmittedReason is the Admitted condition's reason ("": it
			// has none).
			AdmittedReason string `json:"admittedReason"`
		} `json:"workloadsAfterSettle"`
	} `json:"phases"`
}

// The Admitted condition gangsim writes, held to the real Kueue's: a
// Workload holding quota but not Admitted (awaiting its checks, or its
// delayed topology) has the condition the record read — none on one never
// Admitted, as Kueue's SyncAdmittedCondition writes it only where it
// changes — and one Admitted has it True.
func TestKueueAdmittedConditionOracle(t *testing.T) {
	dir := td + "kueue-oracle/preemption/"
	eachRecord(t, "kueue-oracle/preemption/fp*.json", func(t *testing.T, _ string, c admittedCondRecord) {
		var args []string
		for _, m := range c.Manifests {
			args = append(args, "-f", dir+m)
		}
		out, code := yamlRun("", args...)
		require.NotEqual(t, exitInput, code, out)
		got := map[string]string{}
		for _, doc := range strings.Split(out, "\n---\n") {
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
				Status struct {
					Conditions []metav1.Condition `json:"conditions"`
				} `json:"status"`
			}
			require.NoError(t, yaml.Unmarshal([]byte(doc), &obj))
			if obj.Kind != "Workload" {
				continue
			}
			for _, cond := range obj.Status.Conditions {
				if cond.Type == "Admitted" {
					got[obj.Metadata.Namespace+"/"+obj.Metadata.Name] = string(cond.Status) + "/" + cond.Reason
				}
			}
		}
		require.NotEmpty(t, c.Phases)
		for _, w := range c.Phases[len(c.Phases)-1].Workloads {
			switch {
			case w.Admitted && w.AwaitingChecks && w.AdmittedReason == "":
				require.NotContains(t, got, w.Workload)
			case w.Admitted && w.AwaitingChecks:
				require.Equal(t, "False/"+w.AdmittedReason, got[w.Workload], w.Workload)
			case w.Admitted:
				require.Equal(t, "True/Admitted", got[w.Workload], w.Workload)
			}
		}
	})
}
