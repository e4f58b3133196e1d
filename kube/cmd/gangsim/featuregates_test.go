package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
)

// TestParseFeatureGates: -feature-gates takes kube-scheduler's
// Name=bool list; a gate gangsim does not model, a malformed pair and
// PodGroupPreemptionPolicy under v1.36 are refused by name.
func TestParseFeatureGates(t *testing.T) {
	cases := []struct {
		in      string
		profile gang.Profile
		want    featureGates
		err     string
	}{
		{"", gang.ProfileV138, featureGates{}, ""},
		{"PodGroupPreemptionPolicy=true", gang.ProfileV137, featureGates{podGroupPreemptionPolicy: true}, ""},
		{"PodGroupPreemptionPolicy=false", gang.ProfileV136, featureGates{}, ""},
		{"PodGroupPreemptionPolicy=false", gang.ProfileV138, featureGates{}, ""},
		{"PodGroupPreemptionPolicy=true,PodGroupPreemptionPolicy=false", gang.ProfileV137, featureGates{}, ""},
		{"PodGroupPreemptionPolicy=true", gang.ProfileV136, featureGates{},
			"-feature-gates PodGroupPreemptionPolicy: Kubernetes v1.36 has no such gate (it exists in v1.37 only; v1.38 always honours spec.preemptionPolicy); drop it or use -profile v1.37"},
		// v1.38.0-beta.0's pkg/features/kube_features.go no longer has it.
		{"PodGroupPreemptionPolicy=true", gang.ProfileV138, featureGates{},
			"-feature-gates PodGroupPreemptionPolicy: Kubernetes v1.38 has no such gate (it exists in v1.37 only; v1.38 always honours spec.preemptionPolicy); drop it or use -profile v1.37"},
		{"PodGroupPreemptionPolicy", gang.ProfileV138, featureGates{},
			`-feature-gates "PodGroupPreemptionPolicy": want Name=true or Name=false, e.g. PodGroupPreemptionPolicy=true`},
		{"PodGroupPreemptionPolicy=yes", gang.ProfileV138, featureGates{}, `-feature-gates PodGroupPreemptionPolicy: value "yes" is not true or false`},
		{"GenericWorkload=true", gang.ProfileV138, featureGates{}, "-feature-gates GenericWorkload: not a gate gangsim models (known: PodGroupPreemptionPolicy)"},
	}
	for _, c := range cases {
		got, err := parseFeatureGates(c.in, c.profile)
		if c.err != "" {
			require.EqualError(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
}
