//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Used is the CPU time, user and system, that every thread of the process
// has used so far; false when the system would not say.
func Used() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
