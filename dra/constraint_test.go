package dra_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// TestScenario_DistinctAttribute: node n1 has GPUs gpu0 and gpu1 of model
// a and gpu2 of model b; a claim for two GPUs with distinctAttribute model
// gets gpu0 and gpu2, passing over gpu1, its first choice for the second
// device; a claim for three cannot be satisfied; the ledger refuses an
// allocation of two GPUs of one model.
func TestScenario_DistinctAttribute(t *testing.T) {
	s := gpuSlice("n1", 3)
	for i, m := range []string{"a", "a", "b"} {
		s.Devices[i].Attributes = map[dra.QualifiedName]dra.Attribute{"model": dra.StringAttribute(m)}
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{s})
	require.NoError(t, err)
	spec := func(n int64) dra.ClaimSpec {
		return dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: n}}},
			Constraints: []dra.DeviceConstraint{{DistinctAttribute: "gpu.example.com/model"}}}
	}
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("two", spec(2)), claim("three", spec(3))})
	require.NoError(t, err)
	n1 := cpuNode("n1", 1000, nil)

	res, rej, err := l.Plan(&n1, dra.Options{}, key("two"))
	require.NoError(t, err)
	require.True(t, rej.OK(), rej.Reason)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "gpu"), dev(gpuDriver, "n1", "gpu2", "gpu")}, res[0].Devices)

	_, rej, err = l.Plan(&n1, dra.Options{}, key("three"))
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaim default/three: not enough free matching devices", Unresolvable: true}, rej)

	_, err = l.Allocate(key("two"), []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "gpu"), dev(gpuDriver, "n1", "gpu1", "gpu")})
	require.EqualError(t, err, `ResourceClaim "default/two": status.allocation.devices.results: device gpu.example.com/n1/gpu1 breaks constraint distinctAttribute "gpu.example.com/model"`)

	bad := spec(2)
	bad.Constraints[0].MatchAttribute = "model"
	_, err = l.AddClaim(claim("both", bad))
	require.EqualError(t, err, `ResourceClaim "default/both": spec.devices.constraints[0]: exactly one of matchAttribute and distinctAttribute must be set`)
}
