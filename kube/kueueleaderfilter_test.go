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

// A PodSetGroup of two sets is planned with the workers' node filters on
// the leader too, the workers being the first set unless the second has
// more pods, as Kueue v0.17 picks them, and the leader in the first of
// the two places; other sets, a group of three and the Workload's own
// group and requests are left as they are.
func TestKueueGroupPlan(t *testing.T) {
	set := func(name string, count int32, label string) placement.PodSet {
		return placement.PodSet{Name: name, Count: count, Template: placement.Pod{
			NodeSelector: map[string]string{"role": label},
			Tolerations:  []placement.Toleration{{Key: label, Operator: placement.TolerationOpExists}},
		}}
	}
	req := func(name, group string) topology.PodSetRequest {
		return topology.PodSetRequest{PodSet: name, Required: "rack", Group: group}
	}
	for _, c := range []struct {
		name string
		sets []placement.PodSet
		reqs []topology.PodSetRequest
		want []string // each set's name, nodeSelector role and toleration key after
	}{
		{"leader first", []placement.PodSet{set("l", 1, "lead"), set("w", 3, "work")},
			[]topology.PodSetRequest{req("l", "g"), req("w", "g")}, []string{"l:work/work", "w:work/work"}},
		{"leader second", []placement.PodSet{set("w", 3, "work"), set("l", 1, "lead")},
			[]topology.PodSetRequest{req("w", "g"), req("l", "g")}, []string{"l:work/work", "w:work/work"}},
		{"equal counts: the second is the leader", []placement.PodSet{set("a", 2, "a"), set("b", 2, "b")},
			[]topology.PodSetRequest{req("a", "g"), req("b", "g")}, []string{"b:a/a", "a:a/a"}},
		{"two groups and a set between", []placement.PodSet{set("l1", 1, "l1"), set("x", 2, "x"), set("w1", 4, "w1"), set("w2", 5, "w2"), set("l2", 1, "l2")},
			[]topology.PodSetRequest{req("l1", "g1"), req("x", ""), req("w1", "g1"), req("w2", "g2"), req("l2", "g2")},
			[]string{"l1:w1/w1", "x:x/x", "w1:w1/w1", "l2:w2/w2", "w2:w2/w2"}},
		{"three sets untouched", []placement.PodSet{set("l", 1, "lead"), set("w", 3, "work"), set("v", 3, "v")},
			[]topology.PodSetRequest{req("l", "g"), req("w", "g"), req("v", "g")}, []string{"l:lead/lead", "w:work/work", "v:v/v"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &placement.Group{Namespace: "default", Name: "w", PodSets: c.sets}
			before := []string{}
			for _, s := range g.PodSets {
				before = append(before, s.Template.NodeSelector["role"])
			}
			reqsBefore := slices.Clone(c.reqs)
			got, reqs := kueueGroupPlan(g, c.reqs, func(string) bool { return false })
			var roles []string
			for i, s := range got.PodSets {
				require.Equal(t, s.Name, reqs[i].PodSet, "set %d and its request move together", i)
				roles = append(roles, s.Name+":"+s.Template.NodeSelector["role"]+"/"+s.Template.Tolerations[0].Key)
			}
			require.Equal(t, c.want, roles)
			require.Equal(t, reqsBefore, c.reqs, "the caller's requests are not changed")
			after := []string{}
			for _, s := range g.PodSets {
				after = append(after, s.Template.NodeSelector["role"])
			}
			require.Equal(t, before, after, "the Workload's own group is not changed")
		})
	}
	g := &placement.Group{PodSets: []placement.PodSet{set("a", 2, "a")}}
	reqs := []topology.PodSetRequest{req("a", "")}
	got, gotReqs := kueueGroupPlan(g, reqs, func(string) bool { return false })
	require.Same(t, g, got)
	require.Same(t, &reqs[0], &gotReqs[0])
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
