package preemption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// fewBelow: n one-pod PodGroups of high priority (each in the input, as a
// host lists every PodGroup it knows) and 4 low pods, two of them in
// groups, fill 100 nodes; a mid gang of 2 × 1 CPU must evict two of the
// low pods. With applied the pods are bound by Apply on an empty
// snapshot, as a simulator binds them cycle by cycle; otherwise they are
// NewSnapshot's.
func fewBelow(tb testing.TB, n int, applied bool) (*placement.Snapshot, *placement.Group, preemption.Input) {
	const nodes = 100
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{}}
	var pods []placement.Pod
	for i := range n {
		name := fmt.Sprintf("h%06d", i)
		pods = append(pods, bound(name+"-0", nodeName(i%nodes), name, high, cpu(1000)))
		in.PodGroups[key(name)] = preemption.PodGroupSpec{}
	}
	for i := range 4 {
		group := ""
		if i%2 == 1 {
			group = fmt.Sprintf("low%d", i)
			in.PodGroups[key(group)] = preemption.PodGroupSpec{}
		}
		pods = append(pods, bound(fmt.Sprintf("low%d-0", i), nodeName(i), group, low, cpu(1000)))
	}
	perNode := make([]int64, nodes)
	for _, p := range pods {
		var id int
		_, _ = fmt.Sscanf(p.NodeName, "n%05d", &id)
		perNode[id] += 1000
	}
	var ns []placement.Node
	for i := range nodes {
		ns = append(ns, node(nodeName(i), cpu(perNode[i])))
	}
	var s *placement.Snapshot
	var err error
	if applied {
		s, err = snapshot(ns, nil).Apply(placement.Change{Bind: pods})
	} else {
		s, err = placement.NewSnapshot(ns, pods)
	}
	require.NoError(tb, err)
	return s, gang("mid", 2, 2, mid, cpu(1000)), in
}

// BenchmarkFewBelow is the victim search of a host's Index among n bound
// groups of which 4 pods are below the preemptor: "below" reads the pods
// below its priority (flat in n), "scan" the pass over every bound group
// (linear in n, and more on a snapshot that Apply bound the pods on).
func BenchmarkFewBelow(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, applied := range []bool{false, true} {
			s, g, in := fewBelow(b, n, applied)
			x, err := preemption.NewIndex(in)
			require.NoError(b, err)
			for _, path := range []struct {
				name  string
				below int
			}{{"below", 0}, {"scan", -1}} {
				b.Run(fmt.Sprintf("groups=%d/applied=%v/%s", n, applied, path.name), func(b *testing.B) {
					plan, err := x.FindBelow(s, g, placement.Options{}, path.below)
					require.NoError(b, err)
					require.Equal(b, preemption.Preempt, plan.Outcome)
					require.Equal(b, 4, plan.Candidates)
					require.Len(b, plan.Victims, 2)
					cputime.Loop(b, func() { _, _ = x.FindBelow(s, g, placement.Options{}, path.below) })
					b.ReportMetric(float64(plan.Candidates), "candidates")
				})
			}
		}
	}
}
