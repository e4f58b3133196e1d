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

var planKeys = []string{blockKey, rackKey, hostKey}

// planCase is a small block > rack > host cluster and one pod set request.
type planCase struct {
	nodes    []placement.Node
	pods     []placement.Pod
	count    int32
	req      topology.PodSetRequest
	balanced bool
	// kueueBalanced plans with PlanOptions.KueueBalanced, which
	// overrides balanced.
	kueueBalanced bool
	// prefer gives the template a preferred node affinity term for
	// disk=ssd and plans with PlanOptions.NodeAffinityPreferred.
	prefer bool
}

func genPlanCase() *rapid.Generator[planCase] {
	return rapid.Custom(func(t *rapid.T) planCase {
		var c planCase
		n := rapid.IntRange(1, 12).Draw(t, "nodes")
		for i := range n {
			name := fmt.Sprintf("n%02d", i)
			nd := node(name, 1000*rapid.Int64Range(0, 6).Draw(t, "cores"),
				blockKey, rapid.SampledFrom([]string{"b1", "b2"}).Draw(t, "block"),
				rackKey, rapid.SampledFrom([]string{"r1", "r2", "r3"}).Draw(t, "rack"), hostKey, name)
			if rapid.IntRange(0, 9).Draw(t, "unlabelled") == 0 {
				delete(nd.Labels, rackKey) // outside the topology
			}
			if rapid.IntRange(0, 7).Draw(t, "tainted") == 0 {
				nd.Taints = []placement.Taint{{Key: "dedicated", Effect: placement.TaintEffectNoSchedule}}
			}
			c.nodes = append(c.nodes, nd)
		}
		for i := range rapid.IntRange(0, 3).Draw(t, "others") {
			c.pods = append(c.pods, placement.Pod{Namespace: "x", Name: fmt.Sprintf("o%d", i),
				NodeName: c.nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name,
				Requests: placement.ResourceList{cpu: 1000 * rapid.Int64Range(0, 3).Draw(t, "ocores")}})
		}
		level := rapid.IntRange(0, 2).Draw(t, "level")
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			c.req.Required = planKeys[level]
		case 1:
			c.req.Preferred = planKeys[level]
		case 2:
			c.req.Unconstrained = true
			level = 0
		}
		size := int32(1)
		for l := level; l < len(planKeys) && len(c.req.Slices) < 2 && !c.req.Unconstrained; l++ {
			if rapid.IntRange(0, 2).Draw(t, "slice") == 0 {
				continue
			}
			sz := int32(rapid.IntRange(1, 4).Draw(t, "size"))
			if len(c.req.Slices) > 0 {
				sz = c.req.Slices[0].Size / sz
				if sz < 1 || c.req.Slices[0].Size%sz != 0 {
					continue
				}
			}
			c.req.Slices = append(c.req.Slices, topology.SliceLayer{Key: planKeys[l], Size: sz})
			if len(c.req.Slices) == 1 {
				size = sz
			}
		}
		c.count = size * int32(rapid.IntRange(1, 8).Draw(t, "slices"))
		c.balanced = rapid.Bool().Draw(t, "balanced")
		c.kueueBalanced = rapid.IntRange(0, 2).Draw(t, "kueue balanced") == 0
		return c
	})
}

