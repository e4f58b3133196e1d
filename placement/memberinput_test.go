package placement_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/topology"

	. "github.com/gangsched/gangsched/placement"
)

// miCase is an input aimed at how Solve reads a group listed member
// by member: small clusters whose bound pods (some of them the group's,
// some in another namespace under a member's name) are changed by
// Snapshot.Apply, freeing names and binding others; members in member
// order, by name only, or shuffled, of one or several priorities and
// queue times, requesting different sets of tracked resources (some with
// 0, some untracked); pod sets mixed with them; and bad members and pod
// sets (a bound or repeated name, another namespace or group, a nodeName,
// a bad request, an empty name, a bad affinity term, a bad count or
// template): none in a third of the cases, one in twelve or one in three
// in the others (ten times rarer in groups of 20 or more). The hooks
// check what they are handed: each assignment's Member is the index of
// the pod it names, and its RequestVector that pod's requests.
type miCase struct {
	s    *Snapshot
	g    *Group
	opts Options
	desc string
	// probs collects what the hooks found wrong; seen counts the
	// assignments they checked.
	probs *[]string
	seen  *int
}

// miNames are the names bound pods, pod sets and bad members share.
var miNames = []string{"a", "b", "c", "m1", "m2", "m3", "x", "z"}

// miRequests draws a request map over tracked and untracked resources; bad
// adds an invalid entry.
func miRequests(r choices, bad bool) ResourceList {
	names := []ResourceName{ResourceCPU, ResourceMemory, ResourceGPU, "example.com/foo", "ephemeral-storage", "hugepages-1Gi", "example.com/none"}
	if r.OneIn(8) && !bad {
		return nil
	}
	rl := ResourceList{}
	for _, n := range names {
		if r.OneIn(3) {
			rl[n] = []int64{0, 1, 2, 1000, 2000}[r.IntN(5)]
		}
	}
	if bad {
		switch r.IntN(3) {
		case 0:
			rl[names[r.IntN(len(names))]] = -1
		case 1:
			rl[ResourcePods] = int64(r.IntN(2))
		default:
			rl[""] = 1
		}
	}
	return rl
}

// miBoundPod is a bound pod of a drawn namespace and name on a drawn node.
func miBoundPod(r choices, nodes []Node) Pod {
	p := Pod{Namespace: []string{"default", "default", "team-a"}[r.IntN(3)], Name: miNames[r.IntN(len(miNames))],
		NodeName: nodes[r.IntN(len(nodes))].Name, Requests: ResourceList{ResourceCPU: int64(r.IntN(3)) * 100}}
	if r.OneIn(3) {
		p.SchedulingGroup = "pg"
	}
	return p
}

// miCheck reports what is wrong with assignments a handed to a hook of g.
func miCheck(s *Snapshot, g GroupView, a []Assignment) []string {
	var probs []string
	for _, x := range a {
		if x.Count == 0 {
			if x.Member < 0 || x.Member >= len(g.Members) || g.Members[x.Member].Key() != x.Pod || g.PendingKey(x.Member) != x.Pod {
				probs = append(probs, fmt.Sprintf("%s: Member %d", x.Pod, x.Member))
			} else if v := g.RequestVector(s, x.Member); !slices.Equal(v, wantRequestVector(s, &g.Members[x.Member])) {
				probs = append(probs, fmt.Sprintf("%s: RequestVector %v", x.Pod, v))
			}
			continue
		}
		k := slices.IndexFunc(g.PodSets, func(ps PodSet) bool { return ps.Name == x.Pod.Name })
		if k < 0 || x.Member != g.PodSetStart(k) {
			probs = append(probs, fmt.Sprintf("pod set %s: Member %d", x.Pod, x.Member))
		} else if v := g.RequestVector(s, x.Member); !slices.Equal(v, wantRequestVector(s, &g.PodSets[k].Template)) {
			probs = append(probs, fmt.Sprintf("pod set %s: RequestVector %v", x.Pod, v))
		}
	}
	return probs
}

