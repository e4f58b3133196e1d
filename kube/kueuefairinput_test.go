package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// A Kueue Configuration turns fair sharing on as Kueue v0.17 reads it:
// v1beta2 by the presence of fairSharing, with strategies required;
// v1beta1 by enable, with both strategies by default; any list but
// Kueue's three is refused, naming the field.
func TestConvertKueueConfiguration(t *testing.T) {
	final, initial := configv1beta2.LessThanOrEqualToFinalShare, configv1beta2.LessThanInitialShare
	both := []configv1beta2.PreemptionStrategy{final, initial}
	v1 := func(enable bool, s ...configv1beta1.PreemptionStrategy) *configv1beta1.Configuration {
		return &configv1beta1.Configuration{FairSharing: &configv1beta1.FairSharing{Enable: enable, PreemptionStrategies: s}}
	}
	v2 := func(s ...configv1beta2.PreemptionStrategy) *configv1beta2.Configuration {
		return &configv1beta2.Configuration{FairSharing: &configv1beta2.FairSharing{PreemptionStrategies: s}}
	}
	const field = "Kueue Configuration: fairSharing.preemptionStrategies: "
	for _, c := range []struct {
		name string
		cfg  any
		want []configv1beta2.PreemptionStrategy // nil: off
		err  string
	}{
		{"v1beta2 without fairSharing", &configv1beta2.Configuration{}, nil, ""},
		{"v1beta2 both", v2(final, initial), both, ""},
		{"v1beta2 one", v2(initial), []configv1beta2.PreemptionStrategy{initial}, ""},
		{"v1beta2 without strategies", v2(), nil, field + "must be given when fairSharing is"},
		{"v1beta2 reversed", v2(initial, final), nil, field + "[LessThanInitialShare, LessThanOrEqualToFinalShare] is not one of"},
		{"v1beta2 unknown", v2("Fairest"), nil, field + "[Fairest] is not one of"},
		{"v1beta1 without fairSharing", &configv1beta1.Configuration{}, nil, ""},
		{"v1beta1 not enabled", v1(false, "Fairest"), nil, ""},
		{"v1beta1 enabled, default strategies", v1(true), both, ""},
		{"v1beta1 enabled, one", v1(true, configv1beta1.LessThanOrEqualToFinalShare), []configv1beta2.PreemptionStrategy{final}, ""},
		{"v1beta1 twice the same", v1(true, configv1beta1.LessThanInitialShare, configv1beta1.LessThanInitialShare), nil,
			field + "[LessThanInitialShare, LessThanInitialShare] is not one of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs, err := ConvertKueueConfiguration(c.cfg)
			if c.err != "" {
				require.ErrorIs(t, err, placement.ErrInvalid)
				require.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			if c.want == nil {
				require.Nil(t, fs)
				return
			}
			require.Equal(t, &KueueFairSharing{Strategies: c.want}, fs)
		})
	}
}

// spec.fairSharing.weight on ClusterQueues and Cohorts: 1 when unset, 0
// allowed, negative or in (0, 10⁻⁹] refused as Kueue's webhook refuses
// them, naming object and field.
func TestFairWeight(t *testing.T) {
	withWeight := func(obj any, w string) any {
		q := resource.MustParse(w)
		switch o := obj.(type) {
		case *kueue.ClusterQueue:
			o.Spec.FairSharing = &kueue.FairSharing{Weight: &q}
		case *kueue.Cohort:
			o.Spec.FairSharing = &kueue.FairSharing{Weight: &q}
		}
		return obj
	}
	for _, c := range []struct {
		name string
		obj  any
		want float64
		err  string
	}{
		{"unset", cohortCQ("a", "c", "4", "", ""), 1, ""},
		{"a half", withWeight(cohortCQ("a", "c", "4", "", ""), "500m"), 0.5, ""},
		{"zero", withWeight(cohortCQ("a", "c", "4", "", ""), "0"), 0, ""},
		{"negative", withWeight(cohortCQ("a", "c", "4", "", ""), "-1"), 0, `Kueue ClusterQueue "a": spec.fairSharing.weight: -1 is negative`},
		{"collapses", withWeight(cohortCQ("a", "c", "4", "", ""), "1n"), 0, `Kueue ClusterQueue "a": spec.fairSharing.weight: 1n is above 0 but not above 10⁻⁹`},
		{"Cohort of weight 3", withWeight(cohortObj("org", "", "4", "", ""), "3"), 3, ""},
		{"Cohort negative", withWeight(cohortObj("org", "", "4", "", ""), "-500m"), 0, `Kueue Cohort "org": spec.fairSharing.weight: -500m is negative`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in kueueQueueInputs
			err := in.add(c.obj)
			if c.err != "" {
				require.ErrorIs(t, err, placement.ErrInvalid)
				require.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			var w *float64
			if cq := in.q.ClusterQueues["a"]; cq != nil {
				w = cq.FairWeight
			} else {
				w = in.q.Cohorts["org"].FairWeight
			}
			require.Equal(t, c.want, weightOf(w))
		})
	}
}

// A Configuration among the manifests reaches [KueueQueues].FairSharing;
// its fields beyond fairSharing are read strictly but ignored; two are
// refused.
func TestKueueConfigurationInput(t *testing.T) {
	const cfg = "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanageJobsWithoutQueueName: true\nfairSharing: {preemptionStrategies: [LessThanInitialShare]}\n"
	queues := cohortQueues(cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 4"))

	objs, err := manifest.Decode("f.yaml", strings.NewReader(partialNodes+queues+cfg), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	require.Equal(t, &KueueFairSharing{Strategies: []configv1beta2.PreemptionStrategy{configv1beta2.LessThanInitialShare}}, c.KueueQueues.FairSharing)

	_, err = manifest.Decode("f.yaml", strings.NewReader(cfg+cfg), manifest.Options{})
	require.ErrorIs(t, err, placement.ErrDuplicate)

	_, err = manifest.Decode("f.yaml", strings.NewReader(cfg+"fairSharin: {}\n"), manifest.Options{})
	require.ErrorContains(t, err, "fairSharin")
}
