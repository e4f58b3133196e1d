package scaleup

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// quantity draws a quantity a caller might pass: small, huge, or negative.
func quantity(t *rapid.T, label string) int64 {
	return rapid.OneOf(rapid.Int64Range(0, 9), rapid.SampledFrom([]int64{-1, math.MaxInt64, math.MaxInt64 / 2})).Draw(t, label)
}

// checkAnyInput: Suggest on shapes, options and requests from outside —
// negative, huge, missing — returns an error or a suggestion whose nodes
// make a snapshot, and never panics.
func checkAnyInput(t *rapid.T) {
	nodes := []placement.Node{node("n0", "r0", rl(4, 4)), node("n1", "r1", rl(4, 4))}
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	g := gangOf(rapid.IntRange(1, 3).Draw(t, "members"), nil)
	for i := range g.Members {
		g.Members[i].Requests = placement.ResourceList{gpu: max(quantity(t, "gpu"), 0), cpu: max(quantity(t, "cpu"), 0)}
	}
	var shapes []NodeShape
	for i := range rapid.IntRange(0, 3).Draw(t, "shapes") {
		alloc := placement.ResourceList{}
		for _, r := range []placement.ResourceName{gpu, cpu, placement.ResourcePods} {
			if rapid.Bool().Draw(t, "has") {
				alloc[r] = quantity(t, "alloc")
			}
		}
		shapes = append(shapes, NodeShape{Name: rapid.SampledFrom([]string{"", "a", "b", fmt.Sprint("s", i)}).Draw(t, "name"), Allocatable: alloc})
	}
	var cs []topology.Constraint
	if rapid.Bool().Draw(t, "rack") {
		cs = rackReq
	}
	opts := Options{MaxNodes: rapid.IntRange(-1, 4).Draw(t, "maxNodes"), MaxDomainNodes: rapid.IntRange(-1, 4).Draw(t, "maxDomainNodes"),
		NewDomain: rapid.SampledFrom([]string{"", "r0", "rn"}).Draw(t, "newDomain")}
	sug, err := Suggest(s, g, cs, shapes, opts)
	if err != nil {
		require.Equal(t, Suggestion{}, sug)
		return
	}
	require.Len(t, sug.Nodes, sug.Count)
	_, err = placement.NewSnapshot(append(nodes, sug.Nodes...), nil)
	require.NoError(t, err)
}

func TestProp_SuggestAnyInput(t *testing.T) { rapid.Check(t, checkAnyInput) }

// FuzzSuggest runs checkAnyInput on the fuzzer's bytes.
func FuzzSuggest(f *testing.F) { f.Fuzz(rapid.MakeFuzz(checkAnyInput)) }