func miDraw(t *rapid.T) miCase {
	r := choices{t}
	c := miCase{probs: new([]string), seen: new(int)}
	nodes := make([]Node, 1+r.IntN(10))
	for i := range nodes {
		al := ResourceList{ResourceCPU: int64(1+r.IntN(8)) * 1000, ResourceMemory: int64(1+r.IntN(8)) * 1000}
		if r.OneIn(2) {
			al[ResourceGPU] = int64(r.IntN(4))
		}
		if r.OneIn(3) {
			al[ResourcePods] = int64(1 + r.IntN(5))
		}
		if r.OneIn(3) { // tracked, as real nodes list them
			al["ephemeral-storage"], al["hugepages-1Gi"] = int64(r.IntN(3))*1000, 0
		}
		if r.OneIn(10) {
			al["example.com/foo"] = 2000
		}
		nodes[i] = Node{Name: fmt.Sprintf("n%02d", i), Allocatable: al,
			Labels: map[string]string{"rack": fmt.Sprintf("r%d", i/3), "kind": fmt.Sprintf("k%d", i%2)}}
		if r.OneIn(8) {
			nodes[i].Taints = []Taint{{Key: "dedicated", Value: "x", Effect: TaintEffectNoSchedule}}
		}
	}
	var pods []Pod
	bound := map[Key]bool{}
	for range r.IntN(8) {
		if p := miBoundPod(r, nodes); !bound[p.Key()] {
			bound[p.Key()] = true
			pods = append(pods, p)
		}
	}
	s, err := NewSnapshot(nodes, pods)
	if err != nil {
		panic(err) // the draw builds valid snapshots only
	}
	c.desc = fmt.Sprintf("nodes=%d pods=%d", len(nodes), len(pods))
	for range r.IntN(4) {
		var ch Change
		for _, k := range slices.SortedFunc(func(yield func(Key) bool) {
			for k := range bound {
				if !yield(k) {
					return
				}
			}
		}, Key.Compare) {
			if r.OneIn(3) {
				ch.Remove = append(ch.Remove, k)
			}
		}
		for range r.IntN(4) {
			ch.Bind = append(ch.Bind, miBoundPod(r, nodes))
		}
		if d, err := s.Apply(ch); err == nil { // a name bound twice is rejected
			s = d
			for _, k := range ch.Remove {
				delete(bound, k)
			}
			for _, p := range ch.Bind {
				bound[p.Key()] = true
			}
			c.desc += fmt.Sprintf(" apply(-%d+%d)", len(ch.Remove), len(ch.Bind))
		}
	}
	c.s = s

	ns := []string{"default", "default", "default", "team-a"}[r.IntN(4)]
	g := &Group{Namespace: ns, Name: "pg", Policy: []Policy{PolicyGang, "", PolicyBasic}[r.IntN(3)]}
	badOneIn := []int{1 << 24, 12, 3}[r.IntN(3)] // 1<<24: never
	n := r.IntN(9)
	if r.OneIn(8) {
		n = 20 + r.IntN(100)
		badOneIn *= 10
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	alike, uniform := r.OneIn(2), r.OneIn(2)
	shape := miRequests(r, false)
	for i := range n {
		p := Pod{Namespace: ns, Name: fmt.Sprintf("p%03d", i), SchedulingGroup: "pg", Requests: shape}
		if !alike {
			p.Requests = miRequests(r, false)
		}
		if !uniform {
			p.Priority = int32(r.IntN(3)) * 5
			p.QueuedAt = t0.Add(time.Duration(r.IntN(3)) * time.Second)
		}
		if r.OneIn(6) {
			p.NodeSelector = map[string]string{"kind": fmt.Sprintf("k%d", r.IntN(2))}
		}
		if r.OneIn(5) {
			p.Labels = map[string]string{"role": []string{"a", "b"}[r.IntN(2)]}
		}
		if r.OneIn(12) {
			term := PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: map[string]string{"role": "a"}},
				TopologyKey: []string{"rack", "kubernetes.io/hostname"}[r.IntN(2)]}
			p.Affinity = &Affinity{PodAntiAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 10, Term: term}}}}
			if r.OneIn(2) {
				p.Affinity = &Affinity{PodAffinity: &PodAffinity{Required: []PodAffinityTerm{term}}}
			}
		}
		if r.OneIn(badOneIn) {
			switch r.IntN(8) {
			case 0:
				p.Namespace = []string{"aaa", "team-a", "zzz"}[r.IntN(3)]
			case 1:
				p.SchedulingGroup = "other"
			case 2:
				p.NodeName = nodes[0].Name
			case 3:
				p.Requests = miRequests(r, true)
			case 4:
				p.Name = ""
			case 5:
				p.Affinity = &Affinity{PodAffinity: &PodAffinity{Required: []PodAffinityTerm{{TopologyKey: ""}}}}
			case 6: // bound, a removed pod's name, or a duplicate
				p.Name = miNames[r.IntN(len(miNames))]
			default:
				p.Name = fmt.Sprintf("p%03d", r.IntN(n))
			}
		}
		g.Members = append(g.Members, p)
	}
	if r.OneIn(3) {
		for k := range 1 + r.IntN(3) {
			ps := PodSet{Name: fmt.Sprintf("set%d", k), Count: int32(1 + r.IntN(4)),
				Template: Pod{Requests: miRequests(r, false), Priority: int32(r.IntN(3)) * 5}}
			if r.OneIn(4) {
				ps.Name = miNames[r.IntN(len(miNames))] // bound, or not
			}
			if r.OneIn(badOneIn) {
				switch r.IntN(3) {
				case 0:
					ps.Count = 0
				case 1:
					ps.Template.Requests = miRequests(r, true)
				default:
					ps.Template.Affinity = &Affinity{}
				}
			}
			g.PodSets = append(g.PodSets, ps)
		}
	}
	switch r.IntN(3) {
	case 0:
		slices.SortFunc(g.Members, func(a, b Pod) int { return MemberOrder(&a, &b) })
	case 1:
		slices.SortFunc(g.Members, func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	default:
		r.Shuffle(len(g.Members), func(i, j int) { g.Members[i], g.Members[j] = g.Members[j], g.Members[i] })
	}
	total := g.NumPending() + len(s.GroupMembers(g.Key()))
	g.MinCount = int32(1 + r.IntN(max(total, 1)))
	if r.OneIn(10) {
		g.MinCount = int32(r.IntN(total + 2)) // maybe out of range
	}
	c.g = g

	check := func(s *Snapshot, g GroupView, a []Assignment) {
		*c.probs = append(*c.probs, miCheck(s, g, a)...)
		*c.seen += len(a)
	}
	if r.OneIn(3) {
		m := NodeID(2 + r.IntN(3))
		c.opts.Filters = []Filter{modFilter(m, r.OneIn(2))}
	}
	if r.OneIn(5) {
		limit := 1 + r.IntN(3)
		c.opts.Reservers = []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) {
			return &miReserver{limit: limit, on: map[NodeID]int{}}, nil
		}}
	}
	if r.OneIn(3) {
		c.opts.PlacementFilters = []PlacementFilter{PlacementFilterFunc(func(s *Snapshot, g GroupView, p *Placement, a []Assignment) Rejection {
			check(s, g, a)
			if len(a) > 0 && a[len(a)-1].NodeID == p.Nodes[0] {
				return Rejection{Reason: "last on the first node"}
			}
			return Rejection{}
		})}
	}
	if r.OneIn(4) {
		t, err := topology.NewTree(s, []string{"rack"})
		if err != nil {
			panic(err)
		}
		o, err := t.SolverOptions([]topology.Constraint{{Key: "rack", Preferred: r.OneIn(2)}}, topology.Scoring(r.IntN(2)))
		if err != nil {
			panic(err)
		}
		c.opts.Generator, c.opts.Scorer = o.Generator, o.Scorer
		c.desc += " topology"
	}
	if r.OneIn(3) {
		inner := c.opts.Scorer
		if inner == nil {
			inner = DefaultScorer{}
		}
		reverse := r.OneIn(2) // allowed: costs the solver a fresh list
		c.opts.Scorer = PlacementScorerFunc(func(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error) {
			check(s, g, a)
			score, _ := inner.Score(s, g, p, a)
			if reverse {
				slices.Reverse(a)
			}
			return score, nil
		})
	}
	if r.OneIn(6) {
		c.opts.Budget = int64(1 + r.IntN(40))
	}
	c.desc += fmt.Sprintf(" members=%d podSets=%d badOneIn=%d", len(g.Members), len(g.PodSets), badOneIn)
	return c
}

