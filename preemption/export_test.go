package preemption

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
