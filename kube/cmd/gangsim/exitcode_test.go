package main

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// The exit codes are distinct, and none is 2, the Go runtime's code for a
// fatal error or an unrecovered panic.
func TestExitCodes_Distinct(t *testing.T) {
	codes := []int{exitPlaced, exitInput, exitWaiting, exitPanic}
	seen := map[int]bool{}
	for _, c := range codes {
		require.NotEqual(t, 2, c)
		require.False(t, seen[c], "code %d used twice", c)
		seen[c] = true
	}
}

// guard passes f's code through, and turns a panic into exitPanic with the
// value and the stack on stderr.
func TestGuard(t *testing.T) {
	var errb bytes.Buffer
	require.Equal(t, exitWaiting, guard(&errb, func() int { return exitWaiting }))
	require.Empty(t, errb.String())

	code := guard(&errb, func() int {
		var m map[string]int
		m["x"] = 1 // a nil map write: a runtime panic, as a bug would cause
		return exitPlaced
	})
	require.Equal(t, exitPanic, code)
	require.Contains(t, errb.String(), "gangsim: internal error (a bug, please report it with the input): panic: assignment to entry in nil map\n")
	require.Contains(t, errb.String(), "goroutine ")
	require.Contains(t, errb.String(), "TestGuard", "the stack names the frame that panicked")
}

// A panic in the real process exits with exitPanic, not the runtime's 2,
// and writes nothing on stdout.
func TestExitCodes_PanicSubprocess(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	c := exec.Command(exe)
	c.Env = append(os.Environ(), "GANGSIM_RUN_MAIN=panic")
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err = c.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, exitPanic, ee.ExitCode())
	require.Empty(t, o.String())
	require.Contains(t, e.String(), "panic: injected for the test\n")
	require.Contains(t, e.String(), "goroutine ")
}
