package scheduler

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
)

func writeConfig(t *testing.T, text string) string {
	p := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

func TestLoadConfig(t *testing.T) {
	p := writeConfig(t, `apiVersion: config.gangsched.io/v1alpha1
kind: GangSchedulerConfiguration
schedulerName: gangs
topologyLevels: [topology.kubernetes.io/zone, topology.kubernetes.io/rack]
maxBackoff: 30s
leaderElection:
  resourceNamespace: gangsched-system
`)
	c, err := LoadConfig(p)
	require.NoError(t, err)
	require.Equal(t, "gangs", c.SchedulerName)
	require.Equal(t, 30*time.Second, c.MaxBackoff.Duration)
	require.Equal(t, time.Second, c.InitialBackoff.Duration, "defaulted")
	require.Equal(t, "gangsched-system", c.LeaderElection.ResourceNamespace)
	require.Equal(t, "gangsched-scheduler", c.LeaderElection.ResourceName, "defaulted")
	require.True(t, *c.LeaderElection.LeaderElect)
	require.True(t, *c.Preemption)
	require.False(t, c.FeatureGates[gang.GatePodGroupPreemptionPolicy], "off unless set, as in v1.37")

	require.Empty(t, c.Profile, "the newest unless set")

	c, err = LoadConfig(writeConfig(t, "apiVersion: config.gangsched.io/v1alpha1\nkind: GangSchedulerConfiguration\nprofile: v1.37\nfeatureGates: {PodGroupPreemptionPolicy: true}\n"))
	require.NoError(t, err)
	require.Equal(t, "v1.37", c.Profile)
	require.True(t, c.FeatureGates[gang.GatePodGroupPreemptionPolicy])
}

// Bad files are rejected with the field named.
func TestLoadConfigErrors(t *testing.T) {
	head := "apiVersion: config.gangsched.io/v1alpha1\nkind: GangSchedulerConfiguration\n"
	for _, tc := range []struct{ name, text, want string }{
		{"unknown field", head + "schedulerNmae: x\n", `unknown field "schedulerNmae"`},
		{"bad duration", head + "initialBackoff: soon\n", `"soon" is not a duration`},
		{"backoff order", head + "initialBackoff: 5s\nmaxBackoff: 1s\n", "maxBackoff: 1s is below initialBackoff 5s"},
		{"parallelism", head + "parallelism: -1\n", "parallelism: -1 is below 1"},
		{"lease", head + "leaderElection: {leaseDuration: 5s}\n", "leaderElection.leaseDuration: 5s must exceed renewDeadline 10s"},
		{"empty level", head + "topologyLevels: [\"\"]\n", "topologyLevels[0]: must not be empty"},
		{"unknown gate", head + "featureGates: {PodGroupPreemptionPolcy: true}\n", `featureGates: "PodGroupPreemptionPolcy" is not a gate`},
		{"unknown profile", head + "profile: v1.39\n", `profile: "v1.39": must be v1.37 or v1.38`},
		{"v1.36 serves no v1beta1", head + "profile: v1.36\n", `profile: "v1.36": must be v1.37 or v1.38 (or empty: the newest); gangsched-scheduler watches scheduling.k8s.io/v1beta1 PodGroups, which v1.36 does not serve`},
		{"gate of another release", head + "featureGates: {PodGroupPreemptionPolicy: true}\n", "featureGates: PodGroupPreemptionPolicy: Kubernetes v1.38 has no such gate (it exists in v1.37 only); drop it or set profile: v1.37"},
		{"kind", "apiVersion: v1\nkind: Pod\n", "apiVersion/kind"},
		// A level listed twice or too many levels would fail every cycle of
		// a topology-constrained group (SchedulerError), not the start.
		{"level twice", head + "topologyLevels: [zone, rack, zone]\n", `topologyLevels[2]: "zone" is also topologyLevels[0]`},
		{"too many levels", head + "topologyLevels: [l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15, l16, l17, l18]\n",
			"topologyLevels: 18 levels, more than the 17 a topology may have"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfig(writeConfig(t, tc.text))
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := LoadConfig(filepath.Join(t.TempDir(), "missing.yaml"))
	require.ErrorContains(t, err, "missing.yaml")
}

// Of several unknown gates the first in name order is named, whatever the
// map's iteration order: the error was one of them at random.
func TestLoadConfigErrors_GatesInNameOrder(t *testing.T) {
	path := writeConfig(t, "apiVersion: config.gangsched.io/v1alpha1\nkind: GangSchedulerConfiguration\n"+
		"featureGates: {Zeta: true, Mu: false, Alpha: true, Kappa: true, Omega: false, Beta: true}\n")
	for range 50 {
		_, err := LoadConfig(path)
		require.ErrorContains(t, err, `featureGates: "Alpha" is not a gate`)
	}
}

// The example configuration in deploy/ loads, with its comments' claims:
// the defaults, the topology levels, the profile and the Lease namespace
// it sets.
func TestDeployConfigLoads(t *testing.T) {
	c, err := LoadConfig(filepath.Join("deploy", "config.yaml"))
	require.NoError(t, err)
	want := DefaultConfig()
	want.TopologyLevels = []string{"topology.kubernetes.io/zone", "topology.kubernetes.io/rack"}
	want.LeaderElection.ResourceNamespace = "gangsched-system"
	want.Profile = "v1.37"
	want.FeatureGates = map[string]bool{gang.GatePodGroupPreemptionPolicy: false}
	require.Equal(t, want, c)
}
