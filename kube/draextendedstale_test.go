package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gangsched/gangsched/placement"
)

// staleClaim is pod's implicit claim as kube-scheduler wrote it in an
// earlier attempt: owned by a pod named pod with uid, allocated two
// devices on node and reserved for the pod; without requests when
// noRequests.
func staleClaim(name, pod, uid, node string, noRequests bool) string {
	spec := "{devices: {requests: [{name: container-0-request-0, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 2}}]}}"
	if noRequests {
		spec = "{}"
	}
	return fmt.Sprintf(`---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: %s
  annotations: {resource.kubernetes.io/extended-resource-claim: "true"}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: %s, uid: %s, controller: true}]
spec: %s
status:
  allocation:
    devices:
      results:
      - {request: container-0-request-0, driver: gpu.example.com, pool: %s, device: gpu-0}
      - {request: container-0-request-0, driver: gpu.example.com, pool: %s, device: gpu-1}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [%s]}]}]}
  reservedFor: [{resource: pods, name: %s, uid: %s}]
`, name, pod, uid, spec, node, node, node, pod, uid)
}

// smallNode is a node too small for the pod of TestStaleExtendedClaims,
// so that a claim pinned to it leaves the pod unschedulable.
const smallNode = "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1', pods: '110'}}\n"

// TestStaleExtendedClaims: a pending pod's implicit claim left from an
// earlier attempt is deleted before the first cycle, as kube-scheduler's
// PostFilter deletes it, so that its devices are free and the pod gets a
// new claim on whichever node fits now; claims that are not the pod's
// (another UID), gated pods' and claims of pods asking nothing a class
// serves stay.
func TestStaleExtendedClaims(t *testing.T) {
	const uid = "u-1"
	pod := func(extra string) string {
		return fmt.Sprintf("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, uid: %s}\nspec:\n%s  containers: [{name: w, resources: {requests: {cpu: '2'}, limits: {example.com/gpu: 2}}}]\n", uid, extra)
	}
	world := smallNode + gpuNode("n2", 0) + gpuClass + gpuSlice("n1", 2) + gpuSlice("n2", 2)
	for _, tc := range []struct {
		name    string
		docs    string
		deleted []DeletedClaim
		host    string
		devices []string
		kept    string // a claim that must stay among the objects
	}{
		{name: "the pod's own claim, pinned to a node it no longer fits: deleted, new claim on n2",
			docs:    world + staleClaim("p-extended-resources-x7k2p", "p", uid, "n1", false) + pod(""),
			deleted: []DeletedClaim{{Claim: placement.Key{Namespace: "default", Name: "p-extended-resources-x7k2p"}, Pod: placement.Key{Namespace: "default", Name: "p"}}},
			host:    "n2", devices: []string{"gpu.example.com/n2/gpu-0", "gpu.example.com/n2/gpu-1"}},
		{name: "a claim of an earlier pod of the same name (another UID): kept, holding n1's devices",
			docs: world + staleClaim("p-extended-resources-old00", "p", "u-0", "n1", false) + pod(""),
			host: "n2", devices: []string{"gpu.example.com/n2/gpu-0", "gpu.example.com/n2/gpu-1"}, kept: "p-extended-resources-old00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, d, ups := solveExtended(t, tc.docs)
			require.Equal(t, tc.deleted, c.DeletedClaims)
			require.Len(t, d.Assignments, 1)
			require.Equal(t, tc.host, d.Assignments[0].Node)
			require.Len(t, ups, 1)
			require.Equal(t, "p-extended-resources", ups[0].Claim.Name)
			var got []string
			for _, dv := range ups[0].Claim.Status.Allocation.Devices {
				got = append(got, dv.DeviceID.String())
			}
			require.Equal(t, tc.devices, got)
			var names []string
			for _, o := range c.Objects() {
				if cl, ok := o.(*resourcev1.ResourceClaim); ok {
					names = append(names, cl.Name)
				}
			}
			for _, dc := range tc.deleted {
				require.NotContains(t, names, dc.Claim.Name)
			}
			if tc.kept != "" {
				require.Contains(t, names, tc.kept)
			}
		})
	}
	t.Run("a gated pod: the scheduler does not see it, its claim stays", func(t *testing.T) {
		c, err := load(t, world+staleClaim("p-extended-resources-x7k2p", "p", uid, "n1", false)+pod("  schedulingGates: [{name: wait}]\n"))
		require.NoError(t, err)
		require.Empty(t, c.DeletedClaims)
		_, ok := c.Ledger.Claim(placement.Key{Namespace: "default", Name: "p-extended-resources-x7k2p"})
		require.True(t, ok)
		require.Equal(t, []placement.Key{{Namespace: "default", Name: "p"}}, c.Gated)
		require.Empty(t, c.extended, "no implicit claim until the gates go")
	})
	t.Run("a pod asking nothing a class serves: its claim stays", func(t *testing.T) {
		docs := strings.Replace(world, "extendedResourceName: example.com/gpu", "extendedResourceName: example.com/other", 1) +
			staleClaim("p-extended-resources-x7k2p", "p", uid, "n1", false) + pod("")
		c, err := load(t, docs)
		require.NoError(t, err)
		require.Empty(t, c.DeletedClaims)
	})
	t.Run("the pod's claim without requests: refused", func(t *testing.T) {
		_, err := load(t, world+staleClaim("p-extended-resources-x7k2p", "p", uid, "n1", true)+pod(""))
		require.ErrorIs(t, err, ErrUnsupported)
		require.ErrorContains(t, err, `ResourceClaim "default/p-extended-resources-x7k2p": spec.devices.requests: the implicit claim of pending pod "default/p" has no requests`)
	})
}
