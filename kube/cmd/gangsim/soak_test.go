package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The gangsim soak runs the command on generated manifests — Nodes, bound
// and pending Pods, PriorityClasses, Jobs, PodGroups with their members,
// and now and then one document made invalid — and checks what a script
// relies on: the exit code is one of the documented ones (never the
// runtime's 2, never a panic); exit 1 comes with a message located at a
// document and line, and nothing on stdout; the other codes with a report
// on stdout and nothing on stderr; and the text report does not depend on
// the order of the documents. GANGSCHED_SOAK=10m runs it for ten minutes.

// soakManifest draws one input: its documents, and whether one was
// corrupted into bad input.
func soakManifest(rng *rand.Rand) (docs []string, corrupt bool) {
	nodes := 1 + rng.IntN(6)
	for i := range nodes {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {topology.kubernetes.io/rack: r%d}}\nstatus: {allocatable: {cpu: '%d', memory: %dGi, pods: '110'}}\n",
			i, rng.IntN(3), 2+rng.IntN(7), 4+rng.IntN(28)))
	}
	docs = append(docs, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n",
		"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 10\n")
	// Every Pod and Job carries its creationTimestamp, and a bound pod its
	// startTime, so that the order of the documents is not what orders
	// the queue (a host filling them in would stamp them in file order).
	clock := 0
	stamp := func() string {
		clock++
		return fmt.Sprintf("creationTimestamp: '2026-01-01T00:%02d:%02dZ'", clock/60, clock%60)
	}
	class := func() string {
		return []string{"", "priorityClassName: high, ", "priorityClassName: low, "}[rng.IntN(3)]
	}
	container := func() string {
		return fmt.Sprintf("containers: [{name: c, resources: {requests: {cpu: %dm, memory: %dMi}}}]", 250*(1+rng.IntN(8)), 256*(1+rng.IntN(8)))
	}
	for i := range rng.IntN(5) {
		bind, status, ts := "", "", stamp()
		if rng.IntN(2) == 0 {
			bind = fmt.Sprintf("nodeName: n%d, ", rng.IntN(nodes))
			status = "status: {startTime: '" + ts[len("creationTimestamp: '"):] + "}\n"
		}
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d, %s}\nspec: {%s%s%s}\n%s", i, ts, bind, class(), container(), status))
	}
	for i := range rng.IntN(4) {
		p := 1 + rng.IntN(4)
		ann := ""
		if rng.IntN(3) == 0 {
			ann = "metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: topology.kubernetes.io/rack}}, "
		}
		docs = append(docs, fmt.Sprintf("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j%d, %s}\nspec: {parallelism: %d, completions: %d, completionMode: Indexed, template: {%sspec: {restartPolicy: Never, %s%s}}}\n",
			i, stamp(), p, p, ann, class(), container()))
	}
	for i := range rng.IntN(3) {
		min := 1 + rng.IntN(3)
		mode := []string{"", "disruptionMode: {all: {}}, "}[rng.IntN(2)]
		docs = append(docs, fmt.Sprintf("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g%d}\nspec: {%sschedulingPolicy: {gang: {minCount: %d}}}\n", i, mode, min))
		for m := range min + rng.IntN(2) {
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: g%d-%d, %s}\nspec: {schedulingGroup: {podGroupName: g%d}, %s%s}\n", i, m, stamp(), i, class(), container()))
		}
	}
	if rng.IntN(5) == 0 {
		i := rng.IntN(len(docs))
		bad := []func(string) string{
			func(d string) string { return strings.Replace(d, "cpu: ", "cpu: -", 1) },
			func(d string) string { return strings.Replace(d, "metadata:", "metadat:", 1) },
			func(d string) string { return strings.Replace(d, "apiVersion: ", "apiVersion: x", 1) },
			func(d string) string { return d + "spec: {nodeName: gone}\n" },
			func(d string) string { return strings.Replace(d, "{name: ", "{name: Bad_Name", 1) },
		}[rng.IntN(5)]
		if b := bad(docs[i]); b != docs[i] {
			docs[i], corrupt = b, true
		}
	}
	return docs, corrupt
}

var located = regexp.MustCompile(`(?s)^gangsim: <stdin>: document \d+ \(line \d+\): \S.*\n$`)

// runner runs gangsim on standard input in; the faults test swaps it.
type runner func(in string, stdout, stderr io.Writer) int

func gangsim(in string, stdout, stderr io.Writer) int {
	return run([]string{"-f", "-"}, strings.NewReader(in), stdout, stderr, false)
}

