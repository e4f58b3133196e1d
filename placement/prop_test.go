package placement_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement/placementtest"

	. "github.com/gangsched/gangsched/placement"
)

// byLabel is a test PlacementGenerator: one placement per value of key
// (rank 0), then one per value of fallback (rank 1), named "key=value".
// Nodes without the label are in no placement. It ignores bound members on
// purpose: Solve must skip the domains that lack one.
type byLabel struct{ key, fallback string }

func (b byLabel) Generate(s *Snapshot, _ GroupView) ([]Placement, error) {
	var out []Placement
	for rank, key := range []string{b.key, b.fallback} {
		domains := map[string][]NodeID{}
		for id := range s.NumNodes() {
			if v, ok := s.Node(NodeID(id)).Labels[key]; ok {
				domains[v] = append(domains[v], NodeID(id))
			}
		}
		for _, v := range slices.Sorted(maps.Keys(domains)) {
			out = append(out, Placement{Name: key + "=" + v, Nodes: domains[v], Rank: rank})
		}
	}
	return out, nil
}

// input is one drawn solve: a cluster, a group and options whose caller
// Filters are also listed in filters, for Verify.
type input struct {
	c       placementtest.Cluster
	s       *Snapshot
	g       *Group
	opts    Options
	filters []Filter
}

// drawInput draws a cluster and a group; with hooks it may add a caller
// Filter (which forces the one-by-one path); it may always add a quota
// PlacementFilter and a rack-then-zone generator.
func drawInput(t *rapid.T, hooks bool) input {
	in := input{c: placementtest.Clusters().Draw(t, "cluster")}
	var err error
	if in.s, err = in.c.Snapshot(); err != nil {
		t.Fatalf("generated cluster is invalid: %v", err)
	}
	in.g = placementtest.Groups(in.s).Draw(t, "group")
	if hooks && rapid.Bool().Draw(t, "withFilter") {
		in.filters = []Filter{placementtest.Filters().Draw(t, "filter")}
		in.opts.Filters = in.filters
	}
	if rapid.Bool().Draw(t, "withQuota") {
		in.opts.PlacementFilters = []PlacementFilter{placementtest.Quotas().Draw(t, "quota")}
	}
	if rapid.Bool().Draw(t, "byRack") {
		in.opts.Generator = byLabel{placementtest.RackLabel, placementtest.ZoneLabel}
	}
	return in
}

// dump renders everything a snapshot shows through its API, over a fixed
// universe of resources and pod keys plus the PodGroups its pods name, so
// that two snapshots with equal dumps are indistinguishable to callers.
func dump(s *Snapshot) string {
	var b strings.Builder
	resources := []ResourceName{ResourceCPU, ResourceMemory, ResourceGPU, ResourcePods, "example.com/foo", "example.com/x"}
	fmt.Fprintf(&b, "nodes=%d pods=%d\n", s.NumNodes(), s.NumPods())
	for id := range s.NumNodes() {
		n := NodeID(id)
		fmt.Fprintf(&b, "%s:", s.Node(n).Name)
		for _, r := range resources {
			fmt.Fprintf(&b, " %s=%d/%d/%d", r, s.Allocatable(n, r), s.Requested(n, r), s.Free(n, r))
		}
		for p := range s.PodsOn(n) {
			fmt.Fprintf(&b, " %s@%s", p.Key(), p.NodeName)
		}
		b.WriteByte('\n')
	}
	groups := map[Key]bool{{"default", "pg0"}: true, {"default", "pg1"}: true, {"team-a", "pg0"}: true, {"team-a", "pg1"}: true}
	for p := range s.Pods() {
		fmt.Fprintf(&b, "%s@%s[%s]%v ", p.Key(), p.NodeName, p.SchedulingGroup, p.Requests)
		if k, ok := p.GroupKey(); ok {
			groups[k] = true
		}
	}
	b.WriteByte('\n')
	for _, g := range slices.SortedFunc(maps.Keys(groups), Key.Compare) {
		fmt.Fprintf(&b, "%s:", g)
		for _, p := range s.GroupMembers(g) {
			fmt.Fprintf(&b, " %s", p.Key())
		}
		b.WriteByte('\n')
	}
	for _, k := range append(universeKeys(), wildKeys()...) {
		if p, ok := s.Pod(k); ok {
			fmt.Fprintf(&b, "%s@%s ", k, p.NodeName)
		}
	}
	return b.String()
}