func (c planCase) group(members bool) *placement.Group {
	tmpl := placement.Pod{Namespace: "default", SchedulingGroup: "pg", Requests: placement.ResourceList{cpu: 1000}}
	if c.prefer {
		tmpl.NodeAffinity = &placement.NodeAffinity{Preferred: []placement.PreferredSchedulingTerm{{Weight: 10,
			Preference: placement.NodeSelectorTerm{MatchExpressions: []placement.NodeSelectorRequirement{{Key: "disk", Operator: placement.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}}
	}
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: c.count}
	if !members {
		g.PodSets = []placement.PodSet{{Name: "w", Count: c.count, Template: tmpl}}
		return g
	}
	for i := range c.count {
		p := tmpl
		p.Name = fmt.Sprintf("w-%03d", i)
		g.Members = append(g.Members, p)
	}
	return g
}

func (c planCase) plan(t *rapid.T, members bool, nodes []placement.Node) (*placement.Snapshot, *topology.Tree, *placement.Group, topology.Plan, error) {
	s, err := placement.NewSnapshot(nodes, c.pods)
	require.NoError(t, err)
	tr, err := topology.NewTree(s, planKeys)
	require.NoError(t, err)
	g := c.group(members)
	req := c.req
	if !members {
		req.PodSet = "w"
	}
	p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{Balanced: c.balanced, KueueBalanced: c.kueueBalanced, NodeAffinityPreferred: c.prefer})
	return s, tr, g, p, err
}

// oracle counts, from the nodes up, the pods of one core that fit in each
// domain of the tree when every slice layer's domains take whole slices:
// a domain holds the sum of its children, each rounded down to the slice
// size of the innermost layer at or above the child's level.
func oracle(s *placement.Snapshot, tr *topology.Tree, req topology.PodSetRequest) map[topology.DomainID]int64 {
	levelOf := func(k string) int { l, _ := tr.Level(k); return l }
	// Pods count into a domain of level l in whole slices of the
	// outermost layer at level l or narrower.
	unitAt := func(l int) int64 {
		for _, sl := range req.Slices {
			if levelOf(sl.Key) >= l {
				return int64(sl.Size)
			}
		}
		return 1
	}
	out := map[topology.DomainID]int64{}
	perNode := map[placement.NodeID]int64{}
	for id := range placement.NodeID(s.NumNodes()) {
		if _, ok := tr.DomainOf(id, len(planKeys)-1); !ok || !placement.StaticFit(&placement.Pod{}, s.Node(id)) {
			continue
		}
		perNode[id] = max(s.Free(id, cpu)/1000, 0)
	}
	for l := len(planKeys) - 1; l >= 0; l-- {
		for d := range tr.Domains(l) {
			var sum int64
			if l == len(planKeys)-1 {
				for _, id := range d.Nodes {
					sum += perNode[id] / unitAt(l+1) * unitAt(l+1)
				}
			} else {
				for e := range tr.Domains(l + 1) {
					if e.Parent == d.ID {
						sum += out[e.ID] / unitAt(l+1) * unitAt(l+1)
					}
				}
			}
			out[d.ID] = sum
		}
	}
	return out
}

// TestProp_PodSetPlan: a plan passes Tree.VerifyPlan (a Scheduled set in
// one domain of its required level, each of its slices in one domain of
// every slice layer's level in rank order, the ranks filling one domain
// after another); and a required set is Scheduled exactly when the oracle
// finds a domain of its level that holds its slices.
func TestProp_PodSetPlan(t *testing.T) {
	seen := map[placement.Status]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		s, tr, g, p, err := c.plan(t, false, c.nodes)
		if errors.Is(err, topology.ErrNoDomain) {
			return // a level no node is in: the tree rejects the request
		}
		require.NoError(t, err)
		d := p.Decision
		seen[d.Status]++
		req := c.req
		req.PodSet = "w"
		require.NoError(t, tr.VerifyPlan(s, g, p, []topology.PodSetRequest{req}))
		// The tree keeps the counts of the last plan: planned again, after
		// a plan of another template, the set is planned alike.
		other := &placement.Group{Namespace: "default", Name: "other", MinCount: 1,
			PodSets: []placement.PodSet{{Name: "o", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 2000}}}}}
		for _, first := range []*placement.Group{g, other} {
			_, err := tr.PlanPodSets(s, first, nil, topology.PlanOptions{})
			require.NoError(t, err)
			again, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{Balanced: c.balanced, KueueBalanced: c.kueueBalanced})
			require.NoError(t, err)
			require.Equal(t, p, again)
		}
		if c.req.Required != "" {
			l, _ := tr.Level(c.req.Required)
			fits := false
			caps := oracle(s, tr, c.req)
			outer := int64(1)
			if len(c.req.Slices) > 0 {
				outer = int64(c.req.Slices[0].Size)
			}
			for dom := range tr.Domains(l) {
				fits = fits || caps[dom.ID]/outer*outer >= int64(c.count)
			}
			require.Equal(t, fits, d.Status == placement.Scheduled, "oracle: %v; plan: %s", fits, d.Message)
		}
		if d.Status != placement.Scheduled {
			return
		}
		require.Len(t, p.PodSets, 1)
	})
	require.Positive(t, seen[placement.Scheduled])
	require.Positive(t, seen[placement.Unschedulable])
}

// TestProp_PodSetPlanMembersAlike: the same pods given as a pod set or as
// identical members, and the nodes in any order, are planned alike
// (slices included): status, domain and pods per node.
func TestProp_PodSetPlanMembersAlike(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		_, _, _, sets, err := c.plan(t, false, c.nodes)
		if errors.Is(err, topology.ErrNoDomain) {
			return
		}
		require.NoError(t, err)
		perm := rapid.Permutation(c.nodes).Draw(t, "order")
		_, _, gm, mem, err := c.plan(t, true, perm)
		require.NoError(t, err)
		require.Equal(t, sets.Decision.Status, mem.Decision.Status)
		require.Equal(t, sets.Decision.Placement, mem.Decision.Placement)
		if sets.Decision.Status != placement.Scheduled {
			return
		}
		require.Equal(t, sets.PodSets[0].Ranks, mem.PodSets[0].Ranks)
		require.Equal(t, counts(sets.Decision, "w"), counts(mem.Decision, ""))
		// Members in member order take the ranks in order.
		order := slices.Clone(gm.Members)
		slices.SortFunc(order, func(a, b placement.Pod) int { return placement.MemberOrder(&a, &b) })
		k := 0
		for _, r := range mem.PodSets[0].Ranks {
			for range r.Count {
				require.Equal(t, order[k].Key(), mem.Decision.Assignments[k].Pod)
				require.Equal(t, r.Node, mem.Decision.Assignments[k].Node)
				k++
			}
		}
	})
}

