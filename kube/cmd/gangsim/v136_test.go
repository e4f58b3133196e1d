package main

import "testing"

// v136Goldens are runs under -profile v1.36 on the v1.36 manifests
// (kube/testdata/v136), each checked against the real kube-scheduler
// v1.36.3 (kubeoracle retargeted to it) on 2026-12-07, pod by pod and
// group by group (each manifest's header says what upstream reported).
var v136Goldens = []golden{
	// A member's priority and preemption policy may differ from its group's.
	{"v136-flat-rules", []string{"-profile", "v1.36", "-f", td + "v136/flat-rules.yaml"}, exitPlaced},
	// Only the pending pods are held to one scheduler name; "two" fails
	// before its cycle: no condition.
	{"v136-scheduler-names", []string{"-profile", "v1.36", "-f", td + "v136/scheduler-names.yaml"}, exitWaiting},
	{"v136-empty-label-bound", []string{"-profile", "v1.36", "-f", td + "v136/empty-label-bound.yaml"}, exitPlaced},
	// Victims rank at their group's priority only under disruptionMode
	// PodGroup; a preemptor at its group's, 0 when unset; one Never pod
	// keeps its group from preempting.
	{"v136-victim-pod-mode", []string{"-profile", "v1.36", "-f", td + "v136/victim-pod-mode.yaml"}, exitPlaced},
	{"v136-victim-podgroup-mode", []string{"-profile", "v1.36", "-f", td + "v136/victim-podgroup-mode.yaml"}, exitPlaced},
	{"v136-victim-podgroup-mode-unset", []string{"-profile", "v1.36", "-f", td + "v136/victim-podgroup-mode-unset.yaml"}, exitPlaced},
	{"v136-preemptor-unset", []string{"-profile", "v1.36", "-f", td + "v136/preemptor-unset.yaml"}, exitWaiting},
	// A pod with no scheduling group preempts pod by pod, each victim at
	// its own priority (v1.36.3's per-pod DefaultPreemption).
	{"v136-pod-preemptor-own-priority", []string{"-profile", "v1.36", "-f", td + "v136/pod-preemptor-own-priority.yaml"}, exitPlaced},
	{"v136-pod-preemptor-one-member", []string{"-profile", "v1.36", "-f", td + "v136/pod-preemptor-one-member.yaml"}, exitPlaced},
	{"v136-preemptor-never", []string{"-profile", "v1.36", "-f", td + "v136/preemptor-never.yaml"}, exitWaiting},
	{"v136-low-priority-and-gang", []string{"-profile", "v1.36", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "v136/low-priority-and-gang.yaml"}, exitPlaced},
}

func TestGoldenV136(t *testing.T) {
	checkGoldens(t, v136Goldens)
}
