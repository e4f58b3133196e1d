package main

import "testing"

// v138Goldens are runs on the v1.38 rule manifests (kube/testdata/v138),
// each checked against the real kube-scheduler v1.38.0-beta.0 (kubeoracle
// retargeted to it) on 2026-12-06, object by object: bound or pending, and
// each group's condition and reason (each manifest's header says what
// upstream reported). The -profile v1.37 runs show what v1.38 changed.
var v138Goldens = []golden{
	// A tree's groups below the root: priority, Workload, preemption
	// policy, basic under gang, single under all. Only "ok" binds; every
	// object of a failed tree reads CompositePodGroupError or
	// PodGroupError.
	{"v138-tree-group-rules", []string{"-f", td + "v138/tree-group-rules.yaml"}, exitWaiting},
	{"v138-tree-group-rules-v1.37", []string{"-profile", "v1.37", "-f", td + "v138/tree-group-rules.yaml"}, exitPlaced},
	// A flat group's pods: priority (pending or bound) and the group's
	// own preemption policy; PodGroupError (v1.37: SchedulerError).
	{"v138-flat-rules", []string{"-f", td + "v138/flat-rules.yaml"}, exitWaiting},
	{"v138-flat-rules-v1.37", []string{"-profile", "v1.37", "-f", td + "v138/flat-rules.yaml"}, exitWaiting},
	// A bound member on a node whose rack label is "": SchedulerError
	// (v1.37: "" is a rack and g-1 joins it).
	{"v138-empty-label-bound", []string{"-f", td + "v138/empty-label-bound.yaml"}, exitWaiting},
	{"v138-empty-label-bound-v1.37", []string{"-profile", "v1.37", "-f", td + "v138/empty-label-bound.yaml"}, exitPlaced},
}

func TestGoldenV138(t *testing.T) {
	checkGoldens(t, v138Goldens)
}
