package placement_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

// gpuNodes returns n nodes g000, g001, … of 8 GPUs, 64 CPUs and 110 pods.
func gpuNodes(n int) []Node {
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("g%03d", i), Allocatable: ResourceList{ResourceGPU: 8, ResourceCPU: 64000, ResourcePods: 110}}
	}
	return nodes
}

// podSetGang is a gang of one pod set of count pods of 1 GPU + 8 CPUs.
func podSetGang(name string, count int32) *Group {
	return &Group{Namespace: "default", Name: name, MinCount: count,
		PodSets: []PodSet{{Name: "workers", Count: count, Template: Pod{Requests: ResourceList{ResourceGPU: 1, ResourceCPU: 8000}}}}}
}

// usageDump is dump(s) with s's reservations.
func usageDump(s *Snapshot) string {
	out := dump(s)
	for u := range s.PodSetUsages() {
		out += fmt.Sprintf("reserved %s/%s %v %v\n", u.Group, u.PodSet, u.Requests, u.Nodes)
	}
	return out
}

// Ten 64-pod workloads are committed to a 100-node cluster as usage per
// node, without inventing 640 pods: each lands on the next eight empty
// nodes, 8 pods to a node, because the one before it is accounted for; then
// releasing them all restores the cluster exactly.
func TestScenario_PodSetUsageCommitsWithoutPods(t *testing.T) {
	s0, err := NewSnapshot(gpuNodes(100), nil)
	require.NoError(t, err)
	s := s0
	for k := range 10 {
		g := podSetGang(fmt.Sprintf("wl%d", k), 64)
		d, err := Solve(s, g, Options{})
		require.NoError(t, err)
		require.Equal(t, Scheduled, d.Status, d.Message)
		var want []PodSetAssignment
		for i := range 8 {
			id := NodeID(8*k + i)
			want = append(want, PodSetAssignment{PodSet: "workers", Node: fmt.Sprintf("g%03d", id), NodeID: id, Count: 8})
		}
		require.Equal(t, want, d.PodSetAssignments, "workload %d", k)
		us, err := PodSetUsageOf(g, d)
		require.NoError(t, err)
		require.Len(t, us, 1)
		s, err = s.Apply(Change{Reserve: us})
		require.NoError(t, err)
		require.NoError(t, Verify(s, podSetGang("probe", 1), Decision{}))
	}
	require.Equal(t, 0, s.NumPods(), "a reservation binds no pod")
	for id := range NodeID(100) {
		want := int64(0)
		if id < 80 {
			want = 8
		}
		require.Equal(t, want, s.Requested(id, ResourceGPU), "node %d", id)
		require.Equal(t, want, s.Requested(id, ResourcePods), "node %d", id)
		require.Equal(t, 8000*want, s.Requested(id, ResourceCPU), "node %d", id)
	}
	u, ok := s.PodSetUsage(Key{"default", "wl3"}, "workers")
	require.True(t, ok)
	require.Equal(t, int64(64), u.Pods())
	require.Len(t, slices.Collect(s.PodSetUsages()), 10)

	var refs []PodSetRef
	for k := range 10 {
		refs = append(refs, PodSetRef{Group: Key{"default", fmt.Sprintf("wl%d", k)}, PodSet: "workers"})
	}
	back, err := s.Apply(Change{Release: refs})
	require.NoError(t, err)
	require.Equal(t, usageDump(s0), usageDump(back))
	changed, ok := back.ChangedNodes(s0)
	require.True(t, ok)
	require.Empty(t, changed)
}

