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
}

const treePrio int32 = 50

func drawHierarchyCase(t *rapid.T) hcase {
	c := hcase{in: preemption.HierarchyInput{Input: preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{}},
		Parents: map[placement.Key]string{}, Composites: map[placement.Key]preemption.CompositeSpec{}}}
	var nodes []placement.Node
	free := map[string]int{}
	for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
		name := fmt.Sprintf("n%d", i)
		slots := rapid.IntRange(1, 3).Draw(t, "slots")
		nodes = append(nodes, placement.Node{Name: name, Labels: map[string]string{rackKey: "r" + name},
			Allocatable: placement.ResourceList{placement.ResourceCPU: int64(slots) * 1000}})
		free[name] = slots
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
	for _, nd := range nodes {
		for j := range free[nd.Name] {
			if rapid.IntRange(0, 4).Draw(t, "empty") == 0 {
				continue
			}
			p := placement.Pod{Namespace: ns, Name: fmt.Sprintf("b-%s-%d", nd.Name, j), NodeName: nd.Name, Requests: cpu(1000),
				Priority:        rapid.SampledFrom([]int32{1, 5, 80}).Draw(t, "priority"),
				SchedulingGroup: rapid.SampledFrom([]string{"", "v0", "v1"}).Draw(t, "group")}
			bound = append(bound, p)
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
		g := &placement.Group{Namespace: ns, Name: name, MinCount: int32(rapid.IntRange(1, 2).Draw(t, "min"))}
		for j := range g.MinCount {
			g.Members = append(g.Members, placement.Pod{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, j), SchedulingGroup: name, Requests: cpu(1000), Priority: treePrio})
		}
		c.root.Children = append(c.root.Children, &placement.HierarchyNode{Name: name, Group: g,
			TopologyKey: rapid.SampledFrom([]string{"", rackKey}).Draw(t, "key")})
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
	return c
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
// was exact, no set of lower Cost fits.
func TestFindHierarchy_PropAgainstBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawHierarchyCase(t)
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
		best, bestFits := preemption.Cost{}, false
		for mask := range 1 << len(cand) {
			var set []int
			var pods []placement.Key
			for i, u := range cand {
				if mask&(1<<i) != 0 {
					set = append(set, u)
					pods = append(pods, c.units[u]...)
				}
			}
			if fitsWithout(t, c, pods) && (!bestFits || oracleCost(c, set).Compare(best) < 0) {
				best, bestFits = oracleCost(c, set), true
			}
		}
		switch {
		case fitsWithout(t, c, nil):
			if plan.Outcome != preemption.Fits {
				t.Fatalf("fits untouched, got %v: %s", plan.Outcome, plan.Message)
			}
			return
		case !bestFits:
			if plan.Outcome != preemption.CannotHelp || len(plan.Victims) != 0 {
				t.Fatalf("no set helps, got %v with %d victims: %s", plan.Outcome, len(plan.Victims), plan.Message)
			}
			return
		case plan.Outcome != preemption.Preempt:
			t.Fatalf("a set helps, got %v: %s", plan.Outcome, plan.Message)
		}
		var evicted []placement.Key
		for _, v := range plan.Victims {
			u := slices.IndexFunc(c.units, func(pods []placement.Key) bool { return slices.Equal(pods, v.Pods) })
			if u < 0 || c.prio[u] >= treePrio || v.Priority != c.prio[u] {
				t.Fatalf("victim %+v is not a candidate unit of %v", v, c.units)
			}
			evicted = append(evicted, v.Pods...)
		}
		if !fitsWithout(t, c, evicted) || plan.Decision.Status != placement.Scheduled {
			t.Fatalf("evicting %v does not let the tree fit", evicted)
		}
		for _, v := range plan.Victims {
			spared := slices.DeleteFunc(slices.Clone(evicted), func(k placement.Key) bool { return slices.Contains(v.Pods, k) })
			if fitsWithout(t, c, spared) {
				t.Fatalf("victim %v could be spared", v.Pods)
			}
		}
		if plan.Proven != (len(cand) <= preemption.MaxExactHierarchyUnits) {
			t.Fatalf("proven %v with %d candidates", plan.Proven, len(cand))
		}
		if plan.Proven && plan.Cost.Compare(best) != 0 {
			t.Fatalf("cost %s, the cheapest set that fits costs %s", plan.Cost, best)
		}
	})
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
