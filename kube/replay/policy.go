package replay

import (
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// Policy is a way of choosing nodes inside a placement, as a change to the
// solver options of each cycle: a built-in node scoring of
// [placement.NodeScoring], or a scorer of the caller's own.
//
//	my := replay.Policy{Name: "mine", Configure: func(o placement.Options) placement.Options {
//		o.NodeScoring = placement.UpstreamNodeScoring()
//		return o
//	}}
type Policy struct {
	// Name identifies the policy in results and on the command line.
	Name string
	// Description is one line for a usage message.
	Description string
	// Configure returns the options a cycle solves with, given those the
	// scheduler and Options.SolveOptions made; nil keeps them.
	Configure func(placement.Options) placement.Options
	// Start, if set, begins the policy's state for one replay of in (a
	// copy the policy must not change): Run calls it once, before the
	// first cycle, and keeps the [Session] in step with every bind and
	// every end. A policy without Start is stateless. Errors stop Run.
	Start func(in Input) (*Session, error)
}

// policies is the one table of the built-in policies, by name. Add a
// policy here and every replay front end (gangsim -policy, Compare) knows
// it. The FGD paper's policies are in gpushare.go.
var policies = append([]Policy{
	{Name: "packing", Description: "gangsched's default: the most allocated node, which keeps room together",
		Configure: func(o placement.Options) placement.Options { o.NodeScoring = placement.NodeScoring{}; return o }},
	{Name: "upstream", Description: "kube-scheduler's default profile: LeastAllocated plus BalancedAllocation, which spreads",
		Configure: func(o placement.Options) placement.Options { o.NodeScoring = placement.UpstreamNodeScoring(); return o }},
}, gpuSharePolicies...)

// Policies returns the built-in policies, by name.
func Policies() []Policy {
	out := slices.Clone(policies)
	slices.SortFunc(out, func(a, b Policy) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupPolicy returns the built-in policy called name.
func LookupPolicy(name string) (Policy, bool) {
	for _, p := range policies {
		if p.Name == name {
			return p, true
		}
	}
	return Policy{}, false
}
