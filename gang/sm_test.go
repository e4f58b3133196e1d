package gang_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// mgroup is the plain model of one PodGroup in the queue.
type mgroup struct {
	exists   bool
	min      int    // 0 for a basic group
	priority *int32 // the PodGroup's, which the queue orders by first
	pending  map[placement.Key]placement.Pod
	state    QueueState
	retryAt  time.Time
	attempts int
	cond     *Condition
}

// queueModel is a plain-map model of the Scheduler's queue: no trees, every
// choice made by sorting everything.
type queueModel struct {
	s      *Scheduler
	snap   *placement.Snapshot
	now    time.Time
	groups map[placement.Key]*mgroup
}

func (m *queueModel) group(k placement.Key) *mgroup {
	g, ok := m.groups[k]
	if !ok {
		g = &mgroup{pending: map[placement.Key]placement.Pod{}}
		m.groups[k] = g
	}
	return g
}

// place mirrors how an event files a group.
func (m *queueModel) place(k placement.Key, g *mgroup) {
	switch {
	case len(g.pending) == 0:
		g.state, g.attempts = Idle, 0
		if !g.exists {
			delete(m.groups, k)
		}
	case !g.exists:
		g.state = Gated
	case g.state == BackingOff:
	default:
		g.state = Active
	}
}

func sortedPods(ps map[placement.Key]placement.Pod) []placement.Pod {
	out := make([]placement.Pod, 0, len(ps))
	for _, p := range ps {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b placement.Pod) int { return placement.MemberOrder(&a, &b) })
	return out
}

