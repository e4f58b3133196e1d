//go:build !unix

package cputime

import "time"

// Used is not measured on this platform: it always returns false.
func Used() (time.Duration, bool) { return 0, false }
