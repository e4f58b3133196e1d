package gang_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// The common set-up of scenarios/gang.md: one node n1 with cpu:4 and label
// zone=zone1; members request cpu:1 with priority 100; pg1 is a gang of min
// 3 with priority 100.
func g1Nodes() []placement.Node { return []placement.Node{cpuNode("n1", 4000)} }

// G1: pg1 exists; p1..p3 arrive: all three bind to n1 in one cycle; pg1's PodGroupScheduled
// condition becomes True with reason Scheduled.
func TestScenario_G1(t *testing.T) {
	h := newHarness(t, Options{}, g1Nodes())
	h.setPG(gangPG("pg1", 3))
	h.addPods(member("p1", "pg1", cpu(1000), 1), member("p2", "pg1", cpu(1000), 2), member("p3", "pg1", cpu(1000), 3))

	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, key("pg1"), r.PodGroup)
	require.Equal(t, []string{"p1@n1", "p2@n1", "p3@n1"}, bindNames(r))
	require.Empty(t, r.Requeued)
	require.NotNil(t, r.Condition)
	require.Equal(t, ConditionTrue, r.Condition.Status)
	require.Equal(t, ReasonScheduled, r.Condition.Reason)
	require.Equal(t, t0, r.Condition.LastTransitionTime)
	_, ok = h.cycle()
	require.False(t, ok, "nothing left to schedule")
	st, _ := h.s.Group(key("pg1"))
	require.Equal(t, Idle, st.State)
	c, _ := st.PodGroup.Condition(PodGroupScheduled)
	require.Equal(t, ConditionTrue, c.Status)
}

// G2: Quorum gate: pg1 exists, only p1 and p2 have arrived: no cycle is attempted for the group
// (nothing binds, nothing is reserved); when p3 arrives, all three bind together.
func TestScenario_G2(t *testing.T) {
	h := newHarness(t, Options{}, g1Nodes())
	h.setPG(gangPG("pg1", 3))
	h.addPods(member("p1", "pg1", cpu(1000), 1), member("p2", "pg1", cpu(1000), 2))

	snap := h.snap
	_, ok := h.cycle()
	require.False(t, ok, "no cycle for a gang below quorum")
	require.Same(t, snap, h.snap)
	require.Equal(t, int64(4000), h.snap.Free(0, placement.ResourceCPU), "nothing reserved")
	st, _ := h.s.Group(key("pg1"))
	require.Equal(t, Gated, st.State)
	require.Equal(t, "waiting for members: 2 of minCount 3 exist", st.Reason)
	require.Nil(t, st.PodGroup.Status.Conditions, "a gated group gets no condition")

	h.addPods(member("p3", "pg1", cpu(1000), 3))
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, []string{"p1@n1", "p2@n1", "p3@n1"}, bindNames(r))
}

// G3: Group missing: a pod bound outside the group uses cpu:2. p1..p3 name pg1 before pg1 exists:
// they wait, gated, no cycle. pg1 appears: the cycle runs and fails (only cpu:2 free); all three
// stay pending, condition False with reason Unschedulable and a message that says how many members
// fit at best (2 of min 3).
func TestScenario_G3(t *testing.T) {
	h := newHarness(t, Options{}, g1Nodes(), blocker("n1", cpu(2000)))
	h.addPods(member("p1", "pg1", cpu(1000), 1), member("p2", "pg1", cpu(1000), 2), member("p3", "pg1", cpu(1000), 3))

	_, ok := h.cycle()
	require.False(t, ok, "pods of a missing PodGroup are gated")
	st, _ := h.s.Group(key("pg1"))
	require.Equal(t, Gated, st.State)
	require.Nil(t, st.PodGroup)
	require.Contains(t, st.Reason, "waiting for PodGroup default/pg1")

	h.setPG(gangPG("pg1", 3))
	r, ok := h.cycle()
	require.True(t, ok)
	require.Empty(t, r.Bind)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	require.Equal(t, []string{"p1", "p2", "p3"}, keyNames(r.Requeued))
	require.Equal(t, ConditionFalse, r.Condition.Status)
	require.Equal(t, ReasonUnschedulable, r.Condition.Reason)
	require.Contains(t, r.Condition.Message, "2 of min 3 members fit")
	require.Equal(t, at(1), r.RetryAt, "initial backoff 1s")

	// Still backing off: no cycle yet.
	_, ok = h.cycle()
	require.False(t, ok)

	var err error
	h.snap, err = h.snap.Apply(placement.Change{Remove: []placement.Key{key("blocker")}})
	require.NoError(t, err)
	h.now = r.RetryAt
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, []string{"p1@n1", "p2@n1", "p3@n1"}, bindNames(r))
	require.Equal(t, ConditionTrue, r.Condition.Status)
	require.Equal(t, ReasonScheduled, r.Condition.Reason)
	require.Equal(t, at(1), r.Condition.LastTransitionTime)
}

