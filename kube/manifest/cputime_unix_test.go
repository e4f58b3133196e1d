//go:build unix

package manifest

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, every thread's (the
// garbage collector's included): on a shared machine it varies far less
// than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
