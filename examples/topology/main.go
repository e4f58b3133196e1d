// Command topology runs topology-aware gang placement (KEP-5732) through
// the gangsched scheduling cycle on a built-in cluster of 2 blocks × 2
// racks × 2 hosts of 8 GPUs, some GPUs already in use. The scheduler turns
// each PodGroup's spec.schedulingConstraints.topology into a placement
// generator and scorer: a gang that requires one rack lands in the rack
// left fullest after it (upstream's MostAllocated score), a second gang
// takes another, a gang no rack can hold waits with a reason naming the
// closest rack, and the same gang with a preferred rack widens to a block.
// It prints each cycle's decision as a table. It takes no arguments:
//
//	go run ./examples/topology
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "topology:", err)
		os.Exit(1)
	}
}

const (
	blockKey = "topology.kubernetes.io/block"
	rackKey  = "topology.kubernetes.io/rack"
	gpu      = placement.ResourceGPU
)

// levels are the cluster's topology keys, widest first, as a Kueue Topology
// lists them; a preferred constraint widens through them.
var levels = []string{blockKey, rackKey}

func run(w io.Writer) error {
	var nodes []placement.Node
	var running []placement.Pod
	used := map[string]int64{"h11": 4, "h21": 4, "h31": 6, "h41": 2} // GPUs in use before the gangs arrive
	for r := 1; r <= 4; r++ {
		for h := 1; h <= 2; h++ {
			name := fmt.Sprintf("h%d%d", r, h)
			labels := map[string]string{blockKey: fmt.Sprintf("block-%d", (r+1)/2), rackKey: fmt.Sprintf("rack-%d", r)}
			nodes = append(nodes, placement.Node{Name: name, Labels: labels, Allocatable: placement.ResourceList{gpu: 8}})
			if n := used[name]; n > 0 {
				running = append(running, placement.Pod{Namespace: "default", Name: "svc-" + name, NodeName: name, Requests: placement.ResourceList{gpu: n}})
			}
		}
	}
	snap, err := placement.NewSnapshot(nodes, running)
	if err != nil {
		return err
	}
	// The scheduler builds its own tree from the PodGroups' constraints;
	// this one only prints the domains' free GPUs.
	tree, err := topology.NewTree(snap, levels)
	if err != nil {
		return err
	}
	sched := gang.NewScheduler(gang.Options{TopologyLevels: levels})
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	fmt.Fprintf(w, "cluster: 2 blocks × 2 racks × 2 hosts of 8 GPUs; topology levels %s\n", strings.Join(levels, " > "))

	for _, j := range []struct {
		name    string
		members int
		rack    gang.TopologyConstraint
	}{
		{"train-a", 4, gang.TopologyConstraint{Key: rackKey}},
		{"train-b", 6, gang.TopologyConstraint{Key: rackKey}},
		{"train-c", 8, gang.TopologyConstraint{Key: rackKey}},
		{"train-d", 8, gang.TopologyConstraint{Key: rackKey, Preferred: true}},
	} {
		pg := &gang.PodGroup{ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: j.name}, Spec: gang.PodGroupSpec{
			SchedulingPolicy:      gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: int32(j.members)}},
			SchedulingConstraints: gang.SchedulingConstraints{Topology: []gang.TopologyConstraint{j.rack}},
		}}
		if err := sched.SetPodGroup(pg); err != nil {
			return err
		}
		for i := range j.members {
			err := sched.AddPod(placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%d", j.name, i), SchedulingGroup: j.name,
				Requests: placement.ResourceList{gpu: 2}, QueuedAt: now})
			if err != nil {
				return err
			}
		}
		verb := map[bool]string{false: "requires", true: "prefers"}[j.rack.Preferred]
		need := int64(2 * j.members)
		fmt.Fprintf(w, "\nPodGroup %s: gang of %d members × 2 GPUs (%d in all), %s one rack\n", j.name, j.members, need, verb)
		after, err := printDomains(w, tree, snap, need)
		if err != nil {
			return err
		}
		r, ok := sched.Cycle(snap, now)
		if !ok || r.Err != nil {
			return fmt.Errorf("cycle for %s: ran %t, error %v", j.name, ok, r.Err)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "POD\tDECISION\tNODE")
		for _, p := range r.Bind {
			fmt.Fprintf(tw, "%s\tbind\t%s\n", p.Name, p.NodeName)
		}
		for _, k := range r.Requeued {
			fmt.Fprintf(tw, "%s\twait\t-\n", k.Name)
		}
		tw.Flush()
		fmt.Fprintf(w, "decision: %s: %s\n", r.Decision.Status, r.Decision.Message)
		if d, ok := tree.Find(r.Decision.Placement.Name); ok && r.Decision.Status == placement.Scheduled {
			fmt.Fprintf(w, "why %s: ", d.Path)
			if d.Level == 0 {
				fmt.Fprintf(w, "no rack has room for all %d GPUs, so the search widens to a block; ", need)
			}
			fmt.Fprintf(w, "of the %ss with room, the fullest after the gang (%s GPUs): MostAllocated, ties by path\n", []string{"block", "rack"}[d.Level], after[d.Path])
		}
		if c := r.Condition; c != nil {
			fmt.Fprintf(w, "condition: %s=%s, reason %s\n", c.Type, c.Status, c.Reason)
		}
		snap = r.Snapshot
	}
	return nil
}

// printDomains shows each block's and rack's free GPUs and, for those with
// room for need more, how many of their GPUs would be allocated after: of
// the domains a gang may use, MostAllocated picks the fullest. It returns
// that figure by domain path.
func printDomains(w io.Writer, tree *topology.Tree, snap *placement.Snapshot, need int64) (map[string]string, error) {
	after := map[string]string{}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DOMAIN\tGPUS FREE\tALLOCATED AFTER")
	for level := range levels {
		for d := range tree.Domains(level) {
			free, _, err := tree.Free(snap, d.ID, gpu)
			if err != nil {
				return nil, err
			}
			var alloc int64
			for _, id := range d.Nodes {
				alloc += snap.Allocatable(id, gpu)
			}
			after[d.Path] = "-"
			if free >= need {
				after[d.Path] = fmt.Sprintf("%d/%d", alloc-free+need, alloc)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\n", d.Path, free, after[d.Path])
		}
	}
	return after, tw.Flush()
}
