package kube

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A phantom leader listed before a one-pod partner moves after it (with
// its request), so that the planner, which sees it at count 1, takes it
// as Kueue's leader; one already after its partner, one whose partner has
// more pods, and every other set stay in place, and the Workload's own
// group and requests are not changed. The leader rule itself is
// topology's (TestKueueLeader, TestKueueLeaderAware_SpecOrder).
func TestKueuePhantomsLast(t *testing.T) {
	set := func(name string, count int32) placement.PodSet { return placement.PodSet{Name: name, Count: count} }
	req := func(name, group string) topology.PodSetRequest {
		return topology.PodSetRequest{PodSet: name, Required: "rack", Group: group}
	}
	phantom := func(name string) bool { return name[0] == 'p' }
	for _, c := range []struct {
		name string
		sets []placement.PodSet
		reqs []topology.PodSetRequest
		want []string // the sets' names after, in order
	}{
		{"phantom first, partner of one pod", []placement.PodSet{set("p", 1), set("w", 1)},
			[]topology.PodSetRequest{req("p", "g"), req("w", "g")}, []string{"w", "p"}},
		{"phantom first, a set between", []placement.PodSet{set("p", 1), set("x", 2), set("w", 1)},
			[]topology.PodSetRequest{req("p", "g"), req("x", ""), req("w", "g")}, []string{"w", "x", "p"}},
		{"phantom second", []placement.PodSet{set("w", 1), set("p", 1)},
			[]topology.PodSetRequest{req("w", "g"), req("p", "g")}, []string{"w", "p"}},
		{"phantom first, partner of more pods", []placement.PodSet{set("p", 1), set("w", 3)},
			[]topology.PodSetRequest{req("p", "g"), req("w", "g")}, []string{"p", "w"}},
		{"no phantom", []placement.PodSet{set("a", 1), set("b", 1)},
			[]topology.PodSetRequest{req("a", "g"), req("b", "g")}, []string{"a", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &placement.Group{Namespace: "default", Name: "w", PodSets: slices.Clone(c.sets)}
			reqsBefore := slices.Clone(c.reqs)
			got, reqs := kueuePhantomsLast(g, c.reqs, phantom)
			var names []string
			for i, s := range got.PodSets {
				require.Equal(t, s.Name, reqs[i].PodSet, "set %d and its request move together", i)
				names = append(names, s.Name)
			}
			require.Equal(t, c.want, names)
			require.Equal(t, reqsBefore, c.reqs, "the caller's requests are not changed")
			require.Equal(t, c.sets, g.PodSets, "the Workload's own group is not changed")
			if slices.EqualFunc(names, c.sets, func(n string, s placement.PodSet) bool { return n == s.Name }) {
				require.Same(t, g, got, "nothing moved: g itself")
			}
		})
	}
}

// A PodSetGroup's leader that Kueue put on a host its own node filters
// refuse is said to be there when the Workload is admitted and again on
// each run that reads the admission back (Kept), in the same words; a
// leader on a host it admits, or a phantom leader, gets no such words
// either time. Each case is a record run on the real Kueue (kueue-oracle).
func TestKueueRefusedLeaderReadBack(t *testing.T) {
	const dir = "testdata/kueue-oracle/"
	for _, c := range []struct {
		files    []string
		balanced bool
		workload string
		refused  string // the hosts named, "" for no words
	}{
		{[]string{"leader-filter-selector"}, false, "lead-sel", "b1-r1-h1"},
		{[]string{"leader-filter-affinity"}, false, "lead-aff", "b1-r1-h1"},
		{[]string{"leader-filter-nowhere"}, false, "lead-nowhere", "b1-r1-h1"},
		{[]string{"leader-filter-balanced"}, false, "lead-bal", "b1-r1-h1"},
		{[]string{"leader-filter-balanced"}, true, "lead-bal", ""},
		{[]string{"preemption/cluster", "preemption/phantom-leader-selector"}, false, "zw", ""},
	} {
		t.Run(strings.Join(c.files, "+")+map[bool]string{true: " balanced"}[c.balanced], func(t *testing.T) {
			var src []string
			for _, f := range c.files {
				b, err := os.ReadFile(dir + f + ".yaml")
				require.NoError(t, err)
				src = append(src, string(b))
			}
			plan := topology.KueueProfile.Options()
			if c.balanced {
				plan = topology.KueueBalancedProfile.Options()
			}
			// admit admits ws (nil: the manifests' own Workloads) on
			// the manifests' cluster; it returns the Workloads admitted
			// and the outcome of c's.
			admit := func(ws []*KueueWorkload) ([]*KueueWorkload, KueueOutcome) {
				cl := loadManifest(t, strings.Join(src, "\n---\n"))
				if ws == nil {
					ws = cl.KueueWorkloads
				}
				tree, err := topology.NewTree(cl.Snapshot, cl.KueueLevels)
				require.NoError(t, err)
				_, outs, err := AdmitKueueWorkloads(cl.Snapshot, tree, ws, KueueOptions{Now: propNow, NotReady: cl.NotReady, Queues: cl.KueueQueues, Plan: plan})
				require.NoError(t, err)
				return ws, outs[slices0(ws, c.workload)]
			}
			ws, first := admit(nil)
			var again []*KueueWorkload
			for _, w := range ws {
				r, err := ConvertKueueWorkload(w.Obj.DeepCopy(), nil)
				require.NoError(t, err)
				again = append(again, r)
			}
			_, kept := admit(again)
			require.Equal(t, KueueAdmitted, first.Action)
			require.Equal(t, KueueKept, kept.Action)
			if c.refused == "" {
				require.NotContains(t, first.Message, "never starts")
				require.NotContains(t, kept.Message, "never starts")
				return
			}
			words := "pod set leader is on " + c.refused + ", which its own node selector, affinity or tolerations refuse"
			require.Contains(t, first.Message, words)
			require.Contains(t, kept.Message, words)
		})
	}
}