// miReserver admits limit members per node.
type miReserver struct {
	limit int
	on    map[NodeID]int
}

func (m *miReserver) Filter(_ *Pod, ni NodeInfo) Rejection {
	if m.on[ni.ID()] >= m.limit {
		return Rejection{Reason: "node(s) were reserved"}
	}
	return Rejection{}
}
func (m *miReserver) Reserve(_ *Pod, ni NodeInfo)   { m.on[ni.ID()]++ }
func (m *miReserver) Unreserve(_ *Pod, ni NodeInfo) { m.on[ni.ID()]-- }

// miResult is what a Solve of a miCase returns, the error as its
// sentinels, object, field and message, and Verify's answer on it.
type miResult struct {
	d         Decision
	err       string
	verifyErr string
}

func miErr(err error) string {
	if err == nil {
		return ""
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		return "not a FieldError: " + err.Error()
	}
	return fmt.Sprintf("invalid=%v duplicate=%v notFound=%v object=%s field=%s: %v",
		errors.Is(err, ErrInvalid), errors.Is(err, ErrDuplicate), errors.Is(err, ErrNotFound), fe.Object, fe.Field, err)
}

// miSolve solves c with group g and checks what holds whatever the
// order: the caller's group unchanged, every Member of the Decision 0, the
// hooks handed right Member indexes.
func miSolve(t require.TestingT, c miCase, g *Group) miResult {
	before := *g
	before.Members, before.PodSets = slices.Clone(g.Members), slices.Clone(g.PodSets)
	*c.probs = nil
	d, err := Solve(c.s, g, c.opts)
	require.Empty(t, *c.probs, c.desc)
	require.True(t, reflect.DeepEqual(&before, g), "Solve wrote the caller's group: %s", c.desc)
	for _, a := range d.Assignments {
		require.Zero(t, a.Member, c.desc)
	}
	res := miResult{d: d, err: miErr(err)}
	if err == nil {
		res.verifyErr = fmt.Sprint(Verify(c.s, g, d, c.opts.Filters...))
		if d.Status == Scheduled {
			require.Equal(t, "<nil>", res.verifyErr, c.desc)
		}
	}
	return res
}

