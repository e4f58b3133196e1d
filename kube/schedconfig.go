package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/gangsched/gangsched/placement"
)

// SchedulerProfile is what gangsched takes from one profile of a
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1).
type SchedulerProfile struct {
	// SchedulerName is the profile's schedulerName.
	SchedulerName string
	// NodeScoring is the profile's resource scoring of nodes for each
	// member: NodeResourcesFit's scoringStrategy and weight, and
	// NodeResourcesBalancedAllocation's resources and weight (0 when the
	// profile disables it).
	NodeScoring placement.NodeScoring
	// SpreadWeight is PodTopologySpread's score weight, which scores
	// ScheduleAnyway constraints ([SpreadScorer]): [DefaultSpreadWeight]
	// in the default profile, 0 when the profile disables the plugin's
	// score.
	SpreadWeight int64
	// TaintWeight is TaintToleration's score weight ([TaintScorer]):
	// [DefaultTaintTolerationWeight] in the default profile, 0 when the
	// profile disables the plugin's score.
	TaintWeight int64
	// NodeAffinityWeight is NodeAffinity's score weight, which scores
	// preferred terms ([NodeAffinityScorer]): [DefaultNodeAffinityWeight]
	// in the default profile, 0 when the profile disables the plugin's
	// score.
	NodeAffinityWeight int64
	// Preemption is false when the profile disables DefaultPreemption.
	Preemption bool
	// Warnings name, in input order, each field that asks for something
	// gangsched does not do ("profiles[0].plugins.score.enabled[1]: …").
	Warnings []string
}

// Score plugin names and the default weights of kube-scheduler v1.37's
// default profile (pkg/scheduler/apis/config/v1 getDefaultPlugins), for
// the plugins gangsched has an equivalent of.
const (
	pluginFit               = "NodeResourcesFit"
	pluginBalanced          = "NodeResourcesBalancedAllocation"
	pluginSpread            = "PodTopologySpread"
	pluginTaint             = "TaintToleration"
	pluginNodeAffinity      = "NodeAffinity"
	pluginDefaultPreemption = "DefaultPreemption"
)

// noBehaviour lists the default plugins that decide nothing gangsched
// models (queue sort, binding, volumes, ports, images, gates): disabling
// or re-weighting them changes nothing here, so it is no warning.
var noBehaviour = []string{"SchedulingGates", "PrioritySort", "NodeName", "NodePorts", "VolumeRestrictions",
	"NodeVolumeLimits", "VolumeBinding", "VolumeZone", "ImageLocality", "DefaultBinder"}

