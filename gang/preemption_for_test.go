package gang_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// Options.PreemptionFor narrows preemption per group, as kube-scheduler
// runs the PostFilter of the pod's own profile. Nodes n1 and n2 each hold
// a low pod (priority 10) that fills them; gangs "eager" (queued first)
// and "calm", priority 1000, need a whole node each. A group that may
// preempt evicts a low pod and binds where it was; one that may not gets
// no plan at all (not a CannotHelp one) and waits. Preemption off wins
// over PreemptionFor.
func TestCycle_PreemptionFor(t *testing.T) {
	only := func(names ...string) func(*PodGroup) bool {
		return func(pg *PodGroup) bool { return slices.Contains(names, pg.Name) }
	}
	for _, c := range []struct {
		name       string
		preemption bool
		for_       func(*PodGroup) bool
		want       map[string][]string // group -> evicted pods; absent: no plan
		bound      map[string][]string // group -> its pods' "pod@node" in the end, for the groups of want
		asked      []string            // the groups PreemptionFor is asked about, in order
	}{
		{"nil preempts for all", true, nil, map[string][]string{"eager": {"low-1"}, "calm": {"low-2"}},
			map[string][]string{"eager": {"eager-0@n1"}, "calm": {"calm-0@n2"}}, nil},
		{"eager only", true, only("eager"), map[string][]string{"eager": {"low-1"}},
			map[string][]string{"eager": {"eager-0@n1"}}, []string{"eager", "calm"}},
		{"calm only", true, only("calm"), map[string][]string{"calm": {"low-1"}},
			map[string][]string{"calm": {"calm-0@n1"}}, []string{"eager", "calm"}},
		{"neither", true, only(), map[string][]string{}, map[string][]string{}, []string{"eager", "calm"}},
		{"preemption off", false, only("eager", "calm"), map[string][]string{}, map[string][]string{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			low := func(name, node string) placement.Pod {
				return placement.Pod{Namespace: "default", Name: name, NodeName: node, Requests: cpu(4000), Priority: 10}
			}
			var asked []string
			opts := Options{Preemption: c.preemption, Profile: ProfileV136}
			if c.for_ != nil {
				opts.PreemptionFor = func(pg *PodGroup) bool {
					asked = append(asked, pg.Name)
					return c.for_(pg)
				}
			}
			h := newHarness(t, opts, []placement.Node{cpuNode("n1", 4000), cpuNode("n2", 4000)}, low("low-1", "n1"), low("low-2", "n2"))
			for i, g := range []string{"eager", "calm"} {
				pg := gangPG(g, 1)
				pg.Spec.Priority = new(int32(1000))
				h.setPG(pg)
				m := member(g+"-0", g, cpu(4000), i)
				m.Priority = 1000
				h.addPods(m)
			}
			// Cycle as a host would, evicting the victims of each plan,
			// until no group is ready (one that may not preempt backs off).
			got := map[string][]string{}
			for {
				r, ok := h.cycle()
				if !ok {
					break
				}
				if r.Preemption == nil {
					continue
				}
				require.Equal(t, preemption.Preempt, r.Preemption.Outcome, r.Preemption.Message)
				evicted := r.Preemption.EvictedPods()
				for _, k := range evicted {
					got[r.PodGroup.Name] = append(got[r.PodGroup.Name], k.Name)
					h.s.DeletePod(k)
				}
				after, err := h.snap.Apply(placement.Change{Remove: evicted})
				require.NoError(t, err)
				h.snap = after
			}
			require.Equal(t, c.want, got)
			bound := map[string][]string{}
			for g := range c.want {
				bound[g] = h.placements(g)
			}
			for _, g := range []string{"eager", "calm"} {
				if _, ok := c.want[g]; !ok {
					require.Empty(t, h.placements(g), "%s may not preempt: it waits", g)
				}
			}
			require.Equal(t, c.bound, bound)
			require.Equal(t, c.asked, asked, "asked once per Unschedulable cycle, never with preemption off")
		})
	}
}

// A tree is asked about its first leaf with pending members: a tree of
// priority 100 over leaf "root-l" needs rack r1's node, full of a low pod.
func TestCycleTree_PreemptionFor(t *testing.T) {
	for _, may := range []bool{false, true} {
		var asked []string
		h := newHarness(t, Options{Preemption: true, PreemptionFor: func(pg *PodGroup) bool {
			asked = append(asked, pg.Name)
			return may
		}}, []placement.Node{rackNode("n1", "b", "r1", 2000)},
			placement.Pod{Namespace: "default", Name: "low", NodeName: "n1", Requests: cpu(2000), Priority: 5})
		h.setTree("root", 100, 2, 1000, 0)
		r, ok := h.cycle()
		require.True(t, ok)
		require.Equal(t, placement.Unschedulable, r.Decision.Status)
		require.Equal(t, []string{"root-l"}, asked)
		if !may {
			require.Nil(t, r.Hierarchy.Preemption)
			continue
		}
		require.NotNil(t, r.Hierarchy.Preemption)
		require.Equal(t, preemption.Preempt, r.Hierarchy.Preemption.Outcome, r.Hierarchy.Preemption.Message)
		var evicted []placement.Key
		for _, v := range r.Hierarchy.Preemption.Victims {
			evicted = append(evicted, v.Pods...)
		}
		require.Equal(t, []placement.Key{key("low")}, evicted)
	}
}
