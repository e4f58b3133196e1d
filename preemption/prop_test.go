package preemption_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// world is one generated preemption problem, kept as raw slices so that a
// property can permute them.
type world struct {
	nodes   []placement.Node
	pods    []placement.Pod
	group   placement.Group
	in      preemption.Input
	racks   bool // solve with a required rack
	avoidB  bool // a caller filter keeps members off nodes running an app=b pod
	preempt int32
}

func (w *world) opts() placement.Options {
	var o placement.Options
	if w.racks {
		o.Generator = rackGenerator()
	}
	if w.avoidB {
		o.Filters = []placement.Filter{avoid("app", "b")}
	}
	return o
}

// avoid is a filter that depends on the pods of a node, like inter-pod
// anti-affinity: it rejects nodes running a pod labelled k=v.
func avoid(k, v string) placement.Filter {
	return placement.FilterFunc(func(_ *placement.Pod, n placement.NodeInfo) placement.Rejection {
		for p := range n.Snapshot().PodsOn(n.ID()) {
			if p.Labels[k] == v {
				return placement.Rejection{Reason: "node(s) run a pod labelled " + k + "=" + v}
			}
		}
		return placement.Rejection{}
	})
}

func (w *world) snapshot(t require.TestingT) *placement.Snapshot {
	s, err := placement.NewSnapshot(w.nodes, w.pods)
	require.NoError(t, err)
	return s
}

// The generator keeps domains small so that collisions happen: 1–5 nodes of
// 0–6 CPUs and 0–2 GPUs in 2 racks, 0–12 bound pods of priorities 1–4 in
// 0–3 groups, a preemptor group of 1–4 members at priority 3.
var worldGen = rapid.Custom(func(t *rapid.T) world {
	var w world
	nNodes := rapid.IntRange(1, 5).Draw(t, "nodes")
	for i := range nNodes {
		n := placement.Node{Name: fmt.Sprintf("n%02d", i), Allocatable: placement.ResourceList{
			placement.ResourceCPU: rapid.Int64Range(0, 6).Draw(t, "cpu"),
			placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "gpu"),
		}, Labels: map[string]string{rackKey: fmt.Sprintf("rack-%d", rapid.IntRange(0, 1).Draw(t, "rack"))}}
		if rapid.IntRange(0, 3).Draw(t, "podlimit") == 0 {
			n.Allocatable[placement.ResourcePods] = rapid.Int64Range(0, 3).Draw(t, "pods")
		}
		w.nodes = append(w.nodes, n)
	}
	for i := range rapid.IntRange(0, 12).Draw(t, "bound") {
		p := placement.Pod{Namespace: ns, Name: fmt.Sprintf("p%02d", i),
			NodeName: w.nodes[rapid.IntRange(0, nNodes-1).Draw(t, "on")].Name,
			Priority: rapid.Int32Range(1, 4).Draw(t, "prio"),
			Requests: placement.ResourceList{
				placement.ResourceCPU: rapid.Int64Range(0, 3).Draw(t, "pcpu"),
				placement.ResourceGPU: rapid.Int64Range(0, 1).Draw(t, "pgpu"),
			},
			Labels: map[string]string{"app": rapid.SampledFrom([]string{"a", "b"}).Draw(t, "app")},
		}
		if h := rapid.IntRange(-1, 3).Draw(t, "start"); h >= 0 {
			p.StartTime = t0.Add(time.Duration(h) * time.Hour)
		}
		if gi := rapid.IntRange(-1, 2).Draw(t, "group"); gi >= 0 {
			p.SchedulingGroup = fmt.Sprintf("g%d", gi)
		}
		w.pods = append(w.pods, p)
	}
	w.in.PodGroups = map[placement.Key]preemption.PodGroupSpec{}
	for gi := range 3 {
		spec := preemption.PodGroupSpec{DisruptionMode: rapid.SampledFrom([]preemption.DisruptionMode{"", preemption.DisruptionModePod, preemption.DisruptionModePodGroup}).Draw(t, "mode")}
		if rapid.Bool().Draw(t, "override") {
			spec.Priority = ptr(rapid.Int32Range(1, 4).Draw(t, "gprio"))
		}
		w.in.PodGroups[key(fmt.Sprintf("g%d", gi))] = spec
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "budgets") {
		b := preemption.DisruptionBudget{Namespace: ns, Name: fmt.Sprintf("pdb%d", i), DisruptionsAllowed: rapid.Int32Range(0, 2).Draw(t, "allowed")}
		if rapid.Bool().Draw(t, "selector") {
			b.Selector.MatchLabels = map[string]string{"app": rapid.SampledFrom([]string{"a", "b"}).Draw(t, "sel")}
		}
		if rapid.Bool().Draw(t, "notIn") {
			b.Selector.MatchExpressions = []placement.SelectorRequirement{{Key: "app", Operator: placement.SelectorOpNotIn, Values: []string{rapid.SampledFrom([]string{"a", "b"}).Draw(t, "not")}}}
		}
		w.in.Budgets = append(w.in.Budgets, b)
	}
	n := rapid.IntRange(1, 4).Draw(t, "members")
	w.preempt = 3
	w.group = placement.Group{Namespace: ns, Name: "hi", MinCount: int32(rapid.IntRange(1, n).Draw(t, "min"))}
	if rapid.IntRange(0, 4).Draw(t, "basic") == 0 {
		w.group.Policy = placement.PolicyBasic
	}
	for i := range n {
		w.group.Members = append(w.group.Members, placement.Pod{Namespace: ns, Name: fmt.Sprintf("hi-%d", i), SchedulingGroup: "hi",
			Priority: w.preempt, QueuedAt: t0, Requests: placement.ResourceList{
				placement.ResourceCPU: rapid.Int64Range(1, 4).Draw(t, "mcpu"),
				placement.ResourceGPU: rapid.Int64Range(0, 1).Draw(t, "mgpu"),
			}})
	}
	w.racks = rapid.Bool().Draw(t, "racks")
	w.avoidB = rapid.IntRange(0, 3).Draw(t, "avoid") == 0
	return w
})

