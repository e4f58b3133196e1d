package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runJSON runs gangsim -o json on a manifest given as text and returns the
// report and the exit code.
func runJSON(t *testing.T, manifest string, args ...string) (Report, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"-o", "json", "-f", "-"}, args...), strings.NewReader(manifest), &out, &errb, false)
	require.NotEqual(t, exitInput, code, "stderr: %s", errb.String())
	var rep Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	return rep, code
}

// outcome is what a run did, over all cycles: the bindings, the evictions
// and the last condition written per PodGroup.
type outcome struct {
	Bound      map[string]string // pod name → node
	Preempted  []string
	Conditions map[string]Condition
}

func outcomeOf(rep Report) outcome {
	o := outcome{Bound: map[string]string{}, Conditions: map[string]Condition{}}
	for _, cy := range rep.Cycles {
		for _, b := range cy.Bound {
			o.Bound[b.Pod] = b.Node
		}
		o.Preempted = append(o.Preempted, cy.Preempted...)
		if cy.Condition != nil {
			o.Conditions[cy.Name] = *cy.Condition
		}
	}
	return o
}

const laterMemberPreempts = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '2', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: low}
spec: {priority: 10, nodeName: n1, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {priority: 1000, schedulingPolicy: POLICY}
---
apiVersion: v1
kind: Pod
metadata: {name: m1}
spec: {priority: 1000, schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: m2}
spec: {priority: 1000, schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
`

// TestScenario_LaterMemberPreempts: a gang of minCount 1 (or a basic
// group) whose first cycle binds m1 and requeues m2, which fits only once
// the lower-priority pod low is evicted: the run goes on to the fixed
// point, so low is preempted and both members bind (as kube-scheduler
// v1.37.2 does on the same manifest).
func TestScenario_LaterMemberPreempts(t *testing.T) {
	for _, policy := range []string{"{gang: {minCount: 1}}", "{basic: {}}"} {
		t.Run(policy, func(t *testing.T) {
			rep, code := runJSON(t, strings.Replace(laterMemberPreempts, "POLICY", policy, 1))
			require.Equal(t, exitPlaced, code)
			require.Equal(t, outcome{
				Bound:      map[string]string{"m1": "n1", "m2": "n1"},
				Preempted:  []string{"default/low"},
				Conditions: map[string]Condition{"default/pg": {Type: "PodGroupInitiallyScheduled", Status: "True", Reason: "Scheduled"}},
			}, outcomeOf(rep))
			require.Len(t, rep.Cycles, 3)
		})
	}
}

const boundMeetMinCount = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '2', pods: '110'}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec: {nodeName: n1, schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p2}
spec: {nodeName: n1, schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p3}
spec: {schedulingGroup: {podGroupName: pg}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
`

// TestScenario_BoundMembersMeetMinCount: a gang of minCount 2 whose two
// members are bound and whose third does not fit is placed; the reason
// counts the pending member against what the cycle needs (not "2 of min
// 3"), and names the v1beta1 condition the PodGroup gets.
func TestScenario_BoundMembersMeetMinCount(t *testing.T) {
	rep, code := runJSON(t, boundMeetMinCount)
	require.Equal(t, exitWaiting, code) // p3 still waits
	require.Equal(t, outcome{
		Bound:      map[string]string{},
		Conditions: map[string]Condition{"default/pg": {Type: "PodGroupInitiallyScheduled", Status: "False", Reason: "Unschedulable"}},
	}, outcomeOf(rep))
	require.Equal(t, "0 of the pending members fit (2 bound meet minCount 2); default/p3 fits on none of 1 nodes: 1 Insufficient cpu", rep.Cycles[0].Message)
	require.Equal(t, 1, rep.Summary.GroupsPlaced)
	require.Equal(t, 1, rep.Summary.PodsWaiting)
}

// TestScenario_AllMembersBound: a PodGroup whose members are all bound and
// that has no condition yet is placed (bound members reach minCount), not
// waiting; no cycle runs.
func TestScenario_AllMembersBound(t *testing.T) {
	rep, code := runJSON(t, boundMeetMinCount[:strings.LastIndex(boundMeetMinCount, "---")])
	require.Equal(t, exitPlaced, code)
	require.Empty(t, rep.Cycles)
	require.Equal(t, Summary{PodGroups: 1, GroupsPlaced: 1, Allocation: []Allocation{{Resource: "cpu", Requested: 2000, Allocatable: 2000, Percent: 100}}}, rep.Summary)
}

// yamlOf runs gangsim -o yaml on a manifest given as text.
func yamlOf(t *testing.T, manifest string, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"-o", "yaml", "-f", "-"}, args...), strings.NewReader(manifest), &out, &errb, false)
	require.NotEqual(t, exitInput, code, "stderr: %s", errb.String())
	return out.String(), code
}

