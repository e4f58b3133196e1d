// Package arith holds the overflow-safe integer arithmetic that the
// solver and the topology scorer share, so that their scores agree to the
// unit (topology's aggregate-based MostAllocated must equal
// placement.DefaultScorer's).
package arith

import (
	"math"
	"math/bits"
)

// MulDiv returns a*b/c, rounded down, for 0 <= a <= c: a share of b. It
// saturates at b when a >= c and is 0 when a <= 0 or c <= 0; the product
// is computed in 128 bits, so it never overflows.
func MulDiv(a, b, c int64) int64 {
	if c <= 0 || a <= 0 {
		return 0
	}
	if a >= c {
		return b
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// SatAdd returns a+b for a, b >= 0, or math.MaxInt64 when that overflows
// (a node without a pods limit has math.MaxInt64 of it).
func SatAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// MulSat returns a*b for a, b >= 0, or math.MaxInt64 when that overflows:
// a request times the number of pods that make it.
func MulSat(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}
