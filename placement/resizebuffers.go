package placement

import "github.com/gangsched/gangsched/internal/buffers"

// ResizeBuffers is memory a caller keeps between [SolveResize] calls
// ([Resize].Buffers) so that a resize's answer reuses it rather than
// being allocated each call, as an elastic controller that resizes its
// sets again and again would keep it: a growth's
// Decision.PodSetAssignments (the delta, one entry per node it uses) and
// the Resized.Assignments of a growth, a shrink or a resize that keeps a
// copy of the reservation (the set per node after it) are carved from
// it, and the message of a scheduled growth or of a kept count, when it
// equals the last such message made with it, is that string again. The
// answer's rows, each with two strings, cost as much to allocate and
// collect as placing the delta, or more: a growth of 2,048 pods on 1,000
// hosts took 30 µs, 7.8 µs with buffers (BENCHMARKS.md, "Elastic
// deltas"); with ResizeBuffers a growth that repeats allocates nothing.
//
// The slices of a Resized made with ResizeBuffers — grown or not — are
// overwritten by the next SolveResize with the same ResizeBuffers,
// whatever it decides: copy what you keep past it. A snapshot that
// reserves the answer ([Change].Reserve) keeps a copy of its own, and
// the last answer's Assignments may be passed back as the next call's
// Existing: SolveResize reads Existing before it writes the answer.
// Resized.Removed, the Decision's other slices, the message of a set
// that cannot grow and a Decision returned by Resize.Grow are allocated
// as without buffers. The zero value is ready to use; one ResizeBuffers
// serves one call at a time.
type ResizeBuffers struct {
	delta []PodSetAssignment
	grown []PodSetAssignment
	last  string
}

// rows returns n entries of b's grown set, each field of which the
// caller writes; without b, new memory.
func (b *ResizeBuffers) rows(n int) []PodSetAssignment {
	if b == nil {
		return make([]PodSetAssignment, n)
	}
	return buffers.Overwrite(&b.grown, n)[:n]
}

// message returns msg as a string: the last one b returned when they are
// equal (the comparison allocates nothing), else a new string, kept;
// without b, a new string.
func (b *ResizeBuffers) message(msg []byte) string {
	if b == nil {
		return string(msg)
	}
	if string(msg) != b.last {
		b.last = string(msg)
	}
	return b.last
}
