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
