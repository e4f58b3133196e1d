package kube

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// Usage sums saturate at math.MaxInt64 and stay there when usage is taken
// away; they never wrap.
func TestUsageSum(t *testing.T) {
	const maxI = math.MaxInt64
	for _, c := range []struct{ a, b, want int64 }{
		{1, 2, 3},
		{maxI - 1, 1, maxI},
		{maxI - 1, 2, maxI},
		{maxI / 2, maxI, maxI},
		{maxI, -5, maxI}, // how far past it the sum went is lost
		{maxI, 0, maxI},
		{maxI - 1, -5, maxI - 6},
		{5, -7, -2},
		{-5, 3, -2},
		{math.MinInt64 + 1, -2, math.MinInt64},
	} {
		require.Equal(t, c.want, usageSum(c.a, c.b), "%d + %d", c.a, c.b)
	}
}

// Admitted usage past int64 is over any quota: two Workloads holding 6Ei
// of memory each (more than math.MaxInt64 bytes together) leave a 10Gi
// ClusterQueue no room; the sum once wrapped negative and the pending
// Workload was admitted past the quota. Likewise cpu: 1048576 pods of
// 10^10 CPUs each, twice.
func TestAdmitKueueWorkloads_UsagePastInt64(t *testing.T) {
	const (
		queues = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: plain}\nspec: {}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [%[1]s], flavors: [{name: plain, resources: [{name: %[1]s, nominalQuota: %[2]s}]}]}]}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\nspec: {clusterQueue: cq}\n"
		wl = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T08:00:0%dZ'}\nspec:\n  queueName: q\n" +
			"  podSets: [{name: main, count: %d, template: {spec: {containers: [{name: c, resources: {requests: {%s: '%s'}}}]}}}]\n"
		held = kueueReserved + "  admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: %d, flavors: {%s: plain}, resourceUsage: {%s: '%s'}}]}\n"
	)
	for _, c := range []struct {
		resource, quota, big, bigUsage, small string
		count                                 int
		msg                                   string
	}{
		{"memory", "10Gi", "6Ei", "6Ei", "1Gi", 1, "couldn't assign flavors to pod set main: insufficient unused quota for memory in flavor plain, 1Gi more needed"},
		{"cpu", "10", "10000000000", "10485760000000000", "1", 1048576, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor plain, 1 more needed"},
	} {
		t.Run(c.resource, func(t *testing.T) {
			y := fmt.Sprintf(queues, c.resource, c.quota)
			for i, name := range []string{"big-1", "big-2"} {
				y += fmt.Sprintf(wl, name, i, c.count, c.resource, c.big) + fmt.Sprintf(held, c.count, c.resource, c.resource, c.bigUsage)
			}
			y += fmt.Sprintf(wl, "small", 9, 1, c.resource, c.small)
			objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
			require.NoError(t, err)
			cl, err := Load(objs)
			require.NoError(t, err)
			_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: cl.KueueQueues})
			require.NoError(t, err)
			var got []string
			for _, o := range outs {
				got = append(got, fmt.Sprintf("%s %s %s", o.Workload.Name, o.Action, o.Message))
			}
			require.Equal(t, []string{"big-1 Kept ", "big-2 Kept ", "small Pending " + c.msg}, got)
		})
	}
}

// usedWithout takes the candidates' usage out of the admitter's in place
// and puts back exactly what was there, a queue it had to add included.
func TestUsedWithout_Undo(t *testing.T) {
	fr := frOf("f", "cpu")
	cq := func(name string) *KueueClusterQueue { return &KueueClusterQueue{Name: name} }
	q := (&KueueQueues{}).indexed() // the queues are not in it: no cohort sums to move
	a := &admitter{opts: KueueOptions{Queues: q}, used: quotaUsage{"a": {fr: 5}, "b": {fr: math.MaxInt64}}}
	a.sums = newCohortSums(q, a.used)
	removed := []*preemptCand{
		{cq: cq("a"), usage: map[flavorResource]int64{fr: 2}}, {cq: cq("a"), usage: map[flavorResource]int64{fr: 1}},
		{cq: cq("c"), usage: map[flavorResource]int64{fr: 3}}, {cq: cq("b"), usage: map[flavorResource]int64{fr: 4}},
	}
	used, undo := a.usedWithout(removed)
	require.Equal(t, quotaUsage{"a": {fr: 2}, "b": {fr: math.MaxInt64}, "c": {fr: -3}}, used)
	undo()
	require.Equal(t, quotaUsage{"a": {fr: 5}, "b": {fr: math.MaxInt64}}, a.used)
}

