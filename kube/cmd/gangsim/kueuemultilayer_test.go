package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/topology"
)

// Kueue Workloads' slice layers are read with every layer under gangsched's
// own profile, and under the kueue profiles only with
// -kueue-multi-layer-topology (Kueue's TASMultiLayerTopology gate, off by
// default).
func TestKueueMultiLayerTopology(t *testing.T) {
	for _, tc := range []struct {
		profile topology.Profile
		flag    bool
		want    bool
	}{
		{topology.GangschedProfile, false, true},
		{topology.GangschedProfile, true, true},
		{topology.KueueProfile, false, false},
		{topology.KueueProfile, true, true},
		{topology.KueueBalancedProfile, false, false},
		{topology.KueueBalancedProfile, true, true},
	} {
		require.Equal(t, tc.want, kueueMultiLayerTopology(tc.profile, tc.flag), "%v, flag %v", tc.profile, tc.flag)
	}
}

// The multilayer-* manifests (10 one-CPU pods required in a block of four
// 3-CPU hosts; slices of 10 at the block and 2 at the host) admitted or left
// pending by the flag and the profile: the host layer holds 8 pods. The
// real Kueue's answers are the kueue-oracle records of the same names.
// Layers left unread are named in a warning.
func TestKueueMultiLayerTopology_Admission(t *testing.T) {
	const ko = td + "kueue-oracle/multilayer-"
	for _, tc := range []struct {
		manifest string
		args     []string
		want     string // the Workload's line of the text output
		warn     string // the warning on stderr, "" for none
	}{
		{"annotation", nil, "kueue Workload default/layers-ann: Admitted", "gangsim: warning: Kueue Workload \"default/layers-ann\": spec.podSets[0].template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology-constraints]: ignored, as Kueue v0.17's job framework ignores it with its TASMultiLayerTopology gate off (its default); -kueue-multi-layer-topology reads it\n"},
		{"annotation", []string{"-kueue-multi-layer-topology"}, "kueue Workload default/layers-ann: Pending", ""},
		{"annotation", []string{"-topology-profile", "kueue-balanced"}, "kueue Workload default/layers-ann: Admitted", "gangsim: warning: Kueue Workload \"default/layers-ann\": spec.podSets[0].template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology-constraints]: ignored, as Kueue v0.17's job framework ignores it with its TASMultiLayerTopology gate off (its default); -kueue-multi-layer-topology reads it\n"},
		{"annotation", []string{"-topology-profile", "kueue-balanced", "-kueue-multi-layer-topology"}, "kueue Workload default/layers-ann: Pending", ""},
		{"annotation", []string{"-topology-profile", "gangsched"}, "kueue Workload default/layers-ann: Pending", ""},
		{"field", nil, "kueue Workload default/layers-field: Admitted", "gangsim: warning: Kueue Workload \"default/layers-field\": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints: only the first layer is read, as Kueue v0.17 reads it with its TASMultiLayerTopology gate off (its default); -kueue-multi-layer-topology reads every layer\n"},
		{"field", []string{"-kueue-multi-layer-topology"}, "kueue Workload default/layers-field: Pending", ""},
		{"field", []string{"-topology-profile", "gangsched"}, "kueue Workload default/layers-field: Pending", ""},
		{"field-indivisible", nil, "kueue Workload default/layers-indivisible: Admitted", "gangsim: warning: Kueue Workload \"default/layers-indivisible\": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints: only the first layer is read, as Kueue v0.17 reads it with its TASMultiLayerTopology gate off (its default); -kueue-multi-layer-topology reads every layer\n"},
		{"field-indivisible", []string{"-kueue-multi-layer-topology"}, "kueue Workload default/layers-indivisible: Pending\n  couldn't assign flavors to pod set main: additional slice layer size 3 must evenly divide parent layer size 10", ""},
		{"field-no-level", []string{"-kueue-multi-layer-topology"}, "kueue Workload default/layers-no-level: Pending\n  pod set \"main\": no requested topology level for additional slice layer: example.com/none", ""},
	} {
		t.Run(tc.manifest+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			run(append(tc.args, "-f", ko+"cluster.yaml", "-f", ko+tc.manifest+".yaml"), strings.NewReader(""), &out, &errb, false)
			require.Equal(t, tc.warn, errb.String())
			require.Contains(t, out.String(), tc.want+"\n")
		})
	}
}

// With the flag on, a layers annotation that Kueue's job webhooks refuse
// with the gate on is refused at load; off, Kueue's job framework drops it
// unread, and so does gangsim.
func TestKueueMultiLayerTopology_AnnotationChecked(t *testing.T) {
	const ko = td + "kueue-oracle/multilayer-"
	for _, m := range []string{"annotation-bad", "annotation-pair", "annotation-group"} {
		t.Run(m, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"-f", ko + "cluster.yaml", "-f", ko + m + ".yaml"}, strings.NewReader(""), &out, &errb, false)
			require.Contains(t, errb.String(), "-kueue-multi-layer-topology reads it\n")
			require.Contains(t, []int{exitPlaced, exitWaiting}, code)
			out.Reset()
			errb.Reset()
			code = run([]string{"-kueue-multi-layer-topology", "-f", ko + "cluster.yaml", "-f", ko + m + ".yaml"}, strings.NewReader(""), &out, &errb, false)
			require.Equal(t, exitInput, code)
			require.Contains(t, errb.String(), "kueue.x-k8s.io/podset-")
		})
	}
}

// -o yaml over the multilayer-* manifests is a fixed point with the flag
// and without, under both kueue profiles.
func TestKueueMultiLayerTopology_FixedPoint(t *testing.T) {
	const ko = td + "kueue-oracle/multilayer-"
	for _, m := range []string{"annotation", "field", "field-no-level", "field-indivisible", "annotation-pair", "annotation-bad", "annotation-only", "annotation-group"} {
		for _, prof := range []string{"kueue", "kueue-balanced"} {
			for _, flags := range [][]string{nil, {"-kueue-multi-layer-topology"}} {
				if len(flags) > 0 && (m == "annotation-pair" || m == "annotation-bad" || m == "annotation-group") {
					continue // refused at load with the flag
				}
				t.Run(m+"/"+prof+"/"+strings.Join(flags, ""), func(t *testing.T) {
					out, code := yamlPass(t, append(flags, "-topology-profile", prof, "-f", ko+"cluster.yaml", "-f", ko+m+".yaml")...)
					fixedPoint(t, t.TempDir(), prof, out, code, flags...)
				})
			}
		}
	}
}
