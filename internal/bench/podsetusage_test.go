package bench_test

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// podSetUsage commits a decided pod set to the empty 10,000-host GPU
// cluster and takes it out again: as usage per node (Change.Reserve, then
// Change.Release), and, for comparison, as one bound pod per pod (Bind,
// then Remove). The floor adds the set's requests × count to a flat slice
// of the nodes it touches and subtracts them again, so the reservation's
// ratio says what it costs per node touched; p=512 touches 64 hosts and
// p=4,096 touches 512.
func podSetUsage() []workload {
	var out []workload
	for _, p := range []int{512, 4096} {
		prep := func(tb testing.TB) (*placement.Snapshot, []placement.PodSetUsage) {
			g := gpuCluster(tb, 10000, false)
			grp := bench.PodSetGang("pg", p)
			d, err := placement.Solve(g.s, grp, placement.Options{})
			if err != nil || d.Status != placement.Scheduled {
				tb.Fatalf("p=%d: %v %s", p, err, d.Message)
			}
			us, err := placement.PodSetUsageOf(grp, d)
			if err != nil || len(us) != 1 || len(us[0].Nodes) != p/8 {
				tb.Fatalf("p=%d: %v, %d reservations", p, err, len(us))
			}
			return g.s, us
		}
		refs := []placement.PodSetRef{{Group: placement.Key{Namespace: "default", Name: "pg"}, PodSet: "workers"}}
		floor := func(b *testing.B) (func(), []metric) {
			_, us := prep(b)
			nodes := us[0].Nodes
			used := make([]int64, 2*len(nodes))
			req := [2]int64{bench.PodGPU, bench.PodGPUCPU}
			return func() {
				for i, a := range nodes {
					used[2*i] += req[0] * int64(a.Count)
					used[2*i+1] += req[1] * int64(a.Count)
				}
				for i, a := range nodes {
					used[2*i] -= req[0] * int64(a.Count)
					used[2*i+1] -= req[1] * int64(a.Count)
				}
				sink += used[0]
			}, []metric{{float64(len(nodes)), "nodes"}}
		}
		out = append(out, workload{
			name: fmt.Sprintf("podsetusage/n=10000/p=%d/reserve+release", p),
			decision: func(b *testing.B) (func(), []metric) {
				s, us := prep(b)
				run := func() *placement.Snapshot {
					r, err := s.Apply(placement.Change{Reserve: us})
					if err != nil {
						b.Fatal(err)
					}
					back, err := r.Apply(placement.Change{Release: refs})
					if err != nil {
						b.Fatal(err)
					}
					if r.Requested(us[0].Nodes[0].NodeID, placement.ResourceGPU) != 8 {
						b.Fatal("nothing reserved")
					}
					return back
				}
				if ch, _ := run().ChangedNodes(s); len(ch) != 0 {
					b.Fatalf("release left %d nodes changed", len(ch))
				}
				return func() { sink += int64(run().NumPods()) }, []metric{{float64(len(us[0].Nodes)), "nodes"}}
			},
			floor: floor,
		}, workload{
			name: fmt.Sprintf("podsetusage/n=10000/p=%d/bind+remove", p),
			decision: func(b *testing.B) (func(), []metric) {
				s, us := prep(b)
				var ch placement.Change
				for _, a := range us[0].Nodes {
					for i := range a.Count {
						name := fmt.Sprintf("pg-%s-%d", a.Node, i)
						ch.Bind = append(ch.Bind, placement.Pod{Namespace: "default", Name: name, SchedulingGroup: "pg", NodeName: a.Node, Requests: us[0].Requests})
						ch.Remove = append(ch.Remove, placement.Key{Namespace: "default", Name: name})
					}
				}
				run := func() *placement.Snapshot {
					r, err := s.Apply(placement.Change{Bind: ch.Bind})
					if err != nil {
						b.Fatal(err)
					}
					back, err := r.Apply(placement.Change{Remove: ch.Remove})
					if err != nil {
						b.Fatal(err)
					}
					return back
				}
				if back := run(); back.NumPods() != s.NumPods() {
					b.Fatal("remove left pods")
				}
				return func() { sink += int64(run().NumPods()) }, []metric{{float64(len(us[0].Nodes)), "nodes"}}
			},
			floor: floor,
		})
	}
	return out
}