// A shortfall is worded from a need and what is free, unless the need
// saturated: a difference with a saturated sum would be made up.
func TestMoreNeeded(t *testing.T) {
	const saturated = "the requests add up past 2^63-1, the most gangsim counts (its sums saturate), so no shortfall is known"
	for _, c := range []struct {
		r          placement.ResourceName
		need, free int64
		want       string
	}{
		{placement.ResourceMemory, 3 << 30, 1 << 30, "2Gi more needed"},
		{placement.ResourceCPU, 2500, 0, "2500m more needed"},
		{placement.ResourceCPU, 2000, -1000, "3 more needed"},
		{placement.ResourceMemory, math.MaxInt64, math.MaxInt64 - 1<<60, saturated},
		{placement.ResourceMemory, math.MaxInt64, -5, saturated},
	} {
		require.Equal(t, c.want, moreNeeded(c.r, c.need, c.free), "%s %d - %d", c.r, c.need, c.free)
	}
}

// An admitted Workload holds the quota Kueue counts for it
// (totalRequestsFromAdmission): its admission's resourceUsage, not its
// template × count, scaled down to the pods not yet reclaimable. held has
// 4 pods of one CPU in a ClusterQueue of 4 CPUs; p needs 2.
func TestAdmitKueueWorkloads_AdmittedUsageAsKueue(t *testing.T) {
	const (
		queues = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: plain}\nspec: {}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: plain, resources: [{name: cpu, nominalQuota: 4}]}]}]}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\nspec: {clusterQueue: cq}\n"
		wl = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T08:00:0%dZ'}\nspec:\n  queueName: q\n" +
			"  podSets: [{name: main, count: %d, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]\n"
		held = kueueReserved + "  admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 4, flavors: {cpu: plain}%s}]}\n"
	)
	for _, c := range []struct {
		name, usage, reclaim, want string
	}{
		{"resourceUsage as written", ", resourceUsage: {cpu: '1'}", "", "p Admitted"},
		{"three of four pods reclaimable", ", resourceUsage: {cpu: '4'}", "[{name: main, count: 3}]", "p Admitted"},
		{"one of four pods reclaimable", ", resourceUsage: {cpu: '4'}", "[{name: main, count: 1}]", "p Pending couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor plain, 1 more needed"},
		{"no resourceUsage: the template's", "", "", "p Pending couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor plain, 2 more needed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := queues + fmt.Sprintf(wl, "held", 0, 4) + fmt.Sprintf(held, c.usage)
			if c.reclaim != "" {
				y += "  reclaimablePods: " + c.reclaim + "\n"
			}
			y += fmt.Sprintf(wl, "p", 9, 2)
			objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
			require.NoError(t, err)
			cl, err := Load(objs)
			require.NoError(t, err)
			_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: cl.KueueQueues})
			require.NoError(t, err)
			require.Len(t, outs, 2)
			require.Equal(t, c.want, strings.TrimSpace(fmt.Sprintf("%s %s %s", outs[1].Workload.Name, outs[1].Action, outs[1].Message)))
		})
	}
	for _, c := range []struct{ reclaim, field string }{
		{"[{name: other, count: 1}]", "status.reclaimablePods[0].name"},
		{"[{name: main, count: 5}]", "status.reclaimablePods[0].count"},
		{"[{name: main, count: 1}, {name: main, count: 2}]", "status.reclaimablePods[1].name"},
	} {
		y := queues + fmt.Sprintf(wl, "held", 0, 4) + fmt.Sprintf(held, "") + "  reclaimablePods: " + c.reclaim + "\n"
		objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
		require.NoError(t, err)
		_, err = Load(objs)
		var fe *placement.FieldError
		require.ErrorAs(t, err, &fe, c.reclaim)
		require.Equal(t, c.field, fe.Field)
		require.Contains(t, err.Error(), `Kueue Workload "default/held"`)
	}
}
