package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"
)

// aboveHostWorld is a Kueue Topology of levels [block, rack] (no
// kubernetes.io/hostname level) with a topology flavor, a ClusterQueue and
// a LocalQueue, over nodes shaped as Kueue v0.17's tas_cache_test.go
// defaultNodes: b1/r1 one 1-CPU host, b1/r2 three, b2/r1 one, b2/r2 one of
// 2 CPUs. The nodes carry the hostname label (x1..x6) as kubelet sets it.
func aboveHostWorld(levels ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: default}\nspec:\n  levels:\n")
	for _, l := range levels {
		fmt.Fprintf(&b, "  - nodeLabel: %s\n", l)
	}
	b.WriteString(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas-flavor}
spec: {topologyName: default, nodeLabels: {example.com/pool: tas}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: tas-flavor
      resources:
      - {name: cpu, nominalQuota: "100"}
      - {name: memory, nominalQuota: 100Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
`)
	for _, n := range []struct {
		name, block, rack, host, cpu, mem, pods string
	}{
		{"b1-r1-x3", "b1", "r1", "x3", "1", "1Gi", "10"},
		{"b1-r2-x5", "b1", "r2", "x5", "1", "1Gi", "10"},
		{"b1-r2-x1", "b1", "r2", "x1", "1", "1Gi", "10"},
		{"b1-r2-x6", "b1", "r2", "x6", "1", "1Gi", "10"},
		{"b2-r2-x2", "b2", "r1", "x2", "1", "1Gi", "10"},
		{"b2-r2-x4", "b2", "r2", "x4", "2", "4Gi", "40"},
	} {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {cloud.com/topology-block: %s, cloud.com/topology-rack: %s, kubernetes.io/hostname: %s, example.com/pool: tas}
status:
  allocatable: {cpu: %q, memory: %s, pods: %q}
  conditions: [{type: Ready, status: "True"}]
`, n.name, n.block, n.rack, n.host, n.cpu, n.mem, n.pods)
	}
	return b.String()
}

// aboveHostWorkload is a pending Workload of one pod set of count pods
// requesting res, with topologyRequest tr ("required: <level>" or
// "preferred: <level>"; none when "").
func aboveHostWorkload(name string, count int, res, tr, created string) string {
	w := fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: %s, namespace: default, creationTimestamp: %q}
