package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const dump = td + "estimate/dump.yaml"

// estimateGoldens are -estimate and -what-if runs on the dump of
// kube/testdata/estimate (a cluster at 01:00 with expected ends); each
// manifest's comment says what the answer must be, and the goldens hold
// the exact times.
var estimateGoldens = []golden{
	// urgent fits now; small waits for infer's end at 01:30; train-b for
	// rack-1 at 02:00; big fits on no node, even with nothing running.
	{"estimate-dump", []string{"-estimate", "-f", dump}, exitWaiting},
	{"estimate-dump-json", []string{"-estimate", "-o", "json", "-f", dump}, exitWaiting},
	// A high-priority pod fits now by evicting the low-priority infer.
	{"whatif-hotfix", []string{"-what-if", td + "estimate/whatif-hotfix.yaml", "-f", dump}, exitPlaced},
	// A rack-bound gang Job starts at 03:00, after train-b's hour in rack-1.
	{"whatif-train", []string{"-what-if", td + "estimate/whatif-train.yaml", "-f", dump}, exitPlaced},
	// A gang wider than any rack never starts, and says so.
	{"whatif-wide", []string{"-what-if", td + "estimate/whatif-wide.yaml", "-f", dump}, exitWaiting},
	// -now later than train-a's and infer's ends: urgent and small fit at
	// once, urgent packed onto n1, so train-b waits for it until 08:00.
	{"estimate-dump-later", []string{"-estimate", "-now", "2026-01-01T05:00:00Z", "-f", dump}, exitWaiting},
	// A KEP-6012 tree is decided whole: both leaves start at 01:00, when
	// batch frees rack r2 of block b, one per rack (tree-dump.yaml).
	{"estimate-tree", []string{"-estimate", "-f", td + "estimate/tree-dump.yaml"}, exitPlaced},
	{"estimate-tree-json", []string{"-estimate", "-o", "json", "-f", td + "estimate/tree-dump.yaml"}, exitPlaced},
	// -profile reaches the estimate: v1.37 takes node n4's empty rack
	// label as a rack, so block c holds the tree now; job-a's rack reads
	// c/"" (a leaf prints its tree's domains down to its own).
	{"estimate-tree-v1.37", []string{"-estimate", "-profile", "v1.37", "-f", td + "estimate/tree-dump.yaml"}, exitPlaced},
	// A tree whose own pod ends is woken though the end frees no room its
	// leaves could use: g2 starts at 00:01, once g4 no longer pins r0.
	{"estimate-tree-unpin", []string{"-estimate", "-f", td + "estimate/tree-unpin.yaml"}, exitPlaced},
	// A tree that preempts evicts once, and the eviction is listed under
	// the leaf placed on the victims' node (job-b on n2), not on each leaf.
	{"estimate-tree-preempt", []string{"-estimate", "-f", td + "hierarchy/preempt-tree.yaml"}, exitPlaced},
	// A leaf added to a tree answers for its siblings too (the tree is
	// decided whole): the tree starts in block c now, and job-b never.
	{"whatif-tree-leaf", []string{"-what-if", td + "estimate/tree-whatif-leaf.yaml", "-f", td + "estimate/tree-dump.yaml"}, exitWaiting},
	// A leaf whose root does not exist is gated: no room helps.
	{"estimate-tree-gated", []string{"-estimate", "-f", td + "estimate/tree-gated.yaml"}, exitWaiting},
	// "waits now" is the reason at now, not a later retry's (00:30).
	{"estimate-tree-waits-now", []string{"-estimate", "-f", td + "estimate/tree-wait.yaml"}, exitPlaced},
	// A leaf its tree leaves out even on an empty cluster says so, not
	// that the cluster is too small: job-c fits a rack alone.
	{"estimate-tree-left-out", []string{"-estimate", "-f", td + "hierarchy/min-group-count-below-children.yaml"}, exitWaiting},
	// Before its pods exist: job-a waits for its tree's, job-b is created
	// at 00:10; the tree starts at 00:20.
	{"estimate-tree-staggered", []string{"-estimate", "-now", "2026-01-01T00:05:00Z", "-f", td + "estimate/tree-staggered.yaml"}, exitPlaced},
	// A tree wider than any block never starts; each leaf says why.
	{"whatif-tree-wide", []string{"-what-if", td + "estimate/tree-whatif-wide.yaml", "-f", td + "estimate/tree-dump.yaml"}, exitWaiting},
	// -feature-gates reaches the estimate: with PodGroupPreemptionPolicy
	// (v1.37 only) the group's pods conflict with its policy, so it never
	// starts (without the gate it fits now, as the real v1.37.2 scheduler
	// says).
	{"estimate-preemption-policy-gate", []string{"-estimate", "-profile", "v1.37", "-feature-gates", "PodGroupPreemptionPolicy=true", "-f", "testdata/preemption-policy-all-never.yaml"}, exitWaiting},
}

func TestGoldenEstimate(t *testing.T) {
	checkGoldens(t, estimateGoldens)
}

// TestEstimateBadInput: a bad annotation names the pod, the annotation
// and the file; -now and -o yaml are refused where they make no sense.
func TestEstimateBadInput(t *testing.T) {
	runArgs := func(stdin string, args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb, false)
		require.Empty(t, out.String())
		return errb.String(), code
	}
	bad := "apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {gangsched.io/expected-duration: soon}}\nspec: {containers: [{name: c}]}\n"
	msg, code := runArgs(bad, "-estimate", "-f", "-")
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, `pod "default/p": metadata.annotations[gangsched.io/expected-duration]: "soon" is not a positive duration`)
	require.Contains(t, msg, "document 1")
	// On a Job's template it names the Job and the template's field, not
	// the pod the Job controller made from it.
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train, namespace: team-a}\nspec:\n  parallelism: 2\n  completions: 2\n  completionMode: Indexed\n  template:\n    metadata: {annotations: {gangsched.io/expected-duration: 99999999h}}\n    spec: {restartPolicy: Never, containers: [{name: c}]}\n"
	msg, code = runArgs(job, "-estimate", "-f", "-")
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, `Job "team-a/train": spec.template.metadata.annotations[gangsched.io/expected-duration]: "99999999h" is not a positive duration`)
	// A what-if that adds nothing to answer for (a lone CompositePodGroup)
	// is refused rather than answered for the whole dump.
	lone := "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: extra}\nspec: {workloadRef: {workloadName: w, templateName: t}, schedulingPolicy: {basic: {}}}\n"
	msg, code = runArgs(lone, "-what-if", "-", "-f", td+"estimate/tree-dump.yaml")
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, "-what-if: the workload has no pod, Job or PodGroup with pending pods to answer for")
	msg, code = runArgs("", "-now", "2026-01-01T00:00:00Z", "-f", dump)
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, "-now is for -estimate or -what-if")
	msg, code = runArgs("", "-estimate", "-now", "tomorrow", "-f", dump)
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, `-now "tomorrow": want an RFC 3339 time`)
	msg, code = runArgs("", "-estimate", "-o", "yaml", "-f", dump)
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, "an estimate is text or json")
}
