package scheduler

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// draFixture is a cache with class gpu and node n1's two GPUs, and
// unallocated claims a and b asking for one GPU each.
func draFixture() *draCache {
	d := newDRACache()
	d.setClass(dra.DeviceClass{Name: "gpu"})
	d.slices["n1"] = poolSlice{driver: "gpu.example.com", pool: "n1", generation: 1, slice: dra.ResourceSlice{
		Name: "n1", Driver: "gpu.example.com", Pool: "n1", NodeName: "n1", Devices: []dra.Device{{Name: "gpu-0"}, {Name: "gpu-1"}},
	}}
	for _, n := range []string{"a", "b"} {
		d.setClaim(dra.ResourceClaim{Namespace: "default", Name: n, UID: "uid-" + n, Spec: dra.ClaimSpec{Requests: []dra.DeviceRequest{{
			Name: "dev", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: dra.AllocationModeExactCount, Count: 1},
		}}}})
	}
	return d
}

func holder(t *testing.T, l *dra.Ledger, dev string) string {
	t.Helper()
	k, ok := l.Holder(dra.DeviceID{Driver: "gpu.example.com", Pool: "n1", Device: dev})
	if !ok {
		return ""
	}
	return k.Name
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// A committed claim holds its device in every ledger built until the watch
// shows it allocated and reserved as committed: a watched update that
// does not (another writer's change arriving first) keeps the assumption.
func TestDRACacheAssumesCommittedClaims(t *testing.T) {
	d := draFixture()
	u := committed("a", "gpu-0", "p0")
	u.Claim.Spec = d.claims[placement.Key{Namespace: "default", Name: "a"}].Spec
	d.assume([]dra.ClaimUpdate{u})
	require.Equal(t, "a", holder(t, d.ledger(quiet, noPods), "gpu-0"))

	d.setClaim(d.claims[u.Claim.Key()]) // still unallocated as watched
	require.Len(t, d.assumed, 1)
	require.Equal(t, "a", holder(t, d.ledger(quiet, noPods), "gpu-0"))

	d.setClaim(u.Claim) // the write shows
	require.Empty(t, d.assumed)
	require.Equal(t, "a", holder(t, d.ledger(quiet, noPods), "gpu-0"))

	d.unassume(nil)
	d.deleteClaim(u.Claim.Key())
	require.Equal(t, "", holder(t, d.ledger(quiet, noPods), "gpu-0"))
}

// A claim allocated a device the inventory does not have is left out of
// the ledger; the other claims stay, with their allocations.
func TestDRACacheLeavesOutRefusedClaims(t *testing.T) {
	d := draFixture()
	bad := committed("a", "gpu-9", "p0").Claim
	bad.Spec = d.claims[bad.Key()].Spec
	good := committed("b", "gpu-1", "p1").Claim
	good.Spec = d.claims[good.Key()].Spec
	d.setClaim(bad)
	d.setClaim(good)
	l := d.ledger(quiet, noPods)
	_, ok := l.Claim(bad.Key())
	require.False(t, ok, "claim a names a device no slice publishes")
	require.Equal(t, "b", holder(t, l, "gpu-1"))
}

// noPods is a podUID for ledgers built without watched pods.
func noPods(placement.Key) (string, bool) { return "", false }