spec:
  queueName: lq
  podSets:
  - name: main
    count: %d
    topologyRequest: {%s}
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {%s}}
`, name, created, count, tr, res)
	if tr == "" {
		w = strings.Replace(w, "    topologyRequest: {}\n", "", 1)
	}
	return w
}

// admittedAssignments reads the Workloads of gangsim's -o yaml output:
// each one's pod set "main"'s topologyAssignment (nil when not admitted).
func admittedAssignments(t require.TestingT, out string) map[string]*kueue.TopologyAssignment {
	got := map[string]*kueue.TopologyAssignment{}
	for _, doc := range strings.Split(out, "\n---\n") {
		if !strings.Contains(doc, "kind: Workload") {
			continue
		}
		var w kueue.Workload
		require.NoError(t, yaml.Unmarshal([]byte(doc), &w))
		got[w.Name] = nil
		if w.Status.Admission != nil {
			for _, psa := range w.Status.Admission.PodSetAssignments {
				if psa.Name == "main" {
					got[w.Name] = psa.TopologyAssignment
				}
			}
		}
	}
	return got
}

// domains is the topologyAssignment Kueue v0.17 writes (its V1Beta2From)
// for levels and the slice given.
func domains(levels []string, sl kueue.TopologyAssignmentSlice) *kueue.TopologyAssignment {
	return &kueue.TopologyAssignment{Levels: levels, Slices: []kueue.TopologyAssignmentSlice{sl}}
}

func universal(v string) kueue.TopologyAssignmentSliceLevelValues {
	return kueue.TopologyAssignmentSliceLevelValues{Universal: ptr.To(v)}
}

func individual(prefix string, roots ...string) kueue.TopologyAssignmentSliceLevelValues {
	return kueue.TopologyAssignmentSliceLevelValues{Individual: &kueue.TopologyAssignmentSliceLevelIndividualValues{Prefix: ptr.To(prefix), Roots: roots}}
}

const (
	blockLevel = "cloud.com/topology-block"
	rackLevel  = "cloud.com/topology-rack"
)

// Over a Topology whose lowest level is a rack, gangsim admits Kueue
// v0.17's table cases (tas_cache_test.go, TestFindTopologyAssignments, the
// same shapes) with Kueue's expected assignment written as Kueue writes
// it: the Topology's levels, one domain per rack with its pods, domains in
// the order of their values, compact values; or waits where Kueue fails.
// Each output reads back unchanged (a fixed point).
func TestKueueAboveHost_TableCases(t *testing.T) {
	two := []string{blockLevel, rackLevel}
	for _, tc := range []struct {
		name     string // Kueue's case
		workload string
		want     *kueue.TopologyAssignment // nil: pending
		reason   string                    // in the pending text output: Kueue's wantReason (its leaves are the racks)
	}{
		{"rack required; multiple Pods fit in a rack; BestFit",
			aboveHostWorkload("wl", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 1, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{universal("b1"), universal("r2")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Universal: ptr.To[int32](3)}}), ""},
		{"rack required; single Pod fits in a rack; BestFit",
			aboveHostWorkload("wl", 1, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 1, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{universal("b1"), universal("r1")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Universal: ptr.To[int32](1)}}), ""},
		{"rack required; single Pod requiring memory; BestFit",
			aboveHostWorkload("wl", 4, `memory: "1024"`, "required: "+rackLevel, "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 1, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{universal("b1"), universal("r1")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Universal: ptr.To[int32](4)}}), ""},
		{"block preferred; but only multiple blocks can accommodate the workload; BestFit",
			aboveHostWorkload("wl", 6, `cpu: "1"`, "preferred: "+blockLevel, "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 3, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{individual("b", "1", "1", "2"), individual("r", "1", "2", "2")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Individual: []int32{1, 3, 2}}}), ""},
		// Not Kueue's table: a set without a request in a ClusterQueue
		// whose flavors all have a Topology (Kueue's implied request), and
		// an unconstrained one, placed as Kueue's
		// FindTopologyAssignmentsForFlavor (run in-process) places them.
		// One rack holds it: the tightest (over hosts, least free first,
		// 3 pods took b1/r1 and b1/r2).
		{"implied; one rack holds the set",
			aboveHostWorkload("wl", 3, `cpu: "1"`, "", "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 1, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{universal("b1"), universal("r2")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Universal: ptr.To[int32](3)}}), ""},
		{"unconstrained; one rack holds the set",
			aboveHostWorkload("wl", 2, `cpu: "1"`, "unconstrained: true", "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 1, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{universal("b2"), universal("r2")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Universal: ptr.To[int32](2)}}), ""},
		// No rack holds it: whole racks, least free first (1, 1, then 2
		// of b2/r2's 2), as Kueue placed them.
		{"implied; no rack holds the set",
			aboveHostWorkload("wl", 4, `cpu: "1"`, "", "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 3, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{individual("b", "1", "2", "2"), individual("r", "1", "1", "2")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Individual: []int32{1, 1, 2}}}), ""},
		{"unconstrained; no rack holds the set",
			aboveHostWorkload("wl", 5, `cpu: "1"`, "unconstrained: true", "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 4, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{individual("b", "1", "1", "2", "2"), individual("r", "1", "2", "1", "2")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Individual: []int32{1, 1, 1, 2}}}), ""},
		{"implied; every rack",
			aboveHostWorkload("wl", 7, `cpu: "1"`, "", "2026-01-01T10:00:00Z"),
			domains(two, kueue.TopologyAssignmentSlice{DomainCount: 4, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{individual("b", "1", "1", "2", "2"), individual("r", "1", "2", "1", "2")},
				PodCounts: kueue.TopologyAssignmentSlicePodCounts{Individual: []int32{1, 3, 1, 2}}}), ""},
		{"block required; single Pod which cannot be split; BestFit",
			aboveHostWorkload("wl", 1, `cpu: "4"`, "required: "+blockLevel, "2026-01-01T10:00:00Z"),
			nil, `couldn't assign flavors to pod set main: topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 4; excluded: resource "cpu": 4`},
		{"block required; too many Pods to fit requested; BestFit",
			aboveHostWorkload("wl", 5, `cpu: "1"`, "required: "+blockLevel, "2026-01-01T10:00:00Z"),
			nil, `couldn't assign flavors to pod set main: topology "default" allows to fit only 4 out of 5 pod(s)` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := aboveHostWorld(blockLevel, rackLevel) + tc.workload
			out, code := yamlRun(in, "-topology-profile", "kueue", "-f", "-")
			require.NotEqual(t, exitInput, code, out)
			require.Equal(t, tc.want, admittedAssignments(t, out)["wl"])
			checkFixedPoint(t, out, code, "-topology-profile", "kueue")
			if tc.reason != "" {
				var text, errb bytes.Buffer
				run([]string{"-topology-profile", "kueue", "-f", "-"}, strings.NewReader(in), &text, &errb, false)
				require.Contains(t, text.String(), "kueue Workload default/wl: Pending")
				require.Contains(t, text.String(), tc.reason)
			}
		})
	}
}