// TestProp_BalancedPlacement: with Balanced and a preferred level P, a
// scheduled plan places exactly the set's count and verifies; when
// some domain of the level above holds the set split evenly over k
// domains of P (found by trying every subset), the plan uses the fewest
// such k and its counts per domain of P differ by at most one slice —
// also when preferred node affinity (some nodes labelled disk=ssd)
// chooses among the splits.
func TestProp_BalancedPlacement(t *testing.T) {
	applied := 0
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		lv := rapid.IntRange(0, 1).Draw(t, "level")
		c.req = topology.PodSetRequest{Preferred: planKeys[lv], Slices: c.req.Slices}
		if len(c.req.Slices) > 0 {
			if l := slices.Index(planKeys, c.req.Slices[0].Key); l < lv {
				c.req.Slices = nil
				c.count = max(c.count, 1)
			}
		}
		if len(c.req.Slices) == 0 {
			c.count = int32(rapid.IntRange(1, 12).Draw(t, "count"))
		}
		c.balanced, c.kueueBalanced = true, false
		if c.prefer = rapid.Bool().Draw(t, "prefer"); c.prefer {
			for i := range c.nodes {
				if rapid.Bool().Draw(t, "ssd") {
					c.nodes[i].Labels["disk"] = "ssd"
				}
			}
		}
		s, tr, g, p, err := c.plan(t, false, c.nodes)
		if errors.Is(err, topology.ErrNoDomain) {
			return
		}
		require.NoError(t, err)
		if p.Decision.Status == placement.Scheduled {
			// A balanced plan is the whole set or nothing: never fewer
			// pods than asked, never a node past its room.
			var placed int64
			for _, r := range p.PodSets[0].Ranks {
				placed += int64(r.Count)
			}
			require.Equal(t, int64(c.count), placed, p.Decision.Message)
			require.NoError(t, placement.Verify(s, g, p.Decision))
		}
		z := int64(1)
		if len(c.req.Slices) > 0 {
			z = int64(c.req.Slices[0].Size)
		}
		caps := oracle(s, tr, c.req)
		sl := len(planKeys) - 1
		if len(c.req.Slices) > 0 {
			sl = slices.Index(planKeys, c.req.Slices[0].Key)
		}
		slicesIn := func(d topology.DomainID) int64 {
			if lv >= sl {
				return caps[d] / z
			}
			var n int64
			for e := range tr.Domains(sl) {
				if ancestor(tr, e, lv) == d {
					n += caps[e.ID] / z
				}
			}
			return n
		}
		n := int64(c.count) / z
		best := 0
		scopes := map[topology.DomainID][]int64{} // per scope (-1: cluster), its P domains' slices
		for d := range tr.Domains(lv) {
			sc := topology.DomainID(-1)
			if lv > 0 {
				sc = d.Parent
			}
			scopes[sc] = append(scopes[sc], slicesIn(d.ID))
		}
		for _, cs := range scopes {
			for k := 1; k <= len(cs) && (best == 0 || k < best); k++ {
				if evenSplitFits(cs, k, n) {
					best = k
					break
				}
			}
		}
		if best == 0 || p.Decision.Status != placement.Scheduled {
			require.Zero(t, best, "a balanced split over %d domains exists but: %s", best, p.Decision.Message)
			return
		}
		applied++
		per := map[topology.DomainID]int64{}
		for _, r := range p.PodSets[0].Ranks {
			d, _ := tr.DomainOf(r.NodeID, lv)
			per[d.ID] += int64(r.Count)
		}
		require.Len(t, per, best, "domains of %s used", planKeys[lv])
		lo, hi := int64(1<<62), int64(0)
		for _, v := range per {
			lo, hi = min(lo, v), max(hi, v)
		}
		require.LessOrEqual(t, hi-lo, z, "counts per domain %v", per)
	})
	require.Positive(t, applied)
}

// evenSplitFits reports whether some k of caps hold n split into parts of
// ⌊n/k⌋ and ⌈n/k⌉, by trying every subset.
func evenSplitFits(caps []int64, k int, n int64) bool {
	q, rem := n/int64(k), int(n%int64(k))
	if q == 0 {
		return false
	}
	for mask := 0; mask < 1<<len(caps); mask++ {
		var sel []int64
		for i := range caps {
			if mask&(1<<i) != 0 {
				sel = append(sel, caps[i])
			}
		}
		if len(sel) != k {
			continue
		}
		slices.Sort(sel)
		slices.Reverse(sel)
		ok := sel[k-1] >= q
		if rem > 0 {
			ok = ok && sel[rem-1] >= q+1
		}
		if ok {
			return true
		}
	}
	return false
}

func ancestor(tr *topology.Tree, d topology.Domain, level int) topology.DomainID {
	for d.Level > level {
		d, _ = tr.Domain(d.Parent)
	}
	return d.ID
}
