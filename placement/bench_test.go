package placement_test

import (
	"fmt"
	"testing"

	. "github.com/gangsched/gangsched/placement"
)

// BenchmarkSolveMembers: a fitting gang of 4,096 members listed one by one
// (cpu, memory and a GPU each) on 1,000 empty hosts, whose nodes list
// only those resources ("tracked=4", the pods count included) or also
// ephemeral storage and huge pages, as real nodes do ("tracked=7"): the
// cost of compiling members whose requests name a few of many tracked
// resources.
func BenchmarkSolveMembers(b *testing.B) {
	for _, extra := range []bool{false, true} {
		var nodes []Node
		for i := range 1000 {
			n := Node{Name: fmt.Sprintf("host-%04d", i), Allocatable: ResourceList{
				ResourceCPU: 64000, ResourceMemory: 1 << 40, ResourceGPU: 8, ResourcePods: 110}}
			if extra {
				n.Allocatable["ephemeral-storage"], n.Allocatable["hugepages-1Gi"], n.Allocatable["hugepages-2Mi"] = 1<<40, 0, 0
			}
			nodes = append(nodes, n)
		}
		s, err := NewSnapshot(nodes, nil)
		if err != nil {
			b.Fatal(err)
		}
		g := &Group{Namespace: "default", Name: "pg", MinCount: 4096}
		for i := range 4096 {
			g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("pg-%04d", i), SchedulingGroup: "pg",
				Requests: ResourceList{ResourceCPU: 8000, ResourceMemory: 1 << 30, ResourceGPU: 1}})
		}
		b.Run(fmt.Sprintf("tracked=%d", len(nodes[0].Allocatable)), func(b *testing.B) {
			d, err := Solve(s, g, Options{})
			if err != nil || d.Status != Scheduled || len(d.Assignments) != 4096 {
				b.Fatalf("%v: %s", err, d.Message)
			}
			b.ReportAllocs()
			for b.Loop() {
				if d, _ := Solve(s, g, Options{}); len(d.Assignments) != 4096 {
					b.Fatal(d.Message)
				}
			}
		})
	}
}

// BenchmarkSolveBoundPreferredTerm: 512 members of one label on 1,000
// hosts (4 zones), whose one bound member prefers (weight 10) not to share
// a host or a zone with them — its preferred anti-affinity matches every
// member. Each member's nodes are scored by the terms it takes part in,
// set up once per member: before, every node scored every term over all
// its matches (3–4 s an op here).
func BenchmarkSolveBoundPreferredTerm(b *testing.B) {
	var nodes []Node
	for i := range 1000 {
		name := fmt.Sprintf("host-%04d", i)
		nodes = append(nodes, Node{Name: name, Labels: map[string]string{"host": name, "zone": fmt.Sprint("z", i%4)},
			Allocatable: ResourceList{ResourceCPU: 64000, ResourcePods: 110}})
	}
	for _, key := range []string{"host", "zone"} {
		anti := &Affinity{PodAntiAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 10,
			Term: PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": "w"}}, TopologyKey: key}}}}}
		s, err := NewSnapshot(nodes, []Pod{{Namespace: "default", Name: "pg-bound", SchedulingGroup: "pg", NodeName: "host-0000",
			Labels: map[string]string{"app": "w"}, Affinity: anti}})
		if err != nil {
			b.Fatal(err)
		}
		g := &Group{Namespace: "default", Name: "pg", MinCount: 513}
		for i := range 512 {
			g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("pg-%04d", i), SchedulingGroup: "pg",
				Labels: map[string]string{"app": "w"}, Requests: ResourceList{ResourceCPU: 1000}})
		}
		b.Run("key="+key, func(b *testing.B) {
			d, err := Solve(s, g, Options{})
			if err != nil || d.Status != Scheduled || d.Score == 0 {
				b.Fatalf("%v: %s %s", err, d.Status, d.Message)
			}
			for _, a := range d.Assignments {
				if a.Node == "host-0000" || (key == "zone" && a.NodeID%4 == 0) {
					b.Fatalf("%s on %s: the bound member's preference was not followed", a.Pod, a.Node)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if d, _ := Solve(s, g, Options{}); len(d.Assignments) != 512 {
					b.Fatal(d.Message)
				}
			}
		})
	}
}
