package placement_test

import (
	"fmt"
	"sync"
	"testing"

	. "github.com/gangsched/gangsched/placement"
)

// TestAdv6_LazyKeyIndexConcurrent: a snapshot of pods in key order builds
// its key index on the first lookup; lookups, Apply and Solve from several
// goroutines at once all find every pod (run with -race).
func TestAdv6_LazyKeyIndexConcurrent(t *testing.T) {
	for round := range 20 {
		nodes := []Node{{Name: "n", Allocatable: ResourceList{ResourceCPU: 1 << 40}}}
		var pods []Pod
		for i := range 300 {
			pods = append(pods, Pod{Namespace: "ns", Name: fmt.Sprintf("p%04d", i), NodeName: "n", SchedulingGroup: []string{"", "pg"}[i%2]})
		}
		s, err := NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 300 {
					k := Key{Namespace: "ns", Name: fmt.Sprintf("p%04d", (i+w*77)%300)}
					if _, ok := s.Pod(k); !ok {
						t.Errorf("round %d: %v not found", round, k)
					}
				}
				if w == 0 {
					if _, err := s.Apply(Change{Remove: []Key{{Namespace: "ns", Name: "p0001"}}}); err != nil {
						t.Error(err)
					}
				}
				g := &Group{Namespace: "ns", Name: "pg", MinCount: 1, Members: []Pod{{Namespace: "ns", Name: fmt.Sprintf("q%d", w), SchedulingGroup: "pg"}}}
				if _, err := Solve(s, g, Options{}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
}
