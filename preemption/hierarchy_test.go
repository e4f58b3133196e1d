package preemption_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// hcase is a tiny cluster with lower- and higher-priority pods bound, and
// a tree of one or two leaves (a root gang of all of them) at priority 50.
type hcase struct {
	s    *placement.Snapshot
	root *placement.HierarchyNode
	in   preemption.HierarchyInput
	// units are the candidates as the oracle forms them: a pod, a
	// PodGroup of disruptionMode PodGroup, or c0's subtree when All.
	units [][]placement.Key
	prio  []int32
	// For the oracle's own fit check (oracleFits): every slot holds one
	// 1-CPU pod; free is each node's free slots, slots[u][n] the slots
	// unit u's pods take on node n; leaves are (minCount, rack-confined).
	free   []int
	slots  [][]int
	leaves []oracleLeaf
}

// oracleLeaf is a leaf of the drawn tree as oracleFits sees it.
type oracleLeaf struct {
	min    int
	inRack bool // confined to one rack, i.e. one node (each node is its own rack)
}

const treePrio int32 = 50

// hshape bounds a drawn case: its nodes, each node's slots, each leaf's
// minCount, and the groups a bound pod is drawn from ("" for none).
type hshape struct {
	nodes, slots, min [2]int
	groups            []string
}

// small cases, for the every-subset oracle since the start; large ones
// have up to ~18 candidates, mostly single pods.
var (
	smallCases = hshape{nodes: [2]int{1, 4}, slots: [2]int{1, 3}, min: [2]int{1, 2}, groups: []string{"", "v0", "v1"}}
	largeCases = hshape{nodes: [2]int{5, 7}, slots: [2]int{2, 3}, min: [2]int{1, 3}, groups: []string{"", "", "", "", "v0", "v1"}}
)

// drawHierarchyCase draws a case of the given shape.
func drawHierarchyCase(t *rapid.T, shape hshape) hcase {
	c := hcase{in: preemption.HierarchyInput{Input: preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{}},
		Parents: map[placement.Key]string{}, Composites: map[placement.Key]preemption.CompositeSpec{}}}
	var nodes []placement.Node
	free := map[string]int{}
	for i := range rapid.IntRange(shape.nodes[0], shape.nodes[1]).Draw(t, "nodes") {
		name := fmt.Sprintf("n%d", i)
		slots := rapid.IntRange(shape.slots[0], shape.slots[1]).Draw(t, "slots")
		nodes = append(nodes, placement.Node{Name: name, Labels: map[string]string{rackKey: "r" + name},
			Allocatable: placement.ResourceList{placement.ResourceCPU: int64(slots) * 1000}})
		free[name] = slots
		c.free = append(c.free, slots)
	}
	// Victim groups v0 and v1 sit below c0, itself below c1; either may
	// have disruptionMode All (the higher one then wins).
	all0, all1 := rapid.Bool().Draw(t, "c0 all"), rapid.Bool().Draw(t, "c1 all")
	c.in.Composites[placement.Key{Namespace: ns, Name: "c0"}] = preemption.CompositeSpec{Parent: "c1", All: all0}
	c.in.Composites[placement.Key{Namespace: ns, Name: "c1"}] = preemption.CompositeSpec{All: all1}
	for _, g := range []string{"v0", "v1"} {
		k := placement.Key{Namespace: ns, Name: g}
		if rapid.Bool().Draw(t, "under c0") {
			c.in.Parents[k] = "c0"
		}
		if rapid.Bool().Draw(t, "whole") {
			c.in.PodGroups[k] = preemption.PodGroupSpec{DisruptionMode: preemption.DisruptionModePodGroup}
		}
	}
	// Most slots hold a bound pod, so that the tree mostly needs room.
	var bound []placement.Pod
	for ni, nd := range nodes {
		for j := range free[nd.Name] {
			if rapid.IntRange(0, 4).Draw(t, "empty") == 0 {
				continue
			}
			p := placement.Pod{Namespace: ns, Name: fmt.Sprintf("b-%s-%d", nd.Name, j), NodeName: nd.Name, Requests: cpu(1000),
				Priority:        rapid.SampledFrom([]int32{1, 5, 80}).Draw(t, "priority"),
				SchedulingGroup: rapid.SampledFrom(shape.groups).Draw(t, "group")}
			bound = append(bound, p)
			c.free[ni]--
		}
	}
	s, err := placement.NewSnapshot(nodes, bound)
	if err != nil {
		t.Fatal(err)
	}
	c.s = s
	c.root = &placement.HierarchyNode{Name: "root"}
	for i := range rapid.IntRange(1, 2).Draw(t, "leaves") {
		name := fmt.Sprintf("l%d", i)
		g := &placement.Group{Namespace: ns, Name: name, MinCount: int32(rapid.IntRange(shape.min[0], shape.min[1]).Draw(t, "min"))}
		for j := range g.MinCount {
			g.Members = append(g.Members, placement.Pod{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, j), SchedulingGroup: name, Requests: cpu(1000), Priority: treePrio})
		}
		key := rapid.SampledFrom([]string{"", rackKey}).Draw(t, "key")
		c.root.Children = append(c.root.Children, &placement.HierarchyNode{Name: name, Group: g, TopologyKey: key})
		c.leaves = append(c.leaves, oracleLeaf{min: int(g.MinCount), inRack: key != ""})
	}
	c.root.MinGroupCount = int32(len(c.root.Children))
	// The oracle's units.
	byUnit := map[string]int{}
	for _, p := range bound {
		u := "pod " + p.Name
		if p.SchedulingGroup != "" {
			k := placement.Key{Namespace: ns, Name: p.SchedulingGroup}
			switch under := c.in.Parents[k] == "c0"; {
			case under && all1:
				u = "c1"
			case under && all0:
				u = "c0"
			case c.in.PodGroups[k].DisruptionMode == preemption.DisruptionModePodGroup:
				u = "group " + p.SchedulingGroup
			}
		}
		i, ok := byUnit[u]
		if !ok {
			i = len(c.units)
			byUnit[u] = i
			c.units = append(c.units, nil)
			c.prio = append(c.prio, math.MinInt32)
		}
		c.units[i] = append(c.units[i], p.Key())
		c.prio[i] = max(c.prio[i], p.Priority)
	}
	for _, pods := range c.units {
		row := make([]int, len(nodes))
		for _, k := range pods {
			p, _ := s.Pod(k)
			row[slices.IndexFunc(nodes, func(n placement.Node) bool { return n.Name == p.NodeName })]++
		}
		c.slots = append(c.slots, row)
	}
	return c
}

