//go:build !unix

package bench_test

import "time"

// cpuTime is not measured here: benchmarks report wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
