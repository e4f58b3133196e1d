package preemption

import "fmt"

// Limit says why a [Plan] is not proven: which bound of the search
// stopped it, or, for a solve, that the solver could not prove a failure.
// When several apply, it is the first the search met.
type Limit int

// Limits of [Find]'s search.
const (
	// NoLimit: nothing stopped the search. A Preempt or CannotHelp plan
	// is then proven (see Plan.Proven); Fits and NotAllowed plans prove
	// nothing and say NoLimit.
	NoLimit Limit = iota
	// LimitUnits: a placement had more than [MaxExactUnits] candidate
	// victim units, so the heuristic chose its victims.
	LimitUnits
	// LimitBudget: the caller's budget (Options.Budget, in solver steps)
	// ran out during the exact search; see Plan.Steps.
	LimitBudget
	// LimitSolves: the exact search reached [MaxExactSolves] solves.
	LimitSolves
	// LimitUnprovenSolve: a solve that failed was not proven
	// (placement.Decision.Proven false: the solver's search budget ran
	// out, or a hook's rejection was cut short), so a cheaper set might
	// have fit.
	LimitUnprovenSolve
)

// String returns the limit's name, e.g. "MaxExactUnits", or "Limit(n)"
// for a value outside the constants.
func (l Limit) String() string {
	switch l {
	case NoLimit:
		return "None"
	case LimitUnits:
		return "MaxExactUnits"
	case LimitBudget:
		return "Budget"
	case LimitSolves:
		return "MaxExactSolves"
	case LimitUnprovenSolve:
		return "UnprovenSolve"
	}
	return fmt.Sprintf("Limit(%d)", int(l))
}

// limitBy records l as the reason the plan is not proven, unless one was
// met before.
func (f *finder) limitBy(l Limit) {
	if f.limit == NoLimit {
		f.limit = l
	}
}
