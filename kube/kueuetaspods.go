package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// kueueTASAnnotations are the pod annotations by which Kueue v0.17 tells
// a TAS pod (pkg/util/tas IsTAS: the key alone, whatever its value).
var kueueTASAnnotations = []string{KueueRequiredTopology, KueuePreferredTopology, KueueUnconstrainedTopology}

// kueueTASPods lists the bound pods, in input order, that Kueue's TAS
// cache does not charge to their nodes: those carrying one of
// [kueueTASAnnotations]. Kueue's non-TAS usage controller skips them
// (non_tas_usage_controller.go filterPod), counting a TAS pod only
// through its Workload's topologyAssignment, so a TAS pod whose Workload
// is not in the input (a partial dump, a Workload deleted while its pods
// run, a pod a user annotated) takes no room in Kueue's eyes, though it
// does in kube-scheduler's. Finished pods hold nothing either way.
func kueueTASPods(pods []*corev1.Pod) []placement.Key {
	var out []placement.Key
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, k := range kueueTASAnnotations {
			if _, ok := p.Annotations[k]; ok {
				out = append(out, placement.Key{Namespace: p.Namespace, Name: p.Name})
				break
			}
		}
	}
	return out
}

// admitBesideTASPods is [AdmitKueueWorkloads] with opts.TASPods taken out
// of s for the admission and bound again in the snapshot it returns:
// Kueue admits as if they were not there, and kube-scheduler, which
// counts them, may then leave the admitted pods pending.
func admitBesideTASPods(s *placement.Snapshot, tree *topology.Tree, ws []*KueueWorkload, opts KueueOptions) (*placement.Snapshot, []KueueOutcome, error) {
	aside := make([]placement.Pod, 0, len(opts.TASPods))
	keys := make([]placement.Key, 0, len(opts.TASPods))
	for _, k := range opts.TASPods {
		if p, ok := s.Pod(k); ok { // a key s does not hold takes no room anyway
			aside, keys = append(aside, *p), append(keys, k)
		}
	}
	without, err := s.Apply(placement.Change{Remove: keys})
	if err != nil {
		return nil, nil, err
	}
	opts.TASPods = nil
	after, outs, err := AdmitKueueWorkloads(without, tree, ws, opts)
	if err != nil {
		return nil, nil, err
	}
	if after, err = after.Apply(placement.Change{Bind: aside}); err != nil {
		return nil, nil, err
	}
	return after, outs, nil
}
