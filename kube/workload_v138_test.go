package kube

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
)

// A v1beta1 Workload whose gang composite template has a basic child
// loads under v1.37, whose API server takes it, and is refused under
// v1.38 (the default), whose ValidateWorkloadSpec does not
// ([gang.Workload.ValidateV138]); the error names the field.
func TestLoad_WorkloadV138Rules(t *testing.T) {
	const in = `---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec:
  compositePodGroupTemplates:
  - name: root
    schedulingPolicy: {gang: {minGroupCount: 1}}
    podGroupTemplates:
    - name: a
      schedulingPolicy: {basic: {}}
`
	_, err := LoadWithOptions(decode(t, in), LoadOptions{Profile: gang.ProfileV137})
	require.NoError(t, err)
	for _, p := range []gang.Profile{"", gang.ProfileV138} {
		_, err = LoadWithOptions(decode(t, in), LoadOptions{Profile: p})
		require.ErrorContains(t, err, `Workload "default/w": spec.compositePodGroupTemplates[0].podGroupTemplates[0].schedulingPolicy: must be a gang under the gang template spec.compositePodGroupTemplates[0] (since v1.38)`)
	}
}
