package topology_test

import (
	"testing"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestScoreSums_Length: ScoreSums is public, and a caller's requested
// vector may be shorter or longer than s.Resources() (built against
// another snapshot, or trimmed of trailing zeros): it must not panic, and
// reads a missing entry as 0 and ignores extra ones, for both scorings and
// for placement.DefaultScorer.
func TestScoreSums_Length(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{
		{Name: "n0", Labels: map[string]string{"rack": "r0"}, Allocatable: placement.ResourceList{placement.ResourceCPU: 10, placement.ResourceMemory: 100}},
		{Name: "n1", Labels: map[string]string{"rack": "r1"}, Allocatable: placement.ResourceList{placement.ResourceCPU: 20, placement.ResourceMemory: 100}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &placement.Group{Namespace: "ns", Name: "pg", MinCount: 1, Members: []placement.Pod{
		{Namespace: "ns", Name: "a", SchedulingGroup: "pg", Requests: placement.ResourceList{placement.ResourceCPU: 4, placement.ResourceMemory: 10}},
	}}
	tr, err := topology.NewTree(s, []string{"rack"})
	if err != nil {
		t.Fatal(err)
	}
	scorers := sumScorers(t, tr)
	R := len(s.Resources())
	full := make([]int64, R)
	for r, name := range s.Resources() {
		full[r] = map[placement.ResourceName]int64{placement.ResourceCPU: 4, placement.ResourceMemory: 10, placement.ResourcePods: 1}[name]
	}
	for _, p := range []*placement.Placement{{Name: "r0", Nodes: []placement.NodeID{0}}, {Name: "", Nodes: []placement.NodeID{0, 1}}} {
		for _, sc := range scorers {
			for _, n := range []int{0, 1, R - 1, R + 1, R + 3} {
				req := make([]int64, n)
				copy(req, full)
				padded := make([]int64, R)
				copy(padded, req)
				want, _ := sc.ScoreSums(s, placement.GroupView{Group: g}, p, 1, padded)
				got, panicked := func() (v int64, panicked any) {
					defer func() { panicked = recover() }()
					v, _ = sc.ScoreSums(s, placement.GroupView{Group: g}, p, 1, req)
					return v, nil
				}()
				if panicked != nil {
					t.Errorf("%T on %q, len(requested) %d of %d: panic %v", sc, p.Name, n, R, panicked)
				} else if got != want {
					t.Errorf("%T on %q, len(requested) %d of %d: %d, want %d (the vector padded or trimmed)", sc, p.Name, n, R, got, want)
				}
			}
		}
	}
}

// TestScoreSums_HugePlacedCount: ScoreSums' placed count comes from the
// caller too; one far beyond any group must not wrap the score's count
// part negative: it scores at least as high as every pod placed.
func TestScoreSums_HugePlacedCount(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{
		{Name: "n0", Labels: map[string]string{"rack": "r0"}, Allocatable: placement.ResourceList{placement.ResourceCPU: 10}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &placement.Group{Namespace: "ns", Name: "pg", MinCount: 1, Members: []placement.Pod{
		{Namespace: "ns", Name: "a", SchedulingGroup: "pg", Requests: placement.ResourceList{placement.ResourceCPU: 4}},
	}}
	tr, err := topology.NewTree(s, []string{"rack"})
	if err != nil {
		t.Fatal(err)
	}
	scorers := sumScorers(t, tr)
	req := make([]int64, len(s.Resources()))
	p := &placement.Placement{Name: "r0", Nodes: []placement.NodeID{0}}
	for _, sc := range scorers {
		all, _ := sc.ScoreSums(s, placement.GroupView{Group: g}, p, 1, req)
		for _, placed := range []int64{1 << 31, 1 << 40, 1<<63 - 1} {
			if got, _ := sc.ScoreSums(s, placement.GroupView{Group: g}, p, placed, req); got < all {
				t.Errorf("%T: placed %d scores %d, below %d for every pod placed", sc, placed, got, all)
			}
		}
	}
}

// sumScorers returns placement.DefaultScorer and tr's Scorer with both
// scorings, for a required rack.
func sumScorers(t *testing.T, tr *topology.Tree) []placement.SumScorer {
	t.Helper()
	scorers := []placement.SumScorer{placement.DefaultScorer{}}
	for _, k := range []topology.Scoring{topology.MostAllocated, topology.BestFit} {
		o, err := tr.SolverOptions([]topology.Constraint{{Key: "rack"}}, k)
		if err != nil {
			t.Fatal(err)
		}
		scorers = append(scorers, o.Scorer.(placement.SumScorer))
	}
	return scorers
}
