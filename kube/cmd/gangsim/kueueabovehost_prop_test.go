package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Over random [block, rack] Topologies (no hostname level) with random
// Workloads (priorities, a second pod set), every admitted Workload's topologyAssignment names the
// Topology's levels, each rack once, in the order of their values, its
// pods summing to the set's count; and -o yaml read back is a fixed point
// (the read-back spread holds the same room).
func TestProp_KueueAboveHost(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		b.WriteString(strings.SplitN(aboveHostWorld(blockLevel, rackLevel), "---\napiVersion: v1\nkind: Node", 2)[0])
		aboveHostRandomNodes(t, &b)
		reqs := []string{"required: " + rackLevel, "required: " + blockLevel, "preferred: " + rackLevel, "preferred: " + blockLevel, "unconstrained: true", ""}
		counts := map[string]int32{}
		for i := range rapid.IntRange(1, 4).Draw(t, "workloads") {
			name := fmt.Sprintf("w%d", i)
			counts[name] = int32(rapid.IntRange(1, 5).Draw(t, "count"))
			w := aboveHostWorkload(name, int(counts[name]), fmt.Sprintf(`cpu: "%d"`, rapid.IntRange(1, 2).Draw(t, "podCPU")),
				rapid.SampledFrom(reqs).Draw(t, "request"), fmt.Sprintf("2026-01-01T10:0%d:00Z", i))
			if p := rapid.IntRange(0, 2).Draw(t, "priority"); p > 0 {
				w = strings.Replace(w, "  queueName: lq\n", fmt.Sprintf("  queueName: lq\n  priority: %d\n", 100*p), 1)
			}
			if rapid.Bool().Draw(t, "second set") {
				// A second pod set, listed first, of 1 to 3 one-CPU pods
				// without a topology request (Kueue's implied one): the
				// sets are planned in spec.podSets order and held in it.
				w = strings.Replace(w, "  podSets:\n", fmt.Sprintf(`  podSets:
  - name: aside
    count: %d
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "1"}}
`, rapid.IntRange(1, 3).Draw(t, "aside")), 1)
			}
			b.WriteString(w)
		}
		profile := rapid.SampledFrom([]string{"kueue", "kueue-balanced"}).Draw(t, "profile")
		out, code := yamlRun(b.String(), "-topology-profile", profile, "-f", "-")
		require.NotEqual(t, exitInput, code, out)
		for name, ta := range admittedAssignments(t, out) {
			if ta == nil {
				continue
			}
			require.Equal(t, []string{blockLevel, rackLevel}, ta.Levels, name)
			require.Len(t, ta.Slices, 1, name)
			sl := ta.Slices[0]
			var sum int32
			var doms [][]string
			for j := range int(sl.DomainCount) {
				n := valueAt(sl.PodCounts, j)
				require.Positive(t, n, name)
				sum += n
				doms = append(doms, []string{levelValue(sl.ValuesPerLevel[0], j), levelValue(sl.ValuesPerLevel[1], j)})
			}
			require.Equal(t, counts[name], sum, "%s: the racks' pods sum to its count", name)
			require.True(t, slices.IsSortedFunc(doms, slices.Compare[[]string]), "%s: racks in the order of their values: %v", name, doms)
			require.Equal(t, len(doms), len(slices.CompactFunc(slices.Clone(doms), slices.Equal[[]string])), "%s: each rack once", name)
		}
		checkFixedPoint(t, out, code, "-topology-profile", profile)
	})
}

// valueAt is the j-th domain's pod count of a compact slice.
func valueAt(c kueue.TopologyAssignmentSlicePodCounts, j int) int32 {
	if c.Universal != nil {
		return *c.Universal
	}
	return c.Individual[j]
}

// levelValue is the j-th domain's value of one level of a compact slice.
func levelValue(v kueue.TopologyAssignmentSliceLevelValues, j int) string {
	if v.Universal != nil {
		return *v.Universal
	}
	pre, suf := "", ""
	if v.Individual.Prefix != nil {
		pre = *v.Individual.Prefix
	}
	if v.Individual.Suffix != nil {
		suf = *v.Individual.Suffix
	}
	return pre + v.Individual.Roots[j] + suf
}

// aboveHostRandomNodes writes 1 or 2 blocks of 1 to 3 racks of 1 to 3
// hosts of 1 to 4 CPUs, labelled with block and rack (the hostname filled
// in) and the flavor's pool label.
func aboveHostRandomNodes(t *rapid.T, b *strings.Builder) {
	for bl := range rapid.IntRange(1, 2).Draw(t, "blocks") {
		for r := range rapid.IntRange(1, 3).Draw(t, "racks") {
			for h := range rapid.IntRange(1, 3).Draw(t, "hosts") {
				fmt.Fprintf(b, `---
apiVersion: v1
kind: Node
metadata:
  name: b%d-r%d-h%d
  labels: {cloud.com/topology-block: b%d, cloud.com/topology-rack: r%d, example.com/pool: tas}
status:
  allocatable: {cpu: "%d", memory: 8Gi, pods: "10"}
  conditions: [{type: Ready, status: "True"}]
`, bl, r, h, bl, r, rapid.IntRange(1, 4).Draw(t, "cpu"))
			}
		}
	}
}
