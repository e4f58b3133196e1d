package arith

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// MulDiv agrees with exact big-integer arithmetic on its whole domain.
func TestProp_MulDivExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.Int64Range(1, math.MaxInt64).Draw(t, "c")
		a := rapid.Int64Range(0, c).Draw(t, "a")
		b := rapid.Int64Range(0, math.MaxInt64).Draw(t, "b")
		want := new(big.Int).Div(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)), big.NewInt(c))
		if got := MulDiv(a, b, c); got != want.Int64() {
			t.Fatalf("MulDiv(%d, %d, %d) = %d, want %s", a, b, c, got, want)
		}
	})
}

func TestSatAdd(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{1, 2, 3}, {math.MaxInt64, 1, math.MaxInt64}, {math.MaxInt64 - 1, 1, math.MaxInt64}, {0, 0, 0},
	} {
		if got := SatAdd(tc.a, tc.b); got != tc.want {
			t.Errorf("SatAdd(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
