package placement

// ViewForgetter is an optional ability of a [PlacementGenerator] or a
// [PlacementScorer]: ForgetsViews reports that the hook keeps nothing of
// the [GroupView] it is handed once each call returns — neither the view
// nor its Group, nor anything read through them. When a Solve's generator
// and scorer (those it has) both forget them, and it has no Reservers or
// PlacementFilters, Solve hands them views of memory that later solves
// reuse, where it allocates what a hook might keep (the compiled members
// and the copy of the group: some 700 bytes a decision, a third of what a
// small topology-constrained decision allocates). A wrapper answers for
// what it wraps. topology's Generator and Scorer forget them.
type ViewForgetter interface {
	ForgetsViews() bool
}

// forgetsViews reports whether hook h (nil: none) keeps nothing of its
// views (see ViewForgetter).
func forgetsViews(h any) bool {
	if h == nil {
		return true
	}
	f, ok := h.(ViewForgetter)
	return ok && f.ForgetsViews()
}
