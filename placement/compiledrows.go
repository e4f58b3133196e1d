package placement

// compiledRows are a group's members' request rows as Solve's compile
// gives them (each tracked resource's request, the pod count 1), read
// from their maps by a caller that reads them anyway: the hierarchy
// search does, to bound each leaf's need (hnode.leafRows), and hands them
// to the leaf's Solve so that it does not read every member's map again.
// They stand only for members whose maps compile cleanly — tracked
// resources alone, none negative nor the pod count, a name, valid
// ScoreRequests — so that compile would accept each and find nothing
// untracked; for any other group the caller passes none and Solve reads
// the maps (and reports what is wrong) as usual. Pod-set templates are
// always compiled by Solve: for a group of pod sets alone the caller may
// pass no rows, only own. TestHierarchy_PropCompiledRowsAreCompile
// holds the rows to compile's.
type compiledRows struct {
	rows    []int64 // R per member in g.Members order, or one row for all when uniform
	uniform bool
	// alike: uniform, and every member picks the same nodes apart from
	// its requests (alikeBesidesRequests): the members are one class, so
	// that Solve compiles the first alone.
	alike bool
	// ascending: the members' names ascend (hnode.sorted), which
	// validate then need not check again.
	ascending bool
	// own, when set, is the memory the Solve hands its hooks (see
	// hookOwned), lent by a caller none of whose hooks can keep it past
	// the Solve: the hierarchy's, when opts carries none of the caller's
	// (its leaf Generator ignores the GroupView).
	own *hookOwned
	// answer, when set, is an arena a Decision's member assignments are
	// carved from (in order, each capped so that an append reallocates)
	// while it has room: the hierarchy's, one array for the whole tree,
	// allocated for its solve and never reused (the decisions keep it),
	// so that the entries past its length are zero.
	answer *[]Assignment
	// resize, when set, is the caller's [ResizeBuffers] a resize's delta
	// Solve writes its answer into: the Decision's PodSetAssignments
	// (every field of each entry written, so not zeroed first) and, when
	// the message equals the last one kept there, that string.
	resize *ResizeBuffers
}

// of returns member i's row of R.
func (c *compiledRows) of(i, R int) []int64 {
	if c.uniform {
		return c.rows[:R]
	}
	return c.rows[i*R : (i+1)*R]
}
