package kube

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// schedConfig decodes a KubeSchedulerConfiguration document as the
// manifest reader does.
func schedConfig(t testing.TB, body string) *configv1.KubeSchedulerConfiguration {
	t.Helper()
	objs, err := manifest.Decode("cfg.yaml", strings.NewReader("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"+body), manifest.Options{})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, "KubeSchedulerConfiguration", objs[0].String())
	return objs[0].Obj.(*configv1.KubeSchedulerConfiguration)
}

// TestReadSchedulerConfiguration: what each kind of profile means for
// node scoring and preemption, and which fields are warned about.
func TestReadSchedulerConfiguration(t *testing.T) {
	up := placement.UpstreamNodeScoring()
	for _, c := range []struct {
		name, body, scheduler string
		want                  placement.NodeScoring
		preempt               bool
		warnings              []string
	}{
		{"no profiles", "", "", up, true, nil},
		{"default profile named", "profiles: [{schedulerName: default-scheduler}]", "", up, true, nil},
		{"MostAllocated with weights", `profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 3}, {name: nvidia.com/gpu}]}}`, "",
			placement.NodeScoring{Strategy: placement.MostAllocated, Resources: []placement.ResourceWeight{{Name: "cpu", Weight: 3}, {Name: "nvidia.com/gpu", Weight: 1}}, FitWeight: 1, BalancedWeight: 1}, true, nil},
		{"RequestedToCapacityRatio, BalancedAllocation off, Fit weighted", `profiles:
- plugins:
    score:
      enabled: [{name: NodeResourcesFit, weight: 5}]
      disabled: [{name: NodeResourcesBalancedAllocation}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]}}}`, "",
			placement.NodeScoring{Strategy: placement.RequestedToCapacityRatio, FitWeight: 5, Shape: []placement.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}}, true, nil},
		{"balanced resources and weight from multiPoint", `profiles:
- plugins:
    multiPoint:
      enabled: [{name: NodeResourcesBalancedAllocation, weight: 2}]
  pluginConfig:
  - name: NodeResourcesBalancedAllocation
    args: {resources: [{name: cpu}, {name: nvidia.com/gpu}]}`, "",
			placement.NodeScoring{Strategy: placement.LeastAllocated, FitWeight: 1, BalancedWeight: 2, BalancedResources: []placement.ResourceWeight{{Name: "cpu", Weight: 1}, {Name: "nvidia.com/gpu", Weight: 1}}}, true, nil},
		{"preemption off at postFilter", "profiles: [{plugins: {postFilter: {disabled: [{name: '*'}]}}}]", "", up, false, nil},
		{"preemption off at multiPoint, on again at postFilter", "profiles: [{plugins: {multiPoint: {disabled: [{name: DefaultPreemption}]}, postFilter: {enabled: [{name: DefaultPreemption}]}}}]", "", up, true, nil},
		{"the profile of the scheduler in use", `profiles:
- {schedulerName: packer, pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: MostAllocated}}}]}
- {schedulerName: default-scheduler}`, "packer",
			placement.NodeScoring{Strategy: placement.MostAllocated, FitWeight: 1, BalancedWeight: 1}, true, nil},
		{"warnings", `percentageOfNodesToScore: 50
extenders: [{urlPrefix: "http://x"}]
profiles:
- plugins:
    filter:
      disabled: [{name: TaintToleration}, {name: NodePorts}]
    score:
      enabled: [{name: InterPodAffinity, weight: 4}, {name: Custom}]
  pluginConfig:
  - {name: NodeResourcesFit, args: {ignoredResources: [example.com/x]}}
  - {name: DefaultPreemption, args: {minCandidateNodesPercentage: 5}}`, "", up, true, []string{
			"percentageOfNodesToScore: 50 is not honoured: gangsched scores every feasible node",
			"extenders[0]: scheduler extenders are not called",
			`profiles[0].plugins.filter.disabled[0]: disabling "TaintToleration" is not followed: gangsched keeps its own filters`,
			"profiles[0].plugins.score.enabled[0]: the weight of InterPodAffinity is not honoured: gangsched does not add its score",
			`profiles[0].plugins.score.enabled[1]: plugin "Custom" has no gangsched equivalent; ignored`,
			"profiles[0].pluginConfig[0].args: ignoredResources and ignoredResourceGroups are not honoured: gangsched fits every resource",
			"profiles[0].pluginConfig[1]: the args of DefaultPreemption are not read",
		}},
		{"no profile for the scheduler", "profiles: [{schedulerName: other}]", "", up, true, []string{
			`profiles: no profile has schedulerName "default-scheduler" (kube-scheduler would leave its pods alone); the default profile applies`}},
		{"no resource score", "profiles: [{plugins: {score: {disabled: [{name: '*'}]}}}]", "", placement.NodeScoring{}, true, []string{
			"profiles[0].plugins: no resource score plugin is enabled (kube-scheduler would tie every node); gangsched packs"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ReadSchedulerConfiguration(schedConfig(t, c.body), c.scheduler)
			require.NoError(t, err)
			require.Equal(t, c.want, p.NodeScoring)
			require.Equal(t, c.preempt, p.Preemption)
			require.Equal(t, c.warnings, p.Warnings)
		})
	}
}

