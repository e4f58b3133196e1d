package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// yamlRun runs gangsim -o yaml with args and the given standard input; it
// returns the output (or the error message) and the exit code.
func yamlRun(stdin string, args ...string) (string, int) {
	var out, errb bytes.Buffer
	code := run(append([]string{"-o", "yaml"}, args...), strings.NewReader(stdin), &out, &errb, false)
	if code == exitInput {
		return errb.String(), code
	}
	return out.String(), code
}

// checkFixedPoint runs gangsim -o yaml on its own -o yaml output and
// requires the two outputs to be byte-identical (idempotence) and the
// second run to bind and evict nothing although every waiting group gets a
// cycle (the first run ended at a fixed point: DESIGN.md invariant 11).
func checkFixedPoint(t require.TestingT, first string, code int, flags ...string) {
	second, code2 := yamlRun(first, append(flags, "-f", "-")...)
	require.NotEqual(t, exitInput, code2, "the output does not read back: %s", second)
	require.Equal(t, first, second, "-o yaml on its own output changed it")
	require.Equal(t, code, code2)
	var js, jerr bytes.Buffer
	run(append([]string{"-o", "json", "-f", "-"}, flags...), strings.NewReader(first), &js, &jerr, false)
	var rep Report
	require.NoError(t, json.Unmarshal(js.Bytes(), &rep), jerr.String())
	tried := map[string]bool{}
	for _, cy := range rep.Cycles {
		require.Empty(t, cy.Bound, "cycle %d of %s bound members after the fixed point", cy.N, cy.Name)
		require.Empty(t, cy.Preempted, "cycle %d of %s evicted pods after the fixed point", cy.N, cy.Name)
		tried[cy.Kind+" "+cy.Name] = true
		for _, n := range cy.Tree { // a hierarchy's cycle tries every object of it
			tried[n.Kind+" "+n.Name] = true
		}

	}
	for _, w := range rep.Summary.Waiting {
		if w.Pending > 0 && !strings.HasPrefix(w.Reason, "gated") && w.Reason != "spec.schedulingGates set" {
			// A tree whose cycle fails on its configuration (v1.38's rule
			// for a tree's groups) lists no levels; its leaves then wait
			// for the root's error, which their reason gives.
			require.True(t, tried[w.Kind+" "+w.Name] || strings.HasPrefix(w.Reason, "Error: CompositePodGroup "), "%s %s waits untried: %s", w.Kind, w.Name, w.Reason)
		}
	}
}

// TestProp_FixedPointTestdata: every run of the goldens, and gangsim on
// every manifest under kube/testdata alone, ends at a fixed point whose
// -o yaml reads back unchanged.
func TestProp_FixedPointTestdata(t *testing.T) {
	var runs [][]string
	for _, g := range goldens {
		var args []string
		for i := 0; i < len(g.args); i++ {
			switch {
			case g.args[i] == "-o":
				i++
			case strings.HasPrefix(g.args[i], "-cycles"):
			default:
				args = append(args, g.args[i])
			}
		}
		runs = append(runs, args)
	}
	files, err := filepath.Glob(td + "*/*.yaml")
	require.NoError(t, err)
	more, err := filepath.Glob(td + "*/*/*.yaml")
	require.NoError(t, err)
	alone := len(runs)
	for _, f := range append(files, more...) {
		runs = append(runs, []string{"-f", f})
	}
	require.Greater(t, len(runs), 30)
	for i, args := range runs {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			first, code := yamlRun("", args...)
			if code == exitInput && i >= alone {
				t.Skip("not a valid input alone:", first) // e.g. workloads without their nodes
			}
			require.NotEqual(t, exitInput, code, first)
			var flags []string
			for j, a := range args {
				switch {
				case strings.HasPrefix(a, "-preemption"):
					flags = append(flags, a)
				case a == "-profile", a == "-feature-gates":
					flags = append(flags, a, args[j+1])
				}
			}
			checkFixedPoint(t, first, code, flags...)
		})
	}
}

// TestProp_FixedPointGenerated: on generated manifests (nodes in racks,
// PodGroups of both policies and all disruption modes, bound and pending
// pods of several priorities, Jobs with and without spec.scheduling,
// PodGroups sharing a claim from a template), whatever gangsim accepts
// ends at a fixed point and -o yaml reads back unchanged.
func TestProp_FixedPointGenerated(t *testing.T) {
	accepted, preempting, waiting := 0, 0, 0
	prop := func(t *rapid.T) {
		m := genManifest(t)
		first, code := yamlRun(m, "-f", "-")
		if code == exitInput {
			return
		}
		accepted++
		var js, jerr bytes.Buffer
		run([]string{"-o", "json", "-f", "-"}, strings.NewReader(m), &js, &jerr, false)
		var rep Report
		require.NoError(t, json.Unmarshal(js.Bytes(), &rep), jerr.String())
		if rep.Summary.PodsPreempted > 0 {
			preempting++
		}
		if code == exitWaiting {
			waiting++
		}
		checkFixedPoint(t, first, code)
	}
	// One run of 100 manifests has about 6 that preempt (measured over 25
	// runs), so it misses them about once in 400; run again (at most 20
	// rounds) until both were seen.
	rounds := 0
	for ; rounds < 20 && (preempting == 0 || waiting == 0); rounds++ {
		rapid.Check(t, prop)
	}
	// The generator reaches what the property is about.
	require.Greater(t, accepted, 50*rounds, "most generated manifests are valid")
	require.Positive(t, preempting, "some runs preempt")
	require.Positive(t, waiting, "some runs end with groups waiting")
}

