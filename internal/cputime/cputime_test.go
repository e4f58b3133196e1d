package cputime_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gangsched/gangsched/internal/cputime"
)

// TestUsed_GrowsWithWork: a busy loop shows as CPU time where the platform
// measures it.
func TestUsed_GrowsWithWork(t *testing.T) {
	before, ok := cputime.Used()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("Used reports no CPU time on linux")
		}
		t.Skip("CPU time is not measured on " + runtime.GOOS)
	}
	x := 0
	for i := range 50_000_000 {
		x ^= i
	}
	after, _ := cputime.Used()
	if after <= before {
		t.Fatalf("CPU time did not grow: %v then %v (x=%d)", before, after, x)
	}
}

func ExampleLoop() {
	r := testing.Benchmark(func(b *testing.B) {
		cputime.Loop(b, func() { _ = strings.Repeat("x", 64) })
	})
	_, measured := r.Extra["cpu-ns/op"]
	fmt.Println(r.N > 0, measured || runtime.GOOS == "windows")
	// Output: true true
}
