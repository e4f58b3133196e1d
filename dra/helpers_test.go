package dra_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	require.TestingT
	Helper()
}

const (
	gpuDriver = "gpu.example.com"
	netDriver = "net.example.com"
	ns        = "default"
)

func driverIs(name string) dra.Selector {
	return func(driver string, _ *dra.Device) bool { return driver == name }
}

var classes = []dra.DeviceClass{
	{Name: "gpu", Selectors: []dra.Selector{driverIs(gpuDriver)}},
	{Name: "net", Selectors: []dra.Selector{driverIs(netDriver)}},
}

// gpuSlice is node's pool of n node-local GPUs named gpu0..gpu<n-1>.
func gpuSlice(node string, n int) dra.ResourceSlice {
	s := dra.ResourceSlice{Name: "gpus-" + node, Driver: gpuDriver, Pool: node, NodeName: node}
	for i := range n {
		s.Devices = append(s.Devices, dra.Device{Name: fmt.Sprintf("gpu%d", i)})
	}
	return s
}

// netSlice is a pool of network devices reachable from nodes matching sel
// (every node when sel is nil).
func netSlice(pool string, sel *placement.LabelSelector, devices ...string) dra.ResourceSlice {
	s := dra.ResourceSlice{Name: "net-" + pool, Driver: netDriver, Pool: pool, NodeSelector: sel, AllNodes: sel == nil}
	for _, d := range devices {
		s.Devices = append(s.Devices, dra.Device{Name: d})
	}
	return s
}

func oneOf(class string) dra.ClaimSpec {
	return dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "dev", Exactly: &dra.ExactDeviceRequest{DeviceClassName: class}}}}
}

func claim(name string, spec dra.ClaimSpec) dra.ResourceClaim {
	return dra.ResourceClaim{Namespace: ns, Name: name, UID: "uid-" + name, Spec: spec}
}

func tmpl(name string, spec dra.ClaimSpec) dra.ResourceClaimTemplate {
	return dra.ResourceClaimTemplate{Namespace: ns, Name: name, Spec: spec}
}

func cpuNode(name string, milli int64, labels map[string]string) placement.Node {
	return placement.Node{Name: name, Labels: labels, Allocatable: placement.ResourceList{placement.ResourceCPU: milli}}
}

func pod(name, group string, milli int64, claims ...placement.PodResourceClaim) placement.Pod {
	return placement.Pod{Namespace: ns, Name: name, UID: "uid-" + name, SchedulingGroup: group,
		Requests: placement.ResourceList{placement.ResourceCPU: milli}, ResourceClaims: claims}
}

func byName(entry, claimName string) placement.PodResourceClaim {
	return placement.PodResourceClaim{Name: entry, ResourceClaimName: claimName}
}

func byTemplate(entry, template string) placement.PodResourceClaim {
	return placement.PodResourceClaim{Name: entry, ResourceClaimTemplateName: template}
}

func podGroup(name string, entries ...placement.PodResourceClaim) dra.PodGroup {
	g := dra.PodGroup{Namespace: ns, Name: name, UID: "uid-" + name}
	for _, e := range entries {
		g.ResourceClaims = append(g.ResourceClaims, dra.PodGroupResourceClaim(e))
	}
	return g
}

func group(name string, minCount int32, members ...placement.Pod) *placement.Group {
	return &placement.Group{Namespace: ns, Name: name, MinCount: minCount, Members: members}
}

func key(name string) placement.Key { return placement.Key{Namespace: ns, Name: name} }

// cycle solves g with the DRA hook and commits the decision.
func cycle(t *testing.T, l *dra.Ledger, s *placement.Snapshot, pg dra.PodGroup, g *placement.Group) (placement.Decision, *dra.Ledger, []dra.ClaimUpdate) {
	t.Helper()
	d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}})
	require.NoError(t, err)
	require.NoError(t, placement.Verify(s, g, d))
	n, ups, err := l.Commit(s, pg, g, d, dra.Options{})
	require.NoError(t, err)
	if d.Status == placement.Scheduled {
		checkAllocations(t, n, s, pg, g, d)
	}
	return d, n, ups
}

// checkAllocations asserts that every placed member can reach the
// allocation of every claim it uses, that allocated claims are reserved
// and that no exclusive device is held twice.
func checkAllocations(t tb, l *dra.Ledger, s *placement.Snapshot, pg dra.PodGroup, g *placement.Group, d placement.Decision) {
	t.Helper()
	seen := map[dra.DeviceID]placement.Key{}
	for c := range l.Claims() {
		if c.Status.Allocation == nil {
			require.Empty(t, c.Status.ReservedFor, "claim %s", c.Key())
			continue
		}
		require.NotEmpty(t, c.Status.ReservedFor, "allocated claim %s must be reserved", c.Key())
		for _, dr := range c.Status.Allocation.Devices {
			if d, _ := l.Inventory().Device(dr.DeviceID); d.AllowMultipleAllocations || dr.AdminAccess {
				continue // shared within its capacity (see TestSM_Ledger), or not held
			}
			prev, dup := seen[dr.DeviceID]
			require.False(t, dup, "device %s in claims %s and %s", dr.DeviceID, prev, c.Key())
			seen[dr.DeviceID] = c.Key()
			h, ok := l.Holder(dr.DeviceID)
			require.True(t, ok)
			require.Equal(t, c.Key(), h)
		}
	}
	pods := map[placement.Key]*placement.Pod{}
	for i := range g.Members {
		pods[g.Members[i].Key()] = &g.Members[i]
	}
	for _, a := range d.Assignments {
		p := pods[a.Pod]
		for _, e := range p.ResourceClaims {
			k, ok := key(e.ResourceClaimName), e.ResourceClaimName != ""
			switch {
			case ok:
			case slices.Contains(pg.ResourceClaims, dra.PodGroupResourceClaim(e)):
				k, ok = l.Generated(dra.OwnerPodGroup, g.Key(), e.Name)
			default:
				k, ok = l.Generated(dra.OwnerPod, a.Pod, e.Name)
			}
			require.True(t, ok, "claim of %s entry %s", a.Pod, e.Name)
			c, _ := l.Claim(k)
			require.NotNil(t, c.Status.Allocation, "claim %s of %s", k, a.Pod)
			require.True(t, c.Status.Allocation.Reachable(s.Node(a.NodeID)), "claim %s unreachable from %s", k, a.Node)
		}
	}
}

func nodesOf(d placement.Decision) map[string]string {
	out := map[string]string{}
	for _, a := range d.Assignments {
		out[a.Pod.Name] = a.Node
	}
	return out
}

func devicesOf(t tb, l *dra.Ledger, name string) []dra.DeviceResult {
	t.Helper()
	c, ok := l.Claim(key(name))
	require.True(t, ok, "claim %s", name)
	require.NotNil(t, c.Status.Allocation, "claim %s allocated", name)
	return c.Status.Allocation.Devices
}

func reservedFor(t tb, l *dra.Ledger, name string) []dra.ConsumerRef {
	t.Helper()
	c, ok := l.Claim(key(name))
	require.True(t, ok, "claim %s", name)
	return c.Status.ReservedFor
}

func dev(driver, pool, device, request string) dra.DeviceResult {
	return dra.DeviceResult{Request: request, DeviceID: dra.DeviceID{Driver: driver, Pool: pool, Device: device}}
}
