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
