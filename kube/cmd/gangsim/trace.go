package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/kube/replay/trace"
)

// traceSources is -trace's list of KIND=PATH sources.
const traceSources = "openb=DIR (nodes and pods of Alibaba's openb GPU trace), pai=FILE (the PAI machines as nodes), dlrm=FILE (DLRM instances as gangs), day=NODESxPODS (a generated day)"

// readTraces builds a replay's input from -trace sources: nodes from the
// first that has some, pods (and PodGroups) from all.
func readTraces(specs []string, openbPods string) (replay.Input, error) {
	var in replay.Input
	for _, s := range specs {
		kind, path, ok := strings.Cut(s, "=")
		if !ok || path == "" {
			return in, fmt.Errorf("-trace %q: want KIND=PATH, one of %s", s, traceSources)
		}
		var part replay.Input
		var err error
		switch kind {
		case "openb":
			part, err = trace.ReadOpenBDir(path, openbPods)
		case "pai":
			part.Nodes, err = readFile(path, trace.ReadPAIMachines)
		case "dlrm":
			var f *os.File
			if f, err = os.Open(path); err == nil {
				part.Pods, part.PodGroups, err = trace.ReadDLRM(path, f)
				f.Close()
			}
		case "day":
			var d trace.Day
			if _, err = fmt.Sscanf(path, "%dx%d", &d.Nodes, &d.Pods); err != nil {
				err = fmt.Errorf("want NODESxPODS such as 10000x100000")
			} else {
				part, err = trace.GenerateDay(d)
			}
		default:
			return in, fmt.Errorf("-trace %q: unknown kind %q: want one of %s", s, kind, traceSources)
		}
		if err != nil {
			return in, fmt.Errorf("-trace %s: %w", s, err)
		}
		if len(in.Nodes) == 0 && len(part.Nodes) > 0 {
			in.Nodes, in.GPU, in.DomainKey = part.Nodes, part.GPU, part.DomainKey
		}
		in.Pods = append(in.Pods, part.Pods...)
		in.PodGroups = append(in.PodGroups, part.PodGroups...)
		in.Filters = append(in.Filters, part.Filters...)
	}
	if len(in.Nodes) == 0 {
		return in, fmt.Errorf("-trace: no source gives nodes: add pai=FILE, openb=DIR or day=NODESxPODS")
	}
	return in, nil
}

func readFile[T any](path string, read func(string, io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(path, f)
}

// policiesOf resolves -policy's comma-separated names in the table of
// replay.Policies.
func policiesOf(names string) ([]replay.Policy, error) {
	var out []replay.Policy
	for n := range strings.SplitSeq(names, ",") {
		p, ok := replay.LookupPolicy(n)
		if !ok {
			var known []string
			for _, p := range replay.Policies() {
				known = append(known, p.Name)
			}
			return nil, fmt.Errorf("-policy %q: unknown policy %q: want one or more of %s, comma-separated", names, n, strings.Join(known, ", "))
		}
		out = append(out, p)
	}
	return out, nil
}

// traceMain is gangsim -trace: it checks the flags that go with it, reads
// the trace and replays it.
func traceMain(stdout, stderr io.Writer, traces []string, manifests bool, openbPods string, speedUp float64, policy, output, reportPath string, opts replay.Options, tty bool) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	switch {
	case manifests:
		return fail(fmt.Errorf("-trace replays a trace; -f manifests are for the cycles or -estimate"))
	case output == "yaml":
		return fail(fmt.Errorf("-o yaml writes objects; a replay is text or json"))
	case opts.SampleEvery < 0:
		return fail(fmt.Errorf("-sample-every %s: want a positive duration", opts.SampleEvery))
	}
	pols, err := policiesOf(policy)
	if err != nil {
		return fail(err)
	}
	in, err := readTraces(traces, openbPods)
	if err != nil {
		return fail(err)
	}
	if err := trace.SpeedUp(&in, trace.Epoch, speedUp); err != nil {
		return fail(fmt.Errorf("-speed-up: %w", err))
	}
	return runTrace(stdout, stderr, in, pols, opts, speedUp, output, reportPath, strings.Join(traces, " "), tty)
}

// TraceReport is what -trace writes with -o json.
type TraceReport struct {
	Nodes int `json:"nodes"`
	Pods  int `json:"pods"`
	// SpeedUp is -speed-up: how many times as fast pods arrive as in the
	// trace.
	SpeedUp    float64          `json:"speedUp"`
	Results    []*replay.Result `json:"results"`
	Comparison replay.Table     `json:"comparison"`
}

