package gang_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Upstream scheduler_perf sizes: 5,000 nodes of cpu:4, memory 32Gi and 110
// pods; pods request 100m and 100Mi.
const benchNodes = 5000

func benchSnapshot(b *testing.B) *placement.Snapshot {
	nodes := make([]placement.Node, benchNodes)
	for i := range nodes {
		nodes[i] = placement.Node{Name: fmt.Sprintf("node-%05d", i), Allocatable: placement.ResourceList{
			placement.ResourceCPU: 4000, placement.ResourceMemory: 32 << 30, placement.ResourcePods: 110,
		}}
	}
	s, err := placement.NewSnapshot(nodes, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchScheduler queues groups gangs of size pods each (minCount = size),
// the gangs arriving one after another.
func benchScheduler(b *testing.B, groups, size int) (*Scheduler, [][]placement.Pod) {
	s := NewScheduler(Options{})
	all := make([][]placement.Pod, groups)
	for g := range groups {
		name := fmt.Sprintf("gang-%04d", g)
		if err := s.SetPodGroup(gangPG(name, int32(size))); err != nil {
			b.Fatal(err)
		}
		for i := range size {
			p := placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%04d", name, i), SchedulingGroup: name,
				Requests: placement.ResourceList{placement.ResourceCPU: 100, placement.ResourceMemory: 100 << 20},
				Priority: 100, QueuedAt: at(g)}
			if err := s.AddPod(p); err != nil {
				b.Fatal(err)
			}
			all[g] = append(all[g], p)
		}
	}
	return s, all
}

// drain runs cycles until idle, threading the snapshot, and returns the
// number of pods bound and of cycles run.
func drain(s *Scheduler, snap *placement.Snapshot) (bound, cycles int) {
	for {
		r, ok := s.Cycle(snap, t0)
		if !ok {
			return bound, cycles
		}
		bound += len(r.Bind)
		cycles++
		snap = r.Snapshot
	}
}

// floor is one plain pass per group decision that touches every node once
// (its free cpu and memory) and every member once (its requests): the least
// any placement of the group must do.
func floor(snap *placement.Snapshot, groups [][]placement.Pod) int64 {
	var sum int64
	for _, members := range groups {
		for id := range snap.NumNodes() {
			sum += snap.Free(placement.NodeID(id), placement.ResourceCPU) + snap.Free(placement.NodeID(id), placement.ResourceMemory)
		}
		for i := range members {
			sum += members[i].Requests[placement.ResourceCPU]
		}
	}
	return sum
}

var sink int64

// BenchmarkCycle runs every gang through Scheduler.Cycle on 5,000 nodes and
// reports the cost per group decision (ns/group, allocs/group, B/group),
// the floor measured in the same run (floor-ns/group) and their ratio
// (x-floor, fastest drain over fastest floor pass). One op is a whole
// drain of the queue.
func BenchmarkCycle(b *testing.B) {
	snap := benchSnapshot(b)
	for _, tc := range []struct{ groups, size int }{{1000, 3}, {3, 1000}} {
		b.Run(fmt.Sprintf("gangs=%dx%dpods", tc.groups, tc.size), func(b *testing.B) {
			s, pods := benchScheduler(b, tc.groups, tc.size)
			// The result must be non-trivial: every gang placed whole.
			if bound, cycles := drain(s, snap); bound != tc.groups*tc.size || cycles != tc.groups {
				b.Fatalf("bound %d pods in %d cycles, want %d in %d", bound, cycles, tc.groups*tc.size, tc.groups)
			}
			// The machine is shared, so the ratio uses the fastest of the
			// iterations for both the cycle and the floor, each floor pass
			// timed right after a drain.
			var ms0, ms1 runtime.MemStats
			var mallocs, bytes uint64
			bestDrain, bestFloor := time.Duration(1<<62), time.Duration(1<<62)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				s, _ := benchScheduler(b, tc.groups, tc.size)
				runtime.ReadMemStats(&ms0)
				start := time.Now()
				b.StartTimer()
				drain(s, snap)
				b.StopTimer()
				bestDrain = min(bestDrain, time.Since(start))
				runtime.ReadMemStats(&ms1)
				mallocs += ms1.Mallocs - ms0.Mallocs
				bytes += ms1.TotalAlloc - ms0.TotalAlloc
				start = time.Now()
				sink += floor(snap, pods)
				bestFloor = min(bestFloor, time.Since(start))
				b.StartTimer()
			}
			n := float64(b.N * tc.groups)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/group")
			b.ReportMetric(float64(mallocs)/n, "allocs/group")
			b.ReportMetric(float64(bytes)/n, "B/group")
			b.ReportMetric(float64(bestFloor.Nanoseconds())/float64(tc.groups), "floor-ns/group")
			b.ReportMetric(float64(bestDrain)/float64(bestFloor), "x-floor")
		})
	}
}
