package main

import (
	"fmt"
	"slices"
	"strings"

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

// schedulerConfig takes the KubeSchedulerConfiguration out of objs, if the
// input has one, and returns the other objects, the node scoring that
// -node-scoring and the configuration ask for (with the weights of
// PodTopologySpread, TaintToleration and NodeAffinity: the default
// profile's 2, 3 and 2 for upstream, the profile's for the configuration,
// 0 for packing), whether the profile keeps
// preemption, and the configuration's warnings (each naming its field).
// The profile read is the one for the schedulerName the pending pods and
// Job templates name (default-scheduler when none or several do).
func schedulerConfig(objs []manifest.Object, scoring string) (rest []manifest.Object, ns placement.NodeScoring, w scoreWeights, preempt bool, warnings []string, err error) {
	var cfg *manifest.Object
	rest = make([]manifest.Object, 0, len(objs))
	for i := range objs {
		if _, ok := objs[i].Obj.(*configv1.KubeSchedulerConfiguration); ok {
			cfg = &objs[i] // the reader admits one
			continue
		}
		rest = append(rest, objs[i])
	}
	preempt = true
	if scoring == scoringUpstream {
		ns, w = placement.UpstreamNodeScoring(), scoreWeights{kube.DefaultSpreadWeight, kube.DefaultTaintTolerationWeight, kube.DefaultNodeAffinityWeight}
	}
	if cfg == nil {
		return rest, ns, w, preempt, nil, nil
	}
	name, names := schedulerName(rest)
	if len(names) > 1 {
		warnings = append(warnings, fmt.Sprintf("%s: pods name schedulers %s; the profile of %s is read", cfg.Where(), strings.Join(names, ", "), name))
	}
	p, err := kube.ReadSchedulerConfiguration(cfg.Obj.(*configv1.KubeSchedulerConfiguration), name)
	if err != nil {
		return nil, ns, scoreWeights{}, false, nil, cfg.Wrap(err)
	}
	for _, w := range p.Warnings {
		warnings = append(warnings, cfg.Where()+": "+cfg.String()+": "+w)
	}
	if scoring == scoringConfig {
		ns, w = p.NodeScoring, scoreWeights{p.SpreadWeight, p.TaintWeight, p.NodeAffinityWeight}
	}
	return rest, ns, w, p.Preemption, warnings, nil
}

// schedulerName returns the schedulerName that pending pods and Job pod
// templates name — default-scheduler when they name none or more than one
// — and every name they use, sorted.
func schedulerName(objs []manifest.Object) (string, []string) {
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
	slices.Sort(names)
	if len(names) == 1 {
		return names[0], names
	}
	return corev1.DefaultSchedulerName, names
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
