package placement

// SolveHierarchyApplied is SolveHierarchy placing each leaf with
// Snapshot.Apply, as it does when the options carry hooks.
func SolveHierarchyApplied(s *Snapshot, root *HierarchyNode, opts Options) (HierarchyDecision, error) {
	return solveHierarchy(s, root, opts, HierarchyOptions{}, hpath{applied: true})
}

// SolveHierarchyGeneral is SolveHierarchyWith solving every leaf with
// Solve, never with the leaf placer fastLeaf.
func SolveHierarchyGeneral(s *Snapshot, root *HierarchyNode, opts Options, hopts HierarchyOptions) (HierarchyDecision, error) {
	return solveHierarchy(s, root, opts, hopts, hpath{general: true})
}

// SolveHierarchyCountingFast is SolveHierarchyWith, with how many leaves
// fastLeaf decided.
func SolveHierarchyCountingFast(s *Snapshot, root *HierarchyNode, opts Options, hopts HierarchyOptions) (HierarchyDecision, int, error) {
	fast := 0
	d, err := solveHierarchy(s, root, opts, hopts, hpath{fastLeaves: &fast})
	return d, fast, err
}

// WithoutPriorityIndex is s as the hierarchy search's views are: its added
// pods not indexed by priority.
func WithoutPriorityIndex(s *Snapshot) *Snapshot {
	return &Snapshot{b: s.b, used: s.used, removed: s.removed, added: s.added, addedOn: s.addedOn, addedGroup: s.addedGroup, nPods: s.nPods, usedSum: s.usedSum}
}

// ComparePriorityPod is the order of PodsBelowPriority.
var ComparePriorityPod = comparePriorityPod

// SolveHierarchySkip is SolveHierarchyWith with the sibling skip
// (hierarchy_skip.go) on or off, and how many domains it skipped.
func SolveHierarchySkip(s *Snapshot, root *HierarchyNode, opts Options, hopts HierarchyOptions, skip bool) (HierarchyDecision, int, error) {
	n := 0
	d, err := solveHierarchy(s, root, opts, hopts, hpath{noSkip: !skip, skipped: &n})
	return d, n, err
}
