package preemption

// ValidateInput is Input's full check, for tests of the order in which Find
// reports errors.
func ValidateInput(in *Input) error { return in.validate() }
