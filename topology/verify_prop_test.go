package topology_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_VerifyPerturbedSolve: every decision the solver makes with a
// tree's options passes Tree.Verify; one member moved to another node
// (the decision's placement widened to every node, as a scheduler without
// placements writes it) is refused exactly when placement.Verify refuses
// it or a brute-force oracle, comparing the label paths of every pair of
// members, finds two in different domains of a required key — and then
// the violation names the narrowest required key. Both outcomes occur.
func TestProp_VerifyPerturbedSolve(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(false, false).Draw(t, "case")
		s, tr, d, err := c.outcome(t)
		if err != nil || d.Status != placement.Scheduled {
			return
		}
		require.NoError(t, tr.Verify(s, &c.group, d, c.cs))
		k := rapid.IntRange(0, len(d.Assignments)-1).Draw(t, "moved")
		to := rapid.IntRange(0, s.NumNodes()-1).Draw(t, "to")
		moved := d
		moved.Placement = placement.Placement{}
		moved.Assignments = slices.Clone(d.Assignments)
		moved.Assignments[k].NodeID, moved.Assignments[k].Node = placement.NodeID(to), s.Node(placement.NodeID(to)).Name

		var nodes []*placement.Node // every member's node, bound ones included
		for _, p := range s.GroupMembers(c.group.Key()) {
			id, _ := s.NodeOf(p)
			nodes = append(nodes, s.Node(id))
		}
		for _, a := range moved.Assignments {
			nodes = append(nodes, s.Node(a.NodeID))
		}
		narrowest := -1
		for _, cs := range c.cs {
			if !cs.Preferred {
				narrowest = max(narrowest, slices.Index(propKeys, cs.Key))
			}
		}
		shared := true
		for _, a := range nodes {
			for _, b := range nodes {
				shared = shared && samePath(a, b, propKeys, narrowest)
			}
		}
		base := placement.Verify(s, &c.group, moved)
		err = tr.Verify(s, &c.group, moved, c.cs)
		switch {
		case base != nil:
			require.Equal(t, base, err)
			seen["placement.Verify refuses"]++
		case !shared:
			require.ErrorIs(t, err, placement.ErrViolation)
			require.ErrorContains(t, err, fmt.Sprintf("required key %q", propKeys[narrowest]))
			seen["constraint broken"]++
		default:
			require.NoError(t, err)
			seen["accepted"]++
		}
	})
	require.Positive(t, seen["constraint broken"], seen)
	require.Positive(t, seen["accepted"], seen)
}

// samePath reports whether nodes a and b both carry the labels of keys
// down to level and agree on every one: one domain of that level (every
// pair of nodes does for level -1).
func samePath(a, b *placement.Node, keys []string, level int) bool {
	for l := 0; l <= level; l++ {
		va, oka := a.Labels[keys[l]]
		vb, okb := b.Labels[keys[l]]
		if !oka || !okb || va != vb {
			return false
		}
	}
	return true
}

// TestProp_VerifyPerturbedPlan: every plan of a pod set passes
// Tree.VerifyPlan; one pod moved to another node is refused by
// Tree.VerifyPodSets exactly when placement.Verify refuses it or a
// brute-force oracle finds no order of the set's pods that keeps them in
// one domain of the required level and each slice of every layer in one
// domain of its level, or a pod on a node outside the topology. Both
// outcomes occur.
func TestProp_VerifyPerturbedPlan(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		s, tr, g, p, err := c.plan(t, false, c.nodes)
		if errors.Is(err, topology.ErrNoDomain) {
			return
		}
		require.NoError(t, err)
		req := c.req
		req.PodSet = "w"
		reqs := []topology.PodSetRequest{req}
		require.NoError(t, tr.VerifyPlan(s, g, p, reqs))
		d := p.Decision
		if d.Status != placement.Scheduled || c.count > 16 {
			return // the oracle below tries orders of up to 16 pods
		}
		perNode := map[string]int32{}
		for _, a := range d.PodSetAssignments {
			perNode[a.Node] = a.Count
		}
		from := rapid.SampledFrom(d.PodSetAssignments).Draw(t, "from").Node
		to := rapid.SampledFrom(c.nodes).Draw(t, "to").Name
		perNode[from]--
		perNode[to]++
		moved := d
		moved.Placement, moved.PodSetAssignments = placement.Placement{}, nil
		var pods []*placement.Node
		for i := range c.nodes { // in name order, as a decision lists them
			nd := &c.nodes[i]
			if n := perNode[nd.Name]; n > 0 {
				id, _ := s.NodeID(nd.Name)
				moved.PodSetAssignments = append(moved.PodSetAssignments, placement.PodSetAssignment{PodSet: "w", Node: nd.Name, NodeID: id, Count: n})
				for range n {
					pods = append(pods, nd)
				}
			}
		}
		base := placement.Verify(s, g, moved)
		err = tr.VerifyPodSets(s, g, moved, reqs)
		switch {
		case base != nil:
			require.Equal(t, base, err)
			seen["placement.Verify refuses"]++
		case !orderExists(pods, c.req):
			require.ErrorIs(t, err, placement.ErrViolation)
			seen["constraint broken"]++
		default:
			require.NoError(t, err)
			seen["accepted"]++
		}
	})
	require.Positive(t, seen["constraint broken"], seen)
	require.Positive(t, seen["accepted"], seen)
}