// effective returns a bound pod's priority in preemption.
func (w *world) effective(p *placement.Pod) int32 {
	if gk, ok := p.GroupKey(); ok {
		if spec := w.in.PodGroups[gk]; spec.Priority != nil {
			return *spec.Priority
		}
	}
	return p.Priority
}

func (w *world) wholeGroup(p *placement.Pod) (placement.Key, bool) {
	gk, ok := p.GroupKey()
	return gk, ok && w.in.PodGroups[gk].DisruptionMode == preemption.DisruptionModePodGroup
}

// candidates returns, independently of the package, every pod preemption
// may evict: below the preemptor, whole PodGroup-mode groups only.
func (w *world) candidates() []placement.Key {
	groupMax := map[placement.Key]int32{}
	for i := range w.pods {
		if gk, whole := w.wholeGroup(&w.pods[i]); whole {
			groupMax[gk] = max(groupMax[gk], w.effective(&w.pods[i]))
		}
	}
	var out []placement.Key
	for i := range w.pods {
		p := &w.pods[i]
		prio := w.effective(p)
		if gk, whole := w.wholeGroup(p); whole {
			prio = groupMax[gk]
		}
		if prio < w.preempt {
			out = append(out, p.Key())
		}
	}
	return out
}

func solveWithout(t require.TestingT, s *placement.Snapshot, g *placement.Group, remove []placement.Key, opts placement.Options) placement.Decision {
	s2, err := s.Apply(placement.Change{Remove: remove})
	require.NoError(t, err)
	d, err := placement.Solve(s2, g, opts)
	require.NoError(t, err)
	return d
}

func only(p placement.Placement) placement.PlacementGenerator {
	return placement.PlacementGeneratorFunc(func(*placement.Snapshot, placement.GroupView) ([]placement.Placement, error) {
		return []placement.Placement{p}, nil
	})
}

