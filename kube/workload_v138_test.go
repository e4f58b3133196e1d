package kube

import (
	"strings"
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

// A basic PodGroup or CompositePodGroup (either version) whose
// disruptionMode is all loads under v1.37, whose API server takes it, and
// is refused under v1.38 (the default) at spec.disruptionMode, also when
// its schedulingPolicy sets neither gang nor basic, as v1.38's API server
// names it (testdata/v138/validation.yaml).
func TestLoad_AllNeedsGangV138(t *testing.T) {
	for _, c := range []struct{ in, obj string }{
		{"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}, disruptionMode: {all: {}}}\n", `PodGroup "default/g"`},
		{"apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {workloadRef: {workloadName: w, templateName: c}, schedulingPolicy: {basic: {}}, disruptionMode: {all: {}}}\n", `CompositePodGroup "default/c"`},
		{"apiVersion: scheduling.k8s.io/v1beta1\nkind: CompositePodGroup\nmetadata: {name: c}\nspec: {workloadRef: {workloadName: w, templateName: c}, schedulingPolicy: {basic: {}}, disruptionMode: {all: {}}}\n", `CompositePodGroup "default/c"`},
	} {
		_, err := LoadWithOptions(decode(t, c.in), LoadOptions{Profile: gang.ProfileV137})
		require.NoError(t, err)
		for _, p := range []gang.Profile{"", gang.ProfileV138} {
			_, err = LoadWithOptions(decode(t, c.in), LoadOptions{Profile: p})
			require.ErrorContains(t, err, c.obj+": spec.disruptionMode: all needs a gang schedulingPolicy (since v1.38)")
		}
		neither := strings.Replace(c.in, "schedulingPolicy: {basic: {}}", "schedulingPolicy: {}", 1)
		_, err = LoadWithOptions(decode(t, neither), LoadOptions{})
		require.ErrorContains(t, err, c.obj+": spec.disruptionMode:")
		_, err = LoadWithOptions(decode(t, neither), LoadOptions{Profile: gang.ProfileV137})
		require.ErrorContains(t, err, c.obj+": spec.schedulingPolicy:")
	}
}
