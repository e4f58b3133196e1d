package preemption_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// onNode returns the units with a pod on node n.
func onNode(units []oracleUnit, n string) []oracleUnit {
	var out []oracleUnit
	for _, u := range units {
		if slices.ContainsFunc(u.pods, func(p *placement.Pod) bool { return p.NodeName == n }) {
			out = append(out, u)
		}
	}
	return out
}

// fitsOn reports whether the preemptor fits on node n once victims are
// gone.
func (w *world) fitsOn(t require.TestingT, s *placement.Snapshot, n placement.NodeID, victims []oracleUnit) bool {
	o := w.opts()
	o.Generator = only(placement.Placement{Name: s.Node(n).Name, Nodes: []placement.NodeID{n}})
	return solveWithout(t, s, &w.group, unitPods(victims), o).Status == placement.Scheduled
}

// classic is kube-scheduler's default preemption of one pod, written
// plainly after pkg/scheduler/framework/preemption: on each node, evict
// every lower-priority pod (a disruptionMode-PodGroup group whole); if the
// pod then fits, give pods back, most important first (higher priority,
// then earlier start), those whose eviction would go beyond a budget
// before the others, keeping each that still lets the pod fit; then pick
// the node whose victims cost least (pickOneNodeForPreemption).
func (w *world) classic(t require.TestingT, s *placement.Snapshot) (preemption.Cost, bool) {
	var best preemption.Cost
	ok := false
	for id := range s.NumNodes() {
		n := placement.NodeID(id)
		pot := onNode(w.units(), s.Node(n).Name)
		if len(pot) == 0 || !w.fitsOn(t, s, n, pot) {
			continue
		}
		slices.SortStableFunc(pot, func(a, b oracleUnit) int {
			if c := cmp.Compare(b.prio, a.prio); c != 0 {
				return c
			}
			return compareStartTimes(a, b)
		})
		left := map[int]int64{}
		for i, b := range w.in.Budgets {
			left[i] = int64(b.DisruptionsAllowed)
		}
		var violating, keeping []oracleUnit
		for _, u := range pot {
			over := false
			for i, b := range w.in.Budgets {
				for _, p := range u.pods {
					if p.Namespace == b.Namespace && b.Selector.Matches(p.Labels) {
						left[i]--
						over = over || left[i] < 0
					}
				}
			}
			if over {
				violating = append(violating, u)
			} else {
				keeping = append(keeping, u)
			}
		}
		victims := slices.Clone(pot)
		for _, u := range append(violating, keeping...) {
			rest := slices.DeleteFunc(slices.Clone(victims), func(v oracleUnit) bool { return v.name == u.name })
			if w.fitsOn(t, s, n, rest) {
				victims = rest
			}
		}
		if c := w.oracleCost(victims); !ok || c.Compare(best) < 0 {
			best, ok = c, true
		}
	}
	return best, ok
}

func compareStartTimes(a, b oracleUnit) int {
	switch {
	case a.start.IsZero() && b.start.IsZero():
		return 0
	case a.start.IsZero():
		return 1
	case b.start.IsZero():
		return -1
	}
	return a.start.Compare(b.start)
}

// perNodeCheapest is classic preemption with each node's victims chosen as
// the cheapest subset of its candidates (every subset tried), then the
// cheapest node: ties by the victims' sorted names, then by node name (the
// nodes are tried in name order), as preemption's Cost documents. It
// returns the cost, the victims' names and the node.
func (w *world) perNodeCheapest(t require.TestingT, s *placement.Snapshot) (best preemption.Cost, names []placement.Key, node string, ok bool) {
	for id := range s.NumNodes() {
		n := placement.NodeID(id)
		pot := onNode(w.units(), s.Node(n).Name)
		for mask := 1; mask < 1<<len(pot); mask++ {
			var set []oracleUnit
			for i := range pot {
				if mask&(1<<i) != 0 {
					set = append(set, pot[i])
				}
			}
			c := w.oracleCost(set)
			x := c.Compare(best)
			if x == 0 {
				x = slices.CompareFunc(oracleNames(set), names, placement.Key.Compare)
			}
			if (!ok || x < 0) && w.fitsOn(t, s, n, set) {
				best, names, node, ok = c, oracleNames(set), s.Node(n).Name, true
			}
		}
	}
	return best, names, node, ok
}

// For a preemptor of one member, without topology: Find's victims are
// those of classic per-node preemption whose nodes each evict their
// cheapest set (ties by names, then node name), and the member goes to
// that node, every time; they never cost more than upstream's own
// per-node choice (its reprieve order can keep a dearer set, as in
// TestScenario_EvictsTheOnePodThatFrees).
func TestProp_OneMemberAsClassic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := smallWorld.Draw(t, "world")
		w.racks = false
		w.group.Members, w.group.MinCount = w.group.Members[:1], 1
		s := w.snapshot(t)
		plan, err := preemption.Find(s, &w.group, w.in, w.opts())
		require.NoError(t, err)
		if plan.Outcome == preemption.Fits {
			return
		}
		cheapest, names, on, ok := w.perNodeCheapest(t, s)
		upstream, upOK := w.classic(t, s)
		require.Equal(t, ok, plan.Outcome == preemption.Preempt, plan.Message)
		require.Equal(t, ok, upOK)
		if !ok {
			return
		}
		require.True(t, plan.Proven)
		require.Equal(t, cheapest, plan.Cost, plan.Message)
		require.Equal(t, names, victimNames(plan.Victims), "equal cost: ties go to the least victim names")
		// The member fits only where the victims freed room: on their node
		// (or, for a whole group's pods on several nodes, one of them).
		mine := planUnits(w.units(), plan)
		var nodes []string
		for _, u := range mine {
			for _, p := range u.pods {
				nodes = append(nodes, p.NodeName)
			}
		}
		require.Len(t, plan.Decision.Assignments, 1)
		if got := plan.Decision.Assignments[0].Node; !slices.Contains(nodes, got) || (len(slices.Compact(slices.Sorted(slices.Values(nodes)))) == 1 && got != on) {
			require.Fail(t, "member on the wrong node", "Find %s, classic %s, victims on %v", got, on, nodes)
		}
		require.LessOrEqual(t, plan.Cost.Compare(upstream), 0, "upstream %v, Find %v", upstream, plan.Cost)
	})
}