// checkInvariant7 checks DESIGN.md invariant 7 on one world.
func checkInvariant7(t require.TestingT, w world) preemption.Plan {
	s := w.snapshot(t)
	g := &w.group
	plan, err := preemption.Find(s, g, w.in, w.opts())
	require.NoError(t, err)
	cands := w.candidates()
	allGone := solveWithout(t, s, g, cands, w.opts())
	switch plan.Outcome {
	case preemption.Fits:
		require.Empty(t, plan.Victims)
		require.Equal(t, placement.Scheduled, plan.Decision.Status)
		require.NoError(t, placement.Verify(plan.After, g, plan.Decision, w.opts().Filters...))
		return plan
	case preemption.NotAllowed:
		require.Fail(t, "no member of the generated group has preemptionPolicy Never")
	case preemption.CannotHelp:
		// never evict in vain, and never give up when evicting would help
		require.Empty(t, plan.Victims)
		require.NotEqual(t, placement.Scheduled, allGone.Status, plan.Message)
		require.NotEmpty(t, plan.Message)
		return plan
	}
	// The solver is complete on groups this small, so feasibility is
	// monotone in what is removed.
	require.Equal(t, preemption.Preempt, plan.Outcome)
	require.Equal(t, placement.Scheduled, allGone.Status)
	evicted := plan.EvictedPods()
	require.NotEmpty(t, evicted)
	byKey := map[placement.Key]*placement.Pod{}
	for i := range w.pods {
		byKey[w.pods[i].Key()] = &w.pods[i]
	}
	gone := map[placement.Key]bool{}
	for _, k := range evicted {
		require.False(t, gone[k], "%s evicted twice", k)
		gone[k] = true
		p := byKey[k]
		require.NotNil(t, p, "%s is not a bound pod", k)
		require.Less(t, w.effective(p), w.preempt, "victim %s has priority ≥ the preemptor's", k)
		require.Contains(t, cands, k)
	}
	for i := range w.pods { // PodGroup-mode groups whole or not at all
		p := &w.pods[i]
		if gk, whole := w.wholeGroup(p); whole {
			for j := range w.pods {
				if q := &w.pods[j]; q.SchedulingGroup == gk.Name {
					require.Equal(t, gone[p.Key()], gone[q.Key()], "group %s split: %s vs %s", gk, p.Name, q.Name)
				}
			}
		}
	}
	// after removal the placement verifies, on exactly s minus the victims
	require.Equal(t, s.NumPods()-len(evicted), plan.After.NumPods())
	for _, k := range evicted {
		_, still := plan.After.Pod(k)
		require.False(t, still)
	}
	require.Equal(t, placement.Scheduled, plan.Decision.Status)
	require.NoError(t, placement.Verify(plan.After, g, plan.Decision, w.opts().Filters...))
	// minimal: no single victim can be given back
	opts := w.opts()
	if w.racks {
		opts.Generator = only(plan.Decision.Placement)
	}
	for i := range plan.Victims {
		var rest []placement.Key
		for j := range plan.Victims {
			if j != i {
				rest = append(rest, plan.Victims[j].Pods...)
			}
		}
		d := solveWithout(t, s, g, rest, opts)
		require.NotEqual(t, placement.Scheduled, d.Status, "victim %v could be given back", plan.Victims[i].Pods)
	}
	require.True(t, slices.IsSortedFunc(plan.Victims, func(a, b preemption.Victim) int { return preemption.VictimOrder(&a, &b) }))
	return plan
}

func TestProp_Invariant7(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkInvariant7(t, worldGen.Draw(t, "world")) })
}

// The generator yields every outcome, so the properties above see
// failures when there are any to see.
func TestProp_GeneratorCoversOutcomes(t *testing.T) {
	seen := map[preemption.Outcome]int{}
	for i := range 400 {
		w := worldGen.Example(i)
		p, err := preemption.Find(w.snapshot(t), &w.group, w.in, w.opts())
		require.NoError(t, err)
		seen[p.Outcome]++
		if p.Outcome == preemption.Preempt && len(p.Victims) > 1 {
			seen[-1]++ // several victims
		}
	}
	for _, o := range []preemption.Outcome{preemption.Fits, preemption.Preempt, preemption.CannotHelp, -1} {
		require.Positive(t, seen[o], "outcome %v never generated: %v", o, seen)
	}

	// TestProp_LeastDisruptiveDomain needs worlds where two racks could
	// each be freed, with different victims.
	contested := 0
	for i := range 400 {
		w := worldGen.Example(i)
		w.racks, w.in.Budgets = true, nil
		s := w.snapshot(t)
		racks, err := rackGenerator().Generate(s, placement.GroupView{Group: &w.group})
		require.NoError(t, err)
		var sets [][]placement.Key
		for _, r := range racks {
			o := w.opts()
			o.Generator = only(r)
			p, err := preemption.Find(s, &w.group, w.in, o)
			require.NoError(t, err)
			if p.Outcome == preemption.Preempt {
				sets = append(sets, p.EvictedPods())
			}
		}
		if len(sets) == 2 && !slices.Equal(sets[0], sets[1]) {
			contested++
		}
	}
	require.Positive(t, contested)
}

func TestProp_Deterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := worldGen.Draw(t, "world")
		want, err := preemption.Find(w.snapshot(t), &w.group, w.in, w.opts())
		require.NoError(t, err)
		perm := func(n int) []int {
			return rapid.Permutation(seq(n)).Draw(t, "perm")
		}
		v := w
		v.nodes = permuted(w.nodes, perm(len(w.nodes)))
		v.pods = permuted(w.pods, perm(len(w.pods)))
		v.group.Members = permuted(w.group.Members, perm(len(w.group.Members)))
		v.in.Budgets = permuted(w.in.Budgets, perm(len(w.in.Budgets)))
		got, err := preemption.Find(v.snapshot(t), &v.group, v.in, v.opts())
		require.NoError(t, err)
		require.Equal(t, want.Outcome, got.Outcome)
		require.Equal(t, want.Victims, got.Victims)
		require.Equal(t, want.Decision, got.Decision)
		require.Equal(t, want.MostFreeable, got.MostFreeable)
		require.Equal(t, want.Message, got.Message)
		require.Equal(t, want.Solves, got.Solves)
	})
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func permuted[T any](xs []T, perm []int) []T {
	out := make([]T, len(xs))
	for i, j := range perm {
		out[i] = xs[j]
	}
	return out
}