// choose returns the group the next cycle must decide, applying the drops
// and gating that happen on the way, or ok = false.
func (m *queueModel) choose() (placement.Key, bool) {
	for k, g := range m.groups {
		if g.state == BackingOff && !g.retryAt.After(m.now) {
			g.state = Active
		}
		_ = k
	}
	for {
		var keys []placement.Key
		for k, g := range m.groups {
			if g.state == Active {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return placement.Key{}, false
		}
		slices.SortFunc(keys, func(a, b placement.Key) int {
			ha, hb := sortedPods(m.groups[a].pending)[0], sortedPods(m.groups[b].pending)[0]
			pa, pb := ha.Priority, hb.Priority
			if p := m.groups[a].priority; p != nil {
				pa = *p
			}
			if p := m.groups[b].priority; p != nil {
				pb = *p
			}
			if c := cmp.Compare(pb, pa); c != 0 {
				return c
			}
			if c := placement.MemberOrder(&ha, &hb); c != 0 {
				return c
			}
			return a.Compare(b)
		})
		k := keys[0]
		g := m.groups[k]
		for pk := range g.pending {
			if _, bound := m.snap.Pod(pk); bound {
				delete(g.pending, pk)
			}
		}
		if len(g.pending) == 0 {
			m.place(k, g)
			continue
		}
		if g.min > 0 && len(g.pending)+len(m.snap.GroupMembers(k)) < g.min {
			g.state = Gated
			continue
		}
		return k, true
	}
}

func smBackoff(attempts int) time.Duration {
	return min(time.Second<<min(attempts-1, 10), 10*time.Second)
}

// cycle runs one Cycle at m.now on the Scheduler and the model and
// compares them.
func (m *queueModel) cycle(t *rapid.T) {
	want, wantOK := m.choose()
	r, ok := m.s.Cycle(m.snap, m.now)
	require.Equal(t, wantOK, ok)
	if !ok {
		return
	}
	require.Equal(t, want, r.PodGroup)
	require.NoError(t, r.Err)
	g := m.groups[want]
	members := sortedPods(g.pending)
	if len(r.Bind) > 0 {
		require.Equal(t, placement.Scheduled, r.Decision.Status)
		require.GreaterOrEqual(t, len(r.Bind)+len(m.snap.GroupMembers(want)), g.min, "all-or-nothing")
	}
	var requeued []placement.Key
	for _, p := range members {
		bound := slices.ContainsFunc(r.Bind, func(b placement.Pod) bool { return b.Key() == p.Key() })
		if bound {
			delete(g.pending, p.Key())
		} else {
			requeued = append(requeued, p.Key())
		}
	}
	require.Equal(t, requeued, r.Requeued)
	// The expected condition update.
	c := Condition{Type: PodGroupScheduled, Status: ConditionFalse, Reason: ReasonUnschedulable, Message: r.Decision.Message, LastTransitionTime: m.now}
	if r.Decision.Status == placement.Scheduled {
		c.Status, c.Reason = ConditionTrue, ReasonScheduled
	}
	var wantCond *Condition
	switch old := g.cond; {
	case old != nil && old.Status == ConditionTrue && c.Status != ConditionTrue:
	case old != nil && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message:
	default:
		if old != nil && old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		wantCond, g.cond = &c, &c
	}
	require.Equal(t, wantCond, r.Condition)
	if len(g.pending) > 0 {
		g.attempts++
		g.retryAt = m.now.Add(smBackoff(g.attempts))
		g.state = BackingOff
		require.Equal(t, g.retryAt, r.RetryAt)
	} else {
		require.True(t, r.RetryAt.IsZero())
		g.state = Active // place files it as Idle
	}
	m.place(want, g)
	m.snap = r.Snapshot
}

var smGroups = []placement.Key{key("g0"), key("g1"), key("g2")}

// TestSM_Queue runs random host events and cycles against the Scheduler
// and the plain model, and checks after every step that both agree on every
// group's state, pending members, backoff and condition.
func TestSM_Queue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := []placement.Node{cpuNode("n0", 3000), cpuNode("n1", 2000)}
		snap, err := placement.NewSnapshot(nodes, nil)
		require.NoError(t, err)
		m := &queueModel{s: NewScheduler(Options{Profile: ProfileV136}), snap: snap, now: t0, groups: map[placement.Key]*mgroup{}}

		t.Repeat(map[string]func(*rapid.T){
			"SetPodGroup": func(t *rapid.T) {
				k := rapid.SampledFrom(smGroups).Draw(t, "group")
				var pg *PodGroup
				min := 0
				if rapid.Bool().Draw(t, "basic") {
					pg = basicPG(k.Name)
				} else {
					min = rapid.IntRange(1, 4).Draw(t, "min")
					pg = gangPG(k.Name, int32(min))
				}
				require.NoError(t, m.s.SetPodGroup(pg))
				g := m.group(k)
				if g.exists && g.state == BackingOff && max(g.min, 1) != max(min, 1) {
					g.state = Active // elastic minCount: re-evaluated at once
				}
				g.exists, g.min, g.priority = true, min, pg.Spec.Priority
				m.place(k, g)
			},
			"DeletePodGroup": func(t *rapid.T) {
				k := rapid.SampledFrom(smGroups).Draw(t, "group")
				g, ok := m.groups[k]
				existed := ok && g.exists
				require.Equal(t, existed, m.s.DeletePodGroup(k))
				if existed {
					g.exists, g.cond, g.priority = false, nil, nil // a new PodGroup object starts without status
					m.place(k, g)
				}
			},
			"AddPod": func(t *rapid.T) {
				i := rapid.IntRange(0, 8).Draw(t, "pod")
				p := member(fmt.Sprintf("p%d", i), smGroups[i%3].Name, cpu(int64(rapid.IntRange(0, 2).Draw(t, "cpu"))*1000), rapid.IntRange(0, 2).Draw(t, "queued"))
				p.Priority = int32(rapid.IntRange(0, 1).Draw(t, "priority"))
				k := smGroups[i%3]
				err := m.s.AddPod(p)
				if g, ok := m.groups[k]; ok {
					if _, dup := g.pending[p.Key()]; dup {
						require.ErrorIs(t, err, placement.ErrDuplicate)
						return
					}
				}
				require.NoError(t, err)
				g := m.group(k)
				g.pending[p.Key()] = p
				m.place(k, g)
			},
			"DeletePod": func(t *rapid.T) {
				i := rapid.IntRange(0, 8).Draw(t, "pod")
				pk, k := key(fmt.Sprintf("p%d", i)), smGroups[i%3]
				g, ok := m.groups[k]
				had := false
				if ok {
					_, had = g.pending[pk]
				}
				require.Equal(t, had, m.s.DeletePod(pk))
				if had {
					delete(g.pending, pk)
					m.place(k, g)
				}
			},
			"PodFinishes": func(t *rapid.T) {
				var bound []placement.Key
				for p := range m.snap.Pods() {
					bound = append(bound, p.Key())
				}
				if len(bound) == 0 {
					t.Skip("nothing bound")
				}
				k := rapid.SampledFrom(bound).Draw(t, "finished")
				var err error
				m.snap, err = m.snap.Apply(placement.Change{Remove: []placement.Key{k}})
				require.NoError(t, err)
			},
			"Cycle": func(t *rapid.T) {
				m.now = m.now.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "advance")) * time.Second)
				m.cycle(t)
			},
			// A host calls again exactly when the earliest backoff expires.
			"CycleAtNextRetry": func(t *rapid.T) {
				if next, ok := m.s.NextRetry(); ok {
					m.now = next
				}
				m.cycle(t)
			},
			"": func(t *rapid.T) {
				var earliest time.Time
				backingOff := 0
				for _, k := range smGroups {
					st, known := m.s.Group(k)
					g, ok := m.groups[k]
					require.Equal(t, ok, known, "%s known", k)
					if !ok {
						continue
					}
					require.Equal(t, g.state, st.State, "%s state", k)
					require.Equal(t, g.attempts, st.Attempts, "%s attempts", k)
					var pending []placement.Key
					for _, p := range sortedPods(g.pending) {
						pending = append(pending, p.Key())
					}
					require.Equal(t, pending, st.Pending, "%s pending", k)
					require.Equal(t, g.exists, st.PodGroup != nil)
					if g.state == BackingOff {
						backingOff++
						require.Equal(t, g.retryAt, st.RetryAt)
						if earliest.IsZero() || g.retryAt.Before(earliest) {
							earliest = g.retryAt
						}
					}
					if st.PodGroup != nil {
						c, has := st.PodGroup.Condition(PodGroupScheduled)
						require.Equal(t, g.cond != nil, has)
						if has {
							require.Equal(t, *g.cond, c)
						}
					}
				}
				require.Equal(t, backingOff, m.s.NumBackingOff())
				next, ok := m.s.NextRetry()
				require.Equal(t, !earliest.IsZero(), ok)
				require.Equal(t, earliest, next)
			},
		})
	})
}
