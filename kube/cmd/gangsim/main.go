package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/scaleup"
	"github.com/gangsched/gangsched/topology"
)

// Exit codes. 2 is left out: the Go runtime exits 2 on a fatal error (out
// of memory, say) or a panic no one recovers, and a script must not read
// a crash as "some pods wait".
const (
	exitPlaced  = 0 // every pod was bound
	exitInput   = 1 // bad input or usage
	exitWaiting = 3 // some pods still wait
	exitPanic   = 4 // gangsim panicked: a bug, reported with its stack
)

func main() {
	os.Exit(guard(os.Stderr, func() int {
		return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, isTerminal(os.Stderr))
	}))
}

// guard runs f and returns its exit code; if f panics, it writes the
// panic's value and stack to stderr and returns exitPanic instead.
func guard(stderr io.Writer, f func() int) (code int) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(stderr, "gangsim: internal error (a bug, please report it with the input): panic: %v\n\n%s", v, debug.Stack())
			code = exitPanic
		}
	}()
	return f()
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// paths is a repeatable -f flag.
type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

// run is the command without process globals. tty says whether stderr is
// a terminal (then long runs show a progress line there).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, tty bool) int {
	fs := flag.NewFlagSet("gangsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files paths
	fs.Var(&files, "f", "manifest file or directory, or - for standard input (repeatable)")
	output := fs.String("o", "text", "output: text (cycles and summary), yaml (the resulting objects) or json (the report)")
	namespace := fs.String("n", "default", "namespace of objects that set none")
	maxPods := fs.Int("max-pods", kube.DefaultMaxPods, "refuse an input whose pods, with those its Jobs would create, exceed this many (each costs about 6 KB of memory)")
	rackKey := fs.String("rack-key", "", "node label counted as a rack in the summary (default: topology.kubernetes.io/rack or cloud.provider.com/topology-rack, whichever nodes have)")
	topoKeys := fs.String("topology-keys", "", "node labels forming the topology tree, comma-separated, widest first (default: the zone/block/rack/hostname labels nodes carry and the keys PodGroups require, fewest values first)")
	preempt := fs.Bool("preemption", true, "workload-aware preemption: a group that does not fit may evict lower-priority pods and groups")
	showCycles := fs.Bool("cycles", true, "with -o text, print every cycle (false: the summary only)")
	maxCycles := fs.Int("max-cycles", 1_000_000, "stop after this many cycles")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run (reading, converting, cycles, output) to this file, for go tool pprof")
	fillIn := fs.Bool("fill-in", true, "add what the API server and kubelet would: the kubernetes.io/hostname label on nodes, creationTimestamp on pods and Jobs and status.startTime on bound pods in file order (1 s apart), status.startTime on pods bound in the run")
	profileName := fs.String("profile", "", "decide as Kubernetes v1.36, v1.37 or v1.38 would where they differ (default: v1.38, reading every API version); a profile given refuses objects of API versions it does not serve")
	gates := fs.String("feature-gates", "", "upstream feature gates, Name=bool comma-separated as kube-scheduler takes them; gangsim models PodGroupPreemptionPolicy (default false, as in v1.37.2): true holds every pod of a group (tree) to the group's (root's) spec.preemptionPolicy, PreemptLowerPriority when unset, instead of to the first pod's")
	nodeScoring := fs.String("node-scoring", scoringConfig, "how a member's node is chosen inside a placement: packing (gangsched's most allocated), upstream (kube-scheduler's default profile: LeastAllocated + BalancedAllocation); default: the input's KubeSchedulerConfiguration, else packing")
	suggest := fs.Bool("suggest-nodes", false, "for each group left waiting, the fewest nodes of one shape the cluster has (labels, allocatable, taints) to add, and the domain of its required topology key to add them to, so that it fits")
	suggestNew := fs.String("suggest-new-domain", "", "with -suggest-nodes, let the nodes form a new domain of the required key with this value (under the first domain of the next wider level); default: existing domains only")
	suggestSlots := fs.Int("suggest-domain-nodes", 0, "with -suggest-nodes, the most nodes a domain of the required key may hold with the added ones (a rack's slots); 0: no limit")
	estimateFlag := fs.Bool("estimate", false, "estimate, for every pending group, when it starts, where and what it evicts, replaying the running pods' expected ends (annotation gangsched.io/expected-duration) and the queue")
	var whatIf paths
	fs.Var(&whatIf, "what-if", "with -estimate implied: a workload (a Job, or a PodGroup with its pods) to add to the cluster of -f, and answer for it alone: fits now, where, evicts what, starts when, or never because (repeatable)")
	nowFlag := fs.String("now", "", "with -estimate: the moment of the dump, RFC 3339 (default: its latest creationTimestamp or startTime)")
	var traces paths
	fs.Var(&traces, "trace", "replay a trace instead of -f manifests, KIND=PATH: "+traceSources+" (repeatable: nodes from the first that has them, pods from all)")
	policy := fs.String("policy", "packing", "with -trace: the node-scoring policies to replay and compare, comma-separated (see kube/replay.Policies): packing, upstream, and the FGD paper's fgd, bestfit, dotprod, gpupacking, random")
	sampleEvery := fs.Duration("sample-every", 0, "with -trace: the spacing of the time series' samples (default: 1/1000 of the trace's span)")
	speedUp := fs.Float64("speed-up", 1, "with -trace: make pods arrive this many times as fast, durations kept (load × the factor)")
	reportPath := fs.String("report", "", "with -trace: also write an HTML report (one self-contained file: utilisation, queueing-delay CDF, domain occupancy, policy comparison) to this file")
	fgdExp := fs.Bool("fgd-experiment", false, "with -trace openb=DIR: the FGD paper's experiment instead of a replay: pods inflated to 130% of the GPUs, each tried once, GPUs allocated per policy (random, dotprod, gpupacking, bestfit, fgd) over -fgd-seeds seeds")
	fgdSeeds := fs.Int("fgd-seeds", 3, "with -fgd-experiment: how many inflations (seeds 1..N) to average")
	openbPods := fs.String("openb-pods", "default", "with -trace openb=DIR: which pod list, csv/openb_pod_list_<name>.csv")
	kueueFailFast := fs.Bool("kueue-failed-node-replacement-fail-fast", true, "admit Kueue Workloads as Kueue's TASFailedNodeReplacementFailFast gate does (on by default, as in Kueue v0.17): a Workload whose failed node finds no replacement is evicted whole; false keeps it admitted as it is, the node in status.unhealthyNodes, waiting for room (ReplacementWaits)")
	kueueAffinity := fs.Bool("kueue-node-affinity-preferred", false, "admit Kueue Workloads as Kueue's TASRespectNodeAffinityPreferred gate does: a template's preferred node affinity orders domains and nodes before BestFit or LeastFreeCapacity (off by default, as the gate)")
	kueueMultiLayer := fs.Bool("kueue-multi-layer-topology", false, "read Kueue Workloads as Kueue's TASMultiLayerTopology gate does (alpha, off by default in Kueue v0.17, as this flag): every slice layer of kueue.x-k8s.io/podset-slice-required-topology-constraints and of topologyRequest.podsetSliceRequiredTopologyConstraints; off, the annotation is ignored and only the field's first layer read. Under -topology-profile gangsched the layers are always read")
	profile := fs.String("topology-profile", "gangsched", "who decides topology-constrained groups: gangsched (the solver; groups with Kueue slice annotations are planned by Kueue's algorithm, each slice packed by best fit below its slice level), kueue (Kueue's TAS algorithm for every group: BestFit, LeastFreeCapacity, preferred levels widening) or kueue-balanced (kueue with Kueue v0.17's TASBalancedPlacement: a preferred set balanced one level below its preferred level at a threshold, the rest to the largest first; ties Kueue breaks in map order go to the first path). Kueue Workloads are planned with kueue unless this flag is given")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gangsim -f FILE|DIR|- [-f ...] [-o text|yaml|json] [flags]")
		fmt.Fprintln(stderr, "Runs kube-scheduler's PodGroup scheduling cycles over Kubernetes manifests until nothing changes,")
		fmt.Fprintln(stderr, "and admits Kueue Workloads (kueue.x-k8s.io/v1beta2) through their queues and Topologies as Kueue v0.17 would (docs/kueue.md).")
		fmt.Fprintln(stderr, "Exit status: 0 every pod bound and Workload admitted, 1 bad input or usage, 3 some pods or Workloads still waiting, 4 internal error (a panic, with its stack); 2 is the Go runtime's crash (out of memory, say).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPlaced // -h asked for the usage: not an error
		}
		return exitInput
	}
	if err := checkFlagNeeds(fs, map[string]bool{"suggest-nodes": *suggest, "trace": len(traces) > 0, "fgd-experiment": *fgdExp}); err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if *fgdExp {
		// The experiment allocates per policy and prints its own table:
		// a replay's flags would be ignored (brk8 02).
		if err := checkFlagsUnused(fs, "-fgd-experiment", "report", "policy", "speed-up", "sample-every", "o"); err != nil {
			fmt.Fprintln(stderr, "gangsim:", err)
			return exitInput
		}
		return fgdMain(stdout, stderr, traces, *openbPods, *fgdSeeds)
	}
	k8sProfile, err := gang.ParseProfile(*profileName)
	if err != nil {
		fmt.Fprintln(stderr, "gangsim: -profile:", err)
		return exitInput
	}
	fg, err := parseFeatureGates(*gates, k8sProfile)
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if len(traces) > 0 {
		stop, err := startCPUProfile(*cpuProfile, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "gangsim:", err)
			return exitInput
		}
		defer stop()
		return traceMain(stdout, stderr, traces, len(files) > 0, *openbPods, *speedUp, *policy, *output, *reportPath, replay.Options{Preemption: *preempt, SampleEvery: *sampleEvery, MaxCycles: *maxCycles,
			Profile: k8sProfile, PodGroupPreemptionPolicy: fg.podGroupPreemptionPolicy}, tty)
	}
	if *reportPath != "" {
		fmt.Fprintln(stderr, "gangsim: -report writes a trace replay's report: give -trace")
		return exitInput
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "gangsim: unexpected argument %q: manifests are given with -f\n", fs.Arg(0))
		return exitInput
	case len(files) == 0:
		fmt.Fprintln(stderr, "gangsim: no manifests: give files or directories with -f, or -f - for standard input, e.g.")
		fmt.Fprintln(stderr, "  gangsim -f kube/testdata/seed/nodes.yaml -f kube/testdata/seed/training-job.yaml")
		fs.Usage()
		return exitInput
	}
	switch *output {
	case "text", "yaml", "json":
	default:
		fmt.Fprintf(stderr, "gangsim: -o %q: want text, yaml or json\n", *output)
		return exitInput
	}
	switch *nodeScoring {
	case scoringConfig, scoringPacking, scoringUpstream:
	default:
		fmt.Fprintf(stderr, "gangsim: -node-scoring %q: want packing or upstream\n", *nodeScoring)
		return exitInput
	}
	topoProfile, err := topology.ParseProfile(*profile)
	if err != nil {
		fmt.Fprintf(stderr, "gangsim: -topology-profile %q: want gangsched, kueue or kueue-balanced\n", *profile)
		return exitInput
	}
	estimating := *estimateFlag || len(whatIf) > 0
	var now time.Time
	switch {
	case estimating && *output == "yaml":
		fmt.Fprintln(stderr, "gangsim: -o yaml writes objects; an estimate is text or json")
		return exitInput
	case *nowFlag != "" && !estimating:
		fmt.Fprintln(stderr, "gangsim: -now is for -estimate or -what-if")
		return exitInput
	case *nowFlag != "":
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "gangsim: -now %q: want an RFC 3339 time such as 2026-01-01T10:00:00Z\n", *nowFlag)
			return exitInput
		}
		now = t
	}
	if err := checkFlags(*namespace, *topoKeys, *maxCycles, *maxPods); err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if *suggestSlots < 0 {
		fmt.Fprintf(stderr, "gangsim: -suggest-domain-nodes %d: want 0 or more\n", *suggestSlots)
		return exitInput
	}
	stop, err := startCPUProfile(*cpuProfile, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	defer stop()
	objs, err := manifest.Read(files, stdin, manifest.Options{Namespace: *namespace})
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if *profileName != "" {
		if err := checkServed(objs, k8sProfile); err != nil {
			fmt.Fprintln(stderr, "gangsim:", err)
			return exitInput
		}
	}
	var added []manifest.Object
	if len(whatIf) > 0 {
		if added, err = manifest.Read(whatIf, stdin, manifest.Options{Namespace: *namespace}); err != nil {
			fmt.Fprintln(stderr, "gangsim:", err)
			return exitInput
		}
		objs = append(objs, added...)
	}
	served := servedSchedulers(objs)
	config := schedulerConfigObject(objs)
	objs, scoring, profilePreempts, warnings, err := schedulerConfig(objs, *nodeScoring)
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "gangsim: warning:", w)
	}
	objs, nodelessWarnings := leaveOffNodeless(objs)
	for _, w := range nodelessWarnings {
		fmt.Fprintln(stderr, "gangsim: warning:", w)
	}
	if *fillIn {
		kube.FillIn(objs, epoch)
	}
	kueueProf := kueueProfileOf(fs, topoProfile)
	c, err := kube.LoadWithOptions(objs, kube.LoadOptions{MaxPods: *maxPods, Profile: k8sProfile, PodGroupPreemptionPolicy: fg.podGroupPreemptionPolicy,
		KueueMultiLayerTopology: kueueMultiLayerTopology(kueueProf, *kueueMultiLayer), KueueNodePods: kueueProf != topology.GangschedProfile})
	if err != nil {
		hint := ""
		if errors.Is(err, kube.ErrTooManyPods) {
			hint = "; raise the limit with -max-pods"
		}
		fmt.Fprintf(stderr, "gangsim: %v%s\n", err, hint)
		return exitInput
	}
	if !kueueMultiLayerTopology(kueueProf, *kueueMultiLayer) {
		for _, w := range multiLayerWarnings(c.KueueWorkloads) {
			fmt.Fprintln(stderr, "gangsim: warning:", w)
		}
	}
	for _, w := range kueueConfigWarnings(objs) {
		fmt.Fprintln(stderr, "gangsim: warning:", w)
	}
	for _, w := range interPodWarnings(objs) {
		fmt.Fprintln(stderr, "gangsim: warning:", w)
	}
	unserved, unservedWarnings := leaveUnserved(c, served)
	for _, w := range unservedWarnings {
		fmt.Fprintln(stderr, "gangsim: warning:", w)
	}
	opts := options{rackKey: *rackKey, topologyKeys: *topoKeys, maxCycles: *maxCycles, preemption: *preempt && profilePreempts.any, noPreemption: profilePreempts.off, fillIn: *fillIn, scoring: scoring, topologyProfile: topoProfile, kueueProfile: kueueProf, kueueNodeAffinityPreferred: *kueueAffinity, kueueWaitForReplacement: !*kueueFailFast, profile: k8sProfile, gates: fg}
	if *suggest {
		opts.suggest = &scaleup.Options{NewDomain: *suggestNew, MaxDomainNodes: *suggestSlots}
		if len(c.KueueWorkloads) > 0 {
			fmt.Fprintln(stderr, "gangsim: warning: -suggest-nodes does not read Kueue Workloads yet: it suggests nodes for PodGroups and pods only")
		}
	}
	if estimating && len(c.KueueWorkloads) > 0 {
		fmt.Fprintln(stderr, "gangsim: -estimate and -what-if do not read Kueue Workloads yet")
		return exitInput
	}
	kueueResults, err := admitKueue(c, opts)
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if estimating {
		var ids map[string]bool
		if len(whatIf) > 0 {
			if ids = whatIfGroups(added, c); len(ids) == 0 {
				fmt.Fprintln(stderr, "gangsim: -what-if: the workload has no pod, Job or PodGroup with pending pods to answer for")
				return exitInput
			}
		}
		return runEstimate(stdout, stderr, c, opts, now, ids, *output)
	}
	if tty {
		opts.progress = func(cycle, bound int) { fmt.Fprintf(stderr, "\rgangsim: cycle %d, %d pods bound", cycle, bound) }
	}
	rep, err := simulate(c, opts)
	if tty && rep.Summary.Cycles >= progressEvery {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	rep.Kueue = kueueResults
	rep.Summary.Unserved = unserved
	for _, r := range kueueResults {
		if r.waits() {
			rep.Summary.KueueWaiting++
			switch kube.KueueAction(r.Action) {
			case kube.KueueAwaitingChecks:
				rep.Summary.KueueAwaitingChecks++
			case kube.KueueDelayedTopologyWaits:
				rep.Summary.KueueDelayedTopology++
			}
			if r.Held {
				rep.Summary.KueueHeld++
			}
		} else if r.idle() {
			rep.Summary.KueueIdle++
		} else {
			rep.Summary.KueueAdmitted++
		}
		if r.PreemptedBy != "" {
			rep.Summary.KueuePreempted++
		}
	}
	addHeld(rep.Summary.Allocation, c.Snapshot, kueueResults)
	w := bufio.NewWriter(stdout)
	switch *output {
	case "text":
		if !*showCycles {
			rep.Cycles = nil
		}
		writeText(w, rep)
	case "json":
		// Lists are [] when empty, as a reader of the report expects.
		if rep.Cycles == nil {
			rep.Cycles = []Cycle{}
		}
		if rep.Summary.Allocation == nil {
			rep.Summary.Allocation = []Allocation{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	case "yaml":
		err = writeObjects(w, append(config, c.Objects()...))
		if err == nil {
			writeSummaryLine(stderr, rep.Summary)
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if rep.Summary.PodsWaiting > 0 || rep.Summary.GroupsWaiting > 0 || rep.Summary.KueueWaiting > 0 || len(rep.Summary.Unserved) > 0 {
		return exitWaiting
	}
	return exitPlaced
}

// checkFlags rejects flag values that would otherwise be taken silently:
// a namespace the API server would refuse, an empty or repeated topology
// key, a negative cycle limit, a pod limit below 1.
func checkFlags(namespace, topoKeys string, maxCycles, maxPods int) error {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return fmt.Errorf("-n %q: %s", namespace, errs[0])
	}
	if topoKeys != "" {
		keys := strings.Split(topoKeys, ",")
		for i, k := range keys {
			switch {
			case k == "":
				return fmt.Errorf("-topology-keys %q: key %d is empty", topoKeys, i+1)
			case slices.Index(keys, k) < i:
				return fmt.Errorf("-topology-keys %q: %q is listed twice", topoKeys, k)
			}
		}
	}
	if maxCycles < 0 {
		return fmt.Errorf("-max-cycles %d: want 0 or more", maxCycles)
	}
	if maxPods < 1 {
		return fmt.Errorf("-max-pods %d: want 1 or more", maxPods)
	}
	return nil
}

// flagNeeds names, for each flag that only qualifies another, the one it
// qualifies: given alone it would change nothing, so a reader who tries it
// alone (README's -suggest-domain-nodes) is told, not ignored.
var flagNeeds = map[string]string{
	"suggest-new-domain":   "suggest-nodes",
	"suggest-domain-nodes": "suggest-nodes",
	"policy":               "trace",
	"sample-every":         "trace",
	"speed-up":             "trace",
	"openb-pods":           "trace",
	"fgd-seeds":            "fgd-experiment",
}

// checkFlagNeeds refuses a flag set on fs whose flag in flagNeeds is not
// in effect (on maps that flag to whether it is), naming both.
func checkFlagNeeds(fs *flag.FlagSet, on map[string]bool) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if need, ok := flagNeeds[f.Name]; ok && !on[need] && err == nil {
			err = fmt.Errorf("-%s does nothing without -%s: give both", f.Name, need)
		}
	})
	return err
}

