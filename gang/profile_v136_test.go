package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfileV136_VictimAndPreemptorRank: v1.36.3's workload-aware
// preemption ranks a bound member at its PodGroup's priority (0 when
// unset) only when the group's disruptionMode is PodGroup, else at its own,
// and a preemptor at its PodGroup's priority (0 when unset) whatever its
// pods'. "held" (priority 500, of PodGroup bg) fills n1, "plain" (50, no
// group) n2; gang train's one pod (priority 100) needs a node. The rows are
// kube/testdata/v136's victim-*.yaml and preemptor-unset.yaml, which the
// real kube-scheduler v1.36.3 decides the same way (kubeoracle).
func TestProfileV136_VictimAndPreemptorRank(t *testing.T) {
	p10, p100 := int32(10), int32(100)
	cases := []struct {
		name      string
		bgPrio    *int32
		bgMode    DisruptionMode
		trainPrio *int32
		want      []placement.Key // evicted; nil: preemption cannot help
	}{
		{"bg 10, mode Pod: held ranks at its own 500", &p10, DisruptionModePod, &p100, []placement.Key{key("plain")}},
		{"bg 10, mode unset: as Pod", &p10, "", &p100, []placement.Key{key("plain")}},
		{"bg 10, mode PodGroup: held ranks at 10", &p10, DisruptionModePodGroup, &p100, []placement.Key{key("held")}},
		{"bg unset, mode PodGroup: held ranks at 0", nil, DisruptionModePodGroup, &p100, []placement.Key{key("held")}},
		{"bg unset, mode Pod", nil, DisruptionModePod, &p100, []placement.Key{key("plain")}},
		{"train unset: the preemptor ranks at 0", &p10, DisruptionModePodGroup, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			held := member("held", "bg", cpu(2000), 0)
			held.NodeName, held.Priority = "n1", 500
			plain := placement.Pod{Namespace: "default", Name: "plain", NodeName: "n2", Requests: cpu(2000), Priority: 50}
			h := newHarness(t, Options{Preemption: true, Profile: ProfileV136}, []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}, held, plain)
			bg := basicPG("bg")
			bg.Spec.Priority, bg.Spec.DisruptionMode = c.bgPrio, c.bgMode
			h.setPG(bg)
			train := gangPG("train", 1)
			train.Spec.Priority = c.trainPrio
			h.setPG(train)
			m := member("m0", "train", cpu(2000), 0)
			m.Priority = 100
			h.addPods(m)
			r, ok := h.cycle()
			require.True(t, ok)
			require.NoError(t, r.Err)
			require.NotNil(t, r.Preemption)
			if c.want == nil {
				require.Empty(t, r.Preemption.EvictedPods(), r.Condition.Message)
				require.Equal(t, ReasonUnschedulable, r.Condition.Reason)
				return
			}
			require.Equal(t, c.want, r.Preemption.EvictedPods(), r.Condition.Message)
		})
	}
}

// TestProfileV136_SchedulerNameRule: v1.36.3's group cycle
// (frameworkForPodGroup) holds only the pending pods it popped to one
// spec.schedulerName, before the cycle: a bound member another scheduler
// placed is not looked at, and a failure writes no PodGroup condition
// (each pod reads SchedulerError). kube/testdata/v136/scheduler-names.yaml
// is the same against the real kube-scheduler v1.36.3.
func TestProfileV136_SchedulerNameRule(t *testing.T) {
	const us, other = "gangsched-scheduler", "default-scheduler"
	cases := []struct {
		name          string
		second, bound string // the second pending pod's and the bound member's schedulers
		err           string // "" binds
	}{
		{"one name", us, us, ""},
		{"a bound member another scheduler placed", us, other, ""},
		{"a pending pod names another", other, us,
			`PodGroup default/g: pod "default/g-1": spec.schedulerName: "default-scheduler" differs from "gangsched-scheduler", pod "default/g-0"'s (v1.36 holds a group's pending pods to one scheduler: give them one spec.schedulerName)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := member("g-b", "g", cpu(1000), 0)
			b.NodeName, b.SchedulerName = "n1", c.bound
			s := NewScheduler(Options{Profile: ProfileV136})
			snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, []placement.Pod{b})
			require.NoError(t, err)
			require.NoError(t, s.SetPodGroup(gangPG("g", 3)))
			for i, name := range []string{us, c.second} {
				p := member(fmt.Sprintf("g-%d", i), "g", cpu(1000), 0)
				p.SchedulerName, p.Priority = name, 100
				require.NoError(t, s.AddPod(p))
			}
			r, ok := s.Cycle(snap, t0)
			require.True(t, ok)
			if c.err == "" {
				require.NoError(t, r.Err)
				require.Len(t, r.Bind, 2)
				return
			}
			require.EqualError(t, r.Err, c.err)
			require.ErrorIs(t, r.Err, placement.ErrInvalid)
			require.Empty(t, r.Bind)
			require.Nil(t, r.Condition, "v1.36 writes no PodGroup condition for it")
			require.Equal(t, []placement.Key{key("g-0"), key("g-1")}, r.Requeued)
		})
	}
}