// orderExists is the brute-force oracle of a pod set's placement: every
// pod's node carries every label of planKeys, all pods share the label
// path of the required level, and some order of the pods puts each slice
// of every layer (pods [k·size, (k+1)·size)) on nodes of one label path
// of the layer's level. It tries the orders pod by pod, one node of each
// kind per step, remembering the states that failed.
func orderExists(pods []*placement.Node, req topology.PodSetRequest) bool {
	required := slices.Index(planKeys, req.Required)
	for _, a := range pods {
		if !samePath(a, a, planKeys, len(planKeys)-1) {
			return false
		}
		for _, b := range pods {
			if required >= 0 && !samePath(a, b, planKeys, required) {
				return false
			}
		}
	}
	// The distinct nodes and how many pods each holds.
	var kinds []*placement.Node
	var left []int
	for _, n := range pods {
		if i := slices.Index(kinds, n); i >= 0 {
			left[i]++
		} else {
			kinds, left = append(kinds, n), append(left, 1)
		}
	}
	failed := map[string]bool{}
	// try places pod k onward; open[i] is the node that began the current
	// slice of layer i.
	var try func(k int, open []*placement.Node) bool
	try = func(k int, open []*placement.Node) bool {
		if k == len(pods) {
			return true
		}
		key := fmt.Sprint(left, k)
		for i, o := range open {
			if k%int(req.Slices[i].Size) != 0 {
				key += "|" + o.Name
			}
		}
		if failed[key] {
			return false
		}
		for j, n := range kinds {
			if left[j] == 0 {
				continue
			}
			next := slices.Clone(open)
			ok := true
			for i, sl := range req.Slices {
				l := slices.Index(planKeys, sl.Key)
				if k%int(sl.Size) == 0 {
					next[i] = n
				} else {
					ok = ok && samePath(open[i], n, planKeys, l)
				}
			}
			if !ok {
				continue
			}
			left[j]--
			found := try(k+1, next)
			left[j]++
			if found {
				return true
			}
		}
		failed[key] = true
		return false
	}
	return try(0, make([]*placement.Node, len(req.Slices)))
}

// TestOrderExists: the oracle itself, on a slice of two per rack.
func TestOrderExists(t *testing.T) {
	r1a := node("a", 0, blockKey, "b1", rackKey, "r1", hostKey, "a")
	r1b := node("b", 0, blockKey, "b1", rackKey, "r1", hostKey, "b")
	r2 := node("c", 0, blockKey, "b1", rackKey, "r2", hostKey, "c")
	req := topology.PodSetRequest{Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 2}}}
	require.True(t, orderExists([]*placement.Node{&r1a, &r2, &r1b, &r2}, req))
	require.False(t, orderExists([]*placement.Node{&r1a, &r2, &r2, &r2}, req))
	require.True(t, orderExists([]*placement.Node{&r1a, &r2, &r2, &r2}, topology.PodSetRequest{Required: blockKey}))
	require.False(t, orderExists([]*placement.Node{&r1a, &r2}, topology.PodSetRequest{Required: rackKey}))
}