// TestProp_SolveKeepsInvariants checks DESIGN.md invariants 1–4 (capacity,
// all-or-nothing, bound members kept, filters — the built-in ones and a
// random caller Filter) with Verify, a random PlacementFilter's verdict on
// the chosen assignment, and the decision's bookkeeping; Solve must not
// change its snapshot or its group.
func TestProp_SolveKeepsInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, true)
		before, group := dump(in.s), fmt.Sprintf("%#v", in.g)
		d, err := Solve(in.s, in.g, in.opts)
		require.NoError(t, err)
		require.Equal(t, before, dump(in.s), "Solve changed the snapshot")
		require.Equal(t, group, fmt.Sprintf("%#v", in.g), "Solve changed the group")

		require.NoError(t, Verify(in.s, in.g, d, in.filters...))
		require.Equal(t, in.g.Key(), d.Group)
		bound := len(in.s.GroupMembers(in.g.Key()))
		require.Equal(t, bound, d.Bound)
		if d.Status == Scheduled {
			require.GreaterOrEqual(t, bound+len(d.Assignments), d.Required)
			for _, f := range in.opts.PlacementFilters {
				require.True(t, f.FilterPlacement(in.s, GroupView{Group: in.g}, &d.Placement, d.Assignments).OK(), "a PlacementFilter rejects the chosen assignment")
			}
		} else {
			require.Empty(t, d.Assignments)
		}
		// Assignments and Waiting partition the members, each in member order.
		order := make([]*Pod, len(in.g.Members))
		for i := range in.g.Members {
			order[i] = &in.g.Members[i]
		}
		slices.SortFunc(order, MemberOrder)
		var placed, waiting []Key
		for _, p := range order {
			if slices.ContainsFunc(d.Assignments, func(a Assignment) bool { return a.Pod == p.Key() }) {
				placed = append(placed, p.Key())
			} else {
				waiting = append(waiting, p.Key())
			}
		}
		got := make([]Key, len(d.Assignments))
		for i, a := range d.Assignments {
			got[i] = a.Pod
		}
		require.Equal(t, placed, nilIfEmpty(got))
		require.Equal(t, waiting, nilIfEmpty(d.Waiting))
	})
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestProp_PermutationInvariance checks invariant 6: listing nodes, bound
// pods and members in another order gives a deeply equal decision (or the
// same error), hooks included.
func TestProp_PermutationInvariance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, true)
		solve := func(s *Snapshot, g *Group) (Decision, error) { return Solve(s, g, in.opts) }
		if err := placementtest.CheckDeterministic(t, solve, in.c, in.g); err != nil {
			t.Fatal(err)
		}
	})
}

// noop accepts everything; a caller Filter, even this one, turns off the
// batched placement of identical members.
var noop = FilterFunc(func(*Pod, NodeInfo) Rejection { return Rejection{} })

// TestProp_BatchedEqualsOneByOne checks that placing identical members as a
// batch (no caller filters) decides exactly as placing them one by one.
// Steps differ by design: a batch scans the nodes once. A search budget of
// one step keeps the greedy passes' answer: the searches differ by design
// (without a caller Filter, identical members take non-decreasing nodes),
// so when they run both may find different, equally valid assignments —
// TestProp_WildGroupedEqualsOneByOne checks what they agree on.
func TestProp_BatchedEqualsOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, false)
		in.opts.SearchBudget = 1
		fast, err := Solve(in.s, in.g, in.opts)
		require.NoError(t, err)
		in.opts.Filters = []Filter{noop}
		slow, err := Solve(in.s, in.g, in.opts)
		require.NoError(t, err)
		require.LessOrEqual(t, fast.Steps, slow.Steps)
		if slow.Status == BudgetExhausted {
			// The one-by-one search was cut where the batch proved its
			// greedy answer the most possible; the greedy passes agree.
			require.NotEqual(t, Scheduled, fast.Status, fast.Message)
			return
		}
		// The batch proves more: its classes tell the search which
		// members are interchangeable.
		require.True(t, fast.Proven || !slow.Proven, "the one-by-one answer is proven, the batch's not")
		fast.Steps, slow.Steps, slow.Proven = 0, 0, fast.Proven
		require.Equal(t, slow, fast)
	})
}

