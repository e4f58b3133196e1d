package concurrent_test

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/concurrent"
)

// fakeTB records what Same reports instead of failing the test.
type fakeTB struct{ fatal []string }

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Fatal(args ...any) { f.fatal = append(f.fatal, fmt.Sprint(args...)) }

func TestSame_AnswersAlikePass(t *testing.T) {
	var calls atomic.Int64
	var f fakeTB
	concurrent.Same(&f, []string{"0", "1", "2"}, func(i int) string { calls.Add(1); return strconv.Itoa(i) })
	require.Empty(t, f.fatal)
	require.Equal(t, int64(3*concurrent.Goroutines), calls.Load(), "every case on every goroutine")
}

func TestSame_ADifferentAnswerFails(t *testing.T) {
	var f fakeTB
	concurrent.Same(&f, []string{"0", "1", "2"}, func(i int) string {
		if i == 1 {
			return "x"
		}
		return strconv.Itoa(i)
	})
	require.Len(t, f.fatal, concurrent.Goroutines, "case 1 fails once per goroutine")
	require.Contains(t, f.fatal[0], "case 1 on goroutine")
	require.Contains(t, f.fatal[0], "got  x\nwant 1")
}

// A solver whose pooled memory leaked between calls would answer a case
// differently while others run; a pure one passes.
func ExampleSame() {
	square := func(i int) string { return strconv.Itoa(i * i) }
	want := []string{"0", "1", "4", "9"}
	var f fakeTB
	concurrent.Same(&f, want, square)
	fmt.Println(len(f.fatal), "differences")
	// Output: 0 differences
}