// oneLevelNode is a Ready node of blockWorld: its name, block and CPUs.
type oneLevelNode struct {
	name, block string
	cpu         int
}

// blockWorld is a Topology [cloud.com/topology-block] over nodes, each
// with 10 pods of room.
func blockWorld(nodes ...oneLevelNode) string {
	in := `apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: default}
spec:
  levels:
  - nodeLabel: cloud.com/topology-block
`
	for _, n := range nodes {
		in += fmt.Sprintf(`---
apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {cloud.com/topology-block: %s}
status:
  allocatable: {cpu: "%d", pods: "10"}
  conditions: [{type: Ready, status: "True"}]
`, n.name, n.block, n.cpu)
	}
	return in
}

// Over a one-level Topology [block] whose nodes are the blocks (Kueue's
// "two podsets with overlapping domain" shape, each pod set alone here),
// the assignment names blocks.
func TestKueueAboveHost_OneLevel(t *testing.T) {
	in := blockWorld(oneLevelNode{"b1", "b1", 2}, oneLevelNode{"b2", "b2", 2}, oneLevelNode{"b3", "b3", 2})
	in += aboveHostWorkload("wl", 3, `cpu: "1"`, "preferred: "+blockLevel, "2026-01-01T10:00:00Z")
	in = strings.Replace(in, "  queueName: lq\n", "", 1) // no queues: admitted over the one Topology
	out, code := yamlRun(in, "-topology-profile", "kueue", "-f", "-")
	require.NotEqual(t, exitInput, code, out)
	want := domains([]string{blockLevel}, kueue.TopologyAssignmentSlice{DomainCount: 2, ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{individual("b", "1", "2")},
		PodCounts: kueue.TopologyAssignmentSlicePodCounts{Individual: []int32{2, 1}}})
	require.Equal(t, want, admittedAssignments(t, out)["wl"])
	checkFixedPoint(t, out, code, "-topology-profile", "kueue")
}

// Under kueue-balanced over a Topology [block], Kueue's leaves are the
// blocks: a set preferring a block is balanced over blocks, not over the
// hosts gangsim appends, and its block's pods go to hosts as the read-back
// puts them, so -o yaml reads back unchanged (the tester kbreak's finding
// 03: balanced over hosts, h1×3 h2×3 left no host with 3 CPUs for w3,
// and the read-back, h1×4 h3×2, then admitted it). Kueue sums the block's
// room (10 CPUs) and admits both.
func TestKueueAboveHost_BalancedOverLeaves(t *testing.T) {
	in := blockWorld(oneLevelNode{"h1", "b0", 4}, oneLevelNode{"h2", "b0", 4}, oneLevelNode{"h3", "b0", 2})
	in += aboveHostWorkload("w0", 6, `cpu: "1"`, "preferred: "+blockLevel, "2026-01-01T10:00:00Z")
	in += aboveHostWorkload("w3", 1, `cpu: "3"`, "required: "+blockLevel, "2026-01-01T10:01:00Z")
	in = strings.ReplaceAll(in, "  queueName: lq\n", "") // no queues: admitted over the one Topology
	out, code := yamlRun(in, "-topology-profile", "kueue-balanced", "-f", "-")
	require.Equal(t, 0, code, out)
	got := admittedAssignments(t, out)
	one := func(n int32) *kueue.TopologyAssignment {
		return domains([]string{blockLevel}, kueue.TopologyAssignmentSlice{DomainCount: 1,
			ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{universal("b0")},
			PodCounts:      kueue.TopologyAssignmentSlicePodCounts{Universal: ptr.To(n)}})
	}
	require.Equal(t, one(6), got["w0"])
	require.Equal(t, one(1), got["w3"])
	checkFixedPoint(t, out, code, "-topology-profile", "kueue-balanced")
}