// ReadSchedulerConfiguration returns the profile of cfg for schedulerName
// ("" means default-scheduler), read as kube-scheduler v1.37 reads it:
// with no profiles, one default profile; a profile's plugins merged with
// the default ones per extension point (a disabled "*" drops every default
// there); a score weight from plugins.score before plugins.multiPoint, 0
// meaning 1; NodeResourcesFit's args defaulting to LeastAllocated over cpu
// and memory, weight 1.
//
// Read: NodeResourcesFit's and NodeResourcesBalancedAllocation's score
// weights and pluginConfig args (the scoring strategy, resources, weights
// and RequestedToCapacityRatio's shape), the score weights of
// PodTopologySpread (2 by default), TaintToleration (3) and NodeAffinity
// (2), and whether DefaultPreemption runs at postFilter. Other plugins enabled, filters disabled, other plugins'
// args, Fit's ignoredResources, extenders and percentageOfNodesToScore
// are warnings naming the field: gangsched keeps its own filters and
// scores every feasible node. Operational fields (leaderElection,
// clientConnection, debugging, parallelism, backoff) have no part in a
// decision and are not read. A profile missing for schedulerName is a
// warning, and kube-scheduler's default profile applies.
//
// Errors (a [*placement.FieldError] on `KubeSchedulerConfiguration`): a
// nil cfg; two profiles with one schedulerName; args that do not decode
// strictly into the plugin's upstream type, or that upstream's validation
// refuses (an unknown strategy, a weight outside 1–100, a bad shape).
func ReadSchedulerConfiguration(cfg *configv1.KubeSchedulerConfiguration, schedulerName string) (SchedulerProfile, error) {
	const obj = "KubeSchedulerConfiguration"
	if cfg == nil {
		return SchedulerProfile{}, placement.Errorf(placement.ErrInvalid, obj, "object", "is nil")
	}
	if schedulerName == "" {
		schedulerName = corev1.DefaultSchedulerName
	}
	out := SchedulerProfile{SchedulerName: schedulerName}
	warn := func(field, format string, args ...any) {
		out.Warnings = append(out.Warnings, field+": "+fmt.Sprintf(format, args...))
	}
	if cfg.PercentageOfNodesToScore != nil && *cfg.PercentageOfNodesToScore != 0 && *cfg.PercentageOfNodesToScore != 100 {
		warn("percentageOfNodesToScore", "%d is not honoured: gangsched scores every feasible node", *cfg.PercentageOfNodesToScore)
	}
	for i := range cfg.Extenders {
		warn(fmt.Sprintf("extenders[%d]", i), "scheduler extenders are not called")
	}
	index := -1
	names := map[string]int{}
	for i, p := range cfg.Profiles {
		name := corev1.DefaultSchedulerName
		if p.SchedulerName != nil && *p.SchedulerName != "" {
			name = *p.SchedulerName
		}
		if j, dup := names[name]; dup {
			return SchedulerProfile{}, placement.Errorf(placement.ErrDuplicate, obj, fmt.Sprintf("profiles[%d].schedulerName", i), "%q is the schedulerName of profiles[%d] too", name, j)
		}
		names[name] = i
		if name == schedulerName {
			index = i
		}
	}
	var p configv1.KubeSchedulerProfile
	path := "profiles"
	switch {
	case index >= 0:
		p, path = cfg.Profiles[index], fmt.Sprintf("profiles[%d]", index)
	case len(cfg.Profiles) > 0:
		warn("profiles", "no profile has schedulerName %q (kube-scheduler would leave its pods alone); the default profile applies", schedulerName)
	}
	if p.PercentageOfNodesToScore != nil && *p.PercentageOfNodesToScore != 0 && *p.PercentageOfNodesToScore != 100 {
		warn(path+".percentageOfNodesToScore", "%d is not honoured: gangsched scores every feasible node", *p.PercentageOfNodesToScore)
	}
	var pl configv1.Plugins
	if p.Plugins != nil {
		pl = *p.Plugins
	}
	fitW, fitOn := scoreWeight(pl, pluginFit, 1)
	balW, balOn := scoreWeight(pl, pluginBalanced, 1)
	if w, on := scoreWeight(pl, pluginSpread, DefaultSpreadWeight); on {
		out.SpreadWeight = w
	}
	if w, on := scoreWeight(pl, pluginTaint, DefaultTaintTolerationWeight); on {
		out.TaintWeight = w
	}
	if w, on := scoreWeight(pl, pluginNodeAffinity, DefaultNodeAffinityWeight); on {
		out.NodeAffinityWeight = w
	}
	out.Preemption = active(pl.MultiPoint, pl.PostFilter, pluginDefaultPreemption)
	pluginWarnings(pl, path+".plugins", warn)
	ns := placement.UpstreamNodeScoring()
	ns.FitWeight, ns.BalancedWeight = fitW, 0
	if balOn {
		ns.BalancedWeight = balW
	}
	for i, pc := range p.PluginConfig {
		f := fmt.Sprintf("%s.pluginConfig[%d]", path, i)
		switch pc.Name {
		case pluginFit:
			var args configv1.NodeResourcesFitArgs
			if err := decodeArgs(obj, f, pc.Args.Raw, &args); err != nil {
				return SchedulerProfile{}, err
			}
			if len(args.IgnoredResources)+len(args.IgnoredResourceGroups) > 0 {
				warn(f+".args", "ignoredResources and ignoredResourceGroups are not honoured: gangsched fits every resource")
			}
			if st := args.ScoringStrategy; st != nil {
				if st.Type != "" {
					ns.Strategy = placement.ScoringStrategy(st.Type)
				}
				ns.Resources = resourceWeights(st.Resources)
				if r := st.RequestedToCapacityRatio; r != nil {
					for _, pt := range r.Shape {
						ns.Shape = append(ns.Shape, placement.UtilizationShapePoint{Utilization: int64(pt.Utilization), Score: int64(pt.Score)})
					}
				}
			}
		case pluginBalanced:
			var args configv1.NodeResourcesBalancedAllocationArgs
			if err := decodeArgs(obj, f, pc.Args.Raw, &args); err != nil {
				return SchedulerProfile{}, err
			}
			ns.BalancedResources = resourceWeights(args.Resources)
		case pluginSpread:
			warn(f, "the args of %s are not read: no default constraints apply, and constraints are read from the pods", pc.Name)
		default:
			warn(f, "the args of %s are not read", pc.Name)
		}
	}
	if ns.Strategy != placement.RequestedToCapacityRatio {
		// Upstream keeps the shape of another strategy unread.
		ns.Shape = nil
	}
	if err := ns.Validate(); err != nil {
		var fe *placement.FieldError
		if errors.As(err, &fe) {
			return SchedulerProfile{}, placement.Errorf(fe.Err, obj, path+".pluginConfig", "%s: %s", fe.Field, fe.Detail)
		}
		return SchedulerProfile{}, err
	}
	switch {
	case !fitOn && !balOn:
		warn(path+".plugins", "no resource score plugin is enabled (kube-scheduler would tie every node); gangsched packs")
		ns = placement.NodeScoring{}
	case !fitOn:
		warn(path+".plugins", "%s's score is disabled, which gangsched cannot follow: it is scored with weight 1", pluginFit)
	}
	out.NodeScoring = ns
	return out, nil
}

