package main

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/kube/replay/trace"
)

// fgdPolicies are the policies of the FGD paper's Fig. 9 comparison, in
// the order the table prints them.
var fgdPolicies = []string{"random", "dotprod", "gpupacking", "bestfit", "fgd"}

// fgdInflation is the paper's workload: pods up to 130% of the cluster's
// GPUs (§6.1).
const fgdInflation = 1.3

// fgdMain is gangsim -fgd-experiment: the experiment of Weng et al.,
// "Beware of Fragmentation" (ATC'23, §6.2, Fig. 9) on the trace of
// -trace (openb=DIR, whose pods ask for GPU shares in gpu-milli). For
// each seed 1..seeds it inflates the pods to 130% of the cluster's GPUs
// ([trace.Inflate]: shuffled, one second apart, never ending, so each pod
// is tried once and waits for good if it does not fit) and replays them,
// without preemption, under each of [fgdPolicies]; it prints, per policy,
// the share of the cluster's GPUs allocated when the whole workload has
// arrived (the paper's final point, 130% arrived) per seed and their
// mean, and the mean GPUs left unallocated.
func fgdMain(stdout, stderr io.Writer, traces []string, openbPods string, seeds int) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "gangsim:", err)
		return exitInput
	}
	if seeds < 1 {
		return fail(fmt.Errorf("-fgd-seeds %d: want 1 or more", seeds))
	}
	if len(traces) == 0 {
		return fail(fmt.Errorf("-fgd-experiment replays a trace: give -trace openb=DIR"))
	}
	in, err := readTraces(traces, openbPods)
	if err != nil {
		return fail(err)
	}
	alloc := make([][]float64, len(fgdPolicies)) // policy × seed: share of GPUs allocated
	var capacity float64
	for seed := 1; seed <= seeds; seed++ {
		inf, err := trace.Inflate(in, fgdInflation, uint64(seed))
		if err != nil {
			return fail(fmt.Errorf("-fgd-experiment: %w", err))
		}
		for i, name := range fgdPolicies {
			pol, _ := replay.LookupPolicy(name)
			r, err := replay.Run(inf, replay.Options{Policy: pol})
			if err != nil {
				return fail(fmt.Errorf("-fgd-experiment: seed %d: %w", seed, err))
			}
			share, total, ok := lastShare(r, string(in.GPU.Name))
			if !ok {
				return fail(fmt.Errorf("-fgd-experiment: the cluster has no %s", in.GPU.Name))
			}
			capacity = float64(total) / float64(in.GPU.PerGPU)
			alloc[i] = append(alloc[i], share)
		}
	}
	w := bufio.NewWriter(stdout)
	fmt.Fprintf(w, "FGD experiment (Weng et al., ATC'23, Fig. 9): %d nodes, %.0f GPUs; pods inflated to %.0f%% of the GPUs, each tried once, none ending; GPUs allocated when all have arrived\n",
		len(in.Nodes), capacity, 100*fgdInflation)
	fmt.Fprintf(w, "%-10s", "policy")
	for s := 1; s <= seeds; s++ {
		fmt.Fprintf(w, " %8s", fmt.Sprintf("seed %d", s))
	}
	fmt.Fprintf(w, " %9s %13s\n", "mean", "unallocated")
	for i, name := range fgdPolicies {
		fmt.Fprintf(w, "%-10s", name)
		sum := 0.0
		for _, a := range alloc[i] {
			fmt.Fprintf(w, " %7.2f%%", 100*a)
			sum += a
		}
		mean := sum / float64(seeds)
		fmt.Fprintf(w, " %8.2f%% %9.0f GPUs\n", 100*mean, math.Round((1-mean)*capacity))
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	return exitPlaced
}

// lastShare is the share of resource allocated at the end of r, and the
// cluster's total of it.
func lastShare(r *replay.Result, resource string) (share float64, total int64, ok bool) {
	for _, s := range r.Utilisation {
		if s.Name == resource && len(s.Samples) > 0 && s.Total > 0 {
			return s.Samples[len(s.Samples)-1].Value, s.Total, true
		}
	}
	return 0, 0, false
}