// A Workload admitted at the rack level (as gangsim's -o yaml writes it)
// holds its rack's room when read back: its pods are spread over the
// rack's hosts, so a later Workload that would have taken that rack goes
// elsewhere, and the output reads back unchanged.
func TestKueueAboveHost_ReadBack(t *testing.T) {
	world := aboveHostWorld(blockLevel, rackLevel)
	first := world + aboveHostWorkload("w1", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T10:00:00Z")
	out, code := yamlRun(first, "-topology-profile", "kueue", "-f", "-")
	require.NotEqual(t, exitInput, code, out)
	// Alone, w2 (3 pods in a rack) takes b1/r2 too, the one rack of 3 CPUs.
	alone, _ := yamlRun(world+aboveHostWorkload("w2", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T11:00:00Z"), "-topology-profile", "kueue", "-f", "-")
	require.Equal(t, admittedAssignments(t, out)["w1"], admittedAssignments(t, alone)["w2"])
	// Read back beside w1, which holds b1/r2, w2 fits in no rack; and a
	// 2-pod w3 takes b2/r2, the one rack left with 2 CPUs.
	second := out + aboveHostWorkload("w2", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T11:00:00Z") +
		aboveHostWorkload("w3", 2, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T12:00:00Z")
	out2, code2 := yamlRun(second, "-topology-profile", "kueue", "-f", "-")
	require.NotEqual(t, exitInput, code2, out2)
	got := admittedAssignments(t, out2)
	require.Equal(t, admittedAssignments(t, out)["w1"], got["w1"], "w1 is kept as it was")
	require.Nil(t, got["w2"], "w2 waits: b1/r2's room is w1's")
	require.Equal(t, domains([]string{blockLevel, rackLevel}, kueue.TopologyAssignmentSlice{DomainCount: 1,
		ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{universal("b2"), universal("r2")},
		PodCounts:      kueue.TopologyAssignmentSlicePodCounts{Universal: ptr.To[int32](2)}}), got["w3"])
	checkFixedPoint(t, out2, code2, "-topology-profile", "kueue")
	var text, errb bytes.Buffer
	run([]string{"-topology-profile", "kueue", "-f", "-"}, strings.NewReader(out2), &text, &errb, false)
	require.Contains(t, text.String(), "kueue Workload default/w1: Kept\n  pod set main (flavor tas-flavor): b1-r2-x1×1 b1-r2-x5×1 b1-r2-x6×1\n")
}

// An admitted Workload read at the rack level whose count changed (here
// it shrinks) is neither resized nor repaired: it keeps its admission as
// it is and waits with the reason.
func TestKueueAboveHost_ResizeWaits(t *testing.T) {
	out, code := yamlRun(aboveHostWorld(blockLevel, rackLevel)+aboveHostWorkload("w1", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T10:00:00Z"),
		"-topology-profile", "kueue", "-f", "-")
	require.NotEqual(t, exitInput, code, out)
	shrunk := strings.Replace(out, "  - count: 3\n    name: main\n", "  - count: 2\n    name: main\n", 1)
	require.NotEqual(t, out, shrunk)
	var text, errb bytes.Buffer
	run([]string{"-topology-profile", "kueue", "-f", "-"}, strings.NewReader(shrunk), &text, &errb, false)
	require.Contains(t, text.String(), `kueue Workload default/w1: GrowWaits`)
	require.Contains(t, text.String(), `pod set "main" is admitted at levels ["cloud.com/topology-block" "cloud.com/topology-rack"] above kubernetes.io/hostname and its count changed from 3 to 2: gangsim does not resize or replace the pods of such an assignment (which host holds which pod is not in it), so it keeps its admission as it is`)
	out2, _ := yamlRun(shrunk, "-topology-profile", "kueue", "-f", "-")
	require.Equal(t, admittedAssignments(t, out)["w1"], admittedAssignments(t, out2)["w1"], "the admission is unchanged")
}

// A request at kubernetes.io/hostname over a Topology without that level
// waits, as Kueue's does, with queues (its flavor assigner's words) and
// without (the level gangsim appends is not the Topology's).
func TestKueueAboveHost_HostnameRequested(t *testing.T) {
	wl := aboveHostWorkload("wl", 1, `cpu: "1"`, "required: kubernetes.io/hostname", "2026-01-01T10:00:00Z")
	for _, tc := range []struct {
		name, in, want string
	}{
		{"queued", aboveHostWorld(blockLevel, rackLevel) + wl,
			"kueue Workload default/wl: Pending\n  couldn't assign flavors to pod set main: Flavor \"tas-flavor\" does not contain the requested level\n"},
		{"one Topology alone", noQueues(aboveHostWorld(blockLevel, rackLevel) + wl),
			"kueue Workload default/wl: Pending\n  pod set \"main\": no requested topology level: kubernetes.io/hostname\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var text, errb bytes.Buffer
			run([]string{"-topology-profile", "kueue", "-f", "-"}, strings.NewReader(tc.in), &text, &errb, false)
			require.True(t, strings.HasPrefix(text.String(), tc.want), "%s%s", text.String(), errb.String())
		})
	}
}

// noQueues drops the ResourceFlavor, ClusterQueue and LocalQueue of in
// and the Workloads' queueName: Workloads are then admitted over the one
// Topology without quota.
func noQueues(in string) string {
	var keep []string
	for _, doc := range strings.Split(in, "---\n") {
		if strings.Contains(doc, "kind: ResourceFlavor") || strings.Contains(doc, "kind: ClusterQueue") || strings.Contains(doc, "kind: LocalQueue") {
			continue
		}
		keep = append(keep, strings.ReplaceAll(doc, "  queueName: lq\n", ""))
	}
	return strings.Join(keep, "---\n")
}

// kueueAboveHostRecord is a record of kueue-oracle/above-host: the real
// Kueue's answer over a Topology whose lowest level is not the hostname,
// each admitted pod set's topologyAssignment as Kueue wrote it.
type kueueAboveHostRecord struct {
	Kueue     string   `json:"kueue"`
	Manifests []string `json:"manifests"`
	Args      []string `json:"gangsimArgs"`
	Workloads []struct {
		Workload string `json:"workload"`
		Admitted bool   `json:"admitted"`
		PodSets  []struct {
			Name               string                    `json:"name"`
			Flavor             string                    `json:"flavor"`
			TopologyAssignment *kueue.TopologyAssignment `json:"topologyAssignment"`
		} `json:"podSets"`
		KueueMessage    string `json:"kueueMessage"`
		KnownDifference string `json:"knownDifference"`
	} `json:"workloads"`
}

// gangsim's -o yaml gives every Workload of kueue-oracle/above-host the
// real Kueue's answer: admitted or not, and each admitted pod set's flavor
// and topologyAssignment exactly as Kueue wrote it; a known difference
// must still differ. Each record's gangsimArgs name the profile that
// matches its kueueGates (kueue-balanced for TASBalancedPlacement).
func TestKueueAboveHost_Oracle(t *testing.T) {
	n := eachRecord(t, "kueue-oracle/above-host/*.json", func(t *testing.T, name string, c kueueAboveHostRecord) {
		args := append([]string{}, c.Args...)
		for _, m := range c.Manifests {
			args = append(args, "-f", td+m)
		}
		out, code := yamlRun("", args...)
		require.NotEqual(t, exitInput, code, out)
		got := map[string]kueue.Workload{}
		for _, doc := range strings.Split(out, "\n---\n") {
			if strings.Contains(doc, "kind: Workload") {
				var w kueue.Workload
				require.NoError(t, yaml.Unmarshal([]byte(doc), &w))
				got[w.Namespace+"/"+w.Name] = w
			}
		}
		for _, want := range c.Workloads {
			w, ok := got[want.Workload]
			require.True(t, ok, "no Workload %s in gangsim's output", want.Workload)
			same := want.Admitted == (w.Status.Admission != nil)
			if same && want.Admitted {
				psas := w.Status.Admission.PodSetAssignments
				same = len(psas) == len(want.PodSets)
				for i := 0; same && i < len(psas); i++ {
					ps := want.PodSets[i]
					// A record run without queues names no flavor (the
					// harness's own is no answer of Kueue's).
					same = string(psas[i].Name) == ps.Name && reflect.DeepEqual(psas[i].TopologyAssignment, ps.TopologyAssignment) &&
						(ps.Flavor == "" || slices.Contains(slices.Collect(maps.Values(psas[i].Flavors)), kueue.ResourceFlavorReference(ps.Flavor)))
				}
			}
			msg := ""
			if c := apimeta.FindStatusCondition(w.Status.Conditions, kueue.WorkloadQuotaReserved); c != nil {
				msg = c.Reason + ": " + c.Message
			}
			if want.KnownDifference != "" {
				// Pending in both, the words differ (the set a
				// PodSetGroup's failure names); else the answer.
				require.False(t, same && (want.Admitted || msg == want.KueueMessage), "%s: gangsim now agrees with Kueue; drop the known difference", want.Workload)
				continue
			}
			require.True(t, same, "%s: Kueue admitted=%v %+v; gangsim %+v", want.Workload, want.Admitted, want.PodSets, w.Status.Admission)
			if !want.Admitted {
				// Kueue's words: its leaves are the racks.
				require.Equal(t, want.KueueMessage, msg, want.Workload)
			}
		}
	})
	require.Equal(t, 16, n)
}

// Read back, a rack's pods go to hosts with room first; what no host holds
// alone (Kueue sums the rack's room) still goes to the rack's hosts, one
// at a time, and one of its hosts failing keeps the Workload as it is,
// waiting: gangsim does not know which host runs which pod.
func TestKueueAboveHost_Spread(t *testing.T) {
	out, code := yamlRun(aboveHostWorld(blockLevel, rackLevel)+aboveHostWorkload("w1", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T10:00:00Z"),
		"-topology-profile", "kueue", "-f", "-")
	require.NotEqual(t, exitInput, code, out)
	text := func(in string) string {
		var b, errb bytes.Buffer
		run([]string{"-topology-profile", "kueue", "-f", "-"}, strings.NewReader(in), &b, &errb, false)
		return b.String() + errb.String()
	}
	// Each pod needs 2 CPUs now: no host of b1/r2 holds one alone.
	big := strings.Replace(out, "              cpu: \"1\"\n", "              cpu: \"2\"\n", 1)
	big = strings.Replace(big, "        cpu: \"3\"\n", "        cpu: \"6\"\n", 1) // its resourceUsage
	require.NotEqual(t, out, big)
	require.Contains(t, text(big), "kueue Workload default/w1: Kept\n  pod set main (flavor tas-flavor): b1-r2-x1×1 b1-r2-x5×1 b1-r2-x6×1\n")
	// x1 not ready since 09:00 (failed at 10:00): its pod is lost there.
	failed := strings.Replace(out, "    kubernetes.io/hostname: x1\n  name: b1-r2-x1\nstatus:\n  allocatable:\n    cpu: \"1\"\n    memory: 1Gi\n    pods: \"10\"\n  conditions:\n  - status: \"True\"\n",
		"    kubernetes.io/hostname: x1\n  name: b1-r2-x1\nstatus:\n  allocatable:\n    cpu: \"1\"\n    memory: 1Gi\n    pods: \"10\"\n  conditions:\n  - lastTransitionTime: \"2026-01-01T09:00:00Z\"\n    status: \"False\"\n", 1)
	require.NotEqual(t, out, failed)
	got := text(failed)
	require.Contains(t, got, "kueue Workload default/w1: GrowWaits")
	require.Contains(t, got, `above kubernetes.io/hostname and node(s) b1-r2-x1 (Ready False for 1h0m0s) that its pods were spread over failed: gangsim does not resize or replace`)
	out2, _ := yamlRun(failed, "-topology-profile", "kueue", "-f", "-")
	require.Equal(t, admittedAssignments(t, out)["w1"], admittedAssignments(t, out2)["w1"], "the admission is unchanged")
}

// An admitted Workload's topologyAssignment at levels that are not its
// Topology's (a Topology edited since, another cluster's objects) is an
// input error naming the field, not read as hosts or domains of this
// cluster (the tester kbreak's finding 13).
func TestKueueAboveHost_LevelsChecked(t *testing.T) {
	out, code := yamlRun(aboveHostWorld(blockLevel, rackLevel)+aboveHostWorkload("w1", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T10:00:00Z"),
		"-topology-profile", "kueue", "-f", "-")
	require.Equal(t, 0, code, out)
	item := "\n        - " + blockLevel + "\n"
	require.Equal(t, 1, strings.Count(out, item), out)
	edited := strings.Replace(out, item, "\n        - example.com/other\n", 1)
	msg, code := yamlRun(edited, "-topology-profile", "kueue", "-f", "-")
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, `Kueue Workload "default/w1": status.admission.podSetAssignments[0].topologyAssignment.levels: ["example.com/other" "cloud.com/topology-rack"] are not the levels of the Topology the pod set is admitted over, ["cloud.com/topology-block" "cloud.com/topology-rack"]`)
}

// gangsim keeps each above-host set's hosts in the Workload's
// KueueHostsAnnotation, so -o yaml reads back unchanged where replaying
// the Workloads' plans in queue order did not: after a preemption (the
// victim's room was there when later Workloads were admitted) and after
// cycles over three ClusterQueues admitted out of queue order (the
// read-back put 8.5 CPUs on an 8-CPU host): the tester kbreak's finding
// 07, worlds of its generator. An edited annotation whose hosts do not
// hold the assignment's pods is an input error naming it.
func TestKueueAboveHost_HostsKept(t *testing.T) {
	for _, f := range []string{"above-host-preemption.yaml", "above-host-three-queues.yaml"} {
		t.Run(f, func(t *testing.T) {
			in, err := os.ReadFile(td + "kueue-workloads/" + f)
			require.NoError(t, err)
			out, code := yamlRun(string(in), "-topology-profile", "kueue", "-f", "-")
			require.NotEqual(t, exitInput, code, out)
			require.Contains(t, out, "gangsched.io/kueue-hosts: ")
			checkFixedPoint(t, out, code, "-topology-profile", "kueue")
		})
	}
	out, code := yamlRun(aboveHostWorld(blockLevel, rackLevel)+aboveHostWorkload("w1", 3, `cpu: "1"`, "required: "+rackLevel, "2026-01-01T10:00:00Z"),
		"-topology-profile", "kueue", "-f", "-")
	require.Equal(t, 0, code, out)
	kept := `gangsched.io/kueue-hosts: '{"main":{"x1":1,"x5":1,"x6":1}}'` // hostname labels, not node names
	require.Contains(t, out, kept)
	msg, code := yamlRun(strings.Replace(out, kept, `gangsched.io/kueue-hosts: '{"main":{"x1":1,"x5":1}}'`, 1), "-topology-profile", "kueue", "-f", "-")
	require.Equal(t, exitInput, code)
	require.Contains(t, msg, `Kueue Workload "default/w1": metadata.annotations[gangsched.io/kueue-hosts]: pod set "main": the hosts hold 2 pods, its topologyAssignment 3`)
	msg, _ = yamlRun(strings.Replace(out, kept, `gangsched.io/kueue-hosts: '{"main":[]}'`, 1), "-topology-profile", "kueue", "-f", "-")
	require.Contains(t, msg, `metadata.annotations[gangsched.io/kueue-hosts]: not a JSON object of pod set names to hostnames to pod counts`)
}