// oracleFits is the tree's fit, computed directly rather than by
// SolveHierarchy: with free slots per node, the root gang needs every
// leaf whole, a rack-confined leaf on one node, the others anywhere. It
// tries every node for each confined leaf in turn.
func oracleFits(free []int, leaves []oracleLeaf) bool {
	if len(leaves) == 0 {
		return true
	}
	l, rest := leaves[0], leaves[1:]
	if l.inRack {
		for n := range free {
			if free[n] >= l.min {
				free[n] -= l.min
				ok := oracleFits(free, rest)
				free[n] += l.min
				if ok {
					return true
				}
			}
		}
		return false
	}
	// An unconfined leaf takes what the confined ones leave: place those first.
	for i, o := range rest {
		if o.inRack {
			swapped := append([]oracleLeaf{o}, rest[:i]...)
			swapped = append(swapped, rest[i+1:]...)
			return oracleFits(free, append(swapped, l))
		}
	}
	need := l.min
	for _, o := range rest {
		need += o.min
	}
	total := 0
	for _, f := range free {
		total += f
	}
	return total >= need
}

// oracleFitsWithout is oracleFits with the units of set (indexes into
// c.units) evicted.
func oracleFitsWithout(c hcase, set []int) bool {
	free := slices.Clone(c.free)
	for _, u := range set {
		for n, k := range c.slots[u] {
			free[n] += k
		}
	}
	return oracleFits(free, c.leaves)
}

// fitsWithout reports whether the tree is Scheduled with pods removed.
func fitsWithout(t *rapid.T, c hcase, pods []placement.Key) bool {
	s, err := c.s.Apply(placement.Change{Remove: pods})
	if err != nil {
		t.Fatal(err)
	}
	d, err := placement.SolveHierarchy(s, c.root, placement.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Status == placement.Scheduled
}

// oracleCost is Cost's definition for pods without budgets or start
// times: a unit's pods each at the unit's priority.
func oracleCost(c hcase, set []int) preemption.Cost {
	if len(set) == 0 {
		return preemption.Cost{}
	}
	k := preemption.Cost{MaxPriority: math.MinInt32}
	for _, u := range set {
		k.MaxPriority = max(k.MaxPriority, c.prio[u])
		k.Pods += len(c.units[u])
		k.PrioritySum += int64(len(c.units[u])) * (int64(c.prio[u]) + 1<<31)
	}
	return k
}

// FindHierarchy against brute force over every set of candidate units:
// it fits exactly when the tree fits untouched; it cannot help exactly
// when no set lets the tree fit; otherwise its victims are candidates
// (whole at the highest All ancestor), the tree fits without them (never
// in vain), none of them can be spared (minimal), and, when the search
// was exact, no set of lower Cost fits. The oracle's fit is its own
// (oracleFits), checked against SolveHierarchy on the sets the plan
// names, so that every set of up to 2^14 costs microseconds.
func TestFindHierarchy_PropAgainstBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkAgainstBruteForce(t, drawHierarchyCase(t, smallCases)) })
}

