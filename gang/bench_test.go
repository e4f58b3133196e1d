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
// (x-floor). One op is a whole drain of the queue.
func BenchmarkCycle(b *testing.B) {
	snap := benchSnapshot(b)
	for _, tc := range []struct{ groups, size int }{{1000, 3}, {3, 1000}} {
		b.Run(fmt.Sprintf("gangs=%dx%dpods", tc.groups, tc.size), func(b *testing.B) {
			s, pods := benchScheduler(b, tc.groups, tc.size)
			// The result must be non-trivial: every gang placed whole.
			if bound, cycles := drain(s, snap); bound != tc.groups*tc.size || cycles != tc.groups {
				b.Fatalf("bound %d pods in %d cycles, want %d in %d", bound, cycles, tc.groups*tc.size, tc.groups)
			}
			floorNs := measure(func() { sink += floor(snap, pods) }) / float64(tc.groups)

			var ms0, ms1 runtime.MemStats
			var mallocs, bytes uint64
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				s, _ := benchScheduler(b, tc.groups, tc.size)
				runtime.ReadMemStats(&ms0)
				b.StartTimer()
				drain(s, snap)
				b.StopTimer()
				runtime.ReadMemStats(&ms1)
				mallocs += ms1.Mallocs - ms0.Mallocs
				bytes += ms1.TotalAlloc - ms0.TotalAlloc
				b.StartTimer()
			}
			n := float64(b.N * tc.groups)
			perGroup := float64(b.Elapsed().Nanoseconds()) / n
			b.ReportMetric(perGroup, "ns/group")
			b.ReportMetric(float64(mallocs)/n, "allocs/group")
			b.ReportMetric(float64(bytes)/n, "B/group")
			b.ReportMetric(floorNs, "floor-ns/group")
			b.ReportMetric(perGroup/floorNs, "x-floor")
		})
	}
}

// measure returns the mean wall time of f in ns over at least 100 ms. It
// times the floor inside the benchmark's own run, so that both figures come
// from the same machine state.
func measure(f func()) float64 {
	var n int
	start := time.Now()
	for n == 0 || time.Since(start) < 100*time.Millisecond {
		f()
		n++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}
