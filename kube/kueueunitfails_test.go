package kube

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/topology"
)

// A PodSetGroup whose flavors fail is pending with Kueue's reason said for
// each of its sets, in spec.podSets order, as Kueue's message says it
// (its sets share the group's status); a set alone names itself. The
// manifests are records run on the real Kueue (kueue-oracle), whose
// message for w0 names both sets; gangsim words the quota sum its own way.
func TestKueueUnitFailsNamesEverySet(t *testing.T) {
	src, err := os.ReadFile("testdata/kueue-oracle/held-same-cycle-122.yaml")
	require.NoError(t, err)
	cl := loadManifest(t, string(src))
	_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: propNow, Queues: cl.KueueQueues, Plan: topology.KueueProfile.Options()})
	require.NoError(t, err)
	got := map[string]string{}
	for _, o := range outs {
		got[o.Workload.Name] = string(o.Action) + ": " + o.Message
	}
	const short = ": insufficient quota for cpu in flavor tas, earlier pod sets' requests (0) + this pod set's request (12) > nominal quota (5)"
	require.Equal(t, "Pending: couldn't assign flavors to pod set workers"+short+"; couldn't assign flavors to pod set leader"+short, got["w0"])

	q := &KueueQueues{}
	w := &KueueWorkload{Group: cl.KueueWorkloads[0].Group}
	require.Equal(t, "couldn't assign flavors to pod set "+w.Group.PodSets[0].Name+": why", q.unitFails(w, kueueUnit{sets: []int{0}}, "why"))
}
