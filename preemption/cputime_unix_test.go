//go:build unix

package preemption_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, every thread (the
// garbage collector's included). On a machine shared with other work,
// the CPU time a benchmark spends varies far less than its wall time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
