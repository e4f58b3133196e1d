package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/gangsched/gangsched/kube/manifest"
)

const elasticJob = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '3', memory: 8Gi, pods: '110'}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, uid: 7d0c5e1a-0000-4000-8000-000000000001}
spec: {scheduling: {schedulingPolicy: {gang: {minCount: 4}}}, parallelism: 4, completions: 4, completionMode: Indexed, template: {spec: {restartPolicy: Never, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}}}
`

// An elastic gang end to end: a Job whose gang of minCount 4 waits on a
// node of 3 CPUs; its owner lowers spec.scheduling...gang.minCount to 3 in
// the objects gangsim wrote, the Job controller carries the change to the
// Job's PodGroup, and the next run binds 3 members while the fourth waits.
func TestElastic_JobMinCountReachesPodGroup(t *testing.T) {
	first, code := yamlRun(elasticJob, "-f", "-")
	require.Equal(t, exitWaiting, code, first)
	objs, err := manifest.Decode("first.yaml", strings.NewReader(first), manifest.Options{Namespace: "default"})
	require.NoError(t, err)
	var out []any
	for _, o := range objs {
		if j, ok := o.Obj.(*batchv1.Job); ok {
			three := int32(3)
			j.Spec.Scheduling.SchedulingPolicy.Gang.MinCount = &three
		}
		out = append(out, o.Obj)
	}
	var edited bytes.Buffer
	require.NoError(t, writeObjects(&edited, out))

	var js, errb bytes.Buffer
	code = run([]string{"-o", "json", "-f", "-"}, strings.NewReader(edited.String()), &js, &errb, false)
	require.Equal(t, exitWaiting, code, errb.String())
	require.Contains(t, js.String(), `"podsBound": 3`)
	second, _ := yamlRun(edited.String(), "-f", "-")
	objs, err = manifest.Decode("second.yaml", strings.NewReader(second), manifest.Options{Namespace: "default"})
	require.NoError(t, err)
	found := false
	for _, o := range objs {
		if pg, ok := o.Obj.(*schedulingv1beta1.PodGroup); ok {
			require.Equal(t, int32(3), pg.Spec.SchedulingPolicy.Gang.MinCount)
			found = true
		}
	}
	require.True(t, found, "the Job's PodGroup is written")
}