// An elastic workload shrinking from 16 to 12 pods replaces its
// reservation in one change: Release is applied before Reserve.
func TestScenario_PodSetUsageReplacedInOneChange(t *testing.T) {
	s0, err := NewSnapshot(gpuNodes(2), nil)
	require.NoError(t, err)
	req := ResourceList{ResourceGPU: 1}
	g := Key{"default", "wl"}
	s1, err := s0.Apply(Change{Reserve: []PodSetUsage{{Group: g, PodSet: "w", Requests: req,
		Nodes: []PodSetAssignment{{Node: "g001", Count: 8}, {Node: "g000", Count: 8}}}}})
	require.NoError(t, err)
	s2, err := s1.Apply(Change{Release: []PodSetRef{{g, "w"}}, Reserve: []PodSetUsage{{Group: g, PodSet: "w", Requests: req,
		Nodes: []PodSetAssignment{{Node: "g000", Count: 8}, {Node: "g001", Count: 4}}}}})
	require.NoError(t, err)
	require.Equal(t, []int64{8, 8}, []int64{s1.Requested(0, ResourceGPU), s1.Requested(1, ResourceGPU)})
	require.Equal(t, []int64{8, 4}, []int64{s2.Requested(0, ResourceGPU), s2.Requested(1, ResourceGPU)})
	u, ok := s2.PodSetUsage(g, "w")
	require.True(t, ok)
	require.Equal(t, []PodSetAssignment{{PodSet: "w", Node: "g000", NodeID: 0, Count: 8}, {PodSet: "w", Node: "g001", NodeID: 1, Count: 4}}, u.Nodes)
}

