package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/internal/testmanifests"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// benchInput reads one ClusterQueue's share of Kueue's TAS performance
// workload (500 Jobs, 1,500 pods) on its 640-node topology.
func benchInput(b *testing.B) []manifest.Object {
	objs, err := manifest.Read([]string{td + "kueue-tas/perf-nodes.yaml", td + "kueue-tas/perf-workloads-one-queue.yaml"}, nil, manifest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return objs
}

// BenchmarkFloorKueuePerf is the floor of the runs below: one plain pass
// that touches every node and every pending member once.
func BenchmarkFloorKueuePerf(b *testing.B) {
	c, err := kube.Load(benchInput(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var sink int64
	for b.Loop() {
		for i := range c.Nodes {
			sink += c.Nodes[i].Allocatable[placement.ResourceCPU]
		}
		for i := range c.Pending {
			sink += c.Pending[i].Requests[placement.ResourceCPU]
		}
	}
	if sink == 0 {
		b.Fatal("empty input")
	}
}

// BenchmarkLoadKueuePerf converts the decoded objects (Nodes, Jobs stamped
// with their Workloads, PodGroups and pods) and builds the snapshot.
func BenchmarkLoadKueuePerf(b *testing.B) {
	objs := benchInput(b)
	b.ReportAllocs()
	for b.Loop() {
		c, err := kube.Load(objs)
		if err != nil || len(c.Pending) != 1500 {
			b.Fatalf("load: %v, %d pending", err, len(c.Pending))
		}
	}
}

// BenchmarkSimulateKueuePerf runs every cycle (500 PodGroups, each bound
// in one cycle) on a loaded cluster.
func BenchmarkSimulateKueuePerf(b *testing.B) {
	benchSimulate(b, benchInput(b), func(s Summary) bool { return s.PodsBound == 1500 })
}

// benchSimulate times simulate running every cycle, with preemption, on
// a fresh kube.Load of objs per op (loaded outside the timer); each run's
// summary must pass ok.
func benchSimulate(b *testing.B, objs []manifest.Object, ok func(Summary) bool) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		c, err := kube.Load(objs)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := simulate(c, options{maxCycles: 1 << 30, preemption: true})
		if err != nil || !ok(rep.Summary) {
			b.Fatalf("simulate: %v, %d bound in %d cycles", err, rep.Summary.PodsBound, rep.Summary.Cycles)
		}
	}
}

// BenchmarkDecodeKueuePerf is the manifest reader on the same files
// (450 KB of YAML, 1,143 documents).
func BenchmarkDecodeKueuePerf(b *testing.B) {
	files := []string{td + "kueue-tas/perf-nodes.yaml", td + "kueue-tas/perf-workloads-one-queue.yaml"}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		objs, err := manifest.Read(files, nil, manifest.Options{})
		if err != nil || len(objs) != 640+503 {
			b.Fatalf("read: %v, %d objects", err, len(objs))
		}
	}
}

// BenchmarkGangsimKueueSetAside is gangsim as run on the command line,
// `gangsim -f world.yaml -o yaml` (decode, load, every admission cycle,
// the YAML written), on testmanifests.SetAside over 10 blocks (1,000 hosts)
// with w pending Workloads, half of which keep room every cycle they head
// and never fit: the failure-heaviest Kueue world, each failure worded as
// Kueue's. One op is seconds at w=8000: run it with -benchtime 1x.
func BenchmarkGangsimKueueSetAside(b *testing.B) {
	for _, w := range []int{1000, 4000, 8000} {
		b.Run(fmt.Sprintf("w=%d", w), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "world.yaml")
			if err := os.WriteFile(file, []byte(testmanifests.SetAside(10, w)), 0o644); err != nil {
				b.Fatal(err)
			}
			var out, errb strings.Builder
			// Exit status 3: the even Workloads wait.
			if code := run([]string{"-f", file}, strings.NewReader(""), &out, &errb, false); code != 3 {
				b.Fatalf("exit %d: %s", code, errb.String())
			}
			if want := fmt.Sprintf("Kueue Workloads: %d admitted, %d waiting", w/2, w-w/2); !strings.Contains(out.String(), want) {
				b.Fatalf("want %q in the summary:\n%s", want, out.String()[max(0, out.Len()-300):])
			}
			cputime.Loop(b, func() {
				if code := run([]string{"-f", file, "-o", "yaml"}, strings.NewReader(""), io.Discard, io.Discard, false); code != 3 {
					b.Fatalf("exit %d", code)
				}
			})
		})
	}
}

// BenchmarkGangsimKueueManyClusterQueues is gangsim over
// [testmanifests.ManyClusterQueues]: every cycle has a head per
// ClusterQueue of one cohort, and what each head reads of the cohort
// (its height, its usage) must not grow with the cohort's size.
func BenchmarkGangsimKueueManyClusterQueues(b *testing.B) {
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprintf("cq=%d", n), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "world.yaml")
			if err := os.WriteFile(file, []byte(testmanifests.ManyClusterQueues(n)), 0o644); err != nil {
				b.Fatal(err)
			}
			var out, errb strings.Builder
			// Exit status 3: the cohort's quota holds half the Workloads.
			if code := run([]string{"-f", file}, strings.NewReader(""), &out, &errb, false); code != 3 {
				b.Fatalf("exit %d: %s", code, errb.String())
			}
			if want := fmt.Sprintf("Kueue Workloads: %d admitted, %d waiting", n/2, n-n/2); !strings.Contains(out.String(), want) {
				b.Fatalf("want %q in the summary:\n%s", want, out.String()[max(0, out.Len()-300):])
			}
			cputime.Loop(b, func() {
				if code := run([]string{"-f", file, "-o", "yaml"}, strings.NewReader(""), io.Discard, io.Discard, false); code != 3 {
					b.Fatalf("exit %d", code)
				}
			})
		})
	}
}
