package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScenario_TopologySpreadZones: a gang of three app=web members with
// maxSkew 1 over zones, zone a already holding one app=web pod, goes b, a,
// b (two per zone), where packing alone would put all three on a1.
func TestScenario_TopologySpreadZones(t *testing.T) {
	got, _ := bindingsOf(t, exitPlaced, "-f", td+"spread/zones.yaml")
	require.Equal(t, map[string]string{"web-1": "b1", "web-2": "a1", "web-3": "b1"}, got)
}

// TestScenario_TopologySpreadPreemption: a high-priority gang of three
// app=web members (maxSkew 1 over zones) fits only with zone a's
// low-priority app=web pod evicted — its CPU and its count in zone a: the
// victim search counts it as removed.
func TestScenario_TopologySpreadPreemption(t *testing.T) {
	got, _ := bindingsOf(t, exitPlaced, "-f", td+"spread/preemption.yaml")
	require.Equal(t, map[string]string{"web-1": "b1", "web-2": "a1", "web-3": "a1"}, got)
	got, _ = bindingsOf(t, exitPlaced, "-node-scoring", "upstream", "-f", td+"spread/preemption.yaml")
	require.Equal(t, map[string]string{"web-1": "a1", "web-2": "b1", "web-3": "a1"}, got, "as kube-scheduler v1.37.2")
}

// TestScenario_TopologySpreadScheduleAnyway: ScheduleAnyway spread is
// scored as kube-scheduler's PodTopologySpread score where node scoring
// is upstream's (-node-scoring upstream, or a KubeSchedulerConfiguration),
// with the profile's weight; packing reads the constraints but never
// scores them. The bindings are kube-scheduler v1.37.2's (kubeoracle).
func TestScenario_TopologySpreadScheduleAnyway(t *testing.T) {
	in := td + "spread/schedule-anyway.yaml"
	got, _ := bindingsOf(t, exitPlaced, "-node-scoring", "upstream", "-f", in)
	require.Equal(t, map[string]string{"web-1": "b1", "web-2": "a1", "web-3": "b2"}, got, "upstream")
	got, _ = bindingsOf(t, exitPlaced, "-f", in, "-f", td+"schedconfig/default-profile.yaml")
	require.Equal(t, map[string]string{"web-1": "b1", "web-2": "a1", "web-3": "b2"}, got, "the default profile, read")
	got, _ = bindingsOf(t, exitPlaced, "-f", in, "-f", td+"spread/score-off.yaml")
	require.Equal(t, map[string]string{"web-1": "a1", "web-2": "a1", "web-3": "a1"}, got, "PodTopologySpread's score disabled")
	got, _ = bindingsOf(t, exitPlaced, "-f", in)
	require.Equal(t, map[string]string{"web-1": "b1", "web-2": "b1", "web-3": "b1"}, got, "packing")
	checkGoldens(t, []golden{
		{"spread-schedule-anyway", []string{"-node-scoring", "upstream", "-f", in}, exitPlaced},
		{"spread-schedule-anyway-yaml", []string{"-node-scoring", "upstream", "-o", "yaml", "-f", in}, exitPlaced},
	})
}
