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
