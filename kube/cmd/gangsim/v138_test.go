package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
	// Scheduler names: a bound member (flat, and another leaf's in a
	// tree) another scheduler placed fails its group's cycle:
	// PodGroupError, CompositePodGroupError (v1.37: SchedulerError); a
	// pending pod for a scheduler the run does not serve is left alone,
	// its group mate binds.
	{"v138-scheduler-names", []string{"-f", td + "v138/scheduler-names.yaml"}, exitWaiting},
	{"v138-scheduler-names-v1.37", []string{"-profile", "v1.37", "-f", td + "v138/scheduler-names.yaml"}, exitWaiting},
	// A tree deeper than 4 levels: every object of it reads
	// CompositePodGroupError or PodGroupError (v1.37: SchedulerError on
	// the leaf; upstream v1.37.2 binds the tree "deep", no walk of it
	// passing the limit).
	{"v138-too-deep", []string{"-f", td + "v138/too-deep.yaml"}, exitWaiting},
	{"v138-too-deep-v1.37", []string{"-profile", "v1.37", "-f", td + "v138/too-deep.yaml"}, exitWaiting},
	// A pod with no scheduling group preempts: victims at their own
	// priority (plain, not held, is evicted), and a disruptionMode all
	// group's member goes with its whole group (both of bg's).
	{"v138-pod-preemptor-own-priority", []string{"-f", td + "v138/pod-preemptor-own-priority.yaml"}, exitPlaced},
	{"v138-pod-preemptor-one-member", []string{"-f", td + "v138/pod-preemptor-one-member.yaml"}, exitPlaced},
	// Trees breaking two rules: v1.38 names the first fault of its one
	// walk (a leaf's pod before a later sibling's priority or a later
	// subtree's depth; children in creation order), as upstream does; v1.37
	// checks the depth first, then only pods.
	{"v138-tree-walk-order", []string{"-f", td + "v138/tree-walk-order.yaml"}, exitWaiting},
	{"v138-tree-walk-order-v1.37", []string{"-profile", "v1.37", "-f", td + "v138/tree-walk-order.yaml"}, exitWaiting},
	// A pod no profile serves stays pending: the run does not end with
	// every pod bound (exit 3), and the summary names it.
	{"schedconfig-unserved", []string{"-f", td + "schedconfig/unserved.yaml"}, exitWaiting},
	{"schedconfig-two-profiles", []string{"-f", td + "schedconfig/two-profiles.yaml"}, exitPlaced},
	// Preemption per profile: only the gang whose profile keeps
	// DefaultPreemption evicts (kubeoracle v1.37.2 agrees), in the run
	// and in -estimate.
	{"schedconfig-preemption-per-profile", []string{"-f", td + "schedconfig/preemption-per-profile.yaml"}, exitWaiting},
	{"schedconfig-preemption-per-profile-estimate", []string{"-estimate", "-f", td + "schedconfig/preemption-per-profile.yaml"}, exitWaiting},
}

func TestGoldenV138(t *testing.T) {
	checkGoldens(t, v138Goldens)
}

// A pending pod whose spec.schedulerName no profile of the run serves is
// left pending with a warning naming pod and field, as kube-scheduler
// never queues it, and the run ends with it not bound (exit 3); with a KubeSchedulerConfiguration whose profiles serve
// both names, both pods are the run's, and the group's cycle fails on the
// conflict, as upstream's does with both profiles.
func TestUnservedSchedulerName(t *testing.T) {
	const pods = `---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 1Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec: {schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: g-0}
spec: {schedulingGroup: {podGroupName: g}, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: g-1}
spec: {schedulerName: other-scheduler, schedulingGroup: {podGroupName: g}, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`
	var out, errb bytes.Buffer
	require.Equal(t, exitWaiting, run([]string{"-f", "-"}, strings.NewReader(pods), &out, &errb, false), errb.String())
	require.Equal(t, `gangsim: warning: pod "default/g-1": spec.schedulerName "other-scheduler" is not served by this run (it serves default-scheduler): left pending, as kube-scheduler leaves it`+"\n", errb.String())
	require.Contains(t, out.String(), "pods: 1 bound in this run, 0 waiting")
	require.Contains(t, out.String(), "not served (left pending: no profile serves their spec.schedulerName): default/g-1")

	const config = `---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles: [{schedulerName: default-scheduler}, {schedulerName: other-scheduler}]
`
	out.Reset()
	errb.Reset()
	require.Equal(t, exitWaiting, run([]string{"-f", "-"}, strings.NewReader(pods+config), &out, &errb, false), errb.String())
	require.NotContains(t, errb.String(), "not served")
	require.Contains(t, out.String(), `spec.schedulerName: "other-scheduler" differs from "default-scheduler"`)
}
