package kube

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
)

// jobsManifest writes n Indexed Jobs named j-00, j-01, … of the given
// parallelism (completions equal, so each is a gang), with a pod template
// of realistic size, as one multi-document YAML.
func jobsManifest(n, parallelism int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: batch/v1
kind: Job
metadata: {name: j-%02d}
spec:
  parallelism: %d
  completions: %d
  completionMode: Indexed
  template:
    metadata: {labels: {app: train}, annotations: {note: shared}}
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: registry.example.com/train:v1
        args: [--epochs, "10", --data, /data]
        env: [{name: RANK, value: "0"}, {name: WORLD, value: "%d"}]
        resources: {requests: {cpu: "1", memory: 1Gi}, limits: {memory: 1Gi}}
`, i, parallelism, parallelism, parallelism)
	}
	return b.String()
}

func decode(t testing.TB, in string) []manifest.Object {
	objs, err := manifest.Decode("jobs.yaml", strings.NewReader(in), manifest.Options{})
	require.NoError(t, err)
	return objs
}

// 50 Jobs of parallelism 100,000 — 16 KB of manifest asking for 5 million
// pods — are refused before any pod is created, at the Job that crosses
// the bound, and in bounded memory.
func TestLoad_TooManyJobPods(t *testing.T) {
	in := jobsManifest(50, MaxJobParallelism)
	require.Less(t, len(in), 32<<10)
	objs := decode(t, in)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := Load(objs)
	runtime.ReadMemStats(&after)
	require.Nil(t, c)
	require.ErrorIs(t, err, ErrTooManyPods)
	require.Contains(t, err.Error(), `jobs.yaml: document 6 (line `)
	require.Contains(t, err.Error(), `Job "default/j-05": spec.parallelism: its 100000 pods would bring the input to 600000 pods (0 given, the rest from Jobs), above the limit of 500000 (LoadOptions.MaxPods)`)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "refused before creating pods")
}

// The bound counts the input's pods and the Jobs' together: exactly
// MaxPods loads, one more is refused.
func TestLoad_MaxPods(t *testing.T) {
	in := jobsManifest(2, 2) + "---\n" + pod("p", "")
	objs := decode(t, in)
	c, err := LoadWithOptions(objs, LoadOptions{MaxPods: 5})
	require.NoError(t, err)
	require.Len(t, c.Pending, 5)
	_, err = LoadWithOptions(objs, LoadOptions{MaxPods: 4})
	require.ErrorIs(t, err, ErrTooManyPods)
	require.Contains(t, err.Error(), `Job "default/j-01": spec.parallelism: its 2 pods would bring the input to 5 pods (1 given, the rest from Jobs), above the limit of 4`)
}

// A Job's pods share the template's spec instead of copying it per pod:
// the containers are one array; names and labels are each pod's own, and
// binding one pod writes its spec.nodeName only.
func TestJobPods_ShareTemplate(t *testing.T) {
	c, err := Load(decode(t, jobsManifest(1, 3)))
	require.NoError(t, err)
	pods := c.Jobs[0].Pods
	require.Len(t, pods, 3)
	for i, p := range pods {
		require.Equal(t, fmt.Sprintf("j-00-%d", i), p.Name)
		require.Equal(t, map[string]string{"app": "train", LabelJobName: "j-00", LabelCompletionIndex: fmt.Sprint(i)}, p.Labels)
		require.Same(t, &pods[0].Spec.Containers[0], &p.Spec.Containers[0])
		require.Equal(t, c.Jobs[0].PodGroup.Name, *p.Spec.SchedulingGroup.PodGroupName)
	}
	require.True(t, c.Bind(c.Pending[1].Key(), "n1"))
	require.Equal(t, []string{"", "n1", ""}, []string{pods[0].Spec.NodeName, pods[1].Spec.NodeName, pods[2].Spec.NodeName})
	require.Empty(t, c.Jobs[0].Pods[0].Spec.NodeName)
}

// BenchmarkLoad_JobPods loads one Job of 100,000 pods and reports the
// memory the loaded cluster keeps per pod (heap in use after a collection,
// the manifest objects excluded).
func BenchmarkLoad_JobPods(b *testing.B) {
	objs := decode(b, jobsManifest(1, MaxJobParallelism))
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, err := Load(objs)
		require.NoError(b, err)
		require.Len(b, c.Pending, MaxJobParallelism)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/MaxJobParallelism, "heap-B/pod")
		runtime.KeepAlive(c)
	}
}
