package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
)

// The profile and the CompositePodGroup version the API server serves
// disagree only as v1.37 with v1beta1 (a v1.38 server) or v1.38 with
// v1alpha3 alone (a v1.37 server).
func TestProfileWarning(t *testing.T) {
	for _, tc := range []struct {
		profile gang.Profile
		version string
		want    string
	}{
		{gang.ProfileV137, "v1alpha3", ""},
		{gang.ProfileV138, "v1beta1", ""},
		{gang.ProfileV137, "v1beta1", "the API server serves CompositePodGroups as scheduling.k8s.io/v1beta1, as v1.38 does, but the profile is v1.37: set profile: v1.38 to decide as the cluster does"},
		{gang.ProfileV138, "v1alpha3", "the API server serves CompositePodGroups as scheduling.k8s.io/v1alpha3 only, as v1.37 does, but the profile is v1.38: set profile: v1.37 to decide as the cluster does"},
	} {
		require.Equal(t, tc.want, profileWarning(tc.profile, tc.version), "%s on %s", tc.profile, tc.version)
	}
}

// A scheduler configured as v1.37 on a server that serves CompositePodGroups
// as v1beta1 logs the mismatch once it has found the version; with the
// default profile (v1.38) it does not.
func TestCompositeProfileMismatchLogged(t *testing.T) {
	for _, tc := range []struct {
		profile string
		warns   bool
	}{{"v1.37", true}, {"", false}} {
		cfg := DefaultConfig()
		cfg.Profile = tc.profile
		client, dyn := treeClients(t, kepWorkedExample(false), v1beta1, v1beta1)
		_, log := runFakeTree(t, client, dyn, cfg)
		require.Eventually(t, func() bool { return len(bindingsOf(client)) == 10 }, 10*time.Second, 5*time.Millisecond)
		if tc.warns {
			require.Contains(t, log.String(), "but the profile is v1.37")
		} else {
			require.NotContains(t, log.String(), "but the profile is")
		}
	}
}