// TestFindHierarchy_PropAgainstBruteForceLarge is the brute-force
// property on 5 to 7 nodes of 2 or 3 slots (largeCases), where a tree has
// up to 21 bound pods and ~14 candidate units: the exact search is proven beyond 8 of them (up to
// MaxExactHierarchyUnits, within MaxExactHierarchySolves), and some cases
// must show it.
func TestFindHierarchy_PropAgainstBruteForceLarge(t *testing.T) {
	provenAbove8, plansAbove8 := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		n, proven := checkAgainstBruteForce(t, drawHierarchyCase(t, largeCases))
		if n > 8 && n <= preemption.MaxExactHierarchyUnits {
			plansAbove8++
			if proven {
				provenAbove8++
			}
		}
	})
	if provenAbove8 == 0 {
		t.Fatal("no case had a proven plan of more than 8 candidates")
	}
	t.Logf("%d of %d plans of 9 to %d candidates proven", provenAbove8, plansAbove8, preemption.MaxExactHierarchyUnits)
}

// checkAgainstBruteForce checks FindHierarchy on c against brute force and
// returns, when it preempts, the number of candidates and whether the plan
// is proven (else 0, false).
func checkAgainstBruteForce(t *rapid.T, c hcase) (int, bool) {
	plan, err := preemption.FindHierarchy(c.s, c.root, treePrio, c.in, placement.Options{}, placement.HierarchyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cand []int
	for u := range c.units {
		if c.prio[u] < treePrio {
			cand = append(cand, u)
		}
	}
	if len(cand) > 21 {
		t.Fatalf("%d candidates: the oracle's 2^n sets are too many", len(cand))
	}
	// The oracle agrees with SolveHierarchy untouched and with every
	// candidate gone.
	var allPods []placement.Key
	for _, u := range cand {
		allPods = append(allPods, c.units[u]...)
	}
	if oracleFitsWithout(c, nil) != fitsWithout(t, c, nil) || oracleFitsWithout(c, cand) != fitsWithout(t, c, allPods) {
		t.Fatalf("the oracle's fit disagrees with SolveHierarchy")
	}
	best, bestFits := preemption.Cost{}, false
	set := make([]int, 0, len(cand))
	for mask := range 1 << len(cand) {
		set = set[:0]
		for i, u := range cand {
			if mask&(1<<i) != 0 {
				set = append(set, u)
			}
		}
		if k := oracleCost(c, set); (!bestFits || k.Compare(best) < 0) && oracleFitsWithout(c, set) {
			best, bestFits = k, true
		}
	}
	switch {
	case fitsWithout(t, c, nil):
		if plan.Outcome != preemption.Fits {
			t.Fatalf("fits untouched, got %v: %s", plan.Outcome, plan.Message)
		}
		return 0, false
	case !bestFits:
		if plan.Outcome != preemption.CannotHelp || len(plan.Victims) != 0 {
			t.Fatalf("no set helps, got %v with %d victims: %s", plan.Outcome, len(plan.Victims), plan.Message)
		}
		return 0, false
	case plan.Outcome != preemption.Preempt:
		t.Fatalf("a set helps, got %v: %s", plan.Outcome, plan.Message)
	}
	var evicted []placement.Key
	var units []int
	for _, v := range plan.Victims {
		u := slices.IndexFunc(c.units, func(pods []placement.Key) bool { return slices.Equal(pods, v.Pods) })
		if u < 0 || c.prio[u] >= treePrio || v.Priority != c.prio[u] {
			t.Fatalf("victim %+v is not a candidate unit of %v", v, c.units)
		}
		evicted = append(evicted, v.Pods...)
		units = append(units, u)
	}
	if !fitsWithout(t, c, evicted) || !oracleFitsWithout(c, units) || plan.Decision.Status != placement.Scheduled {
		t.Fatalf("evicting %v does not let the tree fit", evicted)
	}
	for _, v := range plan.Victims {
		spared := slices.DeleteFunc(slices.Clone(evicted), func(k placement.Key) bool { return slices.Contains(v.Pods, k) })
		if fitsWithout(t, c, spared) {
			t.Fatalf("victim %v could be spared", v.Pods)
		}
	}
	switch {
	case len(cand) <= 8 && !plan.Proven:
		t.Fatalf("not proven with %d candidates: every subset of 8 fits the solve budget", len(cand))
	case len(cand) > preemption.MaxExactHierarchyUnits && plan.Proven:
		t.Fatalf("proven with %d candidates, above MaxExactHierarchyUnits", len(cand))
	case plan.Proven && plan.Cost.Compare(best) != 0:
		t.Fatalf("cost %s with %d candidates, the cheapest set that fits costs %s", plan.Cost, len(cand), best)
	}
	return len(cand), plan.Proven
}

// A victim PodGroup below CompositePodGroups with disruptionMode All is
// evicted whole at the highest of them: both groups under c1 go together
// (the cheaper single pod of v0 cannot be taken alone), and the tree's
// own bound member is never a victim.
func TestFindHierarchy_WholeAtHighestAllAncestor(t *testing.T) {
	node := func(name string) placement.Node {
		return placement.Node{Name: name, Allocatable: placement.ResourceList{placement.ResourceCPU: 2000}}
	}
	pod := func(name, group, node string) placement.Pod {
		return placement.Pod{Namespace: ns, Name: name, SchedulingGroup: group, NodeName: node, Requests: cpu(1000), Priority: 1}
	}
	s, err := placement.NewSnapshot([]placement.Node{node("n1"), node("n2")},
		[]placement.Pod{pod("a", "v0", "n1"), pod("b", "v1", "n2"), pod("c", "v1", "n2"), pod("own", "l0", "n1")})
	if err != nil {
		t.Fatal(err)
	}
	leaf := &placement.Group{Namespace: ns, Name: "l0", MinCount: 2,
		Members: []placement.Pod{{Namespace: ns, Name: "new", SchedulingGroup: "l0", Requests: cpu(1000), Priority: treePrio}}}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 1, Children: []*placement.HierarchyNode{{Name: "l0", Group: leaf}}}
	in := preemption.HierarchyInput{
		Parents: map[placement.Key]string{{Namespace: ns, Name: "v0"}: "c0", {Namespace: ns, Name: "v1"}: "c1"},
		Composites: map[placement.Key]preemption.CompositeSpec{
			{Namespace: ns, Name: "c0"}: {Parent: "c1", All: true},
			{Namespace: ns, Name: "c1"}: {All: true},
		}}
	plan, err := preemption.FindHierarchy(s, root, treePrio, in, placement.Options{}, placement.HierarchyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []placement.Key{{Namespace: ns, Name: "a"}, {Namespace: ns, Name: "b"}, {Namespace: ns, Name: "c"}}
	if plan.Outcome != preemption.Preempt || len(plan.Victims) != 1 || !plan.Victims[0].Whole ||
		plan.Victims[0].PodGroup != (placement.Key{Namespace: ns, Name: "c1"}) || !slices.Equal(plan.Victims[0].Pods, want) {
		t.Fatalf("%v %+v: %s", plan.Outcome, plan.Victims, plan.Message)
	}
}

// An invalid input is an error naming the object and field, as Find's.
func TestFindHierarchy_InvalidInput(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{{Name: "n1", Allocatable: cpu(1000)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &placement.Group{Namespace: ns, Name: "l0", MinCount: 1,
		Members: []placement.Pod{{Namespace: ns, Name: "p", SchedulingGroup: "l0", Requests: cpu(1000)}}}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 1, Children: []*placement.HierarchyNode{{Name: "l0", Group: leaf}}}
	in := preemption.HierarchyInput{Input: preemption.Input{Budgets: []preemption.DisruptionBudget{{Namespace: ns, Name: "b", DisruptionsAllowed: -1}}}}
	_, err = preemption.FindHierarchy(s, root, treePrio, in, placement.Options{}, placement.HierarchyOptions{})
	var fe *placement.FieldError
	if !errors.As(err, &fe) || fe.Object != `PodDisruptionBudget "default/b"` || fe.Field != "status.disruptionsAllowed" {
		t.Fatalf("got %v", err)
	}
}
