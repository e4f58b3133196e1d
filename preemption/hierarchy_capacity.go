package preemption

import (
	"math"

	"github.com/gangsched/gangsched/placement"
)

// This file bounds what a victim set can free, so that the exact search
// of FindHierarchy skips, without a solve, a set that leaves too little
// room for the tree: the solves it saves are what lets the search end
// within MaxExactHierarchySolves, and the plan be proven, more often.

// hcapacity is a necessary condition for a tree to fit once a subset of
// FindHierarchy's candidates is removed, as the flat search's member
// slots are for a group: the tree must place at least need pending pods
// (treeNeed), every one of them takes at least least[r] of each resource
// res[r] on its node, so a node whose free quantity is f holds at most
// min over r of f[r]/least[r] of them, and the nodes together must hold
// need. Topology, filters and every other constraint are left out: the
// bound may pass a set that does not fit, never refuse one that does.
type hcapacity struct {
	need  int64
	res   []placement.ResourceName
	least []int64 // per res
	// rest is the slots of the nodes no candidate has a pod on (each
	// capped at need).
	rest int64
	// base is the free row (per res) of each node some candidate has a
	// pod on, back to back; freed lists, per unit (by mask bit), what
	// removing it frees: a node's index in base and the row.
	base  []int64
	freed [][]hfreed
	work  []int64 // scratch of len(base)
}

// hfreed is what removing a unit frees on one node: its index among the
// touched nodes and, per res, the quantity.
type hfreed struct {
	node int
	row  []int64
}

// newHCapacity returns the bound for the tree root on s, with units the
// candidates in VictimOrder (unit i is mask bit len(units)-1-i), or nil
// when it cannot refuse anything (no pending pod requests a tracked
// resource, or the tree needs no new pod). O(nodes × resources + pods of
// the units).
func newHCapacity(s *placement.Snapshot, root *placement.HierarchyNode, units []*hunit) *hcapacity {
	need := treeNeed(s, root)
	if need <= 0 || need == math.MaxInt64 {
		return nil
	}
	c := &hcapacity{need: need}
	for _, r := range s.Resources() {
		least := int64(1) // ResourcePods: every pod counts one
		if r != placement.ResourcePods {
			least = leastRequest(root, r)
		}
		if least > 0 {
			c.res, c.least = append(c.res, r), append(c.least, least)
		}
	}
	if len(c.res) == 0 {
		return nil
	}
	R := len(c.res)
	touched := map[placement.NodeID]int{}
	c.freed = make([][]hfreed, len(units))
	for i, u := range units {
		bit := len(units) - 1 - i
		at := map[int]int{} // touched index -> position in c.freed[bit]
		for _, p := range u.pods {
			id, ok := s.NodeOf(p)
			if !ok {
				continue
			}
			t, seen := touched[id]
			if !seen {
				t = len(touched)
				touched[id] = t
				for _, r := range c.res {
					c.base = append(c.base, s.Free(id, r))
				}
			}
			k, has := at[t]
			if !has {
				k = len(c.freed[bit])
				at[t] = k
				c.freed[bit] = append(c.freed[bit], hfreed{node: t, row: make([]int64, R)})
			}
			row := c.freed[bit][k].row
			for j, r := range c.res {
				if r == placement.ResourcePods {
					row[j]++
				} else {
					row[j] += max(p.Requests[r], 0)
				}
			}
		}
	}
	for id := range placement.NodeID(s.NumNodes()) {
		if _, ok := touched[id]; ok {
			continue
		}
		c.rest = satAdd(c.rest, c.slots(func(j int) int64 { return s.Free(id, c.res[j]) }))
	}
	c.work = make([]int64, len(c.base))
	return c
}

// slots is how many pods of the tree a node whose free quantity of res[j]
// is free(j) can hold at most, capped at need.
func (c *hcapacity) slots(free func(j int) int64) int64 {
	n := c.need
	for j, l := range c.least {
		n = min(n, max(free(j), 0)/l)
	}
	return n
}

// enough reports whether the nodes could hold the tree's need once the
// units of mask are removed. O(touched nodes × resources + what they free).
func (c *hcapacity) enough(mask uint32) bool {
	if c.rest >= c.need {
		return true
	}
	copy(c.work, c.base)
	R := len(c.res)
	for bit := range c.freed {
		if mask&(1<<bit) == 0 {
			continue
		}
		for _, f := range c.freed[bit] {
			row := c.work[f.node*R : f.node*R+R]
			for j, q := range f.row {
				row[j] = satAdd(row[j], q)
			}
		}
	}
	total := c.rest
	for t := 0; t*R < len(c.work); t++ {
		row := c.work[t*R : t*R+R]
		total += c.slots(func(j int) int64 { return row[j] })
		if total >= c.need {
			return true
		}
	}
	return false
}

// treeNeed is a lower bound on the pending pods the tree under n must
// place to be satisfied, as SolveHierarchy counts them: a leaf with no
// pending pod needs none if its bound members satisfy it and can never be
// satisfied otherwise (math.MaxInt64); one whose bound members satisfy it
// needs none; a gang leaf needs minCount less its bound members, at least
// one, a basic one one pod; an inner node the sum over its
// minGroupCount (basic: one) children that need the least.
func treeNeed(s *placement.Snapshot, n *placement.HierarchyNode) int64 {
	if g := n.Group; g != nil {
		bound := len(s.GroupMembers(g.Key()))
		meets := bound > 0 && (!g.IsGang() || bound >= int(g.MinCount))
		switch {
		case meets:
			return 0
		case g.NumPending() == 0:
			return math.MaxInt64
		case g.IsGang():
			return int64(max(int(g.MinCount)-bound, 1))
		}
		return 1
	}
	k := 1
	if n.Policy != placement.PolicyBasic {
		k = int(n.MinGroupCount)
	}
	needs := make([]int64, 0, len(n.Children))
	for _, c := range n.Children {
		needs = append(needs, treeNeed(s, c))
	}
	if k < 1 || k > len(needs) {
		return 0 // invalid: SolveHierarchy reports it; refuse nothing
	}
	// The k least, by selection: children are few.
	var sum int64
	for range k {
		m := 0
		for i := range needs {
			if needs[i] < needs[m] {
				m = i
			}
		}
		sum = satAdd(sum, needs[m])
		needs[m] = math.MaxInt64
	}
	return sum
}

// leastRequest is the least quantity of r any pending pod of the tree
// under root requests (a member, or a pod set's template): 0 when one
// requests none.
func leastRequest(root *placement.HierarchyNode, r placement.ResourceName) int64 {
	least := int64(math.MaxInt64)
	walkLeaves(root, func(g *placement.Group) {
		for i := range g.Members {
			least = min(least, max(g.Members[i].Requests[r], 0))
		}
		for i := range g.PodSets {
			if g.PodSets[i].Count > 0 {
				least = min(least, max(g.PodSets[i].Template.Requests[r], 0))
			}
		}
	})
	if least == math.MaxInt64 {
		return 0
	}
	return least
}
