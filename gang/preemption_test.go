package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// P13 through the cycle: a high-priority gang of 2 finds n1 free and n2
// held by a low pod. With preemption on, the cycle names the victim and
// requeues the group at once; the host evicts it, and the next cycle binds
// both members.
func TestCycle_PreemptsThenBinds(t *testing.T) {
	low := placement.Pod{Namespace: "default", Name: "low", NodeName: "n2", Requests: cpu(4000), Priority: 10}
	h := newHarness(t, Options{Preemption: true, Profile: ProfileV136}, []placement.Node{cpuNode("n1", 4000), cpuNode("n2", 4000)}, low)
	high := int32(1000)
	pg := gangPG("train", 2)
	pg.Spec.Priority = &high
	h.setPG(pg)
	h.addPods(member("m0", "train", cpu(4000), 0), member("m1", "train", cpu(4000), 1))

	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	require.NotNil(t, r.Preemption)
	require.Equal(t, preemption.Preempt, r.Preemption.Outcome)
	require.Equal(t, []placement.Key{{Namespace: "default", Name: "low"}}, r.Preemption.EvictedPods())
	require.Equal(t, h.now, r.RetryAt, "requeued at once")
	require.Contains(t, r.Condition.Message, "preempting")

	// The host evicts the victim.
	after, err := h.snap.Apply(placement.Change{Remove: r.Preemption.EvictedPods()})
	require.NoError(t, err)
	h.snap = after
	h.s.DeletePod(placement.Key{Namespace: "default", Name: "low"})
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, []string{"m0@n1", "m1@n2"}, bindNames(r))
}

// A victim PodGroup with disruptionMode PodGroup, as the scheduler knows
// it, is evicted whole; with preemption off nothing is proposed.
func TestCycle_PreemptsWholeVictimGroup(t *testing.T) {
	bound := []placement.Pod{
		{Namespace: "default", Name: "v-0", NodeName: "n1", SchedulingGroup: "victims", Requests: cpu(2000), Priority: 10},
		{Namespace: "default", Name: "v-1", NodeName: "n2", SchedulingGroup: "victims", Requests: cpu(2000), Priority: 10},
	}
	nodes := []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}
	vg := gangPG("victims", 2)
	vg.Spec.DisruptionMode = DisruptionModePodGroup
	high := int32(1000)
	pg := gangPG("train", 1)
	pg.Spec.Priority = &high

	for _, on := range []bool{false, true} {
		h := newHarness(t, Options{Preemption: on, Profile: ProfileV136}, nodes, bound...)
		h.setPG(vg)
		h.setPG(pg)
		h.addPods(member("m0", "train", cpu(2000), 0))
		r, ok := h.cycle()
		require.True(t, ok)
		require.Equal(t, placement.Unschedulable, r.Decision.Status)
		if !on {
			require.Nil(t, r.Preemption)
			continue
		}
		require.NotNil(t, r.Preemption)
		require.Equal(t, []placement.Key{{Namespace: "default", Name: "v-0"}, {Namespace: "default", Name: "v-1"}}, r.Preemption.EvictedPods(),
			"the whole group goes, though one member would make room")
	}
}

// When preemption cannot help, the cycle says so in the result and the
// condition, evicts nothing and backs off as usual.
func TestCycle_PreemptionCannotHelp(t *testing.T) {
	high := placement.Pod{Namespace: "default", Name: "serving", NodeName: "n1", Requests: cpu(4000), Priority: 2000}
	h := newHarness(t, Options{Preemption: true, Profile: ProfileV136}, []placement.Node{cpuNode("n1", 4000)}, high)
	prio := int32(1000)
	pg := gangPG("train", 1)
	pg.Spec.Priority = &prio
	h.setPG(pg)
	h.addPods(member("m0", "train", cpu(4000), 0))
	r, ok := h.cycle()
	require.True(t, ok)
	require.NotNil(t, r.Preemption)
	require.Equal(t, preemption.CannotHelp, r.Preemption.Outcome)
	require.Empty(t, r.Preemption.EvictedPods())
	require.Equal(t, h.now.Add(DefaultInitialBackoff), r.RetryAt, "no victims: the usual backoff")
	require.Equal(t, "0 of min 1 members fit; default/m0 fits on none of 1 nodes: 1 Insufficient cpu; preemption cannot help: no pod of priority below 1000 is in the way", r.Condition.Message, "the decision, then the verdict, once")
}

// The scheduler keeps preemption's prepared input across cycles; a changed
// PodGroup must reach the next search. The victim group's disruptionMode
// goes from Pod (one member evicted) to PodGroup (both) between cycles.
func TestCycle_PreemptionSeesPodGroupChanges(t *testing.T) {
	bound := []placement.Pod{
		{Namespace: "default", Name: "v-0", NodeName: "n1", SchedulingGroup: "victims", Requests: cpu(2000), Priority: 10},
		{Namespace: "default", Name: "v-1", NodeName: "n2", SchedulingGroup: "victims", Requests: cpu(2000), Priority: 10},
	}
	h := newHarness(t, Options{Preemption: true, Profile: ProfileV136}, []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}, bound...)
	vg := gangPG("victims", 2)
	vg.Spec.DisruptionMode = DisruptionModePod
	h.setPG(vg)
	high := int32(1000)
	pg := gangPG("train", 1)
	pg.Spec.Priority = &high
	h.setPG(pg)
	h.addPods(member("m0", "train", cpu(2000), 0))

	r, ok := h.cycle()
	require.True(t, ok)
	require.NotNil(t, r.Preemption)
	require.Len(t, r.Preemption.EvictedPods(), 1, "disruptionMode Pod: one member makes room")

	vg.Spec.DisruptionMode = DisruptionModePodGroup
	h.setPG(vg)
	h.now = r.RetryAt
	r, ok = h.cycle()
	require.True(t, ok)
	require.NotNil(t, r.Preemption)
	require.Len(t, r.Preemption.EvictedPods(), 2, "disruptionMode PodGroup: the whole group")
}
