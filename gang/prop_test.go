package gang_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// world is a generated cluster, PodGroups and pending pods, plus the host's
// script: which blocker leaves after which round of cycles.
type world struct {
	nodes    []placement.Node
	blockers []placement.Pod
	pgs      []*PodGroup
	pods     []placement.Pod
	leaves   []int // per round, index into blockers or -1
}

// Small domains so that collisions happen: 1-4 nodes of 0-8 cpu, 1-4
// groups of 1-5 members asking 0-3 cpu, 4 arrival times, 2 priorities.
func genWorld(t *rapid.T) world {
	var w world
	for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
		name := fmt.Sprintf("n%02d", i)
		capacity := int64(rapid.IntRange(0, 8).Draw(t, "cpu")) * 1000
		w.nodes = append(w.nodes, cpuNode(name, capacity))
		if capacity > 0 && rapid.Bool().Draw(t, "blocked") {
			req := int64(rapid.IntRange(1, int(capacity/1000)).Draw(t, "blocker")) * 1000
			w.blockers = append(w.blockers, placement.Pod{Namespace: "default", Name: "blocker-" + name, NodeName: name, Requests: cpu(req)})
		}
	}
	for i := range rapid.IntRange(1, 4).Draw(t, "groups") {
		name := fmt.Sprintf("g%d", i)
		size := rapid.IntRange(1, 5).Draw(t, "size")
		if rapid.IntRange(0, 3).Draw(t, "policy") == 0 {
			w.pgs = append(w.pgs, basicPG(name))
		} else {
			w.pgs = append(w.pgs, gangPG(name, int32(rapid.IntRange(1, size+1).Draw(t, "min"))))
		}
		for j := range size {
			p := member(fmt.Sprintf("%s-p%d", name, j), name, cpu(int64(rapid.IntRange(0, 3).Draw(t, "req"))*1000), rapid.IntRange(0, 3).Draw(t, "queued"))
			if rapid.Bool().Draw(t, "low") {
				p.Priority = 50
			}
			w.pods = append(w.pods, p)
		}
	}
	for range 4 {
		w.leaves = append(w.leaves, rapid.IntRange(-1, len(w.blockers)-1).Draw(t, "leave"))
	}
	return w
}

// noOddOnN00 is a caller's filter: pods whose name ends in an odd digit may
// not use node n00.
var noOddOnN00 = placement.FilterFunc(func(p *placement.Pod, n placement.NodeInfo) placement.Rejection {
	if n.Node().Name == "n00" && oddName(p) {
		return placement.Rejection{Reason: "odd pods avoid n00"}
	}
	return placement.Rejection{}
})

func oddName(p *placement.Pod) bool { return (p.Name[len(p.Name)-1]-'0')%2 == 1 }

func filterOpts() Options {
	return Options{Profile: ProfileV136, SolveOptions: func(*PodGroup, *placement.Snapshot, placement.Options) (placement.Options, error) {
		return placement.Options{Filters: []placement.Filter{noOddOnN00}}, nil
	}}
}