func TestPodSetUsage_Errors(t *testing.T) {
	s0, err := NewSnapshot(gpuNodes(2), nil)
	require.NoError(t, err)
	g := Key{"default", "wl"}
	one := func(n string, c int32) []PodSetAssignment { return []PodSetAssignment{{Node: n, Count: c}} }
	ok := PodSetUsage{Group: g, PodSet: "w", Requests: ResourceList{ResourceGPU: 1}, Nodes: one("g000", 2)}
	s1, err := s0.Apply(Change{Reserve: []PodSetUsage{ok}})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		ch   Change
		want string
	}{
		{"no group", Change{Reserve: []PodSetUsage{{PodSet: "w", Nodes: one("g000", 1)}}}, `pod set "w" of PodGroup "": group.name: must not be empty`},
		{"no set name", Change{Reserve: []PodSetUsage{{Group: g, Nodes: one("g000", 1)}}}, `pod set "" of PodGroup "default/wl": podSet: must not be empty`},
		{"no nodes", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x"}}}, `pod set "x" of PodGroup "default/wl": nodes: must not be empty: a reservation places at least one pod`},
		{"unknown node", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Nodes: one("nope", 1)}}}, `pod set "x" of PodGroup "default/wl": nodes[0].node: node "nope" is not in the snapshot`},
		{"zero count", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Nodes: one("g000", 0)}}}, `pod set "x" of PodGroup "default/wl": nodes[0].count: 0 is outside 1..1048576`},
		{"node twice", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Nodes: []PodSetAssignment{{Node: "g001", Count: 1}, {Node: "g001", Count: 2}}}}}, `pod set "x" of PodGroup "default/wl": nodes: node "g001" is listed twice`},
		{"other set", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Nodes: []PodSetAssignment{{PodSet: "y", Node: "g000", Count: 1}}}}}, `pod set "x" of PodGroup "default/wl": nodes[0].podSet: is "y", another set`},
		{"negative request", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Requests: ResourceList{ResourceCPU: -1}, Nodes: one("g000", 1)}}}, `pod set "x" of PodGroup "default/wl": requests[cpu]: -1 is negative`},
		{"untracked resource", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Requests: ResourceList{"example.com/x": 1}, Nodes: one("g000", 1)}}}, `pod set "x" of PodGroup "default/wl": requests[example.com/x]: no node has example.com/x`},
		{"product overflows", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Requests: ResourceList{ResourceCPU: math.MaxInt64 / 2}, Nodes: one("g000", 3)}}}, `pod set "x" of PodGroup "default/wl": nodes[0].count: 3 pods' requests overflow int64`},
		{"sum overflows", Change{Reserve: []PodSetUsage{{Group: g, PodSet: "x", Requests: ResourceList{ResourceCPU: math.MaxInt64 / 2}, Nodes: one("g000", 2)},
			{Group: g, PodSet: "y", Requests: ResourceList{ResourceCPU: 2}, Nodes: one("g000", 1)}}}, `pod set "y" of PodGroup "default/wl": requests[cpu]: usage on node "g000" overflows int64`},
		{"exists", Change{Reserve: []PodSetUsage{ok}}, `pod set "w" of PodGroup "default/wl": reserve: a reservation with this key exists (release it in the same change to replace it)`},
		{"release unknown", Change{Release: []PodSetRef{{g, "x"}}}, `pod set "x" of PodGroup "default/wl": release: no reservation with this key (released twice, or never reserved)`},
		{"release twice", Change{Release: []PodSetRef{{g, "w"}, {g, "w"}}}, `pod set "w" of PodGroup "default/wl": release: no reservation with this key (released twice, or never reserved)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := usageDump(s1)
			n, err := s1.Apply(tc.ch)
			require.EqualError(t, err, tc.want)
			requireInputError(t, err)
			require.Nil(t, n)
			require.Equal(t, before, usageDump(s1), "Apply changed its parent")
		})
	}
	_, err = PodSetUsageOf(podSetGang("other", 1), Decision{Group: g})
	require.EqualError(t, err, `PodGroup "default/other": decision.group: the decision is for PodGroup "default/wl"`)
}

// drawUsages draws valid reservations on s's nodes: pod sets of groups
// g0..g2 with small requests of resources s tracks.
func drawUsages(t *rapid.T, s *Snapshot, label string) []PodSetUsage {
	tracked := s.Resources()
	var out []PodSetUsage
	for k := range rapid.IntRange(0, 3).Draw(t, label) {
		u := PodSetUsage{Group: Key{"default", fmt.Sprintf("%s%d", label, k)}, PodSet: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "podSet"), Requests: ResourceList{}}
		for _, r := range tracked {
			if r != ResourcePods && rapid.Bool().Draw(t, "requests "+string(r)) {
				u.Requests[r] = rapid.Int64Range(0, 4000).Draw(t, "quantity")
			}
		}
		for _, id := range rapid.SliceOfNDistinct(rapid.IntRange(0, s.NumNodes()-1), 1, 4, rapid.ID).Draw(t, "nodes") {
			u.Nodes = append(u.Nodes, PodSetAssignment{Node: s.Node(NodeID(id)).Name, Count: int32(rapid.IntRange(1, 5).Draw(t, "count"))})
		}
		out = append(out, u)
	}
	return out
}

// A reservation is the usage of its pods bound one by one, and releasing
// it — in any order, in one change or several — restores the snapshot
// exactly: every node's usage, the reservations, and every decision.
func TestProp_PodSetUsageReleaseRestores(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s0 := placementtest.Snapshots().Draw(t, "snapshot")
		if s0.NumNodes() == 0 {
			return
		}
		g := placementtest.Groups(s0).Draw(t, "group")
		want, err := Solve(s0, g, Options{})
		require.NoError(t, err)
		us := drawUsages(t, s0, "u")
		s1, err := s0.Apply(Change{Reserve: us})
		require.NoError(t, err)

		// The same usage as pods, bound one by one.
		var pods []Pod
		for _, u := range us {
			for _, a := range u.Nodes {
				for i := range a.Count {
					pods = append(pods, Pod{Namespace: "reserved", Name: fmt.Sprintf("%s-%s-%s-%d", u.Group.Name, u.PodSet, a.Node, i), NodeName: a.Node, Requests: u.Requests})
				}
			}
		}
		asPods, err := s0.Apply(Change{Bind: pods})
		require.NoError(t, err)
		for id := range NodeID(s0.NumNodes()) {
			for _, r := range s0.Resources() {
				require.Equal(t, asPods.Requested(id, r), s1.Requested(id, r), "node %d %s", id, r)
			}
		}
		d1, err := Solve(s1, g, Options{})
		require.NoError(t, err)
		d2, err := Solve(asPods, g, Options{})
		require.NoError(t, err)
		require.Equal(t, d2.Status, d1.Status)
		require.Equal(t, d2.Assignments, d1.Assignments)

		var refs []PodSetRef
		for _, u := range us {
			refs = append(refs, PodSetRef{u.Group, u.PodSet})
		}
		refs = rapid.Permutation(refs).Draw(t, "release order")
		back := s1
		if rapid.Bool().Draw(t, "one change") {
			back, err = back.Apply(Change{Release: refs})
			require.NoError(t, err)
		} else {
			for _, ref := range refs {
				back, err = back.Apply(Change{Release: []PodSetRef{ref}})
				require.NoError(t, err)
			}
		}
		require.Equal(t, usageDump(s0), usageDump(back))
		changed, ok := back.ChangedNodes(s0)
		require.True(t, ok)
		require.Empty(t, changed)
		got, err := Solve(back, g, Options{})
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
}

// checkReserve: a wild reservation or release fails with a FieldError and
// leaves the parent unchanged, or adds exactly its requests × counts.
func checkReserve(t *rapid.T) { reserveWild(t) }

// reserveWild is checkReserve, reporting whether the change applied.
func reserveWild(t *rapid.T) bool {
	s := wildSnapshot(t)
	if s.NumNodes() == 0 {
		return false
	}
	before := usageDump(s)
	var ch Change
	for range rapid.IntRange(0, 2).Draw(t, "reserves") {
		u := PodSetUsage{Group: Key{rapid.SampledFrom(wildSpaces).Draw(t, "ns"), rapid.SampledFrom(wildGroups).Draw(t, "group")},
			PodSet: rapid.SampledFrom([]string{"", "a"}).Draw(t, "podSet"), Requests: wildList(t, "requests")}
		for range rapid.IntRange(0, 3).Draw(t, "nodes") {
			u.Nodes = append(u.Nodes, PodSetAssignment{Node: rapid.SampledFrom(wildNodeNames).Draw(t, "node"),
				Count: rapid.SampledFrom([]int32{-1, 0, 1, 3, MaxPending, math.MaxInt32}).Draw(t, "count")})
		}
		ch.Reserve = append(ch.Reserve, u)
	}
	if rapid.Bool().Draw(t, "release") {
		ch.Release = append(ch.Release, PodSetRef{Key{"default", "g"}, "a"})
	}
	n, err := s.Apply(ch)
	require.Equal(t, before, usageDump(s), "Apply changed its parent")
	if err != nil {
		requireInputError(t, err)
		require.Nil(t, n)
		return false
	}
	for id := range NodeID(s.NumNodes()) {
		for _, r := range s.Resources() {
			want := s.Requested(id, r)
			for _, u := range ch.Reserve {
				for _, a := range u.Nodes {
					if a.Node == s.Node(id).Name {
						q := u.Requests[r]
						if r == ResourcePods {
							q = 1
						}
						want += q * int64(a.Count)
					}
				}
			}
			require.Equal(t, want, n.Requested(id, r), "node %d %s", id, r)
		}
	}
	return true
}

// The wild input both applies and fails, or the property sees one side only.
func TestProp_ReserveWildInput(t *testing.T) {
	applied, failed := 0, 0
	prop := func(t *rapid.T) {
		if reserveWild(t) {
			applied++
		} else {
			failed++
		}
	}
	// One run of 100 cases applies about 13 (measured over 20 runs), so it
	// misses that side about once in 300,000; run again (at most 20 rounds)
	// until both sides were seen.
	for round := 0; round < 20 && (applied == 0 || failed == 0); round++ {
		rapid.Check(t, prop)
	}
	require.Positive(t, applied)
	require.Positive(t, failed)
}

func FuzzReserve(f *testing.F) { f.Fuzz(rapid.MakeFuzz(checkReserve)) }

// A 16-pod set is committed as usage on two nodes, without a pod, and
// released again.
func ExamplePodSetUsageOf() {
	s, _ := NewSnapshot(gpuNodes(3), nil)
	g := podSetGang("train", 16)
	d, _ := Solve(s, g, Options{})
	us, _ := PodSetUsageOf(g, d)
	committed, _ := s.Apply(Change{Reserve: us})
	for id := range NodeID(3) {
		fmt.Printf("%s: %d of 8 GPUs used\n", committed.Node(id).Name, committed.Requested(id, ResourceGPU))
	}
	fmt.Println("pods bound:", committed.NumPods())
	back, _ := committed.Apply(Change{Release: []PodSetRef{{Group: g.Key(), PodSet: "workers"}}})
	fmt.Println("GPUs used after release:", back.Requested(0, ResourceGPU)+back.Requested(1, ResourceGPU))
	// Output:
	// g000: 8 of 8 GPUs used
	// g001: 8 of 8 GPUs used
	// g002: 0 of 8 GPUs used
	// pods bound: 0
	// GPUs used after release: 0
}
