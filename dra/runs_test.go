package dra_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// oneByOne hides the hook's ClassReserver methods (keeping its
// PlacementChecker): the solver then places every member alone, calling
// Filter on every node.
func oneByOne(nr placement.NewReserverFunc) placement.NewReserverFunc {
	return func(s *placement.Snapshot, g placement.GroupView) (placement.Reserver, error) {
		r, err := nr(s, g)
		if err != nil {
			return nil, err
		}
		return plainHook{r, r.(placement.PlacementChecker)}, nil
	}
}

type plainHook struct {
	placement.Reserver
	placement.PlacementChecker
}

// sameAsOneByOne solves g with the hook batching members in runs and
// with it hidden, and requires one decision (placements, message,
// reasons) and one commit (claims, devices, reservedFor) of both.
func sameAsOneByOne(t *rapid.T, l *dra.Ledger, s *placement.Snapshot, pg dra.PodGroup, g *placement.Group, runs map[bool]int) {
	d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}})
	require.NoError(t, err)
	od, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{oneByOne(l.Reserver(pg, dra.Options{}))}})
	require.NoError(t, err)
	require.Equal(t, od.Status, d.Status)
	require.Equal(t, od.Assignments, d.Assignments)
	require.Equal(t, od.Message, d.Message)
	require.Equal(t, od.Reasons, d.Reasons)
	_, ups, err := l.Commit(s, pg, g, d, dra.Options{})
	require.NoError(t, err)
	_, oups, err := l.Commit(s, pg, g, od, dra.Options{})
	require.NoError(t, err)
	require.Equal(t, statuses(oups), statuses(ups))
	runs[d.Status == placement.Scheduled]++
}

// TestProp_RunsSameAsOneByOne: on the hook invariants' random worlds
// (group network claim, per-pod partitionable GPU claims, both) and on
// the oracle's (seven GPU templates, constraints across the group's
// claims), members made identical in runs are placed, and their devices
// allocated, exactly as one by one.
func TestProp_RunsSameAsOneByOne(t *testing.T) {
	outcomes := map[bool]int{}
	// Runs differ from one by one in rare worlds only (the search's
	// mirror assignment showed in 1 of about 600): several rounds of the
	// default 100 checks, each from its own seed.
	for range 5 {
		runsProp(t, outcomes)
	}
	require.Positive(t, outcomes[true])
	require.Positive(t, outcomes[false])
}

// genRunWorld is genHookWorld with members copied over their next
// neighbours at random: runs need identical neighbours.
func genRunWorld(t *rapid.T) hookWorld {
	w := genHookWorld(t)
	for i := 1; i < len(w.g.Members); i++ {
		if rapid.Bool().Draw(t, fmt.Sprintf("copy%d", i)) {
			m := w.g.Members[i-1]
			m.Name, m.UID = w.g.Members[i].Name, w.g.Members[i].UID
			w.g.Members[i] = m
		}
	}
	return w
}

func runsProp(t *testing.T, outcomes map[bool]int) {
	rapid.Check(t, func(t *rapid.T) {
		w := genRunWorld(t)
		sameAsOneByOne(t, w.l, w.s, w.pg, w.g, outcomes)
	})
	rapid.Check(t, func(t *rapid.T) {
		w := genOracleWorld(t)
		for i := 1; i < len(w.members); i++ {
			if rapid.Bool().Draw(t, fmt.Sprintf("copy%d", i)) {
				m := w.members[i-1]
				m.Name, m.UID = w.members[i].Name, w.members[i].UID
				w.members[i] = m
			}
		}
		s, err := placement.NewSnapshot(w.nodes, nil)
		require.NoError(t, err)
		minCount := rapid.IntRange(1, len(w.members)).Draw(t, "minCount")
		sameAsOneByOne(t, w.ledger(t, false), s, w.podGroup(), group("pg", int32(minCount), slices.Clone(w.members)...), outcomes)
	})
}