// checkFlagsUnused refuses any of names set on fs, which mode (a flag)
// does not read, naming both.
func checkFlagsUnused(fs *flag.FlagSet, mode string, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) && err == nil {
			err = fmt.Errorf("%s does not read -%s: leave it out", mode, f.Name)
		}
	})
	return err
}

// maxListed is how many bindings or waiting members a text cycle lists.
const maxListed = 12

func list(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, " ")
	}
	return strings.Join(items[:maxListed], " ") + fmt.Sprintf(" … and %d more", len(items)-maxListed)
}

func writeText(w io.Writer, rep Report) {
	writeKueue(w, rep.Kueue)
	for _, d := range rep.DeletedClaims {
		fmt.Fprintf(w, "deleted claim %s: the implicit claim pending pod %s had from an earlier attempt\n", d.Claim, d.Pod)
	}
	for _, cy := range rep.Cycles {
		head := fmt.Sprintf("cycle %d at +%s: %s %s", cy.N, cy.At, cy.Kind, cy.Name)
		if cy.Kind == "PodGroup" || cy.Kind == "CompositePodGroup" {
			switch {
			case cy.Policy == "gang" && cy.Kind == "CompositePodGroup":
				head += fmt.Sprintf(" (gang, minGroupCount %d)", cy.MinCount)
			case cy.Policy == "gang":
				head += fmt.Sprintf(" (gang, minCount %d)", cy.MinCount)
			default:
				head += " (basic)"
			}
			head += fmt.Sprintf(", %d pending", cy.Pending)
		}
		fmt.Fprintln(w, head)
		msg := cy.Status
		if cy.Message != "" {
			msg += ": " + cy.Message
		}
		fmt.Fprintln(w, "  "+msg)
		writeTree(w, cy)
		if len(cy.Bound) > 0 {
			var b []string
			for _, x := range cy.Bound {
				b = append(b, x.Pod+"→"+x.Node)
			}
			fmt.Fprintf(w, "  bound %d: %s\n", len(cy.Bound), list(b))
		}
		if len(cy.Waiting) > 0 {
			fmt.Fprintf(w, "  waiting %d: %s (retry at +%s)\n", len(cy.Waiting), list(cy.Waiting), cy.RetryAt)
		}
		if len(cy.Preempted) > 0 {
			fmt.Fprintf(w, "  preempted %d: %s\n", len(cy.Preempted), list(cy.Preempted))
		}
		if len(cy.Nominated) > 0 {
			var n []string
			for _, x := range cy.Nominated {
				n = append(n, x.Pod+"→"+x.Node)
			}
			fmt.Fprintf(w, "  nominated %d: %s\n", len(n), list(n))
		}
		if len(cy.Recreated) > 0 {
			fmt.Fprintf(w, "  recreated by the Job controller %d: %s\n", len(cy.Recreated), list(cy.Recreated))
		}
		for _, cl := range cy.Claims {
			fmt.Fprintf(w, "  claim %s\n", cl)
		}
		if cy.Condition != nil {
			fmt.Fprintf(w, "  condition %s=%s (%s)\n", cy.Condition.Type, cy.Condition.Status, cy.Condition.Reason)
		}
	}
	s := rep.Summary
	fmt.Fprintln(w, "summary:")
	fmt.Fprintf(w, "  cycles: %d\n", s.Cycles)
	if s.Stopped != "" {
		fmt.Fprintf(w, "  %s\n", s.Stopped)
	}
	fmt.Fprintf(w, "  PodGroups: %d placed, %d waiting", s.GroupsPlaced, s.GroupsWaiting)
	if s.GroupsEmpty > 0 {
		fmt.Fprintf(w, ", %d without pods", s.GroupsEmpty)
	}
	fmt.Fprintln(w)
	if len(rep.Kueue) > 0 {
		fmt.Fprintf(w, "  Kueue Workloads: %d admitted, %d waiting%s\n", s.KueueAdmitted, s.KueueWaiting, kueuePreempted(s))
	}
	fmt.Fprintf(w, "  pods: %d bound in this run, %d waiting, %d preempted\n", s.PodsBound, s.PodsWaiting, s.PodsPreempted)
	for _, a := range s.Allocation {
		held := ""
		if a.Held > 0 {
			held = fmt.Sprintf("; %s more held by Kueue's assumption, no pod running", human(a.Resource, a.Held))
		}
		fmt.Fprintf(w, "  %s: %.1f%% allocated (%s of %s%s)\n", a.Resource, a.Percent, human(a.Resource, a.Requested), human(a.Resource, a.Allocatable), held)
	}
	if r := s.Racks; r != nil {
		fmt.Fprintf(w, "  racks left whole: %d of %d (%s)\n", r.Whole, r.Total, r.Key)
	}
	for _, wg := range s.Waiting {
		fmt.Fprintf(w, "  waiting: %s %s (%d pending): %s\n", wg.Kind, wg.Name, wg.Pending, wg.Reason)
	}
	if len(s.Unserved) > 0 {
		fmt.Fprintf(w, "  not served (left pending: no profile serves their spec.schedulerName): %s\n", strings.Join(s.Unserved, " "))
	}
	for _, j := range s.JobsPodByPod {
		fmt.Fprintf(w, "  pod by pod: %s\n", j)
	}
	writeSuggestions(w, rep.Suggestions)
	if len(s.Unused) > 0 {
		fmt.Fprintf(w, "  not used: %s\n", joinSorted(s.Unused))
	}
}