// scoreWeight returns plugin's weight at the score extension point after
// upstream's merge with the default profile, where its weight is def, and
// whether it scores there at all.
func scoreWeight(pl configv1.Plugins, plugin string, def int64) (int64, bool) {
	if !active(pl.MultiPoint, pl.Score, plugin) {
		return 0, false
	}
	// plugins.score before plugins.multiPoint, the custom multiPoint
	// entry before the default one; an entry without a weight weighs 1.
	for _, e := range append(slices.Clone(pl.Score.Enabled), pl.MultiPoint.Enabled...) {
		if e.Name == plugin {
			if e.Weight == nil || *e.Weight == 0 {
				return 1, true
			}
			return int64(*e.Weight), true
		}
	}
	return def, true
}

// active reports whether a default plugin runs at an extension point:
// enabled there, or in the merged multiPoint set (not disabled there by
// name or "*") and not disabled at the point.
func active(multi, point configv1.PluginSet, plugin string) bool {
	has := func(ps []configv1.Plugin, name string) bool {
		return slices.ContainsFunc(ps, func(p configv1.Plugin) bool { return p.Name == name })
	}
	if has(point.Enabled, plugin) {
		return true
	}
	inMulti := has(multi.Enabled, plugin) || !(has(multi.Disabled, plugin) || has(multi.Disabled, "*"))
	return inMulti && !has(point.Disabled, plugin) && !has(point.Disabled, "*")
}

// modeled lists the default plugins whose decisions gangsched makes its own
// way, always: filters (resource fit, unschedulable, taints, node and pod
// affinity, topology spread, devices) and the workload plugins.
var modeled = []string{pluginFit, "NodeUnschedulable", pluginTaint, pluginNodeAffinity, pluginSpread, "InterPodAffinity",
	"DynamicResources", "GangScheduling", "TopologyPlacementGenerator", "PodGroupPodsCount", "NodeDeclaredFeatures"}

// weighed lists the score plugins whose weight gangsched reads, so that
// re-weighting or disabling their score is followed.
var weighed = []string{pluginFit, pluginBalanced, pluginSpread, pluginTaint, pluginNodeAffinity}

// pluginWarnings names every plugin entry gangsched does not follow:
// enabling a plugin it has no equivalent of, re-weighting a score it does
// not compute, and disabling a plugin whose behaviour it keeps.
func pluginWarnings(pl configv1.Plugins, path string, warn func(field, format string, args ...any)) {
	for _, pt := range []struct {
		name string
		set  configv1.PluginSet
	}{
		{"preEnqueue", pl.PreEnqueue}, {"queueSort", pl.QueueSort}, {"preFilter", pl.PreFilter}, {"filter", pl.Filter},
		{"postFilter", pl.PostFilter}, {"preScore", pl.PreScore}, {"score", pl.Score}, {"reserve", pl.Reserve},
		{"permit", pl.Permit}, {"preBind", pl.PreBind}, {"bind", pl.Bind}, {"postBind", pl.PostBind},
		{"multiPoint", pl.MultiPoint}, {"placementGenerate", pl.PlacementGenerate}, {"placementScore", pl.PlacementScore},
		{"podGroupPostFilter", pl.PodGroupPostFilter},
	} {
		scores := pt.name == "score" || pt.name == "multiPoint"
		for i, e := range pt.set.Enabled {
			f := fmt.Sprintf("%s.%s.enabled[%d]", path, pt.name, i)
			known := slices.Contains(modeled, e.Name) || slices.Contains(noBehaviour, e.Name) || e.Name == pluginBalanced || e.Name == pluginDefaultPreemption
			switch {
			case !known:
				warn(f, "plugin %q has no gangsched equivalent; ignored", e.Name)
			case scores && e.Weight != nil && !slices.Contains(weighed, e.Name) && !slices.Contains(noBehaviour, e.Name):
				warn(f, "the weight of %s is not honoured: gangsched does not add its score", e.Name)
			}
		}
		for i, e := range pt.set.Disabled {
			// Read: the two resource scores at score and multiPoint (Fit's
			// filter stays), preemption at postFilter and multiPoint.
			read := slices.Contains(noBehaviour, e.Name)
			switch pt.name {
			case "score":
				read = read || slices.Contains(weighed, e.Name) || e.Name == "*"
			case "postFilter":
				read = read || e.Name == pluginDefaultPreemption || e.Name == "*"
			case "multiPoint":
				read = read || e.Name == pluginBalanced || e.Name == pluginDefaultPreemption
			}
			if !read {
				warn(fmt.Sprintf("%s.%s.disabled[%d]", path, pt.name, i), "disabling %q is not followed: gangsched keeps its own filters", e.Name)
			}
		}
	}
}

// decodeArgs decodes a plugin's args strictly into the upstream type.
func decodeArgs(obj, field string, raw []byte, into any) error {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return placement.Errorf(placement.ErrInvalid, obj, field+".args", "%v", err)
	}
	return nil
}

// resourceWeights converts upstream ResourceSpecs; nil stays nil (the
// default resources). A weight of 0 means 1, as upstream defaults it.
func resourceWeights(rs []configv1.ResourceSpec) []placement.ResourceWeight {
	var out []placement.ResourceWeight
	for _, r := range rs {
		w := r.Weight
		if w == 0 {
			w = 1
		}
		out = append(out, placement.ResourceWeight{Name: placement.ResourceName(r.Name), Weight: w})
	}
	return out
}
