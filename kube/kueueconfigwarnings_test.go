package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Each field of a Kueue Configuration that gangsim does not model is named,
// in field order; modelled and operational fields, and those left at their
// zero value, are not.
func TestKueueConfigurationWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{name: "modelled and operational fields", body: "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system\nmanageJobsWithoutQueueName: false\nhealth: {healthProbeBindAddress: \":8081\"}\nleaderElection: {leaderElect: true}\nfairSharing: {preemptionStrategies: [LessThanInitialShare]}\nresources: {excludeResourcePrefixes: [example.com/]}\n"},
		{name: "unmodelled fields", body: "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady: {timeout: 5m}\nmanageJobsWithoutQueueName: true\nintegrations: {frameworks: [batch/job]}\nfeatureGates: {TopologyAwareScheduling: true, ElasticJobsViaWorkloadSlices: false}\nresources: {transformations: [{input: nvidia.com/mig-1g.5gb, strategy: Replace, outputs: {example.com/gpu: \"1\"}}]}\n",
			want: []string{
				"featureGates.ElasticJobsViaWorkloadSlices: not read: gangsim runs Kueue v0.17's default feature gates but where its -kueue-* flags set one",
				"featureGates.TopologyAwareScheduling: not read: gangsim runs Kueue v0.17's default feature gates but where its -kueue-* flags set one",
				"integrations: not read",
				"manageJobsWithoutQueueName: not modelled: only objects that name a queue are managed",
				"waitForPodsReady: not modelled: an admitted Workload is neither evicted nor requeued for pods not ready, and admission is not blocked",
			}},
		{name: "v1beta1 waitForPodsReady off", body: "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady: {enable: false, timeout: 5m}\nmultiKueue: {gcInterval: 1m}\n",
			want: []string{"multiKueue: not modelled: Workloads are admitted in this cluster only"}},
		{name: "v1beta1 waitForPodsReady on", body: "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady: {enable: true}\n",
			want: []string{"waitForPodsReady: not modelled: an admitted Workload is neither evicted nor requeued for pods not ready, and admission is not blocked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := decode(t, tc.body)
			require.Equal(t, tc.want, KueueConfigurationWarnings(objs[0].Obj))
		})
	}
	require.Nil(t, KueueConfigurationWarnings("not a Configuration"))
}