// G4: min below size: a blocker uses cpu:1. p1..p4 in pg1 (min 3): exactly three bind (the first
// three in member order), the fourth stays pending; the group counts as scheduled. When the
// blocker leaves, p4 binds in a later cycle, counted together with the three bound members.
func TestScenario_G4(t *testing.T) {
	h := newHarness(t, Options{}, g1Nodes(), blocker("n1", cpu(1000)))
	h.setPG(gangPG("pg1", 3))
	h.addPods(member("p4", "pg1", cpu(1000), 4), member("p2", "pg1", cpu(1000), 2), member("p1", "pg1", cpu(1000), 1), member("p3", "pg1", cpu(1000), 3))

	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, []string{"p1@n1", "p2@n1", "p3@n1"}, bindNames(r), "the first three in member order")
	require.Equal(t, []string{"p4"}, keyNames(r.Requeued))
	require.Equal(t, ConditionTrue, r.Condition.Status, "min reached: the group counts as scheduled")

	var err error
	h.snap, err = h.snap.Apply(placement.Change{Remove: []placement.Key{key("blocker")}})
	require.NoError(t, err)
	h.now = r.RetryAt
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, []string{"p4@n1"}, bindNames(r))
	require.Equal(t, 3, r.Decision.Bound, "counted together with the three bound members")
	require.Equal(t, []string{"p1@n1", "p2@n1", "p3@n1", "p4@n1"}, h.placements("pg1"))
	if r.Condition != nil {
		require.Equal(t, ConditionTrue, r.Condition.Status)
	}
}

// g5Pods are two gangs' members arriving interleaved: pg1's first.
func g5Pods(first, second string) []placement.Pod {
	return []placement.Pod{
		member(first+"-a", first, cpu(1000), 1), member(second+"-a", second, cpu(1000), 2),
		member(first+"-b", first, cpu(1000), 3), member(second+"-b", second, cpu(1000), 4),
		member(first+"-c", first, cpu(1000), 5), member(second+"-c", second, cpu(1000), 6),
	}
}

// G5: No deadlock between two gangs: pg1 and pg2, each min 3 with three members of cpu:1, on the
// cpu:4 node, their pods arriving interleaved. The group whose member arrived first binds all
// three; the other binds none. Never 2+2, never any partial reservation left behind.
func TestScenario_G5(t *testing.T) {
	for _, tc := range []struct{ first, second string }{{"pg1", "pg2"}, {"pg2", "pg1"}} {
		t.Run("all arrive, then cycles/"+tc.first+" first", func(t *testing.T) {
			h := newHarness(t, Options{}, g1Nodes())
			h.setPG(gangPG("pg1", 3))
			h.setPG(gangPG("pg2", 3))
			h.addPods(g5Pods(tc.first, tc.second)...)
			rs := h.drain()
			require.Len(t, rs, 2)
			require.Equal(t, key(tc.first), rs[0].PodGroup)
			require.Len(t, rs[0].Bind, 3)
			require.Equal(t, key(tc.second), rs[1].PodGroup)
			require.Empty(t, rs[1].Bind)
			require.Len(t, h.placements(tc.first), 3)
			require.Empty(t, h.placements(tc.second))
		})
		t.Run("a cycle after each arrival/"+tc.first+" first", func(t *testing.T) {
			h := newHarness(t, Options{}, g1Nodes())
			h.setPG(gangPG("pg1", 3))
			h.setPG(gangPG("pg2", 3))
			for _, p := range g5Pods(tc.first, tc.second) {
				h.addPods(p)
				h.drain()
				for _, g := range []string{"pg1", "pg2"} {
					n := len(h.placements(g))
					require.True(t, n == 0 || n == 3, "%s has %d bound: partial reservation", g, n)
				}
			}
			require.Len(t, h.placements(tc.first), 3)
			require.Empty(t, h.placements(tc.second))
			require.Equal(t, int64(1000), h.snap.Free(0, placement.ResourceCPU))
		})
	}
}

