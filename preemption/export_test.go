package preemption

import "github.com/gangsched/gangsched/placement"

// ValidateInput is Input's full check, for tests of the order in which Find
// reports errors.
func ValidateInput(in *Input) error { return in.validate() }

// JoinedGroups is the number of PodGroup summaries the Index has joined
// (0: none), for tests that the warm path is exercised.
func (x *Index) JoinedGroups() int {
	if j := x.join.Load(); j != nil {
		return len(j.e)
	}
	return 0
}

// FindBelow is Find with collectBelow's limit set to below (negative:
// candidates from collect's pass over every group only).
func FindBelow(s *placement.Snapshot, g *placement.Group, in Input, opts placement.Options, below int) (Plan, error) {
	return find(s, g, &in, nil, opts, below)
}

// FindBelow is Index.Find with collectBelow's limit set to below, as
// [FindBelow].
func (x *Index) FindBelow(s *placement.Snapshot, g *placement.Group, opts placement.Options, below int) (Plan, error) {
	return find(s, g, &x.in, x, opts, below)
}
