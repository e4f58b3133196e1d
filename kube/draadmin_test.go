package kube

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// Claim c asks for a GPU with admin access: in a namespace without the
// label the input is refused as the API server refuses it; with the label
// it loads and its result is marked adminAccess.
func TestAdminAccessNeedsNamespaceLabel(t *testing.T) {
	const admin = "        adminAccess: true\n"
	in := taintManifest("", "", admin)
	c, err := load(t, in)
	require.Nil(t, c)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, `ResourceClaim "default/c": spec.devices.requests[0].exactly.adminAccess: admin access to devices requires the label resource.kubernetes.io/admin-access: "true" on Namespace "default"`)

	c, err = load(t, in+"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {resource.kubernetes.io/admin-access: \"false\"}}\n")
	require.Nil(t, c)
	require.ErrorContains(t, err, "adminAccess")

	c, err = load(t, in+"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {resource.kubernetes.io/admin-access: \"true\"}}\n")
	require.NoError(t, err)
	res, rej, err := c.Ledger.Plan(&c.Nodes[0], dra.Options{}, placement.Key{Namespace: "default", Name: "c"})
	require.NoError(t, err)
	require.Empty(t, rej.Reason)
	require.Equal(t, []dra.DeviceResult{{Request: "gpu", DeviceID: dra.DeviceID{Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}, AdminAccess: true}}, res[0].Devices)
}
