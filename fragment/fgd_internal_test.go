package fragment

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_QuantiseIsTruncatedSigmoid: FGD's integer quantisation of a
// decrease equals the artifact's int64(100·sigmoid(x)) in floats, away
// from the steps (where a float's last bit may fall either way).
func TestProp_QuantiseIsTruncatedSigmoid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := rapid.Int64Range(1, 1_000_000).Draw(t, "total")
		d := rapid.Int64Range(-64_000*total, 64_000*total).Draw(t, "d")
		x := float64(d) / float64(total) / 1000
		for k := 1; k < 100; k++ {
			if math.Abs(x-math.Log(float64(k)/float64(100-k))) < 1e-5 {
				t.Skip("on a step")
			}
		}
		p := &FGD{w: &Workload{total: total}}
		want := min(int64(100/(1+math.Exp(-x))), 99)
		if got := p.quantise(d); got != want {
			t.Fatalf("quantise(%d) with %d pods = %d, want %d (x = %g)", d, total, got, want, x)
		}
	})
}
