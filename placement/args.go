package placement

import "fmt"

// checkArgs rejects the nil values a caller can hand Solve or Verify —
// a nil or zero snapshot, a nil group, a nil hook or a nil …Func adapter —
// which would otherwise panic deep inside a solve.
func checkArgs(fn string, s *Snapshot, g *Group, opts *Options, filters []Filter) error {
	switch {
	case s == nil:
		return Errorf(ErrInvalid, fn, "snapshot", "must not be nil")
	case s.b == nil:
		return Errorf(ErrInvalid, fn, "snapshot", "is the zero Snapshot: build one with NewSnapshot")
	case g == nil:
		return Errorf(ErrInvalid, fn, "group", "must not be nil")
	}
	for i, f := range filters {
		if nilHook(f) {
			return Errorf(ErrInvalid, groupObj(g), fmt.Sprintf("filters[%d]", i), "must not be nil")
		}
	}
	if opts == nil {
		return nil
	}
	switch {
	case opts.Budget < 0:
		return Errorf(ErrInvalid, groupObj(g), "Options.Budget", "%d is negative (0 means DefaultBudget)", opts.Budget)
	case opts.SearchBudget < 0:
		return Errorf(ErrInvalid, groupObj(g), "Options.SearchBudget", "%d is negative (0 means DefaultSearchBudget)", opts.SearchBudget)
	}
	for i, f := range opts.Filters {
		if nilHook(f) {
			return Errorf(ErrInvalid, groupObj(g), fmt.Sprintf("Options.Filters[%d]", i), "must not be nil")
		}
	}
	for i, f := range opts.Reservers {
		if f == nil {
			return Errorf(ErrInvalid, groupObj(g), fmt.Sprintf("Options.Reservers[%d]", i), "must not be nil")
		}
	}
	for i, f := range opts.PlacementFilters {
		if nilHook(f) {
			return Errorf(ErrInvalid, groupObj(g), fmt.Sprintf("Options.PlacementFilters[%d]", i), "must not be nil")
		}
	}
	// A nil Generator or Scorer means the default; a nil function wrapped
	// in an adapter is a mistake.
	if opts.Generator != nil && nilHook(opts.Generator) {
		return Errorf(ErrInvalid, groupObj(g), "Options.Generator", "is a nil PlacementGeneratorFunc")
	}
	if opts.NodeScorer != nil && nilHook(opts.NodeScorer) {
		return Errorf(ErrInvalid, groupObj(g), "Options.NodeScorer", "is a nil NodeScorerFunc")
	}
	if opts.Scorer != nil && nilHook(opts.Scorer) {
		return Errorf(ErrInvalid, groupObj(g), "Options.Scorer", "is a nil PlacementScorerFunc")
	}
	return nil
}

// nilHook reports whether h is nil or one of this package's …Func
// adapters holding a nil function.
func nilHook(h any) bool {
	switch f := h.(type) {
	case nil:
		return true
	case FilterFunc:
		return f == nil
	case PlacementFilterFunc:
		return f == nil
	case PlacementGeneratorFunc:
		return f == nil
	case PlacementScorerFunc:
		return f == nil
	case NodeScorerFunc:
		return f == nil
	}
	return false
}