// TestProp_HomogeneousGroupFillsCapacity checks the batched path against a
// count: members of one shape fit on a node as many times as its free room
// allows, so without hooks exactly min(members, total room) are placed, and
// the group is scheduled exactly when that reaches Required.
func TestProp_HomogeneousGroupFillsCapacity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s).Draw(t, "group")
		for i := range g.Members { // every member takes the first one's shape
			m := &g.Members[i]
			m.Requests, m.NodeSelector, m.Tolerations = g.Members[0].Requests, g.Members[0].NodeSelector, g.Members[0].Tolerations
		}
		d, err := Solve(s, g, Options{})
		require.NoError(t, err)
		room := int64(0)
		for id := range s.NumNodes() {
			room += roomFor(s, NodeID(id), &g.Members[0])
		}
		want := int(min(room, int64(len(g.Members))))
		bound := len(s.GroupMembers(g.Key()))
		required := bound + 1
		if g.IsGang() {
			required = max(int(g.MinCount), bound+1)
		}
		require.Equal(t, bound+want >= required, d.Status == Scheduled, "room %d, %s", room, d.Message)
		if d.Status == Scheduled {
			require.Len(t, d.Assignments, want)
		}
	})
}

// roomFor counts how many copies of p fit on node id, by its own reading of
// the built-in filters.
func roomFor(s *Snapshot, id NodeID, p *Pod) int64 {
	n := s.Node(id)
	tolerates := func(tn Taint) bool {
		return slices.ContainsFunc(p.Tolerations, func(t Toleration) bool { return t.Tolerates(tn) })
	}
	if n.Unschedulable && !tolerates(Taint{Key: "node.kubernetes.io/unschedulable", Effect: TaintEffectNoSchedule}) {
		return 0
	}
	for _, tn := range n.Taints {
		if tn.Effect != TaintEffectPreferNoSchedule && !tolerates(tn) {
			return 0
		}
	}
	for k, v := range p.NodeSelector {
		if n.Labels[k] != v {
			return 0
		}
	}
	room := min(s.Free(id, ResourcePods), 100)
	for r, q := range p.Requests {
		if q > 0 {
			room = min(room, max(s.Free(id, r), 0)/q)
		}
	}
	return max(room, 0)
}

// TestProp_UnresolvableMeansNoRoomEvenEmpty checks the meaning of
// Unresolvable: the group cannot be placed even when every pod that is not
// one of its bound members leaves, so preemption cannot help. (The
// converse is not required: Unschedulable may be reported where nothing
// would help.)
func TestProp_UnresolvableMeansNoRoomEvenEmpty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, true)
		d, err := Solve(in.s, in.g, in.opts)
		require.NoError(t, err)
		if d.Status != Unresolvable {
			return
		}
		var others []Key
		for p := range in.s.Pods() {
			if gk, ok := p.GroupKey(); !ok || gk != in.g.Key() {
				others = append(others, p.Key())
			}
		}
		empty, err := in.s.Apply(Change{Remove: others})
		require.NoError(t, err)
		e, err := Solve(empty, in.g, in.opts)
		require.NoError(t, err)
		require.NotEqual(t, Scheduled, e.Status, "Unresolvable (%s), yet on the emptied cluster: %s", d.Message, e.Message)
	})
}

