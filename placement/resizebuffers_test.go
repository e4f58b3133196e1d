package placement_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

// TestResizeBuffers_RepeatedResizeAllocatesNothing: a host that keeps
// its ResizeBuffers and resizes the same set again and again — a growth
// under topology's hooks, and a resize that keeps its count and answers a
// copy of the reservation — allocates nothing once the buffers have
// grown: the delta's rows, the grown set's rows and the message all come
// from the buffers.
func TestResizeBuffers_RepeatedResizeAllocatesNothing(t *testing.T) {
	if raceOn {
		t.Skip("the race detector drops pooled items at random")
	}
	rs, _, opts := allocsWorld(t)
	var buf ResizeBuffers
	for _, c := range []struct {
		count   int32
		message string
	}{
		{300, "150 of 150 members placed in y"},
		{150, `pod set "w" keeps its 150 pods`},
	} {
		// Listed without the set's name: the answer is a copy, in buf.
		r := Resize{PodSet: "w", Existing: []PodSetAssignment{{Node: "y0", NodeID: 1, Count: 150}}, Buffers: &buf}
		g := elasticSet(c.count)
		want, err := SolveResize(rs, g, Resize{PodSet: "w", Existing: r.Existing}, opts)
		require.NoError(t, err)
		got, err := SolveResize(rs, g, r, opts)
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.Equal(t, Scheduled, got.Decision.Status)
		require.Equal(t, c.message, got.Decision.Message)
		require.NotSame(t, &r.Existing[0], &got.Assignments[0])
		allocs := testing.AllocsPerRun(100, func() { _, _ = SolveResize(rs, g, r, opts) })
		require.Zero(t, allocs, "count %d: allocations a resize with buffers", c.count)
	}
}

// A host that resizes one set again and again with one ResizeBuffers —
// reserving each answer in the next snapshot and passing its Assignments
// back as Existing — gets the answers it gets without buffers, and a
// resize with the buffers writes no memory but theirs: an answer made
// without them, and the snapshot's reservation of the last buffered
// answer, stay as they were.
func TestProp_ResizeBuffersResizeAsWithout(t *testing.T) {
	grew, shrank, passed := 0, 0, 0
	prop := func(t *rapid.T) {
		s := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s).Draw(t, "group")
		tmpl := g.Members[0]
		tmpl.Name, tmpl.SchedulingGroup = "", ""
		var opts Options
		if rapid.Bool().Draw(t, "racks") {
			opts.Generator = rackPlacements(s)
		}
		key := Key{Namespace: "elastic", Name: "wl"}
		set := func(count int32) *Group {
			return &Group{Namespace: key.Namespace, Name: key.Name, MinCount: count, PodSets: []PodSet{{Name: "w", Count: count, Template: tmpl}}}
		}
		n := int32(rapid.IntRange(1, 6).Draw(t, "n"))
		d, err := Solve(s, set(n), opts)
		require.NoError(t, err)
		if d.Status != Scheduled {
			return
		}
		us, err := PodSetUsageOf(set(n), d)
		require.NoError(t, err)
		s, err = s.Apply(Change{Reserve: us})
		require.NoError(t, err)
		levels := []string{placementtest.ZoneLabel, placementtest.RackLabel}
		var buf ResizeBuffers
		existing, fromBuf := us[0].Nodes, false
		var last []PodSetAssignment // the last answer made without buf
		for step := range rapid.IntRange(1, 5).Draw(t, "steps") {
			m := int32(rapid.IntRange(1, 10).Draw(t, "m"))
			want, err := SolveResize(s, set(m), Resize{PodSet: "w", Existing: slices.Clone(existing), Levels: levels}, opts)
			require.NoError(t, err)
			lastWas := slices.Clone(last)
			stored, _ := s.PodSetUsage(key, "w")
			storedWas := slices.Clone(stored.Nodes)
			got, err := SolveResize(s, set(m), Resize{PodSet: "w", Existing: existing, Levels: levels, Buffers: &buf}, opts)
			require.NoError(t, err)
			require.Equal(t, want, got, "step %d", step)
			require.Equal(t, lastWas, last, "step %d: an answer made without the buffers changed", step)
			stored, _ = s.PodSetUsage(key, "w")
			require.Equal(t, storedWas, stored.Nodes, "step %d: the reservation changed", step)
			if len(got.Decision.PodSetAssignments) > 0 {
				grew++
			}
			if len(got.Removed) > 0 {
				shrank++
			}
			if fromBuf {
				passed++
			}
			last = want.Assignments
			if got.Decision.Status != Scheduled {
				continue
			}
			s, err = s.Apply(Change{
				Release: []PodSetRef{{Group: key, PodSet: "w"}},
				Reserve: []PodSetUsage{{Group: key, PodSet: "w", Requests: tmpl.Requests, Nodes: got.Assignments}},
			})
			require.NoError(t, err)
			existing, fromBuf = got.Assignments, true // valid until the next resize with buf
		}
	}
	for round := 0; round < 20 && (grew == 0 || shrank == 0 || passed == 0); round++ {
		rapid.Check(t, prop)
	}
	require.Positive(t, grew)
	require.Positive(t, shrank)
	require.Positive(t, passed)
}
