//go:build !unix

package preemption_test

import "time"

// cpuTime is not measured here: benchmarks then report no cpu-ns/op.
func cpuTime() (time.Duration, bool) { return 0, false }
