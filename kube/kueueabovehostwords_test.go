package kube

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Over a Kueue Topology [block, rack] (kubernetes.io/hostname appended by
// gangsim), a failure is worded with Kueue v0.17's numbers, counted on
// its leaves, the racks, each holding the pods its hosts' free room
// summed holds: the "allows to fit only N" count (a required level's
// fullest rack, else every rack's added up, in slices of the slice
// level), and "Total nodes"/"excluded" after the Workload's earlier sets
// (the real Kueue: kueue-oracle/above-host/fit-count and second-set); a
// PodSetGroup's count with its leader's room in each rack, and each slice
// layer's (above-host/group-leader, layers-*).
func TestKueueAboveHostNotFitWords(t *testing.T) {
	host := func(name, rack string, cores int64) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{"block": "b1", "rack": rack, "kubernetes.io/hostname": name},
			Allocatable: placement.ResourceList{placement.ResourceCPU: cores * 1000, placement.ResourcePods: 110}}
	}
	// Racks of 2 + 2 and 2 + 4 CPUs: no host holds two 3-CPU pods, r2 does.
	small := []placement.Node{host("r1-h1", "r1", 2), host("r1-h2", "r1", 2), host("r2-h1", "r2", 2), host("r2-h2", "r2", 4)}
	// Racks of 3 + 3 CPUs: a host holds one 2-CPU pod, a rack three.
	odd := []placement.Node{host("p1", "r1", 3), host("p2", "r1", 3), host("q1", "r2", 3), host("q2", "r2", 3)}
	// Racks of 4 + 4, 4 + 8 and 4 + 2 CPUs.
	wide := []placement.Node{host("a0", "r0", 4), host("a1", "r0", 4), host("b0", "r1", 4), host("b1", "r1", 8), host("c0", "r2", 4), host("c1", "r2", 2)}
	type set struct {
		count int32
		cores int64
		req   topology.PodSetRequest
	}
	for _, c := range []struct {
		name  string
		nodes []placement.Node
		sets  []set
		want  string
	}{
		{"preferred rack: every rack's summed room, 1 + 2", small, []set{{5, 3, topology.PodSetRequest{Preferred: "rack"}}},
			`topology "t" allows to fit only 3 out of 5 pod(s)`},
		{"unconstrained: the same", small, []set{{4, 3, topology.PodSetRequest{Unconstrained: true}}},
			`topology "t" allows to fit only 3 out of 4 pod(s)`},
		{"required rack: the fullest, r2's 6 CPUs", small, []set{{4, 3, topology.PodSetRequest{Required: "rack"}}},
			`topology "t" allows to fit only 2 out of 4 pod(s)`},
		{"slices of 2 per rack in the block: r2's one", small,
			[]set{{4, 3, topology.PodSetRequest{Required: "block", Slices: []topology.SliceLayer{{Key: "rack", Size: 2}}}}},
			`topology "t" allows to fit only 1 out of 2 slice(s)`},
		{"a rack whose summed room holds no pod is excluded", small, []set{{5, 5, topology.PodSetRequest{Preferred: "rack"}}},
			`topology "t" allows to fit only 1 out of 5 pod(s). Total nodes: 2; excluded: resource "cpu": 1`},
		{"a later set counts the racks after the earlier one", wide,
			[]set{{10, 2, topology.PodSetRequest{Unconstrained: true}}, {12, 3, topology.PodSetRequest{Unconstrained: true}}},
			`topology "t" allows to fit only 2 out of 12 pod(s). Total nodes: 3; excluded: resource "cpu": 2`},
		{"a group's leader and workers: the first rack with the leader, its workers alone", small,
			[]set{{1, 1, topology.PodSetRequest{Required: "rack", Group: "g"}}, {3, 3, topology.PodSetRequest{Required: "rack", Group: "g"}}},
			`topology "t" allows to fit only 1 out of 3 pod(s)`},
		{"slices in two layers: each layer in the block, racks rounded to the inner size", odd,
			[]set{{9, 2, topology.PodSetRequest{Required: "block", Slices: []topology.SliceLayer{{Key: "block", Size: 9}, {Key: "rack", Size: 3}}}}},
			`topology "t" doesn't allow to fit; 0/1 slice(s) fit on level block; 2/3 slice(s) fit on level rack`},
		{"after two earlier sets", wide,
			[]set{{10, 2, topology.PodSetRequest{Unconstrained: true}}, {2, 3, topology.PodSetRequest{Unconstrained: true}}, {1, 3, topology.PodSetRequest{Required: "rack"}}},
			`topology "t" doesn't allow to fit any of 1 pod(s). Total nodes: 3; excluded: resource "cpu": 3`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := placement.NewSnapshot(c.nodes, nil)
			require.NoError(t, err)
			tree, err := topology.NewTree(s, KueueTreeLevels([]string{"block", "rack"}))
			require.NoError(t, err)
			a := &admitter{s: s, opts: KueueOptions{Plan: topology.KueueProfile.Options(), KueueWords: true}}
			a.markAppended(tree)
			g := &placement.Group{Namespace: "default", Name: "w"}
			ps := &plannedSets{group: g}
			for k, st := range c.sets {
				name := string(rune('a' + k))
				g.PodSets = append(g.PodSets, placement.PodSet{Name: name, Count: st.count,
					Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: st.cores * 1000}}})
				g.MinCount += st.count
				st.req.PodSet = name
				ps.requests = append(ps.requests, st.req)
			}
			p, err := tree.PlanPodSets(s, g, ps.requests, a.planOptions(tree))
			require.NoError(t, err)
			nf := p.KueueNotFit
			require.NotNil(t, nf, p.Decision.Message)
			require.Equal(t, g.PodSets[len(g.PodSets)-1].Name, nf.PodSet)
			tmpl := &g.PodSets[len(g.PodSets)-1].Template
			require.Equal(t, c.want, a.kueueNotFitWords(ps, nf, tree, tmpl, "t", nil))
		})
	}
}