// runTrace replays the trace once per policy and reports, and with
// reportPath writes the HTML report too, titled title; on a terminal it
// shows a progress bar per policy on stderr.
func runTrace(stdout, stderr io.Writer, in replay.Input, pols []replay.Policy, opts replay.Options, speedUp float64, output, reportPath, title string, tty bool) int {
	rep := TraceReport{Nodes: len(in.Nodes), Pods: len(in.Pods), SpeedUp: speedUp}
	for _, pol := range pols {
		o := opts
		o.Policy = pol
		var bar *progressbar.ProgressBar
		if tty {
			bar = progressbar.NewOptions(len(in.Pods), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("replay "+pol.Name+": pods arrived"),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionShowCount())
			o.Progress = func(arrived, _ int) { _ = bar.Set(arrived) }
		}
		r, err := replay.Run(in, o)
		if bar != nil {
			_ = bar.Finish()
		}
		if err != nil {
			fmt.Fprintln(stderr, "gangsim:", err)
			return exitInput
		}
		rep.Results = append(rep.Results, r)
	}
	rep.Comparison = replay.Compare(rep.Results)
	if reportPath != "" {
		if err := writeReport(reportPath, fmt.Sprintf("replay of %s: %d pods on %d nodes", title, rep.Pods, rep.Nodes), rep.Results); err != nil {
			fmt.Fprintln(stderr, "gangsim:", err)
			return exitInput
		}
	}
	if !writeOut(stdout, stderr, output, rep, func(w io.Writer) { writeTrace(w, rep) }) {
		return exitInput
	}
	for _, r := range rep.Results {
		if r.GroupsWaiting > 0 || r.Stopped != "" {
			return exitWaiting
		}
	}
	return exitPlaced
}

func writeTrace(w io.Writer, rep TraceReport) {
	fmt.Fprintf(w, "replay of %d pods on %d nodes", rep.Pods, rep.Nodes)
	if rep.SpeedUp != 1 {
		fmt.Fprintf(w, ", arriving %g times as fast as in the trace", rep.SpeedUp)
	}
	fmt.Fprintln(w)
	for _, r := range rep.Results {
		fmt.Fprintf(w, "policy %s: %s to %s, %d cycles, %d of %d groups started\n", r.Policy, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339), r.Cycles, len(r.Groups)-r.GroupsWaiting, len(r.Groups))
		if r.Stopped != "" {
			fmt.Fprintf(w, "  %s\n", r.Stopped)
		}
		fmt.Fprintf(w, "  queueing delay: %s\n", delayLine(r.Delay))
		for _, b := range r.Delays {
			fmt.Fprintf(w, "    groups of %s pods: %d started, %s\n", b.Label, len(b.Seconds), delayLine(b))
		}
		for _, s := range r.Utilisation {
			lo, hi := s.Range()
			fmt.Fprintf(w, "  utilisation %s: mean %.1f%%, min %.1f%%, max %.1f%%\n", s.Name, 100*s.Mean(), 100*lo, 100*hi)
		}
		_, hi := r.StrandedGPUs.Range()
		fmt.Fprintf(w, "  %s: mean %.1f, max %.1f\n", r.StrandedGPUs.Name, r.StrandedGPUs.Mean(), hi)
		fmt.Fprintf(w, "  preemptions: %d, %d pods evicted\n", len(r.Preemptions), r.PodsEvicted)
	}
	t := rep.Comparison
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "comparison\t")
	for _, row := range t.Rows {
		fmt.Fprintf(tw, "%s\t", row.Policy)
	}
	fmt.Fprintln(tw)
	for i, m := range t.Metrics {
		fmt.Fprintf(tw, "%s (%s)\t", m.Name, m.Unit)
		for _, row := range t.Rows {
			fmt.Fprintf(tw, "%.4g\t", row.Values[i])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func delayLine(b replay.DelayBucket) string {
	s := fmt.Sprintf("p50 %s, p90 %s, p99 %s, max %s", secs(b.P50), secs(b.P90), secs(b.P99), secs(b.Max))
	if b.Waiting > 0 {
		s += fmt.Sprintf("; %d never started", b.Waiting)
	}
	return s
}

func secs(s float64) string { return (time.Duration(s) * time.Second).String() }
