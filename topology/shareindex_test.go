package topology

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_ShareIndexBoundsEveryOtherDomain: on a tree that serves a
// chain of snapshots (binds and removals, so the index is moved, not
// rebuilt), the share index names the other domain with the largest
// requested share (ties to the lower ID) and the least allocatable, as
// reading every domain does, and rivalsUpper is never below the score
// bound of a domain of the level other than the one asked about. The
// bound must also be tight enough to prove some domain first, or it
// would prove nothing.
func TestProp_ShareIndexBoundsEveryOtherDomain(t *testing.T) {
	proven := 0
	prop := func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 24).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i),
				Labels: map[string]string{"block": fmt.Sprint(rapid.IntRange(0, 2).Draw(t, "block")), "rack": fmt.Sprint(rapid.IntRange(0, 5).Draw(t, "rack"))},
				Allocatable: placement.ResourceList{placement.ResourceCPU: rapid.SampledFrom([]int64{0, 4, 8, 8, 8}).Draw(t, "cpu"),
					placement.ResourceGPU: rapid.SampledFrom([]int64{0, 2, 4, 4}).Draw(t, "gpu")}})
		}
		pod := func(i int) placement.Pod {
			return placement.Pod{Namespace: "x", Name: fmt.Sprintf("p%d", i), NodeName: nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name,
				Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 4).Draw(t, "pcpu"), placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "pgpu")}}
		}
		var pods []placement.Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "pods") {
			pods = append(pods, pod(i))
		}
		s, err := placement.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTree(s, []string{"block", "rack"})
		if err != nil {
			t.Fatal(err)
		}
		next := len(pods)
		for step := range rapid.IntRange(1, 4).Draw(t, "snapshots") {
			if step > 0 {
				var ch placement.Change
				var kept []placement.Pod
				for _, p := range pods {
					if rapid.IntRange(0, 3).Draw(t, "remove") == 0 {
						ch.Remove = append(ch.Remove, p.Key())
					} else {
						kept = append(kept, p)
					}
				}
				for range rapid.IntRange(0, 4).Draw(t, "bind") {
					ch.Bind = append(ch.Bind, pod(next))
					next++
				}
				if s, err = s.Apply(ch); err != nil {
					t.Fatal(err)
				}
				pods = append(kept, ch.Bind...)
			}
			g := &placement.Group{Namespace: "default", Name: "g", MinCount: 1, PodSets: []placement.PodSet{{Name: "w",
				Count: int32(rapid.IntRange(1, 12).Draw(t, "count")),
				Template: placement.Pod{Requests: placement.ResourceList{
					placement.ResourceCPU: rapid.Int64Range(0, 3).Draw(t, "mcpu"), placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "mgpu")}}}}}
			c, err := tr.capacityFor(s)
			if err != nil {
				t.Fatal(err)
			}
			gv := placement.GroupView{Group: g}
			sh := newShape(c, 0, gv)
			sc := &Scorer{tree: tr, kind: MostAllocated}
			R := len(c.res)
			for l := range tr.keys {
				ix := c.shares(tr, l)
				for d := tr.levelStart[l]; d < tr.levelStart[l+1]; d++ {
					for r := range R {
						want, least := DomainID(-1), int64(math.MaxInt64)
						for e := tr.levelStart[l]; e < tr.levelStart[l+1]; e++ {
							a := c.sumAlloc[int(e)*R+r].get()
							if e == d || a <= 0 {
								continue
							}
							least = min(least, a)
							if want < 0 || float64(c.sumUsed[int(e)*R+r].get())/float64(a) > float64(c.sumUsed[int(want)*R+r].get())/float64(c.sumAlloc[int(want)*R+r].get()) {
								want = e // shares here are small enough for float64 to compare exactly
							}
						}
						if got := ix.largestShareExcept(c, d, r); got != want {
							t.Fatalf("level %d, domain %d, %s: largest share in %d, want %d", l, d, c.res[r], got, want)
						}
						if got := ix.leastAllocExcept(c, d, r); got != least {
							t.Fatalf("level %d, domain %d, %s: least allocatable %d, want %d", l, d, c.res[r], got, least)
						}
					}
					rivals, ok := sc.rivalsUpper(c, ix, sh, d)
					if !ok {
						continue
					}
					for e := tr.levelStart[l]; e < tr.levelStart[l+1]; e++ {
						if ub := sc.upper(c, sh, e); e != d && ub > rivals {
							t.Fatalf("level %d: domain %d bounds %d, over the %d rivalsUpper allows the others of %d", l, e, ub, rivals, d)
						}
					}
					if rivals < sc.upper(c, sh, d) {
						proven++
					}
				}
			}
		}
	}
	for round := 0; round < 20 && proven == 0; round++ {
		rapid.Check(t, prop)
	}
	if proven == 0 {
		t.Fatal("rivalsUpper never proved a domain first")
	}
}