// TestProp_MemberInputInAnyOrder: a group listed member by member gets
// the same Decision (Member 0 in every assignment, Steps included) or the
// same error (sentinel, object, field and message) whether its members
// come in member order — which Solve checks in one pass and then trusts
// — reversed or shuffled, valid or not, on snapshots derived with Apply;
// the hooks are always handed each assignment's own Member index.
func TestProp_MemberInputInAnyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := miDraw(t)
		ref := *c.g
		ref.Members = slices.SortedFunc(slices.Values(c.g.Members), func(a, b Pod) int { return MemberOrder(&a, &b) })
		want := miSolve(t, c, &ref)
		reversed := ref
		reversed.Members = slices.Clone(ref.Members)
		slices.Reverse(reversed.Members)
		shuffled := ref
		shuffled.Members = rapid.Permutation(ref.Members).Draw(t, "members")
		shuffled.PodSets = rapid.Permutation(ref.PodSets).Draw(t, "podSets")
		for _, g := range []*Group{&reversed, &shuffled} {
			require.Equal(t, want, miSolve(t, c, g), c.desc)
		}
	})
}

// TestMemberInputDrawYieldsEveryKind: miDraw's cases include every kind
// TestProp_MemberInputInAnyOrder relies on.
func TestMemberInputDrawYieldsEveryKind(t *testing.T) {
	kinds := map[string]int{}
	for seed := range uint64(600) {
		c, _ := seeded(seed, func(t *rapid.T) (miCase, error) { return miDraw(t), nil })
		res := miSolve(t, c, c.g)
		switch {
		case strings.Contains(res.err, `object=pod "`):
			kinds["a member's error"]++
		case res.err != "":
			kinds["another error"]++
		case res.d.Status == Scheduled:
			kinds["scheduled"]++
		default:
			kinds["not scheduled"]++
		}
		if strings.Contains(res.err, "already bound") {
			kinds["a bound member"]++
		}
		if strings.Contains(c.desc, "apply") && res.err == "" {
			kinds["valid on a derived snapshot"]++
		}
		if len(c.g.PodSets) > 0 && len(c.g.Members) > 0 && res.d.Status == Scheduled {
			kinds["members and pod sets scheduled"]++
		}
		if !slices.IsSortedFunc(c.g.Members, func(a, b Pod) int { return MemberOrder(&a, &b) }) && res.err == "" {
			kinds["valid, out of member order"]++
		}
		if *c.seen > 0 {
			kinds["hooks checked assignments"]++
		}
	}
	for _, k := range []string{"a member's error", "another error", "scheduled", "not scheduled", "a bound member",
		"valid on a derived snapshot", "members and pod sets scheduled", "valid, out of member order", "hooks checked assignments"} {
		require.Positive(t, kinds[k], "no case of kind %q in %v", k, kinds)
	}
}