// G6: Basic policy (no gang barrier): a basic group's members bind one by one as they arrive. With
// a blocker of cpu:2 and three basic members, exactly two bind and one waits.
func TestScenario_G6(t *testing.T) {
	h := newHarness(t, Options{}, g1Nodes(), blocker("n1", cpu(2000)))
	h.setPG(basicPG("web"))
	var bound []string
	for i, name := range []string{"p1", "p2", "p3"} {
		h.addPods(member(name, "web", cpu(1000), i))
		r, ok := h.cycle()
		require.True(t, ok, "a basic group needs no quorum")
		bound = append(bound, bindNames(r)...)
	}
	require.Equal(t, []string{"p1@n1", "p2@n1"}, bound, "members bind one by one as they arrive")
	st, _ := h.s.Group(key("web"))
	require.Equal(t, []string{"p3"}, keyNames(st.Pending))
	require.Equal(t, BackingOff, st.State)
}

// G7: Member order inside a cycle: priority descending, then the time the pod was first queued
// ascending, then namespace/name ascending (a total order: equal timestamps must not make the
// result vary from run to run).
func TestScenario_G7(t *testing.T) {
	pods := []placement.Pod{
		member("low", "pg1", cpu(1000), 1),
		member("late", "pg1", cpu(1000), 9),
		member("tie-c", "pg1", cpu(1000), 5),
		member("tie-a", "pg1", cpu(1000), 5),
		member("tie-b", "pg1", cpu(1000), 5),
		member("early", "pg1", cpu(1000), 2),
	}
	pods[0].Priority = 50
	want := []string{"early", "tie-a", "tie-b", "tie-c", "late", "low"}
	// cpu:4 leaves room for four: the last two in member order wait.
	rng := rand.New(rand.NewPCG(7, 7))
	for range 20 {
		rng.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
		h := newHarness(t, Options{Profile: ProfileV136}, g1Nodes()) // v1.36: members' priorities may differ
		h.setPG(gangPG("pg1", 4))
		h.addPods(pods...)
		r, ok := h.cycle()
		require.True(t, ok)
		require.Equal(t, []string{"early@n1", "tie-a@n1", "tie-b@n1", "tie-c@n1"}, bindNames(r))
		require.Equal(t, want[4:], keyNames(r.Requeued))
	}
}

