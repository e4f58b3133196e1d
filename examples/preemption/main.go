// Command preemption runs workload-aware preemption (KEP-5710) through the
// gangsched scheduling cycle with gang.Options.Preemption on. A built-in
// cluster of four 4-GPU nodes is packed: a low-priority PodGroup "batch"
// whose disruptionMode is PodGroup, a few low-priority pods, and serving
// pods of high priority. A high-priority gang arrives; the cycle returns a
// preemption plan whose victims include the whole batch group, the host
// evicts them, and the next cycle binds the gang. Then a gang that no
// eviction could seat gets nothing evicted (never evict in vain), with the
// reason. It prints each step as a table. It takes no arguments:
//
//	go run ./examples/preemption
package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "preemption:", err)
		os.Exit(1)
	}
}

const gpu = placement.ResourceGPU

var now = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)

func pod(name, node, group string, priority int32, gpus int64) placement.Pod {
	return placement.Pod{Namespace: "default", Name: name, NodeName: node, SchedulingGroup: group, Priority: priority,
		Requests: placement.ResourceList{gpu: gpus}, QueuedAt: now}
}

func gangOf(name string, min, priority int32, mode gang.DisruptionMode) *gang.PodGroup {
	return &gang.PodGroup{ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: name}, Spec: gang.PodGroupSpec{
		SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: min}},
		Priority:         &priority, DisruptionMode: mode}}
}

// pending returns the members of a gang of two 4-GPU pods.
func pending(group string, priority int32) []placement.Pod {
	return []placement.Pod{pod(group+"-0", "", group, priority, 4), pod(group+"-1", "", group, priority, 4)}
}

func run(w io.Writer) error {
	var nodes []placement.Node
	for _, n := range []string{"gpu-1", "gpu-2", "gpu-3", "gpu-4"} {
		nodes = append(nodes, placement.Node{Name: n, Allocatable: placement.ResourceList{gpu: 4}})
	}
	snap, err := placement.NewSnapshot(nodes, []placement.Pod{
		pod("batch-0", "gpu-1", "batch", 10, 2), pod("batch-1", "gpu-2", "batch", 10, 2), pod("batch-2", "gpu-3", "batch", 10, 2),
		pod("low-0", "gpu-1", "", 10, 2), pod("low-1", "gpu-2", "", 10, 2), pod("low-2", "gpu-4", "", 10, 2),
		pod("serving-0", "gpu-3", "", 2000, 2), pod("serving-1", "gpu-4", "", 2000, 2),
	})
	if err != nil {
		return err
	}
	sched := gang.NewScheduler(gang.Options{Preemption: true})
	// The host tells the scheduler about running PodGroups too: preemption
	// reads their priority and disruptionMode from it.
	if err := sched.SetPodGroup(gangOf("batch", 3, 10, gang.DisruptionModePodGroup)); err != nil {
		return err
	}
	fmt.Fprintln(w, "cluster: 4 nodes of 4 GPUs, all in use; PodGroup batch has priority 10 and disruptionMode PodGroup")
	printPods(w, snap)

	// cycle submits a gang of two 4-GPU members and runs one cycle.
	cycle := func(group string, priority int32) (gang.Result, error) {
		fmt.Fprintf(w, "\nPodGroup %s: gang of 2 members × 4 GPUs, priority %d\n", group, priority)
		if err := sched.SetPodGroup(gangOf(group, 2, priority, "")); err != nil {
			return gang.Result{}, err
		}
		for _, p := range pending(group, priority) {
			if err := sched.AddPod(p); err != nil {
				return gang.Result{}, err
			}
		}
		r, ok := sched.Cycle(snap, now)
		if !ok || r.Err != nil {
			return r, fmt.Errorf("cycle for %s: ran %t, error %v", group, ok, r.Err)
		}
		fmt.Fprintf(w, "cycle: %s: %s\n", r.Decision.Status, r.Decision.Message)
		if c := r.Condition; c != nil {
			fmt.Fprintf(w, "condition: %s=%s, reason %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
		}
		return r, nil
	}

	r, err := cycle("train", 1000)
	if err != nil {
		return err
	}
	plan := r.Preemption
	if plan == nil {
		return fmt.Errorf("no preemption plan for train")
	}
	fmt.Fprintf(w, "preemption: %s, %d candidate victims, %d solves; retry at once: %t\n", plan.Outcome, plan.Candidates, plan.Solves, r.RetryAt.Equal(now))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VICTIM\tPRIORITY\tPODS\tWHY WHOLE")
	for _, v := range plan.Victims {
		name, whole := "pod "+v.Pods[0].Name, "-"
		if v.Whole {
			name, whole = "PodGroup "+v.PodGroup.Name, "disruptionMode PodGroup: every member on every node, or none"
		}
		fmt.Fprintf(tw, "%s\t%d\t%v\t%s\n", name, v.Priority, names(v.Pods), whole)
	}
	tw.Flush()
	for _, a := range plan.Decision.Assignments {
		fmt.Fprintf(w, "nominate %s to %s\n", a.Pod.Name, a.Node)
	}

	// The host evicts the victims: they leave the cluster and the queue.
	fmt.Fprintf(w, "\nthe host evicts %v\n", names(plan.EvictedPods()))
	if snap, err = snap.Apply(placement.Change{Remove: plan.EvictedPods()}); err != nil {
		return err
	}
	for _, k := range plan.EvictedPods() {
		sched.DeletePod(k)
	}
	r, ok := sched.Cycle(snap, now)
	if !ok || r.Err != nil {
		return fmt.Errorf("cycle after eviction: ran %t, error %v", ok, r.Err)
	}
	fmt.Fprintf(w, "cycle: %s: %s\n", r.Decision.Status, r.Decision.Message)
	for _, p := range r.Bind {
		fmt.Fprintf(w, "bind %s to %s\n", p.Name, p.NodeName)
	}
	snap = r.Snapshot
	printPods(w, snap)

	if r, err = cycle("urgent", 500); err != nil {
		return err
	}
	// The result carries the plan whatever its outcome: here, why nothing
	// is evicted (never evict in vain).
	fmt.Fprintf(w, "preemption: %s, %d evicted: %s\n", r.Preemption.Outcome, len(r.Preemption.EvictedPods()), r.Preemption.Message)
	return nil
}

func printPods(w io.Writer, snap *placement.Snapshot) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tPOD\tPODGROUP\tPRIORITY\tGPUS")
	for id := range placement.NodeID(snap.NumNodes()) {
		for p := range snap.PodsOn(id) {
			group := p.SchedulingGroup
			if group == "" {
				group = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", p.NodeName, p.Name, group, p.Priority, p.Requests[gpu])
		}
	}
	tw.Flush()
}

func names(ks []placement.Key) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Name)
	}
	return out
}
