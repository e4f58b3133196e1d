package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// TestProp_GroupMembersAfterApply: along any chain of Apply calls,
// GroupMembers equals a brute-force filter of Pods, in name order.
func TestProp_GroupMembersAfterApply(t *testing.T) {
	groups := []string{"", "a", "b"}
	rapid.Check(t, func(t *rapid.T) {
		nodes := []Node{cpuNode("n1", 100000), cpuNode("n2", 100000)}
		var base []Pod
		for i := range rapid.IntRange(0, 4).Draw(t, "base") {
			base = append(base, Pod{Namespace: rapid.SampledFrom([]string{"x", "y"}).Draw(t, "ns"), Name: fmt.Sprintf("b%d", i),
				SchedulingGroup: rapid.SampledFrom(groups).Draw(t, "group"), NodeName: "n1"})
		}
		s, err := NewSnapshot(nodes, base)
		require.NoError(t, err)
		for step := range rapid.IntRange(1, 8).Draw(t, "steps") {
			var ch Change
			for p := range s.Pods() {
				if rapid.IntRange(0, 3).Draw(t, "remove") == 0 {
					ch.Remove = append(ch.Remove, p.Key())
				}
			}
			for i := range rapid.IntRange(0, 3).Draw(t, "bind") {
				ch.Bind = append(ch.Bind, Pod{Namespace: rapid.SampledFrom([]string{"x", "y"}).Draw(t, "ns"), Name: fmt.Sprintf("s%d-%d", step, i),
					SchedulingGroup: rapid.SampledFrom(groups).Draw(t, "group"), NodeName: rapid.SampledFrom([]string{"n1", "n2"}).Draw(t, "node")})
			}
			s, err = s.Apply(ch)
			require.NoError(t, err)
			for _, ns := range []string{"x", "y"} {
				for _, g := range groups[1:] {
					var want []string
					for p := range s.Pods() {
						if p.Namespace == ns && p.SchedulingGroup == g {
							want = append(want, p.Name)
						}
					}
					var got []string
					for _, p := range s.GroupMembers(Key{Namespace: ns, Name: g}) {
						got = append(got, p.Name)
					}
					require.Equal(t, want, got, "%s/%s", ns, g)
				}
			}
		}
	})
}
