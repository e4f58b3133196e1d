package dra_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// TestSelectorEvaluatedOncePerDevice: two gangs of four, each member with
// a per-pod claim from one template, are solved and committed one after
// the other on a ledger chain over four nodes of two GPUs; every class and
// request selector is evaluated at most once per device over both cycles,
// however many members, nodes and searches ask about the device.
func TestSelectorEvaluatedOncePerDevice(t *testing.T) {
	type eval struct {
		selector string
		device   *dra.Device // device names repeat across pools
	}
	evals := map[eval]int{}
	counting := func(kind string) dra.Selector {
		return func(driver string, d *dra.Device) bool {
			evals[eval{kind, d}]++
			return driver == gpuDriver
		}
	}
	var rslices []dra.ResourceSlice
	var nodes []placement.Node
	for i := range 4 {
		n := fmt.Sprintf("n%d", i)
		rslices = append(rslices, gpuSlice(n, 2))
		nodes = append(nodes, cpuNode(n, 8000, nil))
	}
	inv, err := dra.NewInventory([]dra.DeviceClass{{Name: "gpu", Selectors: []dra.Selector{counting("class")}}}, rslices)
	require.NoError(t, err)
	spec := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Selectors: []dra.Selector{counting("request")}}}}}
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("gpu-tmpl", spec)}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	for _, gang := range []string{"a", "b"} {
		var members []placement.Pod
		for i := range 4 {
			members = append(members, pod(fmt.Sprintf("%s%d", gang, i), gang, 1000, byTemplate("gpu", "gpu-tmpl")))
		}
		var d placement.Decision
		d, l, _ = cycle(t, l, s, podGroup(gang), group(gang, 4, members...))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		var bound []placement.Pod
		for _, a := range d.Assignments {
			for _, p := range members {
				if p.Key() == a.Pod {
					p.NodeName = a.Node
					bound = append(bound, p)
				}
			}
		}
		s, err = s.Apply(placement.Change{Bind: bound})
		require.NoError(t, err)
	}
	require.NotEmpty(t, evals)
	for k, n := range evals {
		require.Equal(t, 1, n, "evaluations of %s on %s", k.selector, k.device.Name)
	}
	require.Len(t, evals, 16, "both selectors saw every device once")
}

// TestProp_UsableMemoIsTheCheck: on the hook invariants' random worlds
// (partitionable GPUs with counters, taints, shared capacity) and the
// oracle's, the per-alternative memo of which devices may serve it
// answers, cold and warm and in any order of devices, what the check it
// memoizes answers; and a solve on a ledger whose memos a solve filled
// decides as the first did.
func TestProp_UsableMemoIsTheCheck(t *testing.T) {
	asked := 0
	check := func(t *rapid.T, l *dra.Ledger, solve func() placement.Decision) {
		first := solve()
		order := rapid.Permutation(seq(l.Inventory().NumDevices())).Draw(t, "order")
		n, agree := dra.UsableAgrees(l, order)
		require.True(t, agree)
		asked += n
		again := solve()
		require.Equal(t, first.Status, again.Status)
		require.Equal(t, first.Assignments, again.Assignments)
		require.Equal(t, first.Message, again.Message)
		require.Equal(t, first.Reasons, again.Reasons)
	}
	rapid.Check(t, func(t *rapid.T) {
		w := genHookWorld(t)
		check(t, w.l, func() placement.Decision {
			d, err := placement.Solve(w.s, w.g, placement.Options{Reservers: []placement.NewReserverFunc{w.l.Reserver(w.pg, dra.Options{})}})
			require.NoError(t, err)
			return d
		})
	})
	rapid.Check(t, func(t *rapid.T) {
		w := genOracleWorld(t)
		s, err := placement.NewSnapshot(w.nodes, nil)
		require.NoError(t, err)
		l := w.ledger(t, false)
		g := group("pg", int32(len(w.members)), slices.Clone(w.members)...)
		check(t, l, func() placement.Decision {
			d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(w.podGroup(), dra.Options{})}})
			require.NoError(t, err)
			return d
		})
	})
	rapid.Check(t, func(t *rapid.T) {
		// Taints the requests may not tolerate, and devices shared by
		// capacity that a request's amount may not fit.
		inv, err := dra.NewInventory(classes, append(taintedSlices(t), smSlice()))
		if err != nil {
			return // a taint without key or effect
		}
		if inv, err = inv.WithTaintRules(genTaintRules(t)); err != nil {
			return
		}
		claims := taintedClaims(t)
		for i := range claims {
			if q := rapid.Int64Range(0, smMemory+1).Draw(t, fmt.Sprintf("memory%d", i)); q > 0 {
				claims[i].Spec.Requests[0].Exactly.Capacity = map[dra.QualifiedName]int64{"memory": q}
			}
		}
		l, err := dra.NewLedger(inv, nil, claims)
		if err != nil {
			return // a bad toleration
		}
		node := cpuNode("n1", 1000, map[string]string{"rack": "a"})
		plan := func() placement.Decision {
			var d placement.Decision
			for _, c := range claims {
				res, rej, err := l.Plan(&node, dra.Options{}, c.Key())
				require.NoError(t, err)
				d.Message += fmt.Sprintf("%v %v;", res, rej)
			}
			return d
		}
		check(t, l, plan)
	})
	require.Positive(t, asked)
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