// TestProp_VerifyRejectsBrokenDecisions mutates a scheduled decision in the
// ways a faulty scheduler would and checks that Verify notices each.
func TestProp_VerifyRejectsBrokenDecisions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, true)
		d, err := Solve(in.s, in.g, in.opts)
		require.NoError(t, err)
		if d.Status != Scheduled {
			return
		}
		broken := d
		broken.Assignments = slices.Clone(d.Assignments)
		switch rapid.IntRange(0, 3).Draw(t, "fault") {
		case 0: // a gang that drops a member below minCount, or a non-Scheduled status with assignments
			if in.g.IsGang() && d.Bound+len(d.Assignments)-1 < int(in.g.MinCount) {
				broken.Assignments = broken.Assignments[1:]
			} else {
				broken.Status = Unschedulable
			}
		case 1: // a member twice
			broken.Assignments = append(broken.Assignments, broken.Assignments[0])
		case 2: // a bound pod moved, or an unknown pod
			var k Key
			if bound := in.s.GroupMembers(in.g.Key()); len(bound) > 0 {
				k = bound[0].Key()
			} else {
				k = Key{in.g.Namespace, "stranger"}
			}
			broken.Assignments[0].Pod = k
		case 3: // a node outside the placement
			broken.Placement.Nodes = slices.DeleteFunc(slices.Clone(d.Placement.Nodes), func(id NodeID) bool { return id == d.Assignments[0].NodeID })
		}
		require.ErrorIs(t, Verify(in.s, in.g, broken, in.filters...), ErrViolation)
	})
}

// universeKeys lists the bound-pod keys a cluster test may use, sorted.
func universeKeys() []Key {
	var out []Key
	for _, ns := range []string{"default", "team-a"} {
		for i := range 20 {
			out = append(out, Key{ns, fmt.Sprintf("p%02d", i)})
		}
	}
	return out
}

// state is one snapshot in an Apply history with the pods it should hold.
type state struct {
	s     *Snapshot
	model map[Key]Pod
	dump  string
}

