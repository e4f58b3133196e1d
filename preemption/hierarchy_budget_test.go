package preemption_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// FindHierarchy fills in each victim's ExceedsBudgets as Find does: the
// victims are counted against the budgets from the least important up.
// Three one-slot nodes hold p1, p2, p3 (priorities 1, 2, 3, app=web; p3
// also tier=top); a one-leaf tree needs `need` slots. Where the leaf is a
// plain gang, Find on the same group must give the same victims and flags.
func TestFindHierarchy_ExceedsBudgets(t *testing.T) {
	web := placement.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	top := placement.LabelSelector{MatchLabels: map[string]string{"tier": "top"}}
	pdb := func(name string, sel placement.LabelSelector, allowed int32) preemption.DisruptionBudget {
		return preemption.DisruptionBudget{Namespace: ns, Name: name, Selector: sel, DisruptionsAllowed: allowed}
	}
	type victim struct {
		pods    string // names, comma-separated
		exceeds string // budget names, comma-separated
	}
	for _, tc := range []struct {
		name    string
		need    int
		group   string // the bound pods' PodGroup ("" none)
		all     bool   // that group lies below a CompositePodGroup with disruptionMode All
		budgets []preemption.DisruptionBudget
		want    []victim
		over    bool // the message counts victims beyond a budget
	}{
		{name: "no budgets", need: 2, want: []victim{{"p2", ""}, {"p1", ""}}},
		{name: "budget holds", need: 2, budgets: []preemption.DisruptionBudget{pdb("web", web, 2)},
			want: []victim{{"p2", ""}, {"p1", ""}}},
		{name: "least important counted first", need: 2, budgets: []preemption.DisruptionBudget{pdb("web", web, 1)},
			want: []victim{{"p2", "web"}, {"p1", ""}}, over: true},
		{name: "every choice exceeds: the cheapest", need: 1, budgets: []preemption.DisruptionBudget{pdb("web", web, 0), pdb("top", top, 5)},
			want: []victim{{"p1", "web"}}, over: true},
		{name: "two budgets on one victim, sorted", need: 3, budgets: []preemption.DisruptionBudget{pdb("web", web, 1), pdb("top", top, 0)},
			want: []victim{{"p3", "top,web"}, {"p2", "web"}, {"p1", ""}}, over: true},
		{name: "whole subtree counts all its pods", need: 1, group: "v", all: true, budgets: []preemption.DisruptionBudget{pdb("web", web, 2)},
			want: []victim{{"p1,p2,p3", "web"}}, over: true},
		{name: "whole subtree within budget", need: 1, group: "v", all: true, budgets: []preemption.DisruptionBudget{pdb("web", web, 3)},
			want: []victim{{"p1,p2,p3", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var nodes []placement.Node
			var pods []placement.Pod
			for i, name := range []string{"p1", "p2", "p3"} {
				n := "n" + itoa(i+1)
				nodes = append(nodes, node(n, cpu(1000)))
				p := bound(name, n, tc.group, int32(i+1), cpu(1000))
				p.Labels = map[string]string{"app": "web"}
				if name == "p3" {
					p.Labels["tier"] = "top"
				}
				pods = append(pods, p)
			}
			s := snapshot(nodes, pods)
			leaf := gang("l0", tc.need, int32(tc.need), treePrio, cpu(1000))
			root := &placement.HierarchyNode{Name: "root", MinGroupCount: 1, Children: []*placement.HierarchyNode{{Name: "l0", Group: leaf}}}
			in := preemption.HierarchyInput{Input: preemption.Input{Budgets: tc.budgets}}
			if tc.all {
				in.Parents = map[placement.Key]string{key(tc.group): "c"}
				in.Composites = map[placement.Key]preemption.CompositeSpec{key("c"): {All: true}}
			}
			plan, err := preemption.FindHierarchy(s, root, treePrio, in, placement.Options{}, placement.HierarchyOptions{})
			require.NoError(t, err)
			require.Equal(t, preemption.Preempt, plan.Outcome, plan.Message)
			var got []victim
			for _, v := range plan.Victims {
				var names, budgets []string
				for _, k := range v.Pods {
					names = append(names, k.Name)
				}
				for _, k := range v.ExceedsBudgets {
					budgets = append(budgets, k.Name)
				}
				got = append(got, victim{strings.Join(names, ","), strings.Join(budgets, ",")})
			}
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.over, strings.Contains(plan.Message, "beyond a disruption budget"), plan.Message)
			if tc.all {
				return // Find has no CompositePodGroups
			}
			flat := find(t, s, leaf, in.Input, placement.Options{})
			require.Equal(t, preemption.Preempt, flat.Outcome, flat.Message)
			require.Equal(t, len(flat.Victims), len(plan.Victims))
			for i := range flat.Victims {
				require.Equal(t, flat.Victims[i].Pods, plan.Victims[i].Pods)
				require.Equal(t, flat.Victims[i].ExceedsBudgets, plan.Victims[i].ExceedsBudgets)
			}
		})
	}
}
