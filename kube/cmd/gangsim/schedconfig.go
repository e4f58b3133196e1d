package main

import (
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// Values of -node-scoring.
const (
	scoringConfig   = ""         // the input's KubeSchedulerConfiguration, else packing
	scoringPacking  = "packing"  // gangsched's packing
	scoringUpstream = "upstream" // kube-scheduler's default profile
)

// scoreWeights are the weights of the upstream Score plugins gangsched
// adds to the resource scoring; 0 leaves a plugin out.
type scoreWeights struct {
	spread   int64 // PodTopologySpread (ScheduleAnyway constraints)
	taint    int64 // TaintToleration (PreferNoSchedule taints)
	affinity int64 // NodeAffinity (preferred terms)
}

// profileScoring is how one profile scores a member's node: the resource
// scoring and the weights of the upstream Score plugins added to it.
type profileScoring struct {
	ns placement.NodeScoring
	w  scoreWeights
}

// byProfile is a value per profile of the configuration, by
// schedulerName, as kube-scheduler builds one framework per profile.
type byProfile[T any] struct {
	// byName holds each profile's value; nil without a configuration or
	// under -node-scoring.
	byName map[string]T
	// fallback serves every group whose schedulerName byName lacks.
	fallback T
}

// of returns the value of a group whose pods name schedulerName.
func (b byProfile[T]) of(schedulerName string) T {
	if v, ok := b.byName[schedulerName]; ok {
		return v
	}
	return b.fallback
}

// runScoring is a run's node scoring: each group is scored with the
// profile its pods' spec.schedulerName names. The fallback's weights are
// added to the resource scoring when that has a Strategy; 0 leaves a
// plugin out.
type runScoring = byProfile[profileScoring]

// profilePreemption says which profiles run DefaultPreemption (the
// PostFilter kube-scheduler runs for a pod its profile cannot place).
type profilePreemption struct {
	// any is true when some profile read keeps it (or there is no
	// configuration): the run preempts at all.
	any bool
	// off are the schedulerNames of the profiles that disable it, when
	// others keep it; nil when every profile agrees.
	off map[string]bool
}

// schedulerConfig takes the KubeSchedulerConfiguration out of objs, if the
// input has one, and returns the other objects, the node scoring that
// -node-scoring and the configuration ask for, which profiles keep
// preemption, and the configuration's warnings (each naming its field,
// each once).
//
// The scoring has the weights of PodTopologySpread, TaintToleration and
// NodeAffinity: the default profile's 2, 3 and 2 for upstream, 0 for
// packing, and for the configuration its profiles': sc.byName holds the
// scoring of every profile the configuration serves, by schedulerName,
// as kube-scheduler builds a framework per profile and decides each pod
// with the one its spec.schedulerName names. sc.fallback scores a group
// whose schedulerName no profile serves (only a victim recreated from a
// pod another scheduler bound reaches a cycle so): kube-scheduler's
// default profile under a configuration, the flag's scoring otherwise.
// Preemption is per profile too: pre.off names the profiles that disable
// DefaultPreemption when others keep it, and a group whose schedulerName
// no profile serves preempts, as kube-scheduler's default profile does.
func schedulerConfig(objs []manifest.Object, scoring string) (rest []manifest.Object, sc runScoring, pre profilePreemption, warnings []string, err error) {
	var cfg *manifest.Object
	rest = make([]manifest.Object, 0, len(objs))
	for i := range objs {
		if _, ok := objs[i].Obj.(*configv1.KubeSchedulerConfiguration); ok {
			cfg = &objs[i] // the reader admits one
			continue
		}
		rest = append(rest, objs[i])
	}
	pre.any = true
	if scoring == scoringUpstream {
		sc.fallback = profileScoring{placement.UpstreamNodeScoring(), scoreWeights{kube.DefaultSpreadWeight, kube.DefaultTaintTolerationWeight, kube.DefaultNodeAffinityWeight}}
	}
	if cfg == nil {
		return rest, sc, pre, nil, nil
	}
	kcfg := cfg.Obj.(*configv1.KubeSchedulerConfiguration)
	served := servedSchedulers(objs)
	byName := make(map[string]profileScoring, len(served))
	off := map[string]bool{}
	for _, name := range served {
		p, err := kube.ReadSchedulerConfiguration(kcfg, name)
		if err != nil {
			return nil, runScoring{}, profilePreemption{}, nil, cfg.Wrap(err)
		}
		for _, w := range p.Warnings {
			if w = cfg.Where() + ": " + cfg.String() + ": " + w; !slices.Contains(warnings, w) {
				warnings = append(warnings, w)
			}
		}
		byName[name] = profileScoring{p.NodeScoring, scoreWeights{p.SpreadWeight, p.TaintWeight, p.NodeAffinityWeight}}
		if !p.Preemption {
			off[name] = true
		}
	}
	pre.any = len(off) < len(served)
	if pre.any && len(off) > 0 {
		pre.off = off
	}
	if scoring != scoringConfig {
		return rest, sc, pre, warnings, nil
	}
	// kube-scheduler's default profile, as an empty configuration has.
	def, err := kube.ReadSchedulerConfiguration(&configv1.KubeSchedulerConfiguration{}, "")
	if err != nil {
		return nil, runScoring{}, profilePreemption{}, nil, err
	}
	sc = runScoring{byName, profileScoring{def.NodeScoring, scoreWeights{def.SpreadWeight, def.TaintWeight, def.NodeAffinityWeight}}}
	return rest, sc, pre, warnings, nil
}

// schedulerName returns the schedulerName that pending pods and Job pod
// templates name: default-scheduler when they name none or more than one.
func schedulerName(objs []manifest.Object) string {
	var names []string
	add := func(n string) {
		if n == "" {
			n = corev1.DefaultSchedulerName
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for i := range objs {
		switch o := objs[i].Obj.(type) {
		case *corev1.Pod:
			if o.Spec.NodeName == "" {
				add(o.Spec.SchedulerName)
			}
		case *batchv1.Job:
			add(o.Spec.Template.Spec.SchedulerName)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return corev1.DefaultSchedulerName
}

// schedulerConfigObject returns the input's KubeSchedulerConfiguration, as
// read, or nothing: -o yaml writes it back, since which pods the run
// serves and how it scores depend on it, and the output fed back must
// decide the same.
func schedulerConfigObject(objs []manifest.Object) []any {
	for i := range objs {
		if cfg, ok := objs[i].Obj.(*configv1.KubeSchedulerConfiguration); ok {
			return []any{cfg}
		}
	}
	return nil
}
