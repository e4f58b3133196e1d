// Command quickstart runs the seed's 4-pod gang through the gangsched
// scheduling cycle: Workload training-job-workload with template workers
// (gang, minCount 4), PodGroup training-job-workers-pg, pods worker-0..3,
// each asking for one GPU, on a built-in cluster of three one-GPU nodes.
// Only three fit, so all four wait, with the reason; then a fourth node
// joins and all four bind in one cycle. It prints each cycle's decision as
// a table. It takes no arguments:
//
//	go run ./examples/quickstart
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

const gi = int64(1) << 30

func node(name string) placement.Node {
	return placement.Node{Name: name, Allocatable: placement.ResourceList{
		placement.ResourceCPU: 8000, placement.ResourceMemory: 32 * gi, placement.ResourceGPU: 1, placement.ResourcePods: 110,
	}}
}

// host is what a real scheduler host keeps: the cluster, the scheduler and
// the clock. It owns all state the scheduler does not.
type host struct {
	w     io.Writer
	nodes []placement.Node
	bound []placement.Pod
	sched *gang.Scheduler
	start time.Time
	cycle int
}

func run(w io.Writer) error {
	workload := &gang.Workload{
		ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: "training-job-workload"},
		Spec: gang.WorkloadSpec{PodGroupTemplates: []gang.PodGroupTemplate{{
			Name:             "workers",
			SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: 4}},
		}}},
	}
	pg, err := gang.NewPodGroupFromTemplate(workload, "workers", "training-job-workers-pg", gang.StampOptions{})
	if err != nil {
		return err
	}
	h := &host{
		w:     w,
		nodes: []placement.Node{node("node-a"), node("node-b"), node("node-c")},
		sched: gang.NewScheduler(gang.Options{}),
		start: time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC),
	}
	if err := h.sched.SetPodGroup(pg); err != nil {
		return err
	}
	requests := placement.ResourceList{placement.ResourceCPU: 4000, placement.ResourceMemory: 16 * gi, placement.ResourceGPU: 1}
	for i := range 4 {
		err := h.sched.AddPod(placement.Pod{
			Namespace: "default", Name: fmt.Sprintf("worker-%d", i), SchedulingGroup: pg.Name,
			Requests: requests, QueuedAt: h.start,
		})
		if err != nil {
			return err
		}
	}

	fmt.Fprintf(w, "Workload %s, template %s: gang, minCount %d\n", workload.Name, pg.Spec.PodGroupTemplateRef.Workload.PodGroupTemplateName, pg.Spec.SchedulingPolicy.Gang.MinCount)
	fmt.Fprintf(w, "PodGroup %s: members worker-0..worker-3, each requesting %s\n\n", pg.Name, formatResources(requests))
	h.printNodes()
	if err := h.runCycles(h.start); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nbound after the first round: %d pods (all or nothing)\n", len(h.bound))

	h.nodes = append(h.nodes, node("node-d"))
	fmt.Fprintf(w, "\nnode-d joins the cluster (%s)\n", formatResources(node("node-d").Allocatable))
	next, ok := h.sched.NextRetry()
	if !ok {
		return fmt.Errorf("the gang is not waiting for a retry")
	}
	if err := h.runCycles(next); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nbound: %d pods\n", len(h.bound))
	return nil
}

// runCycles builds a snapshot of the cluster and runs cycles at now until
// no group is ready, binding what each cycle decides.
func (h *host) runCycles(now time.Time) error {
	snap, err := placement.NewSnapshot(h.nodes, h.bound)
	if err != nil {
		return err
	}
	for {
		r, ok := h.sched.Cycle(snap, now)
		if !ok {
			return nil
		}
		if r.Err != nil {
			return r.Err
		}
		h.cycle++
		h.print(r, now)
		h.bound = append(h.bound, r.Bind...)
		snap = r.Snapshot
	}
}

func (h *host) printNodes() {
	fmt.Fprintf(h.w, "cluster: %d nodes\n", len(h.nodes))
	tw := tabwriter.NewWriter(h.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tCPU\tMEMORY\tNVIDIA.COM/GPU\tPODS")
	for _, n := range h.nodes {
		a := n.Allocatable
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", n.Name, formatCPU(a[placement.ResourceCPU]), formatBytes(a[placement.ResourceMemory]), a[placement.ResourceGPU], a[placement.ResourcePods])
	}
	tw.Flush()
}

func (h *host) print(r gang.Result, now time.Time) {
	fmt.Fprintf(h.w, "\ncycle %d at t=%s: PodGroup %s\n", h.cycle, now.Sub(h.start), r.PodGroup)
	tw := tabwriter.NewWriter(h.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "POD\tDECISION\tNODE")
	for _, p := range r.Bind {
		fmt.Fprintf(tw, "%s\tbind\t%s\n", p.Name, p.NodeName)
	}
	for _, k := range r.Requeued {
		fmt.Fprintf(tw, "%s\twait\t-\n", k.Name)
	}
	tw.Flush()
	fmt.Fprintf(h.w, "decision: %s: %s\n", r.Decision.Status, r.Decision.Message)
	if c := r.Condition; c != nil {
		fmt.Fprintf(h.w, "condition: %s=%s, reason %s\n", c.Type, c.Status, c.Reason)
	}
	if len(r.Requeued) > 0 {
		fmt.Fprintf(h.w, "requeued: %d members, retry at t=%s\n", len(r.Requeued), r.RetryAt.Sub(h.start))
	}
}

func formatResources(rl placement.ResourceList) string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(rl)) {
		q := rl[r]
		switch r {
		case placement.ResourceCPU:
			parts = append(parts, "cpu "+formatCPU(q))
		case placement.ResourceMemory:
			parts = append(parts, "memory "+formatBytes(q))
		default:
			parts = append(parts, fmt.Sprintf("%s %d", r, q))
		}
	}
	return strings.Join(parts, ", ")
}

func formatCPU(milli int64) string {
	if milli%1000 == 0 {
		return fmt.Sprint(milli / 1000)
	}
	return fmt.Sprintf("%dm", milli)
}

func formatBytes(b int64) string {
	if b%gi == 0 {
		return fmt.Sprintf("%dGi", b/gi)
	}
	return fmt.Sprint(b)
}
