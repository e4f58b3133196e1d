package kube

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// A sliced set left by its reclaimable pods with pods but no whole slice,
// or a set of count 0 (or all reclaimable) in a topology flavor, holds its
// quota (and its other sets' nodes) from the Workloads after it and is
// never admitted, as Kueue v0.17 assumes it and fails to write its
// admission every cycle; one that does not fit waits as any other, and
// one that fits by preempting preempts first. Each case is a record of
// kueue-oracle/preemption (over its cluster.yaml: hosts h1–h4 of 4 CPUs,
// flavor tas), where the real Kueue gave these answers.
func TestAdmitKueueWorkloads_NoSliceHeld(t *testing.T) {
	const dir = "testdata/kueue-oracle/preemption/"
	cluster, err := os.ReadFile(dir + "cluster.yaml")
	require.NoError(t, err)
	// held is a sliced set's Workload held with its quota (cpu) and,
	// where its other sets place pods, their nodes (nodes: "aux h1:4").
	held := func(ns, set string, left, size int, cpu, nodes string) string {
		what := "quota"
		if nodes != "" {
			what = "quota and its pods' nodes"
		}
		return fmt.Sprintf(`%s: Pending (pod set %q: its %d pods not reclaimable make no whole slice of %d pods: Kueue assumes it (cpu %s in flavor tas) and its Workload API refuses the admission, whose topologyAssignment has no slices, every scheduling cycle; the Workloads tried after it see its %s held; no QuotaReserved condition is written) [] held{%s}`, ns, set, left, size, cpu, what, nodes)
	}
	short := func(n string) string {
		return "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, " + n + " more needed"
	}
	for _, c := range []struct {
		file string
		want []string // per Workload, in input order: action (message) pods
	}{
		{"r9-no-slice-two-late", []string{
			held("default/sliced", "main", 2, 3, "2", ""),
			"default/late1: Admitted () [h1:4]",
			"default/late2: Pending (" + short("1") + ") []",
		}},
		{"r10-no-slice-cohort", []string{
			held("default/sliced", "main", 3, 4, "3", ""),
			"default/late: Pending (" + short("1") + ") []",
		}},
		{"r11-no-slice-after-higher", []string{
			"default/sliced: Pending (" + short("1") + ") []",
			"default/late: Admitted () [h1:4]",
		}},
		{"r12-no-slice-preempts", []string{
			"default/low: Preempted (preempted by default/sliced (InClusterQueue); queued again: " + short("1") + ") []",
			`default/sliced: Pending (pod set "main": its 3 pods not reclaimable make no whole slice of 4 pods: Kueue assumes it (cpu 3 in flavor tas) and its Workload API refuses the admission, whose topologyAssignment has no slices, every scheduling cycle; the Workloads tried after it see its quota held; its QuotaReserved condition stays as an earlier try wrote it: ` + short("1") + `. Pending the preemption of 1 workload(s)) [] held{}`,
		}},
		{"r14-no-slice-nodes-held", []string{
			held("default/sliced", "main", 3, 4, "7", "aux h1:4"),
			`default/late: Pending (in flavor tas: pod set "main" needs 13 pods; the cluster holds 12) []`,
		}},
		{"r15-no-slice-cohort-borrowing", []string{
			held("default/sliced", "main", 3, 4, "3", ""),
			"default/late: Admitted () [h1:4 h2:1]",
			"default/late2: Pending (" + short("1") + ") []",
		}},
		{"r17-zero-set-held", []string{
			`default/zw: Pending (pod set "workers" of no pods places no slice: Kueue assumes it (cpu 3 in flavor tas) and its Workload API refuses the admission, whose topologyAssignment has no slices, every scheduling cycle; the Workloads tried after it see its quota and its pods' nodes held; no QuotaReserved condition is written) [] held{leader h1:3}`,
			"default/late: Pending (" + short("1") + ") []",
		}},
		{"r18-all-reclaimable-held", []string{
			`default/rw: Pending (pod set "launcher" of no pods places no slice: Kueue assumes it (cpu 4 in flavor tas) and its Workload API refuses the admission, whose topologyAssignment has no slices, every scheduling cycle; the Workloads tried after it see its quota and its pods' nodes held; no QuotaReserved condition is written) [] held{workers h1:4}`,
			"default/late: Pending (" + short("2") + ") []",
		}},
		{"r16-no-slice-two-held", []string{
			held("default/sliced-a", "main", 3, 4, "3", ""),
			held("default/sliced-b", "main", 3, 4, "3", ""),
			"default/late: Pending (" + short("4") + ") []",
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			cl, s, outs := admitRecord(t, cluster, dir+c.file+".yaml")
			ordered := linesInOrder(cl, outs, func(o KueueOutcome) string {
				s := fmt.Sprintf("%s: %s (%s) [%s]", o.Workload, o.Action, o.Message, hostsOf(o))
				if o.Held {
					s += " held{" + heldHostsOf(o) + "}"
				}
				return s
			})
			for i, w := range cl.KueueWorkloads {
				if strings.Contains(ordered[i], "Kueue assumes it") {
					// Held, never written: no admission, and its nodes
					// released once admission is over.
					require.Nil(t, w.Obj.Status.Admission)
					for _, set := range w.Group.PodSets {
						_, ok := s.PodSetUsage(w.Key(), set.Name)
						require.False(t, ok, "%s/%s keeps a reservation", w.Key(), set.Name)
					}
				}
			}
			require.Equal(t, c.want, ordered)
		})
	}
}

