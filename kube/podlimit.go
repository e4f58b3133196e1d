package kube

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// DefaultMaxPods is how many pods [Load] accepts, those of the input and
// those its Jobs would create together, when [LoadOptions].MaxPods is 0.
// Every pod is an object in memory — about 2.7 KB for a Job's pod once
// loaded, about 5.5 KB through a gangsim run (BenchmarkLoad_JobPods;
// /usr/bin/time on one Job of 100,000 pods) — so a few lines of manifest
// must not be able to ask for millions of them (50 Jobs of parallelism
// 100,000 fit in 16 KB): the default keeps a run under about 3 GB.
const DefaultMaxPods = 500_000

// ErrTooManyPods is wrapped when the input's pods and those its Jobs would
// create exceed [LoadOptions].MaxPods. It wraps placement.ErrInvalid.
var ErrTooManyPods = fmt.Errorf("%w: too many pods", placement.ErrInvalid)

// LoadOptions configures [LoadWithOptions]; the zero value is [Load]'s.
type LoadOptions struct {
	// MaxPods bounds the pods of the input plus those its Jobs would
	// create; 0 means [DefaultMaxPods]. The bound is checked before any
	// Job's pods are created.
	MaxPods int
	// Profile is the release whose Job controller stamps the Jobs (see
	// [StampJobAs]); "" means the newest, whose Jobs all get a Workload and
	// PodGroup, basic unless spec.scheduling says otherwise.
	Profile gang.Profile
	// PodGroupPreemptionPolicy is upstream's gate of that name (off in
	// v1.37.2; v1.38 has none and always admits as with it on): on, a
	// PodGroup the Job controller creates gets
	// spec.preemptionPolicy from its priority class (the default class's
	// without one, else PreemptLowerPriority), as the Priority admission
	// plugin sets it on create. PodGroups and CompositePodGroups of the
	// input are read as written (see [gang.Options].PodGroupPreemptionPolicy
	// for the rule that reads the field).
	PodGroupPreemptionPolicy bool
	// KueueMultiLayerTopology reads Kueue Workloads with Kueue's
	// TASMultiLayerTopology gate on (alpha, off by default in v0.17): every
	// slice layer of a pod set, from topologyRequest or its template's
	// annotation (see [KueueReadOptions]). Off, as Kueue's default, a set
	// keeps only the first layer of the field and none of the annotation.
	KueueMultiLayerTopology bool
	// KueueNodePods counts a node whose status.allocatable lists no "pods"
	// as holding none (allocatable pods 0) when the input has Kueue
	// Workloads: Kueue v0.17's topology-aware scheduling adds one "pods" to
	// every pod's requests and finds the resource missing on such a node
	// (pkg/resources, Requests.CountInWithLimitingResource), so the node
	// holds no pod and is excluded by resource "pods". Off, such a node has
	// no pod-count limit ([placement.ResourcePods]). gangsim sets it under
	// the Kueue topology profiles.
	KueueNodePods bool
}

// checkPodCount reports, at the Job whose pods cross it, when the input's
// pods (given) and those its Jobs would create exceed max (0: the
// default). It only counts: nothing is created before the check.
func checkPodCount(objs []manifest.Object, given, max int) error {
	if max <= 0 {
		max = DefaultMaxPods
	}
	total := given
	for i := range objs {
		o := &objs[i]
		j, ok := o.Obj.(*batchv1.Job)
		if !ok {
			continue
		}
		n := jobPodCount(j)
		if total+n > max {
			return o.Wrap(placement.Errorf(ErrTooManyPods, jobObj(j.Namespace, j.Name), "spec.parallelism",
				"its %d pods would bring the input to %d pods (%d given, the rest from Jobs), above the limit of %d (LoadOptions.MaxPods)",
				n, total+n, given, max))
		}
		total += n
	}
	return nil
}