// genManifest draws a small cluster and workload as multi-document YAML.
func genManifest(t *rapid.T) string {
	var b strings.Builder
	doc := func(format string, args ...any) { fmt.Fprintf(&b, "---\n"+format+"\n", args...) }
	nodes := rapid.IntRange(1, 4).Draw(t, "nodes")
	for i := range nodes {
		doc("apiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {topology.kubernetes.io/rack: r%d}}\nstatus: {allocatable: {cpu: '%d', pods: '110'}}",
			i, i%2, rapid.IntRange(1, 4).Draw(t, "cpu"))
	}
	claims := rapid.Bool().Draw(t, "claims")
	if claims {
		doc("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: dev.example.com}\nspec: {selectors: [{cel: {expression: 'device.driver == \"dev.example.com\"'}}]}")
		doc("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: dev}\nspec: {spec: {devices: {requests: [{name: dev, exactly: {deviceClassName: dev.example.com}}]}}}")
		for i := range nodes {
			doc("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n%d-dev}\nspec: {driver: dev.example.com, pool: {name: n%d, generation: 1, resourceSliceCount: 1}, nodeName: n%d, devices: [{name: d0}]}", i, i, i)
		}
	}
	groups := rapid.IntRange(0, 3).Draw(t, "groups")
	for i := range groups {
		policy := rapid.SampledFrom([]string{"{basic: {}}", "{gang: {minCount: 1}}", "{gang: {minCount: 2}}"}).Draw(t, "policy")
		spec := fmt.Sprintf("priority: %d, schedulingPolicy: %s", 100*rapid.IntRange(0, 2).Draw(t, "groupPriority"), policy)
		if dm := rapid.SampledFrom([]string{"", "{single: {}}", "{all: {}}"}).Draw(t, "disruptionMode"); dm != "" {
			spec += ", disruptionMode: " + dm
		}
		if rapid.Bool().Draw(t, "rack") {
			spec += ", schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}"
		}
		if claims && rapid.Bool().Draw(t, "groupClaim") {
			spec += ", resourceClaims: [{name: dev, resourceClaimTemplateName: dev}]"
		}
		doc("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g%d}\nspec: {%s}", i, spec)
	}
	pods := rapid.IntRange(0, 6).Draw(t, "pods")
	for i := range pods {
		spec := fmt.Sprintf("priority: %d", 100*rapid.IntRange(0, 2).Draw(t, "podPriority"))
		if groups > 0 && rapid.Bool().Draw(t, "inGroup") {
			spec += fmt.Sprintf(", schedulingGroup: {podGroupName: g%d}", rapid.IntRange(0, groups-1).Draw(t, "group"))
		}
		if rapid.Bool().Draw(t, "bound") {
			spec += fmt.Sprintf(", nodeName: n%d", rapid.IntRange(0, nodes-1).Draw(t, "node"))
		}
		doc("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec: {%s, containers: [{name: c, image: pause, resources: {requests: {cpu: '%d'}}}]}",
			i, spec, rapid.IntRange(0, 2).Draw(t, "podCPU"))
	}
	jobs := rapid.IntRange(0, 2).Draw(t, "jobs")
	for i := range jobs {
		n := rapid.IntRange(1, 3).Draw(t, "parallelism")
		sched := rapid.SampledFrom([]string{"", "scheduling: {schedulingPolicy: {gang: {}}}, ", "scheduling: {schedulingPolicy: {basic: {}}}, "}).Draw(t, "scheduling")
		doc("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j%d}\nspec: {%sparallelism: %d, completions: %d, completionMode: Indexed, template: {spec: {priority: %d, restartPolicy: Never, containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]}}}",
			i, sched, n, n, 100*rapid.IntRange(0, 2).Draw(t, "jobPriority"))
	}
	return b.String()
}

// TestFixedPointGeneratorReachesBothPolicies: the generator draws basic and
// gang groups, Jobs and claims (so the property sees them).
func TestFixedPointGeneratorReachesBothPolicies(t *testing.T) {
	var seen []string
	rapid.Check(t, func(t *rapid.T) {
		m := genManifest(t)
		for _, s := range []string{"basic: {}", "gang: {minCount", "all: {}", "single: {}", "kind: Job", "resourceClaims:"} {
			if strings.Contains(m, s) && !slices.Contains(seen, s) {
				seen = append(seen, s)
			}
		}
	})
	require.Len(t, seen, 6, "seen: %v", seen)
}

// A Job's Kueue preferred level, which the written PodGroup has no field
// for, is read again from the Job on the second run, as its slice layers
// are: under the kueue profile the 12 pods wait on one 4-CPU host in both
// runs (the second bound 4 member by member: the tester kbreak's finding
// 08), and under gangsched's the run reads back unchanged too.
func TestFixedPoint_JobPreferredLevel(t *testing.T) {
	in := `apiVersion: v1
kind: Node
metadata:
  name: b0-r1-h1
  labels: {example.com/block: b0, example.com/rack: b0-r1}
status:
  allocatable: {cpu: "4", pods: "110"}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j5, namespace: default}
spec:
  parallelism: 12
  completions: 12
  completionMode: Indexed
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-preferred-topology: example.com/rack
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	for _, profile := range []string{"kueue", "gangsched"} {
		out, code := yamlRun(in, "-topology-profile", profile, "-f", "-")
		require.Equal(t, 3, code, out)
		checkFixedPoint(t, out, code, "-topology-profile", profile)
	}
}
