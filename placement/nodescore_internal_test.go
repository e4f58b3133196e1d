package placement

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNodeScorer_UpstreamFigures: the profile's scores of single nodes,
// worked out by hand from upstream's formulas (noderesources, v1.37).
func TestNodeScorer_UpstreamFigures(t *testing.T) {
	b := &base{res: []ResourceName{ResourceCPU, ResourceMemory, ResourcePods, ResourceGPU}}
	b.resIdx = map[ResourceName]int{ResourceCPU: 0, ResourceMemory: 1, ResourcePods: 2, ResourceGPU: 3}
	b.podsR = 2
	row := func(cpu, mem, gpu int64) []int64 { return []int64{cpu, mem, 110, gpu} }
	for _, c := range []struct {
		name              string
		ns                NodeScoring
		alloc, used, req  []int64
		fit, balanced, ok int64
	}{
		// cpu (4000-3000)·100/4000 = 25, memory 50: (25+50)/2 = 37.
		{"least, empty node", NodeScoring{Strategy: LeastAllocated}, row(4000, 10000, 0), row(0, 0, 0), row(3000, 5000, 0), 37, 0, 37},
		// a request above capacity scores 0 for that resource.
		{"least, over capacity", NodeScoring{Strategy: LeastAllocated}, row(4000, 10000, 0), row(2000, 0, 0), row(3000, 5000, 0), 25, 0, 25},
		// cpu 75, memory 50, weights 3 and 1: (225+50)/4 = 68.
		{"most, weighted", NodeScoring{Strategy: MostAllocated, Resources: []ResourceWeight{{ResourceCPU, 3}, {ResourceMemory, 1}}}, row(4000, 10000, 0), row(0, 0, 0), row(3000, 5000, 0), 68, 0, 68},
		// shape 0→0, 100→10: cpu 75, memory 50, rounded mean 62.5 → 63.
		{"ratio", NodeScoring{Strategy: RequestedToCapacityRatio, Shape: []UtilizationShapePoint{{0, 0}, {100, 10}}}, row(4000, 10000, 0), row(0, 0, 0), row(3000, 5000, 0), 63, 0, 63},
		// shape 0→10, 100→0: a resource scoring 0 (cpu full) is left out, weight too: memory 50.
		{"ratio drops a zero", NodeScoring{Strategy: RequestedToCapacityRatio, Shape: []UtilizationShapePoint{{0, 10}, {100, 0}}}, row(4000, 10000, 0), row(1000, 0, 0), row(3000, 5000, 0), 50, 0, 50},
		// an extended resource the pod does not request is not scored:
		// cpu 50 alone; requested, gpu (8-2)·100/8 = 75, mean 62.
		{"gpu not requested", NodeScoring{Strategy: LeastAllocated, Resources: []ResourceWeight{{ResourceCPU, 1}, {ResourceGPU, 1}}}, row(4000, 0, 8), row(0, 0, 0), row(2000, 0, 0), 50, 0, 50},
		{"gpu requested", NodeScoring{Strategy: LeastAllocated, Resources: []ResourceWeight{{ResourceCPU, 1}, {ResourceGPU, 1}}}, row(4000, 0, 8), row(0, 0, 0), row(2000, 0, 2), 62, 0, 62},
		// balanced: shares with the pod .5/.5 (100), without .25/.25
		// (100): 50 + (50+0)/2 = 75; least 50. Sum 125.
		{"upstream default", UpstreamNodeScoring(), row(4000, 8000, 0), row(1000, 2000, 0), row(1000, 2000, 0), 50, 75, 125},
		// balanced: with .75/.25 (std .25: 75), without .5/.25 (std .125:
		// 87): 50 + (50-12)/2 = 69; least (25+75)/2 = 50. Sum 119.
		{"upstream default, unbalancing", UpstreamNodeScoring(), row(4000, 8000, 0), row(2000, 2000, 0), row(1000, 0, 0), 50, 69, 119},
		// a pod requesting none of the balanced resources gets 0 from it.
		{"balanced, best effort", UpstreamNodeScoring(), row(4000, 8000, 0), row(2000, 2000, 0), row(0, 0, 0), 62, 0, 62},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, c.ns.Validate())
			sc := compileNodeScoring(b, c.ns)
			require.Equal(t, c.fit, sc.fitScore(c.alloc, c.used, nil, c.req, fitAdj{}), "fit")
			if sc.balW > 0 {
				require.Equal(t, c.balanced, sc.balancedScore(c.alloc, c.used, nil, c.req), "balanced")
			}
			require.Equal(t, c.ok, sc.score(c.alloc, c.used, nil, c.req, fitAdj{}), "total")
			// usage the attempt added counts like bound usage
			extra := make([]int64, len(c.used))
			half := make([]int64, len(c.used))
			for i := range c.used {
				half[i] = c.used[i] / 2
				extra[i] = c.used[i] - half[i]
			}
			require.Equal(t, c.ok, sc.score(c.alloc, half, extra, c.req, fitAdj{}), "total, split usage")
		})
	}
	require.Nil(t, compileNodeScoring(b, NodeScoring{}), "packing compiles to nothing")
}
