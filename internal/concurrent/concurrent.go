// Package concurrent checks, in tests, that a decision made on several
// goroutines at once is the one made alone: the solvers pool their scratch
// memory, so a case solved while others run must still answer as it did
// by itself (run the callers with -race too).
package concurrent

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// Goroutines is how many goroutines [Same] solves on.
const Goroutines = 4

// TB is the part of testing.TB that [Same] reports through.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Same calls get(i) for every case i of want on [Goroutines] goroutines,
// each in its own fixed pseudo-random order (the same on every run), and
// fails t with the first case, goroutine, answer and want[i] of each answer
// that differs from want[i]. get must be safe to call concurrently; its
// answer is a rendering of the decision (and error) in full.
func Same(t TB, want []string, get func(i int) string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, Goroutines*len(want))
	for w := range Goroutines {
		wg.Go(func() {
			for _, i := range rand.New(rand.NewPCG(uint64(w), 7)).Perm(len(want)) {
				if got := get(i); got != want[i] {
					errs <- fmt.Sprintf("case %d on goroutine %d:\ngot  %s\nwant %s", i, w, got, want[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