// soakCase runs docs, in the given order, under main's guard, and returns
// what violates the contract ("" when nothing does), the report and the
// exit code.
func soakCase(r runner, docs []string) (violation string, stdout string, code int) {
	in := "---\n" + strings.Join(docs, "---\n")
	var out, errb bytes.Buffer
	code = guard(&errb, func() int { return r(in, &out, &errb) })
	switch {
	case code == exitInput && out.Len() > 0:
		return "exit 1 with output on stdout", "", code
	case code == exitInput && !located.MatchString(errb.String()):
		return fmt.Sprintf("exit 1 with a message not located at a document: %q", errb.String()), "", code
	case code == exitInput:
	case code == exitPlaced || code == exitWaiting:
		if out.Len() == 0 || errb.Len() > 0 {
			return fmt.Sprintf("exit %d with stdout of %d bytes, stderr %q", code, out.Len(), errb.String()), "", code
		}
	default:
		return fmt.Sprintf("exit %d, not a documented outcome; stderr: %.300s", code, errb.String()), "", code
	}
	return "", out.String(), code
}

// TestSoak_Gangsim: generated manifests, each run as drawn and with its
// documents shuffled; a few seconds in go test, GANGSCHED_SOAK for longer.
func TestSoak_Gangsim(t *testing.T) {
	budget, long := time.Duration(0), false
	if v := os.Getenv("GANGSCHED_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "GANGSCHED_SOAK")
		budget, long = d, true
	}
	start := time.Now()
	codes := map[int]int{}
	runs := 0
	for seed := uint64(1); ; seed++ {
		if long && time.Since(start) > budget || !long && seed > 150 {
			break
		}
		rng := rand.New(rand.NewPCG(seed, 3))
		docs, _ := soakManifest(rng)
		v, out, code := soakCase(gangsim, docs)
		require.Empty(t, v, "seed %d:\n%s", seed, strings.Join(docs, "---\n"))
		shuffled := slices.Clone(docs)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		v, out2, code2 := soakCase(gangsim, shuffled)
		require.Empty(t, v, "seed %d, shuffled:\n%s", seed, strings.Join(shuffled, "---\n"))
		require.Equal(t, code, code2, "seed %d: the exit code depends on document order", seed)
		require.Equal(t, out, out2, "seed %d: the report depends on document order", seed)
		codes[code] += 2
		runs += 2
	}
	for _, c := range []int{exitPlaced, exitInput, exitWaiting} {
		require.Positive(t, codes[c], "no run exited %d: the generator misses a case (%v)", c, codes)
	}
	t.Logf("gangsim soak: %d runs, exit codes %v, 0 violations, in %s", runs, codes, time.Since(start).Round(time.Second))
}

// TestSoak_GangsimFaults: each way a command could break the contract —
// a panic, the runtime's exit 2, exit 1 with output or with an unlocated
// message, a report on stderr — trips the check, and a manifest the
// generator marks corrupt is refused the way the contract says.
func TestSoak_GangsimFaults(t *testing.T) {
	docs := []string{"apiVersion: v1\nkind: Node\nmetadata: {name: n0}\n"}
	faults := map[string]runner{
		"panic":          func(string, io.Writer, io.Writer) int { panic("injected") },
		"runtime exit 2": func(string, io.Writer, io.Writer) int { return 2 },
		"exit 1, stdout": func(_ string, o, e io.Writer) int {
			fmt.Fprintln(o, "x")
			fmt.Fprintln(e, "gangsim: <stdin>: document 1 (line 1): x")
			return exitInput
		},
		"exit 1, where?": func(_ string, _, e io.Writer) int { fmt.Fprintln(e, "gangsim: something failed"); return exitInput },
		"exit 0, stderr": func(_ string, o, e io.Writer) int {
			fmt.Fprintln(o, "summary:")
			fmt.Fprintln(e, "warning")
			return exitPlaced
		},
		"exit 3, no text": func(string, io.Writer, io.Writer) int { return exitWaiting },
	}
	for name, r := range faults {
		v, _, _ := soakCase(r, docs)
		require.NotEmpty(t, v, name)
	}
	v, out, code := soakCase(gangsim, docs)
	require.Empty(t, v)
	require.Equal(t, exitPlaced, code)
	require.Contains(t, out, "summary:")

	for seed := uint64(1); seed <= 200; seed++ {
		docs, corrupt := soakManifest(rand.New(rand.NewPCG(seed, 3)))
		if corrupt && strings.Contains(strings.Join(docs, ""), "cpu: -") {
			v, _, code := soakCase(gangsim, docs)
			require.Empty(t, v)
			require.Equal(t, exitInput, code, "a negative request is bad input")
			return
		}
	}
	t.Fatal("the generator never wrote a negative request")
}