// admitRecord admits the Workloads of a Kueue oracle record, file, over
// its cluster's manifests, through their queues, at 10:00 of the records'
// day.
func admitRecord(t *testing.T, cluster []byte, file string) (*Cluster, *placement.Snapshot, []KueueOutcome) {
	t.Helper()
	wl, err := os.ReadFile(file)
	require.NoError(t, err)
	objs, err := manifest.Decode("f.yaml", strings.NewReader(string(cluster)+"\n"+string(wl)), manifest.Options{})
	require.NoError(t, err)
	cl, err := Load(objs)
	require.NoError(t, err)
	s, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: cl.KueueQueues})
	require.NoError(t, err)
	return cl, s, outs
}

// linesInOrder are outs written by line, in cl's Workload order.
func linesInOrder(cl *Cluster, outs []KueueOutcome, line func(KueueOutcome) string) []string {
	got := map[placement.Key]string{}
	for _, o := range outs {
		got[o.Workload] = line(o)
	}
	var ordered []string
	for _, w := range cl.KueueWorkloads {
		ordered = append(ordered, got[w.Key()])
	}
	return ordered
}

// flavorLine is an outcome's action, flavors, message up to its first
// "; ", and pods per node.
func flavorLine(o KueueOutcome) string {
	msg, _, _ := strings.Cut(o.Message, "; ")
	return fmt.Sprintf("%s: %s %v (%s) [%s]", o.Workload, o.Action, o.Flavors, msg, hostsOf(o))
}

// heldHostsOf is a held outcome's pods per node, set after set: "aux h1:4".
func heldHostsOf(o KueueOutcome) string {
	var hs []string
	for _, u := range o.HeldNodes {
		hs = append(hs, u.PodSet)
		for _, p := range u.Nodes {
			hs = append(hs, fmt.Sprintf("%s:%d", p.Node, p.Count))
		}
	}
	return strings.Join(hs, " ")
}

// hostsOf is an outcome's pods per node, set after set: "h1:4 h2:1".
func hostsOf(o KueueOutcome) string {
	var hs []string
	for _, set := range o.PodSets {
		for _, p := range set {
			hs = append(hs, fmt.Sprintf("%s:%d", p.Node, p.Count))
		}
	}
	return strings.Join(hs, " ")
}
