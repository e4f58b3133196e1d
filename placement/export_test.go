package placement

// SolveHierarchyApplied is SolveHierarchy placing each leaf with
// Snapshot.Apply, as it does when the options carry hooks.
func SolveHierarchyApplied(s *Snapshot, root *HierarchyNode, opts Options) (HierarchyDecision, error) {
	return solveHierarchy(s, root, opts, HierarchyOptions{}, true)
}