// TestRegression_RunsKeepTheSearchOneByOne: m1 and m2 ask for a GPU from
// one template, so the greedy pass places them in one run; it strands m2
// (m0 took the small GPU node's CPU), and the search that follows must
// find the assignment one-by-one placement finds, not its mirror with m1
// and m2 swapped.
func TestRegression_RunsKeepTheSearchOneByOne(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n0", 1), gpuSlice("n1", 1), netSlice("fabric", nil, "nic0")})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("gpu-tmpl", oneOf("gpu")), tmpl("net-tmpl", oneOf("net"))}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n0", 2000, nil), cpuNode("n1", 1000, nil), cpuNode("n2", 1000, nil)}, nil)
	require.NoError(t, err)
	pg := podGroup("pg", byTemplate("net", "net-tmpl"))
	g := group("pg", 3, pod("m0", "pg", 1000, byTemplate("net", "net-tmpl")),
		pod("m1", "pg", 1000, byTemplate("gpu", "gpu-tmpl")), pod("m2", "pg", 1000, byTemplate("gpu", "gpu-tmpl")))
	for _, nr := range []placement.NewReserverFunc{l.Reserver(pg, dra.Options{}), oneByOne(l.Reserver(pg, dra.Options{}))} {
		d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{nr}})
		require.NoError(t, err)
		require.Equal(t, map[string]string{"m0": "n2", "m1": "n1", "m2": "n0"}, nodesOf(d), d.Message)
	}
}

// stackHook has the hook, at each run the solver reserves, reserve the
// run, take its members back one by one, take back each tail of it at
// once (UnreserveRun, then the rest), and reserve each prefix of it both
// as a run and member by member (Reserve: a frame each), requiring one
// state (RunState) of all of them at every prefix: members stacked on a
// frame are held, and taken back, as members in frames of their own.
type stackHook struct {
	placement.ClassReserver
	t       *rapid.T
	stacked *int
}

func (h stackHook) ReserveRun(pods []*placement.Pod, ni placement.NodeInfo) (int, placement.Rejection) {
	before, _ := dra.RunState(h.ClassReserver)
	n, _ := h.ClassReserver.ReserveRun(pods, ni)
	undone := make([]string, n+1) // undone[j]: state with pods[:j] reserved
	var stacked int
	undone[n], stacked = dra.RunState(h.ClassReserver)
	*h.stacked += stacked
	for j := n - 1; j >= 0; j-- {
		h.Unreserve(pods[j], ni)
		undone[j], _ = dra.RunState(h.ClassReserver)
	}
	require.Equal(h.t, before, undone[0])
	// Taken back at once, the run's tail from j, then the rest: each
	// state one by one reached.
	for j := range n {
		m, _ := h.ClassReserver.ReserveRun(pods[:n], ni)
		require.Equal(h.t, n, m)
		h.ClassReserver.(placement.RunUnreserver).UnreserveRun(pods[j:n], ni)
		atOnce, _ := dra.RunState(h.ClassReserver)
		require.Equal(h.t, undone[j], atOnce, "run of %d less its last %d at once", n, n-j)
		h.ClassReserver.(placement.RunUnreserver).UnreserveRun(pods[:j], ni)
		atOnce, _ = dra.RunState(h.ClassReserver)
		require.Equal(h.t, before, atOnce, "run of %d taken back in two", n)
	}
	for j := 1; j <= n; j++ {
		m, _ := h.ClassReserver.ReserveRun(pods[:j], ni)
		require.Equal(h.t, j, m)
		asRun, _ := dra.RunState(h.ClassReserver)
		require.Equal(h.t, undone[j], asRun, "run of %d", j)
		for k := j - 1; k >= 0; k-- {
			h.Unreserve(pods[k], ni)
		}
		for _, p := range pods[:j] {
			h.Reserve(p, ni)
		}
		oneByOne, _ := dra.RunState(h.ClassReserver)
		require.Equal(h.t, undone[j], oneByOne, "%d one by one", j)
		for k := j - 1; k >= 0; k-- {
			h.Unreserve(pods[k], ni)
		}
	}
	return h.ClassReserver.ReserveRun(pods, ni)
}

// TestProp_StackedAsOwnFrames: on runsProp's hook worlds (members made
// identical in runs), every run the solver reserves holds, and takes
// back, its members as reserving them one by one would (see stackHook).
func TestProp_StackedAsOwnFrames(t *testing.T) {
	stacked := 0
	prop := func(t *rapid.T) {
		w := genRunWorld(t)
		nr := w.l.Reserver(w.pg, dra.Options{})
		wrap := func(s *placement.Snapshot, g placement.GroupView) (placement.Reserver, error) {
			r, err := nr(s, g)
			if err != nil {
				return nil, err
			}
			return stackHook{r.(placement.ClassReserver), t, &stacked}, nil
		}
		_, err := placement.Solve(w.s, w.g, placement.Options{Reservers: []placement.NewReserverFunc{wrap}})
		require.NoError(t, err)
	}
	// One run of 100 worlds stacks about 16 runs, but in clumps (sd 7.5
	// over 25 runs, least 5), so it misses them about once in 4,000; run
	// again (at most 20 rounds) until one was stacked.
	for round := 0; round < 20 && stacked == 0; round++ {
		rapid.Check(t, prop)
	}
	require.Positive(t, stacked)
}