// TestSM_SnapshotApply is a state machine over Apply: from a generated
// cluster it binds, removes and moves pods, sometimes on an older snapshot
// of the history (a sibling fork), and after every step checks that the
// derived snapshot shows exactly what NewSnapshot builds from the same pod
// list, and that no snapshot of the history changed. Bad changes must fail
// with a FieldError and leave nothing behind.
func TestSM_SnapshotApply(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := placementtest.Clusters().Draw(t, "cluster")
		s0, err := c.Snapshot()
		require.NoError(t, err)
		model := map[Key]Pod{}
		for _, p := range c.Pods {
			model[p.Key()] = p
		}
		history := []state{{s0, model, dump(s0)}}
		cur := 0
		nodeNames := make([]string, len(c.Nodes))
		for i, n := range c.Nodes {
			nodeNames[i] = n.Name
		}
		slices.Sort(nodeNames)
		drawPod := func(t *rapid.T, k Key, known []ResourceName) Pod {
			p := Pod{Namespace: k.Namespace, Name: k.Name, NodeName: rapid.SampledFrom(nodeNames).Draw(t, "node"), Requests: ResourceList{}}
			p.SchedulingGroup = rapid.SampledFrom([]string{"", "pg0", "pg1"}).Draw(t, "group")
			for _, r := range known {
				if r != ResourcePods && rapid.Bool().Draw(t, "has"+string(r)) {
					p.Requests[r] = int64(rapid.IntRange(0, 3).Draw(t, string(r)))
				}
			}
			return p
		}
		commit := func(t *rapid.T, ch Change, next map[Key]Pod) {
			st := history[cur]
			n, err := st.s.Apply(ch)
			require.NoError(t, err)
			history = append(history, state{n, next, dump(n)})
			cur = len(history) - 1
		}
		t.Repeat(map[string]func(*rapid.T){
			"bind": func(t *rapid.T) {
				st := history[cur]
				var free []Key
				for _, k := range universeKeys() {
					if _, ok := st.model[k]; !ok {
						free = append(free, k)
					}
				}
				if len(free) == 0 {
					t.Skip("every key of the universe is bound")
				}
				next := maps.Clone(st.model)
				var ch Change
				for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(free), 1, 3, rapid.ID).Draw(t, "keys") {
					p := drawPod(t, k, st.s.Resources())
					ch.Bind = append(ch.Bind, p)
					next[k] = p
				}
				commit(t, ch, next)
			},
			"remove": func(t *rapid.T) {
				st := history[cur]
				keys := slices.SortedFunc(maps.Keys(st.model), Key.Compare)
				if len(keys) == 0 {
					return // nothing to remove
				}
				next := maps.Clone(st.model)
				var ch Change
				for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(keys), 1, 3, rapid.ID).Draw(t, "keys") {
					ch.Remove = append(ch.Remove, k)
					delete(next, k)
				}
				commit(t, ch, next)
			},
			"move": func(t *rapid.T) {
				st := history[cur]
				keys := slices.SortedFunc(maps.Keys(st.model), Key.Compare)
				if len(keys) == 0 {
					return // nothing to move
				}
				k := rapid.SampledFrom(keys).Draw(t, "key")
				p := drawPod(t, k, st.s.Resources())
				next := maps.Clone(st.model)
				next[k] = p
				commit(t, Change{Remove: []Key{k}, Bind: []Pod{p}}, next)
			},
			"fork": func(t *rapid.T) {
				cur = rapid.IntRange(0, len(history)-1).Draw(t, "from")
			},
			"bad": func(t *rapid.T) {
				st := history[cur]
				keys := slices.SortedFunc(maps.Keys(st.model), Key.Compare)
				var free []Key
				for _, k := range universeKeys() {
					if _, ok := st.model[k]; !ok {
						free = append(free, k)
					}
				}
				// A valid part first, so that a half-applied change would show.
				var ch Change
				if len(keys) > 0 && rapid.Bool().Draw(t, "validRemove") {
					ch.Remove = append(ch.Remove, keys[0])
				}
				if len(free) == 0 {
					t.Skip("every key of the universe is bound")
				}
				newKey := free[0]
				good := drawPod(t, newKey, st.s.Resources())
				ch.Bind = append(ch.Bind, good)
				var want error
				fault := rapid.IntRange(0, 6).Draw(t, "fault")
				if (fault == 1 && len(ch.Remove) == 0) || (fault == 6 && (len(keys) == 0 || len(ch.Remove) > 0)) {
					fault = 0 // that fault needs a bound pod this state lacks
				}
				switch fault {
				case 0:
					ch.Remove = append(ch.Remove, Key{"default", "ghost"})
					want = ErrNotFound
				case 1:
					ch.Remove = append(ch.Remove, ch.Remove[0])
					want = ErrDuplicate
				case 2:
					ch.Bind = append(ch.Bind, good)
					want = ErrDuplicate
				case 3:
					bad := drawPod(t, free[1], st.s.Resources())
					bad.NodeName = "nowhere"
					ch.Bind = append(ch.Bind, bad)
					want = ErrNotFound
				case 4:
					bad := drawPod(t, free[1], st.s.Resources())
					bad.Requests = ResourceList{ResourceCPU: -1}
					ch.Bind = append(ch.Bind, bad)
					want = ErrInvalid
				case 5:
					bad := drawPod(t, free[1], st.s.Resources())
					bad.Requests = ResourceList{"example.com/foo": 1}
					ch.Bind = append(ch.Bind, bad)
					want = ErrInvalid
				case 6:
					ch.Bind = append(ch.Bind, drawPod(t, keys[0], st.s.Resources()))
					want = ErrDuplicate
				}
				n, err := st.s.Apply(ch)
				require.ErrorIs(t, err, want)
				var fe *FieldError
				require.ErrorAs(t, err, &fe)
				require.Nil(t, n)
			},
			"": func(t *rapid.T) {
				st := history[cur]
				pods := make([]Pod, 0, len(st.model))
				for _, k := range slices.SortedFunc(maps.Keys(st.model), Key.Compare) {
					pods = append(pods, st.model[k])
				}
				fresh, err := NewSnapshot(c.Nodes, pods)
				require.NoError(t, err)
				require.Equal(t, dump(fresh), dump(st.s), "Apply and NewSnapshot disagree")
				for i, h := range history {
					require.Equal(t, h.dump, dump(h.s), "snapshot %d of the history changed", i)
				}
			},
		})
	})
}

// TestProp_ShuffleKeepsContents guards the permutation tests themselves: a
// shuffled input holds the same nodes, pods and members.
func TestProp_ShuffleKeepsContents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, false)
		c2, g2 := placementtest.Shuffle(t, in.c, in.g)
		s2, err := c2.Snapshot()
		require.NoError(t, err)
		require.Equal(t, dump(in.s), dump(s2))
		sorted := func(ps []Pod) []Pod {
			return slices.SortedFunc(slices.Values(ps), func(a, b Pod) int { return a.Key().Compare(b.Key()) })
		}
		require.True(t, reflect.DeepEqual(sorted(in.g.Members), sorted(g2.Members)))
	})
}