// kueuePreempted words, for a summary, the waiting Kueue Workloads that
// await admission checks or a delayed topology, or that Kueue holds by its
// assumption (" (4 awaiting admission checks, 1 awaiting a delayed
// topology, 1 held by Kueue's assumption)"), those
// preempted in the run (", 2 preempted"), and those inactive or finished
// (", 1 inactive or finished"); "" when none was any.
func kueuePreempted(s Summary) string {
	var of []string
	if s.KueueAwaitingChecks > 0 {
		of = append(of, fmt.Sprintf("%d awaiting admission checks", s.KueueAwaitingChecks))
	}
	if s.KueueDelayedTopology > 0 {
		of = append(of, fmt.Sprintf("%d awaiting a delayed topology", s.KueueDelayedTopology))
	}
	if s.KueueHeld > 0 {
		of = append(of, fmt.Sprintf("%d held by Kueue's assumption", s.KueueHeld))
	}
	out := ""
	if len(of) > 0 {
		out = " (" + strings.Join(of, ", ") + ")"
	}
	if s.KueuePreempted > 0 {
		out += fmt.Sprintf(", %d preempted", s.KueuePreempted)
	}
	if s.KueueIdle > 0 {
		out += fmt.Sprintf(", %d inactive or finished", s.KueueIdle)
	}
	return out
}

// writeSummaryLine is the one-line summary -o yaml prints on stderr.
func writeSummaryLine(w io.Writer, s Summary) {
	kueue := ""
	if s.KueueAdmitted+s.KueueWaiting+s.KueueIdle > 0 {
		kueue = fmt.Sprintf("; Kueue Workloads %d admitted, %d waiting%s", s.KueueAdmitted, s.KueueWaiting, kueuePreempted(s))
	}
	fmt.Fprintf(w, "gangsim: %d cycles; PodGroups %d placed, %d waiting; pods %d bound, %d waiting%s\n",
		s.Cycles, s.GroupsPlaced, s.GroupsWaiting, s.PodsBound, s.PodsWaiting, kueue)
}
