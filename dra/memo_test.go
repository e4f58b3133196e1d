package dra_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

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
