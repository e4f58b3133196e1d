// Command heterogeneous runs placement.Solve directly on PodGroups whose
// members differ, where upstream v1.36's one-by-one order may fail although
// a placement exists. First a leader of 1 CPU and 9 workers of 2 CPUs on
// hosts with 4, 8 and 7 CPUs free: one packing exists, and the solver finds
// it and proves it. Then a leader of 2500m and two workers of 1250m on one
// node with 2800m free: unschedulable, proven at once, with the reason.
// Last, sub-groups: a leader that may go anywhere and workers whose
// sub-group requires one rack. It prints each decision as a table. It takes
// no arguments:
//
//	go run ./examples/heterogeneous
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/gangsched/gangsched/placement"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "heterogeneous:", err)
		os.Exit(1)
	}
}

const rackKey = "topology.kubernetes.io/rack"

func node(name, rack string, milli int64) placement.Node {
	return placement.Node{Name: name, Labels: map[string]string{rackKey: rack}, Allocatable: placement.ResourceList{placement.ResourceCPU: milli}}
}

// used is a pod outside the group that takes milli CPU on node.
func used(node string, milli int64) placement.Pod {
	return placement.Pod{Namespace: "other", Name: "used-" + node, NodeName: node, Requests: placement.ResourceList{placement.ResourceCPU: milli}}
}

// gang returns a PodGroup of a leader and workers, all of which must run
// (minCount = members), labelled role=leader and role=worker.
func gang(name string, leader, worker int64, workers int) *placement.Group {
	member := func(n, role string, milli int64) placement.Pod {
		return placement.Pod{Namespace: "default", Name: n, SchedulingGroup: name, Labels: map[string]string{"role": role},
			Requests: placement.ResourceList{placement.ResourceCPU: milli}}
	}
	g := &placement.Group{Namespace: "default", Name: name, MinCount: int32(1 + workers), Members: []placement.Pod{member("leader", "leader", leader)}}
	for i := range workers {
		g.Members = append(g.Members, member(fmt.Sprintf("worker-%d", i), "worker", worker))
	}
	return g
}

func run(w io.Writer) error {
	type step struct {
		title    string
		nodes    []placement.Node
		used     []placement.Pod
		group    *placement.Group
		oneByOne bool // also place the members one by one, as upstream v1.36 does
	}
	lws := gang("lws", 1000, 2000, 4)
	lws.SubGroups = []placement.SubGroup{
		{Name: "leader", Selector: placement.LabelSelector{MatchLabels: map[string]string{"role": "leader"}}, MinCount: 1},
		{Name: "workers", Selector: placement.LabelSelector{MatchLabels: map[string]string{"role": "worker"}}, MinCount: 4, TopologyKey: rackKey},
	}
	fmt.Fprintln(w, "placement.Solve with zero Options (upstream's filters and MostAllocated scoring) on groups whose members differ")
	racks := []placement.Node{node("a1", "rack-1", 8000), node("a2", "rack-1", 8000), node("b1", "rack-2", 4000), node("b2", "rack-2", 4000)}
	for _, s := range []step{{
		title:    "PodGroup job: leader cpu 1000m + 9 workers cpu 2000m, minCount 10 (18 of 19 CPUs free)",
		nodes:    []placement.Node{node("h1", "rack-1", 8000), node("h2", "rack-1", 8000), node("h3", "rack-1", 8000)},
		used:     []placement.Pod{used("h1", 4000), used("h3", 1000)},
		group:    gang("job", 1000, 2000, 9),
		oneByOne: true,
	}, {
		title: "PodGroup small: leader cpu 2500m + 2 workers cpu 1250m, minCount 3, on one node",
		nodes: []placement.Node{node("n1", "rack-1", 2800)},
		group: gang("small", 2500, 1250, 2),
	}, {
		title: "PodGroup lws: leader cpu 1000m anywhere + 4 workers cpu 2000m whose sub-group requires one rack",
		nodes: racks,
		used:  []placement.Pod{used("a1", 4000), used("a2", 5000)},
		group: lws,
	}, {
		title: "PodGroup lws again, with 1 CPU of rack-2 taken",
		nodes: racks,
		used:  []placement.Pod{used("a1", 4000), used("a2", 5000), used("b2", 1000)},
		group: lws,
	}} {
		snap, err := placement.NewSnapshot(s.nodes, s.used)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s\n", s.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NODE\tRACK\tCPU FREE")
		for id := range placement.NodeID(snap.NumNodes()) {
			fmt.Fprintf(tw, "%s\t%s\t%dm\n", snap.Node(id).Name, snap.Node(id).Labels[rackKey], snap.Free(id, placement.ResourceCPU))
		}
		tw.Flush()
		d, err := placement.Solve(snap, s.group, placement.Options{})
		if err != nil {
			return err
		}
		if err := placement.Verify(snap, s.group, d); err != nil {
			return err
		}
		printDecision(w, d)
		if s.oneByOne {
			if err := oneByOne(w, snap, s.group); err != nil {
				return err
			}
		}
	}
	return nil
}

// oneByOne places g's members one at a time in member order, each on the
// most allocated node that fits, as upstream v1.36 does, and shows the
// first member left without a node.
func oneByOne(w io.Writer, snap *placement.Snapshot, g *placement.Group) error {
	members := slices.Clone(g.Members)
	slices.SortFunc(members, func(a, b placement.Pod) int { return placement.MemberOrder(&a, &b) })
	var placed []string
	for _, p := range members {
		d, err := placement.Solve(snap, &placement.Group{Namespace: g.Namespace, Name: g.Name, MinCount: 1, Members: []placement.Pod{p}}, placement.Options{})
		if err != nil {
			return err
		}
		if d.Status != placement.Scheduled {
			var why []string
			for _, r := range d.Reasons {
				why = append(why, fmt.Sprintf("%d %s", r.Nodes, r.Reason))
			}
			fmt.Fprintf(w, "one by one (upstream's order): %s; then %s fits nowhere (%s)\n", strings.Join(placed, ", "), p.Name, strings.Join(why, ", "))
			return nil
		}
		p.NodeName = d.Assignments[0].Node
		placed = append(placed, p.Name+"→"+p.NodeName)
		if snap, err = snap.Apply(placement.Change{Bind: []placement.Pod{p}}); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "one by one (upstream's order): all placed: %s\n", strings.Join(placed, ", "))
	return nil
}

// printDecision shows each member's node, then per node the leader and the
// number of workers it got.
func printDecision(w io.Writer, d placement.Decision) {
	if len(d.Assignments) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "POD\tNODE")
		workers, leader := map[string]int{}, ""
		for _, a := range d.Assignments {
			fmt.Fprintf(tw, "%s\t%s\n", a.Pod.Name, a.Node)
			if a.Pod.Name == "leader" {
				leader = a.Node
			} else {
				workers[a.Node]++
			}
		}
		tw.Flush()
		var perNode []string
		for _, n := range slices.Sorted(maps.Keys(workers)) {
			perNode = append(perNode, fmt.Sprintf("%s %d", n, workers[n]))
		}
		fmt.Fprintf(w, "leader on %s; workers per node: %s\n", leader, strings.Join(perNode, ", "))
	}
	fmt.Fprintf(w, "decision: %s: %s\n", d.Status, d.Message)
	fmt.Fprintf(w, "proven: %t\n", d.Proven)
}