// TestReadSchedulerConfiguration_Errors: what kube-scheduler would refuse
// to start with is an error naming the field.
func TestReadSchedulerConfiguration_Errors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"profiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: RequestedToCapacityRatio}}}]}]",
			"KubeSchedulerConfiguration: profiles[0].pluginConfig: NodeScoring.Shape: must have at least one point"},
		{"profiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {resources: [{name: cpu, weight: 101}]}}}]}]",
			"KubeSchedulerConfiguration: profiles[0].pluginConfig: NodeScoring.Resources[0].Weight: 101 is outside 1–100"},
		{"profiles: [{pluginConfig: [{name: NodeResourcesBalancedAllocation, args: {resources: 3}}]}]",
			"KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args: json: cannot unmarshal"},
		{"profiles: [{}, {schedulerName: default-scheduler}]",
			`KubeSchedulerConfiguration: profiles[1].schedulerName: "default-scheduler" is the schedulerName of profiles[0] too`},
	} {
		_, err := ReadSchedulerConfiguration(schedConfig(t, c.body), "")
		var fe *placement.FieldError
		require.ErrorAs(t, err, &fe, c.body)
		require.ErrorContains(t, err, c.want)
	}
	_, err := ReadSchedulerConfiguration(nil, "")
	require.ErrorIs(t, err, placement.ErrInvalid)
}

// FuzzReadSchedulerConfiguration: any configuration the reader accepts is
// read or refused with a field error; it never panics, and what it returns
// is a valid NodeScoring.
func FuzzReadSchedulerConfiguration(f *testing.F) {
	fuzzManifests(f, []string{"testdata/schedconfig/most-allocated.yaml", "testdata/schedconfig/no-preemption.yaml", "testdata/schedconfig/default-profile.yaml"}, func(t *testing.T, objs []manifest.Object) {
		for _, o := range objs {
			cfg, ok := o.Obj.(*configv1.KubeSchedulerConfiguration)
			if !ok {
				continue
			}
			p, err := ReadSchedulerConfiguration(cfg, "")
			var fe *placement.FieldError
			if err != nil && !errors.As(err, &fe) {
				t.Fatalf("not a field error: %v", err)
			}
			if err == nil {
				require.NoError(t, p.NodeScoring.Validate())
			}
		}
	})
}

// TestReadSchedulerConfiguration_SpreadWeight: PodTopologySpread's score
// weight, which scores ScheduleAnyway constraints, is read without a
// warning: 2 in the default profile, a profile's own weight, 0 when its
// score is disabled; its args are a warning (no default constraints).
func TestReadSchedulerConfiguration_SpreadWeight(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       int64
		warnings   []string
	}{
		{"default profile", "", DefaultSpreadWeight, nil},
		{"score weight", "profiles: [{plugins: {score: {enabled: [{name: PodTopologySpread, weight: 5}]}}}]", 5, nil},
		{"multiPoint entry without weight", "profiles: [{plugins: {multiPoint: {enabled: [{name: PodTopologySpread}]}}}]", 1, nil},
		{"score disabled", "profiles: [{plugins: {score: {disabled: [{name: PodTopologySpread}]}}}]", 0, nil},
		{"every score disabled but Fit", "profiles: [{plugins: {score: {disabled: [{name: '*'}], enabled: [{name: NodeResourcesFit}]}}}]", 0, nil},
		{"args", "profiles: [{pluginConfig: [{name: PodTopologySpread, args: {defaultingType: List}}]}]", DefaultSpreadWeight, []string{
			"profiles[0].pluginConfig[0]: the args of PodTopologySpread are not read: no default constraints apply, and constraints are read from the pods"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ReadSchedulerConfiguration(schedConfig(t, c.body), "")
			require.NoError(t, err)
			require.Equal(t, c.want, p.SpreadWeight)
			require.Equal(t, c.warnings, p.Warnings)
		})
	}
}

// TestReadSchedulerConfiguration_TaintAndNodeAffinityWeights: the score
// weights of TaintToleration and NodeAffinity are read without a warning:
// 3 and 2 in the default profile, a profile's own weight, 0 when a score
// is disabled (their filters stay, so disabling them at multiPoint is a
// warning).
func TestReadSchedulerConfiguration_TaintAndNodeAffinityWeights(t *testing.T) {
	for _, c := range []struct {
		name, body      string
		taint, affinity int64
		warnings        []string
	}{
		{"default profile", "", DefaultTaintTolerationWeight, DefaultNodeAffinityWeight, nil},
		{"score weights", "profiles: [{plugins: {score: {enabled: [{name: TaintToleration, weight: 7}, {name: NodeAffinity, weight: 9}]}}}]", 7, 9, nil},
		{"score disabled", "profiles: [{plugins: {score: {disabled: [{name: TaintToleration}, {name: NodeAffinity}]}}}]", 0, 0, nil},
		{"every score disabled but Fit", "profiles: [{plugins: {score: {disabled: [{name: '*'}], enabled: [{name: NodeResourcesFit}]}}}]", 0, 0, nil},
		{"multiPoint disabled", "profiles: [{plugins: {multiPoint: {disabled: [{name: TaintToleration}]}}}]", 0, DefaultNodeAffinityWeight, []string{
			`profiles[0].plugins.multiPoint.disabled[0]: disabling "TaintToleration" is not followed: gangsched keeps its own filters`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ReadSchedulerConfiguration(schedConfig(t, c.body), "")
			require.NoError(t, err)
			require.Equal(t, c.taint, p.TaintWeight, "TaintToleration")
			require.Equal(t, c.affinity, p.NodeAffinityWeight, "NodeAffinity")
			require.Equal(t, c.warnings, p.Warnings)
		})
	}
}