const twoNodes = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '2', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: '2', pods: '110'}}
`

// TestScenario_EmptyObjectsSurvive: a basic PodGroup with disruptionMode
// single and a gang with disruptionMode all keep {basic: {}}, {single: {}}
// and {all: {}} in -o yaml, which reads back unchanged.
func TestScenario_EmptyObjectsSurvive(t *testing.T) {
	in := twoNodes + `---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: b}
spec: {schedulingPolicy: {basic: {}}, disruptionMode: {single: {}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec: {schedulingPolicy: {gang: {minCount: 1}}, disruptionMode: {all: {}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {schedulingGroup: {podGroupName: b}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
`
	out, code := yamlOf(t, in)
	require.Equal(t, exitPlaced, code)
	for _, s := range []string{"    basic: {}\n", "    single: {}\n", "    all: {}\n"} {
		require.Contains(t, out, s)
	}
	again, _ := yamlOf(t, out)
	require.Equal(t, out, again)
}

const indexedJob = `---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: 2
  completions: 2
  completionMode: Indexed
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}}
`

// TestScenario_JobReadsBack: a gang-eligible Job gets its Workload,
// PodGroup (a gang by v1.36's rule, basic by v1.37's) and two pods, which
// bind; the output, read back, is the Job's own (controller
// ownerReferences) and nothing is created or bound again.
func TestScenario_JobReadsBack(t *testing.T) {
	for profile, policy := range map[string]string{"v1.36": "\n  schedulingPolicy:\n    gang:\n      minCount: 2\n", "v1.37": "\n  schedulingPolicy:\n    basic: {}\n", "v1.38": "\n  schedulingPolicy:\n    basic: {}\n"} {
		t.Run(profile, func(t *testing.T) {
			rep, code := runJSON(t, twoNodes+indexedJob, "-profile", profile)
			require.Equal(t, exitPlaced, code)
			require.Equal(t, map[string]string{"j-0": "n1", "j-1": "n1"}, outcomeOf(rep).Bound)
			require.Equal(t, 1, rep.Summary.PodGroups)
			out, _ := yamlOf(t, twoNodes+indexedJob, "-profile", profile)
			require.Equal(t, 1, strings.Count(out, "\nkind: PodGroup\nmetadata:"))
			require.Contains(t, out, policy)
			again, _ := yamlOf(t, out, "-profile", profile)
			require.Equal(t, out, again)
			rep2, code2 := runJSON(t, out, "-profile", profile)
			require.Equal(t, exitPlaced, code2)
			require.Empty(t, rep2.Cycles)
		})
	}
}

// TestScenario_StartedJob: a Job that already started (status.startTime),
// or whose pod already exists, gets no Workload or PodGroup (the Job
// controller's isNewJob) and runs pod by pod; an existing pod of it is
// kept, not created again, and the run does not fail.
func TestScenario_StartedJob(t *testing.T) {
	started := indexedJob + "status: {startTime: '2025-12-31T00:00:00Z'}\n"
	rep, code := runJSON(t, twoNodes+started)
	require.Equal(t, exitPlaced, code)
	require.Equal(t, map[string]string{"j-0": "n1", "j-1": "n1"}, outcomeOf(rep).Bound)
	require.Equal(t, 0, rep.Summary.PodGroups)
	require.Equal(t, []string{"Job default/j: the Job already started (status.startTime), so the Job controller creates no Workload or PodGroup for it"}, rep.Summary.JobsPodByPod)

	ownPod := indexedJob + `---
apiVersion: v1
kind: Pod
metadata:
  name: j-0
  labels: {batch.kubernetes.io/job-completion-index: '0'}
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: '', controller: true}]
spec: {nodeName: n2, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
`
	rep, code = runJSON(t, twoNodes+ownPod)
	require.Equal(t, exitPlaced, code)
	require.Equal(t, map[string]string{"j-1": "n2"}, outcomeOf(rep).Bound) // packed beside j-0
	require.Equal(t, []string{"Job default/j: the Job already has pods, so the Job controller creates no Workload or PodGroup for it"}, rep.Summary.JobsPodByPod)
}

// TestScenario_HostnameFilledIn: nodes without the kubernetes.io/hostname
// label get it, so a gang that requires one host binds there whole; pods
// without creationTimestamp queue in file order (w-9 before w-10, which
// comes first by name); with -fill-in=false the hostname key is on no
// node and the input is refused.
func TestScenario_HostnameFilledIn(t *testing.T) {
	in := twoNodes + `---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec: {schedulingPolicy: {gang: {minCount: 2}}, schedulingConstraints: {topology: [{key: kubernetes.io/hostname}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: w-9}
spec: {schedulingGroup: {podGroupName: g}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: w-10}
spec: {schedulingGroup: {podGroupName: g}, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
`
	rep, code := runJSON(t, in)
	require.Equal(t, exitPlaced, code)
	require.Equal(t, []Binding{{Pod: "w-9", Node: "n1"}, {Pod: "w-10", Node: "n1"}}, rep.Cycles[0].Bound)
	require.Equal(t, "n1", rep.Cycles[0].Placement)

	var out, errb bytes.Buffer
	require.Equal(t, exitInput, run([]string{"-fill-in=false", "-f", "-"}, strings.NewReader(in), &out, &errb, false))
	require.Contains(t, errb.String(), `no node carries the label "kubernetes.io/hostname"`)
}

// TestScenario_EvictedJobPodRecreated: a higher-priority Job's pod evicts
// the running pod of a lower-priority Job; the Job controller creates that
// pod again, pending, and it waits (found by TestProp_FixedPointGenerated:
// without it, only a second run recreated the pod).
func TestScenario_EvictedJobPodRecreated(t *testing.T) {
	in := `apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: '1', pods: '110'}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: lo}
spec: {parallelism: 1, template: {spec: {priority: 0, restartPolicy: Never, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: lo-0
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: lo, uid: '', controller: true}]
spec: {priority: 0, nodeName: n0, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: hi}
spec: {parallelism: 1, template: {spec: {priority: 100, restartPolicy: Never, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}}}
`
	rep, code := runJSON(t, in)
	require.Equal(t, exitWaiting, code)
	// v1.37's Job controller gives hi, a new Job, a basic PodGroup; lo,
	// whose pod exists, runs pod by pod.
	require.Equal(t, outcome{Bound: map[string]string{"hi-0": "n0"}, Preempted: []string{"default/lo-0"},
		Conditions: map[string]Condition{"default/hi-94c2e5d7-job": {Type: "PodGroupInitiallyScheduled", Status: "True", Reason: "Scheduled"}}}, outcomeOf(rep))
	require.Equal(t, []string{"default/lo-0"}, rep.Cycles[0].Recreated)
	require.Equal(t, []WaitingGroup{{Kind: "Pod", Name: "default/lo-0", Pending: 1, Reason: rep.Summary.Waiting[0].Reason}}, rep.Summary.Waiting)
	out, _ := yamlOf(t, in)
	again, _ := yamlOf(t, out)
	require.Equal(t, out, again)
}
