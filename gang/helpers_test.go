package gang_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

const gpu = placement.ResourceGPU

var t0 = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func cpuNode(name string, milli int64) placement.Node {
	return placement.Node{Name: name, Labels: map[string]string{"zone": "zone1"}, Allocatable: placement.ResourceList{placement.ResourceCPU: milli}}
}

func gpuNode(name string, n int64) placement.Node {
	return placement.Node{Name: name, Allocatable: placement.ResourceList{gpu: n}}
}

// member is a pending pod of group in namespace default, queued at t0+queued
// seconds, with priority 100.
func member(name, group string, req placement.ResourceList, queued int) placement.Pod {
	return placement.Pod{Namespace: "default", Name: name, SchedulingGroup: group, Requests: req, Priority: 100, QueuedAt: at(queued)}
}

func cpu(milli int64) placement.ResourceList {
	return placement.ResourceList{placement.ResourceCPU: milli}
}

func blocker(node string, req placement.ResourceList) placement.Pod {
	return placement.Pod{Namespace: "default", Name: "blocker", NodeName: node, Requests: req}
}

func gangPG(name string, min int32) *PodGroup {
	prio := int32(100)
	return &PodGroup{
		ObjectMeta: ObjectMeta{Namespace: "default", Name: name},
		Spec:       PodGroupSpec{SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: min}}, Priority: &prio},
	}
}

func basicPG(name string) *PodGroup {
	prio := int32(100) // member's: since v1.37 every member carries its group's priority
	return &PodGroup{
		ObjectMeta: ObjectMeta{Namespace: "default", Name: name},
		Spec:       PodGroupSpec{SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}, Priority: &prio},
	}
}

func key(name string) placement.Key { return placement.Key{Namespace: "default", Name: name} }

// harness drives a Scheduler as a host would: it threads the snapshot from
// cycle to cycle and keeps the time.
type harness struct {
	t     *testing.T
	s     *Scheduler
	snap  *placement.Snapshot
	now   time.Time
	conds map[placement.Key]Condition
}

func newHarness(t *testing.T, opts Options, nodes []placement.Node, bound ...placement.Pod) *harness {
	t.Helper()
	snap, err := placement.NewSnapshot(nodes, bound)
	require.NoError(t, err)
	return &harness{t: t, s: NewScheduler(opts), snap: snap, now: t0, conds: map[placement.Key]Condition{}}
}

func (h *harness) addPods(pods ...placement.Pod) {
	h.t.Helper()
	for _, p := range pods {
		require.NoError(h.t, h.s.AddPod(p))
	}
}

func (h *harness) setPG(pg *PodGroup) {
	h.t.Helper()
	require.NoError(h.t, h.s.SetPodGroup(pg))
}

// cycle runs one cycle and checks what every cycle must satisfy.
func (h *harness) cycle() (Result, bool) {
	h.t.Helper()
	r, ok := h.s.Cycle(h.snap, h.now)
	if !ok {
		require.Equal(h.t, Result{}, r)
		return r, false
	}
	require.NoError(h.t, r.Err)
	if len(r.Bind) == 0 {
		require.Same(h.t, h.snap, r.Snapshot, "nothing binds, nothing changes")
	}
	for _, p := range r.Bind {
		_, before := h.snap.Pod(p.Key())
		require.False(h.t, before, "%s bound twice", p.Key())
		got, after := r.Snapshot.Pod(p.Key())
		require.True(h.t, after)
		require.Equal(h.t, p.NodeName, got.NodeName)
	}
	if r.Condition != nil {
		if old, had := h.conds[r.PodGroup]; had && old.Status == ConditionTrue {
			require.Equal(h.t, ConditionTrue, r.Condition.Status, "condition went True -> False")
		}
		h.conds[r.PodGroup] = *r.Condition
	}
	h.snap = r.Snapshot
	return r, true
}

// drain runs cycles until none is ready.
func (h *harness) drain() []Result {
	var out []Result
	for {
		r, ok := h.cycle()
		if !ok {
			return out
		}
		out = append(out, r)
	}
}

// placements lists "pod@node" for every bound pod of group g.
func (h *harness) placements(g string) []string {
	var out []string
	for _, p := range h.snap.GroupMembers(key(g)) {
		out = append(out, p.Name+"@"+p.NodeName)
	}
	sort.Strings(out)
	return out
}

func bindNames(r Result) []string {
	var out []string
	for _, p := range r.Bind {
		out = append(out, fmt.Sprintf("%s@%s", p.Name, p.NodeName))
	}
	return out
}

func keyNames(ks []placement.Key) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Name)
	}
	return out
}

// requireMemberRule checks a cycle under one of v1.37's member rules
// (priority_rule_test.go, preemption_rule_test.go): with err empty, or
// under v1.36, the group binds binds; otherwise the cycle fails with err
// (placement.ErrInvalid) and binds nothing, and group g's condition reads
// SchedulerError (v1.37) or PodGroupError (v1.38), in a tree as a leaf.
func requireMemberRule(t *testing.T, r Result, profile Profile, tree bool, err string, binds []string) {
	t.Helper()
	if err == "" || profile == ProfileV136 {
		require.NoError(t, r.Err)
		require.Equal(t, binds, bindNames(r))
		return
	}
	require.EqualError(t, r.Err, err)
	require.ErrorIs(t, r.Err, placement.ErrInvalid)
	require.Empty(t, r.Bind)
	want := ReasonSchedulerError
	if profile == ProfileV138 {
		want = ReasonPodGroupError
	}
	var reasons []string
	if tree {
		for _, hc := range r.Hierarchy.Conditions {
			if hc.Kind == "PodGroup" && hc.Key.Name == "g" {
				reasons = append(reasons, hc.Condition.Reason)
			}
		}
	} else {
		reasons = append(reasons, r.Condition.Reason)
	}
	require.Equal(t, []string{want}, reasons)
}
