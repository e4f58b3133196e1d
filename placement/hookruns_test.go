package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// slotReserver is a ClassReserver for tests: a node takes at most
// slots[node] members, the group at most total, and once a member is
// reserved the rest must go to nodes of its rack (as members sharing a
// claim on devices of one rack must). Pods of one "class" label are
// interchangeable; a pod without it is alone.
type slotReserver struct {
	slots map[string]int
	total int
	used  map[NodeID]int
	stack []NodeID
	pods  []*Pod // the members reserved, in order
	rack  string
	// atOnce counts the members UnreserveRun took back, when the
	// reserver is one.
	atOnce *int
}

func (r *slotReserver) Filter(p *Pod, ni NodeInfo) Rejection {
	switch {
	case len(r.stack) >= r.total:
		return Rejection{Reason: "group total reached"}
	case r.used[ni.ID()] >= r.slots[ni.Node().Name]:
		return Rejection{Reason: "no slot"}
	case len(r.stack) > 0 && ni.Node().Labels["rack"] != r.rack:
		return Rejection{Reason: "other rack"}
	}
	return Rejection{}
}

func (r *slotReserver) Reserve(p *Pod, ni NodeInfo) {
	if len(r.stack) == 0 {
		r.rack = ni.Node().Labels["rack"]
	}
	r.used[ni.ID()]++
	r.stack = append(r.stack, ni.ID())
	r.pods = append(r.pods, p)
}

// Unreserve panics unless p on ni is the member reserved last: the
// solver takes members back last first.
func (r *slotReserver) Unreserve(p *Pod, ni NodeInfo) {
	k := len(r.stack) - 1
	if r.stack[k] != ni.ID() || r.pods[k] != p {
		panic(fmt.Sprintf("Unreserve(%s, %s): not the member reserved last", p.Name, ni.Node().Name))
	}
	r.used[ni.ID()]--
	r.stack, r.pods = r.stack[:k], r.pods[:k]
}

// runUnreserver is a slotReserver that takes runs back at once.
type runUnreserver struct{ *slotReserver }

func (r runUnreserver) UnreserveRun(pods []*Pod, ni NodeInfo) {
	for k := len(pods) - 1; k >= 0; k-- {
		r.Unreserve(pods[k], ni)
	}
	*r.atOnce += len(pods)
}

func (r *slotReserver) ClassKey(p *Pod) string { return p.Labels["class"] }

func (r *slotReserver) ReserveRun(pods []*Pod, ni NodeInfo) (int, Rejection) {
	for k, p := range pods {
		if rej := r.Filter(p, ni); !rej.OK() {
			return k, rej
		}
		r.Reserve(p, ni)
	}
	return len(pods), Rejection{}
}

// plainReserver hides a ClassReserver's run methods.
type plainReserver struct{ Reserver }

// TestProp_HookRunsSameAsOneByOne: with one or two ClassReservers (the
// second cutting runs the first admitted, which it takes back), members
// placed in runs land exactly where one-by-one placement puts them, with
// the same message and reasons. A reserver that is a RunUnreserver gets
// its members back in runs, each the members reserved last on one node
// (slotReserver checks the order).
func TestProp_HookRunsSameAsOneByOne(t *testing.T) {
	runs, atOnce := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		var nodes []Node
		for i := range rapid.IntRange(1, 5).Draw(t, "nodes") {
			nodes = append(nodes, Node{
				Name:        fmt.Sprintf("n%d", i),
				Labels:      map[string]string{"rack": rapid.SampledFrom([]string{"a", "b"}).Draw(t, fmt.Sprintf("rack%d", i))},
				Allocatable: ResourceList{ResourceCPU: rapid.SampledFrom([]int64{1000, 2000, 4000}).Draw(t, fmt.Sprintf("cpu%d", i))},
			})
		}
		s, err := NewSnapshot(nodes, nil)
		require.NoError(t, err)
		var members []Pod
		for i := range rapid.IntRange(1, 6).Draw(t, "members") {
			p := Pod{Namespace: "ns", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "g",
				Requests: ResourceList{ResourceCPU: rapid.SampledFrom([]int64{1000, 2000}).Draw(t, fmt.Sprintf("mcpu%d", i))}}
			if c := rapid.SampledFrom([]string{"", "x", "y"}).Draw(t, fmt.Sprintf("class%d", i)); c != "" {
				p.Labels = map[string]string{"class": c}
			}
			members = append(members, p)
		}
		g := &Group{Namespace: "ns", Name: "g", MinCount: int32(rapid.IntRange(1, len(members)).Draw(t, "min")), Members: members}
		hooks := rapid.IntRange(1, 2).Draw(t, "hooks")
		var made []*slotReserver
		var byRuns []bool // per reserver: a RunUnreserver
		for k := range hooks {
			r := &slotReserver{slots: map[string]int{}, total: rapid.IntRange(1, 6).Draw(t, fmt.Sprintf("total%d", k))}
			for _, n := range nodes {
				r.slots[n.Name] = rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("slots%d-%s", k, n.Name))
			}
			made = append(made, r)
			byRuns = append(byRuns, rapid.Bool().Draw(t, fmt.Sprintf("byRuns%d", k)))
		}
		solve := func(plain bool) Decision {
			var opts Options
			for k, proto := range made {
				byRuns := byRuns[k]
				opts.Reservers = append(opts.Reservers, func(*Snapshot, GroupView) (Reserver, error) {
					r := &slotReserver{slots: proto.slots, total: proto.total, used: map[NodeID]int{}, atOnce: &atOnce}
					switch {
					case plain:
						return plainReserver{r}, nil
					case byRuns:
						return runUnreserver{r}, nil
					}
					return r, nil
				})
			}
			d, err := Solve(s, g, opts)
			require.NoError(t, err)
			return d
		}
		d, od := solve(false), solve(true)
		require.Equal(t, od.Status, d.Status)
		require.Equal(t, od.Assignments, d.Assignments)
		require.Equal(t, od.Message, d.Message)
		require.Equal(t, od.Reasons, d.Reasons)
		if d.Status == Scheduled {
			runs++
		}
	})
	require.Positive(t, runs)
	require.Positive(t, atOnce)
}
