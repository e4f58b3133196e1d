package placement_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// A resize whose Existing lists the stored reservation checks the
// template's requests as one whose Existing is checked and copied does:
// each bad request is refused with the same error (a bad name or quantity
// before a resource no node has, whatever the map's order), a resource no
// node has is fine at 0, and the largest request bounds the counts.
func TestSolveResize_ExistingChecksTemplateRequests(t *testing.T) {
	s, _ := rackNodes(t)
	rs := reserved(t, s, []PodSetAssignment{{Node: "y0", Count: 6}})
	stored, ok := rs.PodSetUsage(Key{"default", "pg"}, "w")
	require.True(t, ok)
	listed := []PodSetAssignment{{Node: "y0", NodeID: -1, Count: 6}}
	const obj = `pod set "w" of PodGroup "default/pg": `
	for _, tc := range []struct {
		name string
		req  ResourceList
		want string
	}{
		{"empty name", ResourceList{"": 1, ResourceGPU: 1}, obj + `requests: resource name must not be empty`},
		{"negative", ResourceList{ResourceGPU: -1}, obj + `requests[nvidia.com/gpu]: -1 is negative`},
		{"pods", ResourceList{ResourcePods: 1}, obj + `requests[pods]: a pod does not request the pods resource; each pod counts 1 implicitly`},
		{"no node has it", ResourceList{"example.com/a": 1, ResourceGPU: 1}, obj + `requests[example.com/a]: no node has example.com/a`},
		{"the first by name no node has", ResourceList{"example.com/b": 2, "example.com/a": 1}, obj + `requests[example.com/a]: no node has example.com/a`},
		{"bad before unknown", ResourceList{"example.com/a": 1, ResourceGPU: -2}, obj + `requests[nvidia.com/gpu]: -2 is negative`},
		{"unknown at 0", ResourceList{"example.com/a": 0, ResourceGPU: 1}, ""},
		{"largest at the bound", ResourceList{ResourceCPU: 0, ResourceGPU: math.MaxInt64 / 6}, ""},
		{"largest past the bound", ResourceList{"example.com/a": 0, ResourceGPU: math.MaxInt64/6 + 1}, obj + `resize.existing[0].count: 6 pods' requests overflow int64`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := elasticSet(6) // keeps its count: the answer is the check's
			g.PodSets[0].Template.Requests = tc.req
			for _, ex := range [][]PodSetAssignment{stored.Nodes, listed} {
				r, err := SolveResize(rs, g, Resize{PodSet: "w", Existing: ex}, Options{})
				if tc.want != "" {
					require.EqualError(t, err, tc.want)
					continue
				}
				require.NoError(t, err)
				require.Equal(t, stored.Nodes, r.Assignments)
			}
		})
	}
}
