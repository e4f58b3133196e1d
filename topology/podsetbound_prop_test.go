package topology_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_PodSetSlicesWithBoundMembers: a sliced set whose group has
// bound members, on a random block > rack > host cluster, with a required
// block or rack holding the bound members. A scheduled plan verifies,
// leaves the bound members where they are (none is assigned, Bound counts
// them), places the set's count, keeps everything in the required domain,
// and leaves every domain of the slice level with whole slices, bound and
// new pods together. It is scheduled exactly when the oracle says so:
// each domain's incomplete slice fits its missing pods, and the required
// domain then holds the remaining slices (a domain of the slice level
// holds ⌊(free − missing)/size⌋ of them, whichever nodes the missing pods
// took).
func TestProp_PodSetSlicesWithBoundMembers(t *testing.T) {
	seen := map[placement.Status]int{}
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		free := map[string]int64{}
		for b := range rapid.IntRange(1, 2).Draw(t, "blocks") {
			for r := range rapid.IntRange(1, 3).Draw(t, "racks") {
				for h := range rapid.IntRange(1, 3).Draw(t, "hosts") {
					name := fmt.Sprintf("b%d-r%d-h%d", b+1, r+1, h+1)
					cores := rapid.Int64Range(0, 6).Draw(t, "cores")
					nodes = append(nodes, node(name, cores*1000, blockKey, fmt.Sprintf("b%d", b+1), rackKey, fmt.Sprintf("r%d", r+1), hostKey, name))
					free[name] = cores
				}
			}
		}
		reqLevel := rapid.IntRange(0, 1).Draw(t, "required")
		sliceLevel := rapid.IntRange(reqLevel, 2).Draw(t, "sliceLevel")
		z := int64(rapid.IntRange(2, 4).Draw(t, "size"))
		// Bound members inside one domain of the required level: the one
		// holding a random node.
		anchor := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "anchor")]
		var pods []placement.Pod
		for i := range rapid.IntRange(1, 6).Draw(t, "bound") {
			n := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")]
			if n.Labels[planKeys[reqLevel]] != anchor.Labels[planKeys[reqLevel]] || (reqLevel == 1 && n.Labels[blockKey] != anchor.Labels[blockKey]) || free[n.Name] == 0 {
				continue
			}
			free[n.Name]--
			pods = append(pods, placement.Pod{Namespace: "default", Name: fmt.Sprintf("bound-%d", i), SchedulingGroup: "pg", NodeName: n.Name,
				Requests: placement.ResourceList{cpu: 1000}})
		}
		B := int64(len(pods))
		if B == 0 {
			return
		}
		count := (z-B%z)%z + z*int64(rapid.IntRange(0, 3).Draw(t, "slices"))
		if count == 0 {
			count = z
		}
		s, err := placement.NewSnapshot(nodes, pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 1,
			PodSets: []placement.PodSet{{Name: "w", Count: int32(count), Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
		req := topology.PodSetRequest{PodSet: "w", Required: planKeys[reqLevel], Slices: []topology.SliceLayer{{Key: planKeys[sliceLevel], Size: int32(z)}}}
		p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{})
		require.NoError(t, err)
		d := p.Decision
		seen[d.Status]++

		// The oracle, by slice-level domain (its nodes' label path).
		domOf := func(n placement.Node, level int) string {
			path := ""
			for l := 0; l <= level; l++ {
				path += "/" + n.Labels[planKeys[l]]
			}
			return path
		}
		scope := domOf(anchor, reqLevel)
		inScope := func(n placement.Node) bool { return domOf(n, reqLevel) == scope }
		boundIn, freeIn := map[string]int64{}, map[string]int64{}
		byName := map[string]placement.Node{}
		for _, n := range nodes {
			byName[n.Name] = n
			if inScope(n) {
				freeIn[domOf(n, sliceLevel)] += free[n.Name]
			}
		}
		for _, b := range pods {
			boundIn[domOf(byName[b.NodeName], sliceLevel)]++
		}
		fits, missing, room := true, int64(0), int64(0)
		for dom, f := range freeIn {
			need := (z - boundIn[dom]%z) % z
			missing += need
			fits = fits && need <= f
			room += max(f-need, 0) / z
		}
		fits = fits && missing <= count && room >= (count-missing)/z
		require.Equal(t, fits, d.Status == placement.Scheduled, "oracle %v; plan: %s", fits, d.Message)
		if d.Status != placement.Scheduled {
			return
		}
		require.NoError(t, placement.Verify(s, g, d))
		require.Equal(t, int(B), d.Bound)
		require.Empty(t, d.Assignments, "a bound member was assigned")
		total := map[string]int64{}
		for k, v := range boundIn {
			total[k] = v
		}
		var placed int64
		for _, a := range d.PodSetAssignments {
			n := byName[a.Node]
			require.True(t, inScope(n), "pods on %s, outside the required domain %s", a.Node, scope)
			total[domOf(n, sliceLevel)] += int64(a.Count)
			placed += int64(a.Count)
		}
		require.Equal(t, count, placed)
		for dom, k := range total {
			require.Zero(t, k%z, "%s holds %d pods of the set, not whole slices of %d", dom, k, z)
		}
	})
	require.Positive(t, seen[placement.Scheduled])
	require.Positive(t, seen[placement.Unschedulable])
}
