package placement_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

// repairCluster: rack r1 of x0, x1, x2 and rack r2 of y0, y1, each of 8
// GPUs; a 12-pod set runs on x0 (8) and x1 (4), reserved.
func repairCluster(t *testing.T) (*Snapshot, []PodSetAssignment) {
	var nodes []Node
	for _, n := range []string{"x0", "x1", "x2", "y0", "y1"} {
		rack := map[byte]string{'x': "r1", 'y': "r2"}[n[0]]
		nodes = append(nodes, Node{Name: n, Labels: map[string]string{"rack": rack}, Allocatable: ResourceList{ResourceGPU: 8}})
	}
	s, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	existing := []PodSetAssignment{{PodSet: "w", Node: "x0", NodeID: 0, Count: 8}, {PodSet: "w", Node: "x1", NodeID: 1, Count: 4}}
	return reserved(t, s, existing), existing
}

// Node x0 fails under a 12-pod set that must stay in rack r1: its 8 pods
// move to x1 (filled to 8, the most allocated) and x2 (4), never to rack
// r2, and x1's own 4 pods stay.
func TestScenario_RepairStaysInRack(t *testing.T) {
	s, existing := repairCluster(t)
	r, err := SolveRepair(s, elasticSet(12), Repair{PodSet: "w", Existing: existing, Failed: []string{"x0"}, Keep: []string{"rack"}}, Options{})
	require.NoError(t, err)
	require.True(t, r.Repairable, r.Reason)
	require.Equal(t, []PodSetAssignment{{"w", "x1", 1, 4}, {"w", "x2", 2, 4}}, r.Replacements)
	require.Equal(t, []PodSetAssignment{{"w", "x1", 1, 8}, {"w", "x2", 2, 4}}, r.Assignments)
	require.Len(t, r.Decisions, 1)
	require.Equal(t, "rack=r1", r.Decisions[0].Placement.Name)
	require.NoError(t, Verify(s, &Group{Namespace: "default", Name: "pg/repair", MinCount: 8, PodSets: []PodSet{{Name: "w", Count: 8, Template: elasticSet(1).PodSets[0].Template}}}, r.Decisions[0]))
}

// When x0 and x2 both fail, rack r1 has room for 4 of the 8 lost pods
// only: the set cannot be repaired in place and must be evicted whole,
// although rack r2 is empty; without a kept level, r2 takes them.
func TestScenario_RepairImpossibleEvictsWhole(t *testing.T) {
	s, existing := repairCluster(t)
	r, err := SolveRepair(s, elasticSet(12), Repair{PodSet: "w", Existing: existing, Failed: []string{"x2", "x0"}, Keep: []string{"rack"}}, Options{})
	require.NoError(t, err)
	require.False(t, r.Repairable)
	require.Equal(t, "8 pods of failed node(s) x0 need nodes in rack=r1: 4 of min 8 members fit in rack=r1; a pod of pod set default/w fits on none of 1 nodes: 1 Insufficient nvidia.com/gpu; the workload must be evicted whole", r.Reason)
	require.Equal(t, existing, r.Assignments)
	require.Empty(t, r.Replacements)

	r, err = SolveRepair(s, elasticSet(12), Repair{PodSet: "w", Existing: existing, Failed: []string{"x2", "x0"}}, Options{})
	require.NoError(t, err)
	require.True(t, r.Repairable, r.Reason)
	require.Equal(t, []PodSetAssignment{{"w", "x1", 1, 8}, {"w", "y0", 3, 4}}, r.Assignments)

	// A failed node that ran none of the set's pods needs no repair.
	r, err = SolveRepair(s, elasticSet(12), Repair{PodSet: "w", Existing: existing, Failed: []string{"y0"}, Keep: []string{"rack"}}, Options{})
	require.NoError(t, err)
	require.True(t, r.Repairable)
	require.Empty(t, r.Decisions)
	require.Equal(t, existing, r.Assignments)
}

func TestSolveRepair_Errors(t *testing.T) {
	s, existing := repairCluster(t)
	for _, tc := range []struct {
		name string
		r    Repair
		want string
	}{
		{"unknown set", Repair{PodSet: "v"}, `PodGroup "default/pg": repair.podSet: the group has no pod set "v"`},
		{"unknown failed node", Repair{PodSet: "w", Existing: existing, Failed: []string{"z"}}, `pod set "w" of PodGroup "default/pg": repair.failed[0]: node "z" is not in the snapshot`},
		{"failed twice", Repair{PodSet: "w", Existing: existing, Failed: []string{"x0", "x0"}}, `pod set "w" of PodGroup "default/pg": repair.failed[1]: node "x0" is listed twice`},
		{"bad key", Repair{PodSet: "w", Existing: existing, Failed: []string{"x0"}, Keep: []string{""}}, `pod set "w" of PodGroup "default/pg": repair.keep[0]: "" is empty or repeated`},
		{"bad existing", Repair{PodSet: "w", Existing: []PodSetAssignment{{Node: "x0", Count: 0}}}, `pod set "w" of PodGroup "default/pg": repair.existing[0].count: 0 is outside 1..1048576`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SolveRepair(s, elasticSet(12), tc.r, Options{})
			require.EqualError(t, err, tc.want)
			requireInputError(t, err)
		})
	}
}