// run adds the PodGroups and the pods in the given orders, then runs rounds
// of cycles until idle, letting a blocker leave and the clock move to the
// next retry between rounds. It checks the cycle's invariants after every
// cycle and returns a transcript of the results.
func run(t require.TestingT, w world, pgOrder, podOrder []int) []string {
	snap, err := placement.NewSnapshot(w.nodes, w.blockers)
	require.NoError(t, err)
	s := NewScheduler(filterOpts())
	for _, i := range pgOrder {
		require.NoError(t, s.SetPodGroup(w.pgs[i]))
	}
	for _, i := range podOrder {
		require.NoError(t, s.AddPod(w.pods[i]))
	}
	min := map[placement.Key]int{}
	for _, pg := range w.pgs {
		if pg.Spec.SchedulingPolicy.Gang != nil {
			min[pg.Key()] = int(pg.Spec.SchedulingPolicy.Gang.MinCount)
		}
	}
	bound := map[placement.Key]int{}
	everBound := map[placement.Key]string{}
	condTrue := map[placement.Key]bool{}
	var out []string
	now := t0
	for round := range len(w.leaves) + 8 {
		for {
			r, ok := s.Cycle(snap, now)
			if !ok {
				break
			}
			require.NoError(t, r.Err)
			g := r.PodGroup
			// Quorum gate: a gang is attempted only with minCount members.
			require.GreaterOrEqual(t, bound[g]+len(r.Bind)+len(r.Requeued), min[g], "gang %s attempted below quorum", g)
			// All-or-nothing.
			if len(r.Bind) > 0 {
				require.GreaterOrEqual(t, bound[g]+len(r.Bind), min[g], "gang %s partially bound", g)
			}
			bound[g] += len(r.Bind)
			for _, p := range r.Bind {
				_, twice := everBound[p.Key()]
				require.False(t, twice, "%s bound twice", p.Key())
				everBound[p.Key()] = p.NodeName
				id, _ := r.Snapshot.NodeID(p.NodeName)
				require.GreaterOrEqual(t, r.Snapshot.Free(id, placement.ResourceCPU), int64(0), "node %s over capacity", p.NodeName)
				require.False(t, oddName(&p) && p.NodeName == "n00", "filter ignored for %s", p.Key())
			}
			// Bound members never move.
			for k, n := range everBound {
				got, ok := r.Snapshot.Pod(k)
				require.True(t, ok)
				require.Equal(t, n, got.NodeName)
			}
			// Monotone condition.
			if c := r.Condition; c != nil {
				require.False(t, condTrue[g] && c.Status != ConditionTrue, "%s: condition True -> %s", g, c.Status)
				condTrue[g] = condTrue[g] || c.Status == ConditionTrue
			}
			out = append(out, transcript(r))
			snap = r.Snapshot
		}
		if round < len(w.leaves) && w.leaves[round] >= 0 {
			k := w.blockers[w.leaves[round]].Key()
			if _, ok := snap.Pod(k); ok {
				snap, err = snap.Apply(placement.Change{Remove: []placement.Key{k}})
				require.NoError(t, err)
				out = append(out, "leaves "+k.String())
			}
		}
		next, ok := s.NextRetry()
		if !ok {
			break
		}
		now = next
	}
	return out
}

func transcript(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s bind=%v requeue=%v retry=%s", r.PodGroup, r.Decision.Status, bindNames(r), keyNames(r.Requeued), r.RetryAt.Format(time.TimeOnly))
	if r.Condition != nil {
		fmt.Fprintf(&b, " cond=%s/%s %q", r.Condition.Status, r.Condition.Reason, r.Condition.Message)
	}
	return b.String()
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestProp_Cycle checks, over random clusters, groups and host scripts,
// the invariants of every cycle: quorum gate, all-or-nothing, capacity,
// caller filters, bound members never moved or bound twice, condition
// never True -> False.
func TestProp_Cycle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		run(t, w, identity(len(w.pgs)), identity(len(w.pods)))
	})
}

// TestProp_ArrivalOrder: the results do not depend on the order in which
// the host adds PodGroups and pods, only on their contents.
func TestProp_ArrivalOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		want := run(t, w, identity(len(w.pgs)), identity(len(w.pods)))
		pgOrder := rapid.Permutation(identity(len(w.pgs))).Draw(t, "pgOrder")
		podOrder := rapid.Permutation(identity(len(w.pods))).Draw(t, "podOrder")
		require.Equal(t, want, run(t, w, pgOrder, podOrder))
	})
}

// TestProp_GeneratorCoverage shows that genWorld yields cycles that bind,
// cycles that cannot, gangs held at the quorum gate and partial (basic or
// min < size) successes, so the properties above can fail.
func TestProp_GeneratorCoverage(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		w := genWorld(t)
		for _, line := range run(t, w, identity(len(w.pgs)), identity(len(w.pods))) {
			switch {
			case strings.Contains(line, " Scheduled ") && strings.Contains(line, "requeue=[]"):
				seen["all bound"]++
			case strings.Contains(line, " Scheduled "):
				seen["some bound, some requeued"]++
			case strings.Contains(line, "Unschedulable") || strings.Contains(line, "Unresolvable"):
				seen["nothing bound"]++
			}
		}
		snap, _ := placement.NewSnapshot(w.nodes, w.blockers)
		s := NewScheduler(Options{Profile: ProfileV136})
		for _, pg := range w.pgs {
			_ = s.SetPodGroup(pg)
		}
		for _, p := range w.pods {
			_ = s.AddPod(p)
		}
		for range len(w.pgs) {
			s.Cycle(snap, t0)
		}
		for _, pg := range w.pgs {
			if st, _ := s.Group(pg.Key()); st.State == Gated {
				seen["gated"]++
			}
		}
	})
	for _, k := range []string{"all bound", "some bound, some requeued", "nothing bound", "gated"} {
		require.Positive(t, seen[k], "the generator never produced %q: %v", k, seen)
	}
}
