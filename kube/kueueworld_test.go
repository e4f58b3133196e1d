package kube

import (
	"strings"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
)

// worldNow is the time the generated worlds are admitted at.
var worldNow = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)

// loadWorld decodes and loads world, a generated YAML of Kubernetes' and
// Kueue's objects.
func loadWorld(t require.TestingT, world string) *Cluster {
	objs, err := manifest.Decode("world.yaml", strings.NewReader(world), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	return c
}

// admitWorld loads world and admits its Workloads through its queues at
// worldNow; tweak, when not nil, sets the options a test switches.
func admitWorld(t require.TestingT, world string, tweak func(*KueueOptions)) (*Cluster, []KueueOutcome) {
	c := loadWorld(t, world)
	opts := KueueOptions{Now: worldNow, Queues: c.KueueQueues}
	if tweak != nil {
		tweak(&opts)
	}
	_, outs, err := AdmitKueueWorkloads(c.Snapshot, nil, c.KueueWorkloads, opts)
	require.NoError(t, err)
	return c, outs
}
