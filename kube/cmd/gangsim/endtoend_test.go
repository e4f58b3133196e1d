package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/internal/testmanifests"
	"github.com/gangsched/gangsched/kube/manifest"
)

// e2eSet is a manifest set of BenchmarkEndToEnd: files as gangsim reads
// them, with the counts a run must reach.
type e2eSet struct {
	name  string
	files []string
	docs  int // documents (objects) read
	bound int // pods the run binds (those bound already not counted)
}

// e2eSets are Lingjun's 847 GPU hosts with its seven training Jobs, one
// ClusterQueue's share of Kueue's TAS perf workload on its 640 nodes, and
// a generated set of 10,000 nodes and 100,000 pods ([generatedSet]).
func e2eSets(tb testing.TB) []e2eSet {
	return []e2eSet{
		{"lingjun", []string{td + "clusters/lingjun/nodes.yaml", td + "workloads/lingjun-training.yaml"}, 847 + 7, 48},
		{"kueue-perf", []string{td + "kueue-tas/perf-nodes.yaml", td + "kueue-tas/perf-workloads-one-queue.yaml"}, 640 + 503, 1500},
		{"n=10000/pods=100000", generatedSet(tb), 10000 + generatedGangs + generatedBound + generatedGangs*generatedGangSize, generatedGangs * generatedGangSize},
	}
}

// The generated set: scheduler_perf's nodes (cpu 4, 32Gi, 110 pods;
// racks of 100), generatedBound pods of cpu 100m and 100Mi already bound,
// ten to a node, and generatedGangs PodGroups of generatedGangSize pending
// pods that require a rack: 100,000 pods, 110,500 documents.
const generatedBound, generatedGangs, generatedGangSize = 96_000, 500, 8

var generated struct {
	once sync.Once
	dir  string
	err  error
}

// generatedSet writes the generated set's two files once per process and
// returns their paths.
func generatedSet(tb testing.TB) []string {
	generated.once.Do(func() {
		if generated.dir, generated.err = os.MkdirTemp("", "gangsim-e2e-"); generated.err != nil {
			return
		}
		var pods strings.Builder
		for i := range generatedBound {
			fmt.Fprintf(&pods, `---
apiVersion: v1
kind: Pod
metadata:
  name: bound-%d
  namespace: perf
spec:
  nodeName: node-%d
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.10.1
    resources:
      requests: {cpu: 100m, memory: 100Mi}
`, i, i/10)
		}
		pods.WriteString(testmanifests.PerfWorkload("perf", "e2e", generatedGangs, generatedGangSize, "topology.kubernetes.io/rack"))
		for name, data := range map[string]string{"nodes.yaml": testmanifests.PerfNodes(10000, 100), "pods.yaml": pods.String()} {
			if generated.err = os.WriteFile(filepath.Join(generated.dir, name), []byte(data), 0o644); generated.err != nil {
				return
			}
		}
	})
	if generated.err != nil {
		tb.Fatal(generated.err)
	}
	return []string{filepath.Join(generated.dir, "nodes.yaml"), filepath.Join(generated.dir, "pods.yaml")}
}

// BenchmarkEndToEnd is gangsim on each set, in its three parts, each timed
// alone: decode (manifest.Read of the files; decode-json of the same
// manifests converted to JSON streams first), convert (kube.Load of the
// objects into the cluster and its snapshot) and schedule (every cycle
// until nothing changes, with preemption, as gangsim runs by default). Each
// reports its CPU time per op (cpu-ns/op); decode also per document.
// The generated set takes about a minute of CPU for one op of each part:
// run it with -benchtime 1x.
func BenchmarkEndToEnd(b *testing.B) {
	for _, set := range e2eSets(b) {
		read := func(files []string) []manifest.Object {
			objs, err := manifest.Read(files, nil, manifest.Options{})
			if err != nil || len(objs) != set.docs {
				b.Fatalf("%s: read %d objects (%v), want %d", set.name, len(objs), err, set.docs)
			}
			return objs
		}
		load := func(objs []manifest.Object) *kube.Cluster {
			c, err := kube.Load(objs)
			if err != nil {
				b.Fatal(err)
			}
			return c
		}
		var objs []manifest.Object
		b.Run(set.name+"/decode", func(b *testing.B) {
			cpuLoop(b, func() any { return nil }, func(any) { objs = read(set.files) })
			b.ReportMetric(float64(len(objs)), "docs")
		})
		b.Run(set.name+"/decode-json", func(b *testing.B) {
			dir := b.TempDir()
			var files []string
			for i, f := range set.files {
				files = append(files, asJSON(b, dir, i, f, false))
			}
			cpuLoop(b, func() any { return nil }, func(any) { read(files) })
		})
		if objs == nil {
			objs = read(set.files)
		}
		b.Run(set.name+"/convert", func(b *testing.B) {
			cpuLoop(b, func() any { return nil }, func(any) { load(objs) })
		})
		b.Run(set.name+"/schedule", func(b *testing.B) {
			var bound int
			cpuLoop(b, func() any { return load(objs) }, func(c any) {
				rep, err := simulate(c.(*kube.Cluster), options{maxCycles: 1 << 30, preemption: true})
				if err != nil {
					b.Fatal(err)
				}
				bound = rep.Summary.PodsBound
			})
			if bound != set.bound {
				b.Fatalf("%s: %d pods bound, want %d", set.name, bound, set.bound)
			}
			b.ReportMetric(float64(bound), "bound")
		})
	}
}

// cpuLoop times run on what prepare returns, prepare outside the timer,
// reporting allocations and the process's CPU time per op of run alone
// (cpu-ns/op), the figure that stays steady on a shared machine.
func cpuLoop(b *testing.B, prepare func() any, run func(any)) {
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		in := prepare()
		b.StartTimer()
		cpu0, _ := cputime.Used()
		run(in)
		cpu1, _ := cputime.Used()
		cpu += cpu1 - cpu0
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
