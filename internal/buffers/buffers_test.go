package buffers_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/buffers"
)

func TestTake(t *testing.T) {
	fresh := buffers.Take[int](nil, 3)
	require.Empty(t, fresh)
	require.Equal(t, 3, cap(fresh))

	var kept []int
	a := append(buffers.Take(&kept, 4), 1, 2, 3, 4)
	require.Equal(t, 4, cap(kept), "kept grows to n")
	b := buffers.Take(&kept, 2)
	require.Equal(t, &a[0], &b[:1][0], "the same memory again")
	require.Equal(t, []int{0, 0}, b[:2], "zeroed")
	c := buffers.Take(&kept, 8)
	require.Empty(t, c)
	require.GreaterOrEqual(t, cap(c), 8)
	c = append(c, 9)
	require.Equal(t, []int{0, 0, 3, 4}, a, "a larger take is new memory: the old is left as the last take left it")
}

func TestOverwrite(t *testing.T) {
	fresh := buffers.Overwrite[int](nil, 3)
	require.Empty(t, fresh)
	require.Equal(t, 3, cap(fresh))
	var kept []int
	a := append(buffers.Overwrite(&kept, 4), 1, 2, 3, 4)
	require.Equal(t, 4, cap(kept), "kept grows to n")
	b := buffers.Overwrite(&kept, 2)
	require.Equal(t, &a[0], &b[:1][0], "the same memory again")
	require.Equal(t, []int{1, 2}, b[:2], "not zeroed: the caller writes every entry")
}

// A caller keeps one slice; each call carves its answer from it.
func ExampleTake() {
	var kept []string
	for _, n := range []int{3, 2} {
		s := buffers.Take(&kept, n)
		for i := range n {
			s = append(s, string(rune('a'+i)))
		}
		fmt.Println(s, cap(kept))
	}
	// Output:
	// [a b c] 3
	// [a b] 3
}