// A repair never leaves the kept domains: every replacement shares the
// zone and rack of a failed node it replaces, the surviving pods stay,
// the count is kept, and each domain's decision verifies; an unrepairable
// set keeps its assignment and says why.
func TestProp_RepairStaysInDomain(t *testing.T) {
	repaired, evicted := 0, 0
	prop := func(t *rapid.T) {
		s0 := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s0).Draw(t, "group")
		tmpl := g.Members[0]
		tmpl.Name, tmpl.SchedulingGroup = "", ""
		count := int32(rapid.IntRange(1, 8).Draw(t, "count"))
		set := &Group{Namespace: "elastic", Name: "wl", MinCount: count, PodSets: []PodSet{{Name: "w", Count: count, Template: tmpl}}}
		d, err := Solve(s0, set, Options{})
		require.NoError(t, err)
		if d.Status != Scheduled {
			return
		}
		us, err := PodSetUsageOf(set, d)
		require.NoError(t, err)
		s, err := s0.Apply(Change{Reserve: us})
		require.NoError(t, err)
		existing := us[0].Nodes
		var names []string
		for id := range NodeID(s.NumNodes()) {
			names = append(names, s.Node(id).Name)
		}
		failed := rapid.SliceOfNDistinct(rapid.SampledFrom(names), 1, 3, rapid.ID).Draw(t, "failed")
		keep := []string{placementtest.ZoneLabel, placementtest.RackLabel}
		r, err := SolveRepair(s, set, Repair{PodSet: "w", Existing: existing, Failed: failed, Keep: keep}, Options{})
		require.NoError(t, err)
		if !r.Repairable {
			evicted++
			require.NotEmpty(t, r.Reason)
			require.Equal(t, existing, r.Assignments)
			return
		}
		repaired++
		domainOf := func(n *Node) [2]string {
			z, zok := n.Labels[placementtest.ZoneLabel]
			k, kok := n.Labels[placementtest.RackLabel]
			return [2]string{labelOrMissing(z, zok), labelOrMissing(k, kok)}
		}
		lostIn := map[[2]string]bool{}
		var total int32
		after := map[string]int32{}
		for _, a := range r.Assignments {
			after[a.Node] = a.Count
			total += a.Count
			require.False(t, slices.Contains(failed, a.Node), "a pod stays on failed node %s", a.Node)
		}
		for _, a := range existing {
			if slices.Contains(failed, a.Node) {
				lostIn[domainOf(s.Node(a.NodeID))] = true
			} else {
				require.GreaterOrEqual(t, after[a.Node], a.Count, "a surviving pod on %s moved", a.Node)
			}
		}
		require.Equal(t, count, total)
		for _, a := range r.Replacements {
			require.True(t, lostIn[domainOf(s.Node(a.NodeID))], "replacement on %s left the domains of the failed nodes", a.Node)
		}
		for _, dec := range r.Decisions {
			var n int32
			for _, a := range dec.PodSetAssignments {
				n += a.Count
			}
			rg := &Group{Namespace: "elastic", Name: "wl/repair", MinCount: n, PodSets: []PodSet{{Name: "w", Count: n, Template: tmpl}}}
			require.NoError(t, Verify(s, rg, dec))
		}
	}
	// One run of 100 cases can miss a branch; run again until both were
	// checked.
	for round := 0; round < 20 && (repaired == 0 || evicted == 0); round++ {
		rapid.Check(t, prop)
	}
	require.Positive(t, repaired)
	require.Positive(t, evicted)
}

// labelOrMissing tells a missing label from every value.
func labelOrMissing(v string, ok bool) string {
	if !ok {
		return "\x00missing"
	}
	return v
}

// checkResizeRepairInput: wild Resize and Repair requests are refused
// with a FieldError, or answered without a pod on a failed node and
// without moving a surviving pod.
func checkResizeRepairInput(t *rapid.T) {
	s := wildSnapshot(t)
	var existing []PodSetAssignment
	for range rapid.IntRange(0, 3).Draw(t, "existing") {
		existing = append(existing, PodSetAssignment{PodSet: rapid.SampledFrom([]string{"", "w", "v"}).Draw(t, "podSet"),
			Node: rapid.SampledFrom(wildNodeNames).Draw(t, "node"), NodeID: NodeID(rapid.IntRange(-1, 3).Draw(t, "id")),
			Count: rapid.SampledFrom([]int32{-1, 0, 1, 2, MaxPending + 1}).Draw(t, "count")})
	}
	keys := rapid.SliceOfN(rapid.SampledFrom([]string{"", "zone", "rack"}), 0, 2).Draw(t, "keys")
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, PodSets: []PodSet{{Name: rapid.SampledFrom([]string{"w", "v"}).Draw(t, "set"),
		Count: rapid.SampledFrom([]int32{-1, 0, 1, 3}).Draw(t, "set count"), Template: Pod{Requests: wildList(t, "requests")}}}}
	name := rapid.SampledFrom([]string{"w", "x"}).Draw(t, "name")
	if rapid.Bool().Draw(t, "resize") {
		r, err := SolveResize(s, g, Resize{PodSet: name, Existing: existing, Levels: keys}, Options{})
		if err != nil {
			requireInputError(t, err)
			return
		}
		var total int64
		for _, a := range r.Assignments {
			total += int64(a.Count)
		}
		if r.Decision.Status == Scheduled && g.IsGang() {
			require.Equal(t, int64(g.PodSets[0].Count), total)
		}
		return
	}
	failed := rapid.SliceOfN(rapid.SampledFrom(wildNodeNames), 0, 2).Draw(t, "failed")
	r, err := SolveRepair(s, g, Repair{PodSet: name, Existing: existing, Failed: failed, Keep: keys}, Options{})
	if err != nil {
		requireInputError(t, err)
		return
	}
	if r.Repairable {
		for _, a := range r.Assignments {
			require.False(t, slices.Contains(failed, a.Node))
		}
	}
}

func TestProp_ResizeRepairWildInput(t *testing.T) { rapid.Check(t, checkResizeRepairInput) }

func FuzzResizeRepair(f *testing.F) { f.Fuzz(rapid.MakeFuzz(checkResizeRepairInput)) }
