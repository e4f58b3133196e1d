// Package cputime measures the CPU time the process has used, for the
// benchmarks of every package: on a machine shared with other work the CPU
// time an operation spends varies far less than its wall time, so
// BENCHMARKS.md quotes cpu-ns/op.
package cputime

import "testing"

// Loop runs run in b.Loop, reporting allocations and the process's CPU
// time per op as cpu-ns/op (every thread's, the garbage collector's
// included; not reported where Used cannot measure it).
func Loop(b *testing.B, run func()) {
	b.ReportAllocs()
	cpu0, ok0 := Used()
	for b.Loop() {
		run()
	}
	if cpu1, ok := Used(); ok && ok0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}
