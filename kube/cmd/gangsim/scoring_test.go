package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScenario_TaintAndNodeAffinityScores: PreferNoSchedule taints and
// preferred node affinity are scored as kube-scheduler's TaintToleration
// (weight 3) and NodeAffinity (weight 2) scores where node scoring is
// upstream's (-node-scoring upstream, or a KubeSchedulerConfiguration),
// with the profile's weights; a profile that disables both scores and
// packing leave them out. The bindings are kube-scheduler v1.37.2's
// (kubeoracle, 3 runs, with and without taint-affinity-off.yaml).
func TestScenario_TaintAndNodeAffinityScores(t *testing.T) {
	in := td + "scoring/taint-affinity.yaml"
	upstream := map[string]string{"train-1": "s1", "train-2": "s1", "web": "s2", "batch": "big"}
	got, _ := bindingsOf(t, exitPlaced, "-node-scoring", "upstream", "-f", in)
	require.Equal(t, upstream, got, "upstream")
	got, _ = bindingsOf(t, exitPlaced, "-f", in, "-f", td+"schedconfig/default-profile.yaml")
	require.Equal(t, upstream, got, "the default profile, read")
	got, _ = bindingsOf(t, exitPlaced, "-f", in, "-f", td+"scoring/taint-affinity-off.yaml")
	require.Equal(t, map[string]string{"train-1": "big", "train-2": "big", "web": "big", "batch": "big"}, got, "both scores disabled")
	got, _ = bindingsOf(t, exitPlaced, "-f", in)
	require.Equal(t, map[string]string{"train-1": "s1", "train-2": "s1", "web": "s1", "batch": "s1"}, got, "packing")
	checkGoldens(t, []golden{
		{"scoring-taint-affinity", []string{"-node-scoring", "upstream", "-f", in}, exitPlaced},
	})
}
