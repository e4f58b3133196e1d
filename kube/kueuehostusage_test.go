package kube

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// admitHostsWorld admits kueue-oracle/resources/xform-hosts (a takes
// r1-h1's one MIG device and one NIC; b asks a MIG device, c a NIC) and
// returns the snapshot returned, the outcomes by Workload name and the
// Workloads.
func admitHostsWorld(t *testing.T) (*placement.Snapshot, map[string]KueueOutcome, []*KueueWorkload) {
	dir := "testdata/kueue-oracle/resources/"
	var src strings.Builder
	for _, f := range []string{"xform-hosts-cluster.yaml", "xform-hosts.yaml"} {
		b, err := os.ReadFile(dir + f)
		require.NoError(t, err)
		src.WriteString(string(b) + "\n---\n")
	}
	objs, err := manifest.Decode("f.yaml", strings.NewReader(src.String()), manifest.Options{})
	require.NoError(t, err)
	cl, err := Load(objs)
	require.NoError(t, err)
	opts := KueueOptions{Now: time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC), Queues: cl.KueueQueues, Plan: topology.KueueProfile.Options()}
	s, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, opts)
	require.NoError(t, err)
	byName := map[string]KueueOutcome{}
	for _, o := range outs {
		byName[o.Workload.Name] = o
	}
	return s, byName, cl.KueueWorkloads
}

// Kueue's TAS holds an admitted Workload on its hosts by its charge: a's
// MIG device (replaced by credits) and NIC (excluded) stay free for b and
// c, as on the real Kueue (xform-hosts.json); the snapshot returned holds
// the template's requests, which the pods will ask kube-scheduler for.
func TestKueueHostUsage_ChargeHeldTemplateReturned(t *testing.T) {
	s, outs, _ := admitHostsWorld(t)
	for _, w := range []string{"a", "b", "c"} {
		require.Equal(t, KueueAdmitted, outs[w].Action, "%s: %s", w, outs[w].Message)
		require.Equal(t, "r1-h1", outs[w].PodSets[0][0].Node, w)
	}
	id, ok := s.NodeID("r1-h1")
	require.True(t, ok)
	require.Equal(t, int64(-1), s.Free(id, "nvidia.com/mig-1g.5gb"), "a's and b's pods each ask the one MIG device")
	require.Equal(t, int64(-1), s.Free(id, "example.net/nic"))
	require.Equal(t, int64(5000), s.Free(id, "cpu"))
}

// Read back, an admitted Workload is held by its resourceUsage over its
// count (no Configuration is read here, and still a holds no MIG device),
// or, without one, by its charge.
func TestKueueHostUsage_AdmittedReadFromResourceUsage(t *testing.T) {
	_, _, ws := admitHostsWorld(t)
	var again []*KueueWorkload
	for _, w := range ws {
		require.NotNil(t, w.Obj.Status.Admission, w.Key())
		r, err := ConvertKueueWorkload(w.Obj.DeepCopy(), nil)
		require.NoError(t, err)
		again = append(again, r)
	}
	a := again[slices0(again, "a")]
	require.Equal(t, placement.ResourceList{"cpu": 1000, "example.com/credits": 10}, a.admittedCharge(0))
	// Without an admission's resourceUsage, the charge (here, read
	// without the Configuration, the template's requests).
	a.Obj.Status.Admission.PodSetAssignments[0].ResourceUsage = nil
	require.Equal(t, a.Group.PodSets[0].Template.Requests, a.admittedCharge(0))
}
