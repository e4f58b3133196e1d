package kubeplugin

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
)

// Name is the plugin's name in a KubeSchedulerConfiguration (plugins and
// pluginConfig) and in the scheduler's registry.
const Name = "GangschedTopology"

// Plugin is a PlacementGenerate and PlacementScore plugin
// (k8s.io/kube-scheduler/framework PlacementGeneratePlugin and
// PlacementScorePlugin, KEP-5732) whose placements and scores are
// gangsched's topology Generator and Scorer. Make one with [New]. Between
// PodGroup cycles it keeps gangsched's snapshot of the nodes and its
// topology trees, brought in step with the framework's nodes each cycle
// (see view); per cycle it keeps its data in the PodGroup's cycle state,
// read-only once written, so the framework may run ScorePlacement for
// several placements at once.
type Plugin struct {
	cfg  config
	view view
}

var (
	_ fwk.PlacementGeneratePlugin  = (*Plugin)(nil)
	_ fwk.PlacementScorePlugin     = (*Plugin)(nil)
	_ fwk.PlacementScoreExtensions = (*Plugin)(nil)
)

// New is the plugin's factory (a frameworkruntime.PluginFactory), for
// app.WithPlugin(Name, New) in a kube-scheduler build. args are the
// profile's pluginConfig args for [Name]; see [DecodeArgs] for their
// errors.
func New(_ context.Context, args runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	a, err := DecodeArgs(args)
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	return &Plugin{cfg: cfg}, nil
}

// Name returns [Name].
func (pl *Plugin) Name() string { return Name }
