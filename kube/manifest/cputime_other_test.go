//go:build !unix

package manifest

import "time"

// cpuTime is not measured here: cpu-ns/doc reads 0.
func cpuTime() time.Duration { return 0 }
