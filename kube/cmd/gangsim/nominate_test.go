package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// nominationGoldens: a preemptor's nominated nodes written by -o yaml
// (a run stopped right after the preempting cycle), and read back from an
// input pod's status.nominatedNodeName, whose room an equal-priority rival
// queued first may not take.
var nominationGoldens = []golden{
	{"preemption-nominates-yaml", []string{"-max-cycles", "1", "-o", "yaml", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "preemption/low-priority-and-gang.yaml"}, exitWaiting},
	{"nominated-room-held", []string{"-f", "testdata/nominated-room-held.yaml"}, exitWaiting},
}

func TestGoldenNominations(t *testing.T) {
	checkGoldens(t, nominationGoldens)
}

// TestScenario_NominationsReadBack: the -o yaml of a run stopped after the
// preempting cycle carries each worker's status.nominatedNodeName; read
// back, the run binds every worker to its nominated node, clears the
// nominations, and ends at a fixed point.
func TestScenario_NominationsReadBack(t *testing.T) {
	files := []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "preemption/low-priority-and-gang.yaml"}
	stopped, code := yamlRun("", append([]string{"-max-cycles", "1"}, files...)...)
	require.Equal(t, exitWaiting, code, stopped)
	want := map[string]string{"worker-0": "node-a", "worker-1": "node-b", "worker-2": "node-c", "worker-3": "node-d"}
	for pod, node := range want {
		require.Contains(t, stopped, "name: "+pod+"\n")
		require.Contains(t, stopped, "nominatedNodeName: "+node+"\n")
	}
	rep, code := runJSON(t, stopped)
	require.Equal(t, exitPlaced, code)
	require.Equal(t, want, outcomeOf(rep).Bound)
	done, code := yamlRun(stopped, "-f", "-")
	require.Equal(t, exitPlaced, code)
	require.NotContains(t, done, "nominatedNodeName")
	checkFixedPoint(t, done, code)
	held, code := yamlRun("", "-f", "testdata/nominated-room-held.yaml")
	require.True(t, strings.Contains(held, "nodeName: n1"))
	checkFixedPoint(t, held, code)
}