// G8: Bound members are never moved or evicted, even when a later cycle for new members of the
// same group fails; the condition never goes from True back to False.
func TestScenario_G8(t *testing.T) {
	h := newHarness(t, Options{}, g1Nodes())
	h.setPG(gangPG("pg1", 3))
	h.addPods(member("p1", "pg1", cpu(1000), 1), member("p2", "pg1", cpu(1000), 2), member("p3", "pg1", cpu(1000), 3))
	r, _ := h.cycle()
	require.Len(t, r.Bind, 3)
	require.Equal(t, ConditionTrue, r.Condition.Status)

	// New members that cannot fit (1 cpu left, they ask 2 each).
	h.addPods(member("p4", "pg1", cpu(2000), 4), member("p5", "pg1", cpu(2000), 5))
	for range 3 {
		r, ok := h.cycle()
		require.True(t, ok)
		require.Equal(t, placement.Unresolvable, r.Decision.Status, "the bound members stay, so no eviction could make room")
		require.Empty(t, r.Bind)
		require.Nil(t, r.Condition, "True never turns False")
		require.Equal(t, []string{"p1@n1", "p2@n1", "p3@n1"}, h.placements("pg1"), "bound members never move")
		h.now = r.RetryAt
	}
	st, _ := h.s.Group(key("pg1"))
	c, _ := st.PodGroup.Condition(PodGroupScheduled)
	require.Equal(t, ConditionTrue, c.Status)
	require.Equal(t, 3, st.Attempts)
	require.Equal(t, at(1+2+4).Add(0), h.now, "backoff doubles: 1s, 2s, 4s")
}

// G9: Two groups solved one after the other against the same snapshot must see each other's
// placements: 2 nodes × gpu:8; group A = 2 pods × gpu:8, group B = 1 pod × gpu:8. A binds to both
// nodes; B is unschedulable ("needs gpu:8, 0 free"). Never the same node for both.
func TestScenario_G9(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{gpuNode("n1", 8), gpuNode("n2", 8)})
	h.setPG(gangPG("a", 2))
	h.setPG(gangPG("b", 1))
	h.addPods(member("a-0", "a", placement.ResourceList{gpu: 8}, 1), member("a-1", "a", placement.ResourceList{gpu: 8}, 2),
		member("b-0", "b", placement.ResourceList{gpu: 8}, 3))
	rs := h.drain()
	require.Len(t, rs, 2)
	require.Equal(t, []string{"a-0@n1", "a-1@n2"}, bindNames(rs[0]))
	require.Equal(t, key("b"), rs[1].PodGroup)
	require.Equal(t, placement.Unschedulable, rs[1].Decision.Status)
	require.Empty(t, rs[1].Bind)
	require.Contains(t, rs[1].Decision.Message, "2 Insufficient nvidia.com/gpu")
}

// G10: A group that cannot reach min holds nothing: min 10, 10 nodes with gpu:1 each, one node
// tainted so that only 9 are feasible. The group is unschedulable and reserves nothing; a single-
// pod gpu:1 workload that comes next binds at once.
func TestScenario_G10(t *testing.T) {
	var nodes []placement.Node
	for i := range 10 {
		nodes = append(nodes, gpuNode(string(rune('a'+i))+"-node", 1))
	}
	nodes[9].Taints = []placement.Taint{{Key: "maintenance", Effect: placement.TaintEffectNoSchedule}}
	h := newHarness(t, Options{}, nodes)
	h.setPG(gangPG("big", 10))
	for i := range 10 {
		h.addPods(member("big-"+string(rune('0'+i)), "big", placement.ResourceList{gpu: 1}, i))
	}
	snap := h.snap
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	require.Equal(t, 9, r.Decision.MostFit)
	require.Empty(t, r.Bind)
	require.Same(t, snap, r.Snapshot, "reserves nothing")

	h.setPG(gangPG("single", 1))
	h.addPods(member("single-0", "single", placement.ResourceList{gpu: 1}, 20))
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, key("single"), r.PodGroup)
	require.Equal(t, []string{"single-0@a-node"}, bindNames(r))
}