// badInputGen spoils one field of a valid world.
var badInputGen = rapid.Custom(func(t *rapid.T) world {
	w := worldGen.Draw(t, "world")
	switch rapid.IntRange(0, 6).Draw(t, "spoil") {
	case 0:
		w.in.PodGroups[key("g0")] = preemption.PodGroupSpec{DisruptionMode: "Sometimes"}
	case 1:
		w.in.Budgets = append(w.in.Budgets, preemption.DisruptionBudget{Namespace: ns, Name: "neg", DisruptionsAllowed: -1})
	case 2:
		w.in.Budgets = append(w.in.Budgets, preemption.DisruptionBudget{Namespace: ns, Name: "twice"}, preemption.DisruptionBudget{Namespace: ns, Name: "twice"})
	case 3:
		w.in.Budgets = append(w.in.Budgets, preemption.DisruptionBudget{Namespace: ns})
	case 4:
		w.group.Members[0].PreemptionPolicy = "Sometimes"
	case 6:
		w.in.Budgets = append(w.in.Budgets, preemption.DisruptionBudget{Namespace: ns, Name: "badsel",
			Selector: placement.LabelSelector{MatchExpressions: []placement.SelectorRequirement{{Key: "app", Operator: "Near"}}}})
	case 5:
		w.group.Policy, w.group.MinCount = placement.PolicyGang, int32(len(w.group.Members))+1
	}
	return w
})

// checkBadInput: a spoiled input gets a field error, never a panic or a
// plan.
func checkBadInput(t *rapid.T) {
	w := badInputGen.Draw(t, "world")
	_, err := preemption.Find(w.snapshot(t), &w.group, w.in, w.opts())
	var fe *placement.FieldError
	require.ErrorAs(t, err, &fe)
	require.True(t, errors.Is(err, placement.ErrInvalid) || errors.Is(err, placement.ErrDuplicate), err)
	require.NotEmpty(t, fe.Field)
}

func TestProp_BadInput(t *testing.T) { rapid.Check(t, checkBadInput) }

// FuzzFindBadInput drives the bad-input property from the fuzzer's bytes.
func FuzzFindBadInput(f *testing.F) { f.Fuzz(rapid.MakeFuzz(checkBadInput)) }

// FuzzFind drives the invariant-7 property from the fuzzer's bytes.
func FuzzFind(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) { checkInvariant7(t, worldGen.Draw(t, "world")) }))
}

func victimNames(vs []preemption.Victim) []placement.Key {
	var out []placement.Key
	for _, v := range vs {
		if v.Whole {
			out = append(out, v.PodGroup)
		} else {
			out = append(out, v.Pods[0])
		}
	}
	slices.SortFunc(out, placement.Key.Compare)
	return out
}

// With a required rack, the chosen rack's victims cost no more than those
// of any rack searched alone (which checks that pruning racks by their
// lower bound never drops a cheaper one).
func TestProp_LeastDisruptiveDomain(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := worldGen.Draw(t, "world")
		w.racks, w.in.Budgets = true, nil
		s := w.snapshot(t)
		plan, err := preemption.Find(s, &w.group, w.in, w.opts())
		require.NoError(t, err)
		racks, err := rackGenerator().Generate(s, placement.GroupView{Group: &w.group})
		require.NoError(t, err)
		for _, r := range racks {
			o := w.opts()
			o.Generator = only(r)
			alone, err := preemption.Find(s, &w.group, w.in, o)
			require.NoError(t, err)
			if alone.Outcome != preemption.Preempt {
				continue
			}
			require.Contains(t, []preemption.Outcome{preemption.Preempt, preemption.Fits}, plan.Outcome, "rack %s alone: %s", r.Name, alone.Message)
			if plan.Outcome == preemption.Preempt {
				require.LessOrEqual(t, plan.Cost.Compare(alone.Cost), 0, "chose %s %v over %s %v", plan.Decision.Placement.Name, plan.EvictedPods(), r.Name, alone.EvictedPods())
			}
		}
	})
}