// G11: All-or-nothing under any cap: a caller's check on the whole placement (a quota of gpu:4,
// say) rejects any placement above 4 GPUs; a group of 5 pods × gpu:1 with min 5 on a cluster with
// room for all 5: nothing binds, never 4, and the reason names the caller's check.
func TestScenario_G11(t *testing.T) {
	quota := placement.PlacementFilterFunc(func(s *placement.Snapshot, g placement.GroupView, p *placement.Placement, a []placement.Assignment) placement.Rejection {
		req := map[placement.Key]int64{}
		for _, m := range g.Members {
			req[m.Key()] = m.Requests[gpu]
		}
		var sum int64
		for _, as := range a {
			sum += req[as.Pod]
		}
		if sum > 4 {
			return placement.Rejection{Reason: "quota gpu:4 exceeded"}
		}
		return placement.Rejection{}
	})
	opts := Options{SolveOptions: func(pg *PodGroup, _ *placement.Snapshot, _ placement.Options) (placement.Options, error) {
		return placement.Options{PlacementFilters: []placement.PlacementFilter{quota}}, nil
	}}
	h := newHarness(t, opts, []placement.Node{gpuNode("n1", 4), gpuNode("n2", 4)})
	h.setPG(gangPG("pg1", 5))
	for i := range 5 {
		h.addPods(member("p"+string(rune('1'+i)), "pg1", placement.ResourceList{gpu: 1}, i))
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.Empty(t, r.Bind, "nothing binds, never 4")
	require.NotEqual(t, placement.Scheduled, r.Decision.Status)
	require.Contains(t, r.Condition.Message, "quota gpu:4 exceeded")
	require.Empty(t, h.placements("pg1"))
}

// An error from the caller's SolveOptions fails the cycle, not the call:
// nothing binds, the group backs off, the condition says SchedulerError —
// unless it is already True.
func TestCycleSchedulerError(t *testing.T) {
	fail := true
	opts := Options{SolveOptions: func(pg *PodGroup, _ *placement.Snapshot, _ placement.Options) (placement.Options, error) {
		if fail {
			return placement.Options{}, placement.Errorf(placement.ErrNotFound, "ResourceClaimTemplate \"default/gpu\"", "metadata.name", "does not exist")
		}
		return placement.Options{}, nil
	}}
	h := newHarness(t, opts, g1Nodes())
	h.setPG(gangPG("pg1", 2))
	h.addPods(member("p1", "pg1", cpu(1000), 1), member("p2", "pg1", cpu(1000), 2))
	r, ok := h.s.Cycle(h.snap, h.now)
	require.True(t, ok)
	require.ErrorIs(t, r.Err, placement.ErrNotFound)
	require.EqualError(t, r.Err, `PodGroup default/pg1: ResourceClaimTemplate "default/gpu": metadata.name: does not exist`)
	require.Empty(t, r.Bind)
	require.Same(t, h.snap, r.Snapshot)
	require.Equal(t, []string{"p1", "p2"}, keyNames(r.Requeued))
	require.Equal(t, ReasonSchedulerError, r.Condition.Reason)
	require.Equal(t, ConditionFalse, r.Condition.Status)

	fail = false
	h.now = r.RetryAt
	r, ok = h.cycle()
	require.True(t, ok)
	require.Len(t, r.Bind, 2)
	require.Equal(t, ConditionTrue, r.Condition.Status)

	fail = true
	h.addPods(member("p3", "pg1", cpu(1000), 3))
	r, ok = h.s.Cycle(h.snap, h.now)
	require.True(t, ok)
	require.Error(t, r.Err)
	require.Nil(t, r.Condition, "True never turns False, not even on an error")
}

// A backoff that doubles past math.MaxInt64 nanoseconds stays at
// MaxBackoff: it used to wrap negative, so the group was retried at once,
// every cycle, before its retry time.
func TestBackoffNeverWraps(t *testing.T) {
	h := newHarness(t, Options{InitialBackoff: 1 << 62, MaxBackoff: math.MaxInt64}, g1Nodes())
	h.setPG(gangPG("pg1", 1))
	h.addPods(member("p1", "pg1", cpu(8000), 1))
	want := []time.Duration{1 << 62, math.MaxInt64, math.MaxInt64}
	for i, d := range want {
		r, ok := h.cycle()
		require.True(t, ok)
		require.Empty(t, r.Bind)
		require.Equal(t, h.now.Add(d), r.RetryAt, "attempt %d", i+1)
		_, ok = h.cycle()
		require.False(t, ok, "backing off until %v", r.RetryAt)
		h.now = r.RetryAt
	}
}
