package placement_test

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/topology"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

// The generators of this package's property tests (drawBatchCase,
// drawShapeCase, miDraw, classRunsDraw) and the pieces they share. Each
// makes every random choice through [choices], on the property's
// *rapid.T, so that a failing case shrinks: every choice shrinks toward 0,
// the first of a list of sizes or kinds, and every [choices.OneIn] toward
// false, the plainer option. Tests that walk a fixed set of cases instead
// take them from [seeded].

// choices draws a generator's random choices from rapid.
type choices struct{ t *rapid.T }

// IntN returns a choice in [0, n), as math/rand's IntN does; n must be
// positive.
func (c choices) IntN(n int) int { return rapid.IntRange(0, n-1).Draw(c.t, "choice") }

// OneIn reports a chance of one in n (n > 0). The generators draw their
// rarer features (a taint, a bad member, a hook) with it: it shrinks to
// false.
func (c choices) OneIn(n int) bool { return c.IntN(n) == n-1 }

// Shuffle permutes n elements with swap (Fisher–Yates); it shrinks to the
// order given.
func (c choices) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		if j := c.IntN(i + 1); j != i {
			swap(i, j)
		}
	}
}

// Perm returns a permutation of 0..n-1; it shrinks to the identity.
func (c choices) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	c.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// drawn is a generator's case with its error, as one rapid value.
type drawn[C any] struct {
	c   C
	err error
}

// seeded returns the case draw makes from seed: the example rapid draws
// for that seed, the same in every run.
func seeded[C any](seed uint64, draw func(*rapid.T) (C, error)) (C, error) {
	d := rapid.Custom(func(t *rapid.T) drawn[C] {
		c, err := draw(t)
		return drawn[C]{c, err}
	}).Example(int(seed))
	return d.c, d.err
}

// genNodeType is a class of nodes a generator builds its cluster from.
type genNodeType struct {
	alloc ResourceList
	taint bool // NoSchedule "dedicated" taint, tolerated by genTolerations
	cord  bool // unschedulable
}

// genTolerations is a fresh toleration of genNodeType.taint.
func genTolerations() []Toleration {
	return []Toleration{{Key: "dedicated", Operator: TolerationOpExists}}
}

// genTypeOf picks the type of node i: the types in runs of block nodes,
// and one node in oneIn of any type.
func genTypeOf(r choices, i, block, types, oneIn int) int {
	t := (i / block) % types
	if r.OneIn(oneIn) {
		t = r.IntN(types)
	}
	return t
}

// genNode is a node of type nt; labels are its own.
func genNode(name string, nt genNodeType, labels map[string]string) Node {
	n := Node{Name: name, Allocatable: nt.alloc, Unschedulable: nt.cord, Labels: labels}
	if nt.taint {
		n.Taints = []Taint{{Key: "dedicated", Value: "x", Effect: TaintEffectNoSchedule}}
	}
	return n
}

// fitsCPUMemory reports whether p's CPU and memory fit n's allocatable
// alone, so that a bound pod never starts out overcommitting its node.
func fitsCPUMemory(p Pod, n Node) bool {
	return p.Requests[ResourceCPU] <= n.Allocatable[ResourceCPU] && p.Requests[ResourceMemory] <= n.Allocatable[ResourceMemory]
}

// genChange removes one in removeOneIn of s's pods not in a group and binds
// fewer than maxBinds pods, bind(k, node) on random nodes.
func genChange(r choices, s *Snapshot, nodes []Node, removeOneIn, maxBinds int, bind func(k int, node string) Pod) Change {
	var ch Change
	for p := range s.Pods() {
		if r.OneIn(removeOneIn) && p.SchedulingGroup == "" {
			ch.Remove = append(ch.Remove, p.Key())
		}
	}
	for k := range r.IntN(maxBinds) {
		i := r.IntN(len(nodes))
		ch.Bind = append(ch.Bind, bind(k, nodes[i].Name))
	}
	return ch
}

// genShape is the shape of a pending pod; members and pod sets are drawn
// from a generator's shapes, so a set may be identical to members or to
// another set.
type genShape struct {
	req  ResourceList
	sel  map[string]string
	tol  []Toleration
	prio int32
}

// genConstrain draws sh's node selector (one of kinds node types),
// tolerations and priority.
func genConstrain(r choices, sh *genShape, kinds int) {
	if r.OneIn(6) {
		sh.sel = map[string]string{"kind": fmt.Sprintf("k%d", r.IntN(kinds))}
	}
	if r.OneIn(5) {
		sh.tol = genTolerations()
	}
	if r.OneIn(5) {
		sh.prio = 10
	}
}

// pod is a pending member of group ns/pg of shape sh.
func (sh genShape) pod(name string) Pod {
	return Pod{Namespace: "ns", Name: name, SchedulingGroup: "pg", Requests: sh.req, NodeSelector: sh.sel,
		Tolerations: sh.tol, Priority: sh.prio}
}

// genNamer returns a source of distinct pod names "p0000"…"p9999".
func genNamer(r choices) func() string {
	used := map[int]bool{}
	return func() string {
		for {
			k := r.IntN(10000)
			if !used[k] {
				used[k] = true
				return fmt.Sprintf("p%04d", k)
			}
		}
	}
}

// genAffinity labels every member role a or b and gives it, when
// r.IntN(of) is below terms, one term on key: required affinity, preferred
// anti-affinity, preferred affinity, in that order, to the role a pods.
func genAffinity(r choices, members []Pod, key string, of, terms int) {
	for i := range members {
		m := &members[i]
		m.Labels = map[string]string{"role": []string{"a", "b"}[r.IntN(2)]}
		term := PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: map[string]string{"role": "a"}}, TopologyKey: key}
		switch k := r.IntN(of); {
		case k >= terms:
		case k == 0:
			m.Affinity = &Affinity{PodAffinity: &PodAffinity{Required: []PodAffinityTerm{term}}}
		case k == 1:
			m.Affinity = &Affinity{PodAntiAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 10, Term: term}}}}
		case k == 2:
			m.Affinity = &Affinity{PodAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 5, Term: term}}}}
		}
	}
}

// fixedPlacements is a fixed PlacementGenerator; each call hands out fresh copies,
// so that nothing the solver does to one solve's placements reaches the
// next.
type fixedPlacements []Placement

func (p fixedPlacements) Generate(*Snapshot, GroupView) ([]Placement, error) {
	out := make([]Placement, len(p))
	for i := range p {
		out[i] = p[i]
		out[i].Nodes = slices.Clone(p[i].Nodes)
	}
	return out, nil
}

// rackPlacements is one placement a placementtest rack (r0, r1, r2) of s
// that has nodes, named after the rack, its nodes in ID order.
func rackPlacements(s *Snapshot) fixedPlacements {
	var racks fixedPlacements
	for _, r := range []string{"r0", "r1", "r2"} {
		p := Placement{Name: r}
		for id := range NodeID(s.NumNodes()) {
			if s.Node(id).Labels[placementtest.RackLabel] == r {
				p.Nodes = append(p.Nodes, id)
			}
		}
		if len(p.Nodes) > 0 {
			racks = append(racks, p)
		}
	}
	return racks
}

// nodeIDs is the node IDs lo to hi-1.
func nodeIDs(lo, hi int) []NodeID {
	out := make([]NodeID, 0, hi-lo)
	for id := lo; id < hi; id++ {
		out = append(out, NodeID(id))
	}
	return out
}

// genWindows is one to four placements of consecutive IDs of n nodes, one
// in holeOneIn with a node missing inside, some ranked; wide makes half of
// them (on 64 nodes or more) at least 64 nodes long.
func genWindows(r choices, n int, wide bool, holeOneIn int) fixedPlacements {
	var gen fixedPlacements
	for k := range 1 + r.IntN(4) {
		size := 1 + r.IntN(n)
		if wide && r.OneIn(2) && n >= 64 {
			size = 64 + r.IntN(n-63)
		}
		lo := r.IntN(n - size + 1)
		nodes := nodeIDs(lo, lo+size)
		if r.OneIn(holeOneIn) && size > 2 {
			h := 1 + r.IntN(size-2)
			nodes = slices.Delete(nodes, h, h+1)
		}
		gen = append(gen, Placement{Name: fmt.Sprintf("w%d", k), Nodes: nodes, Rank: r.IntN(2)})
	}
	return gen
}

// modFilter rejects the nodes whose ID is 1 modulo m.
func modFilter(m NodeID, unresolvable bool) Filter {
	return FilterFunc(func(_ *Pod, ni NodeInfo) Rejection {
		if ni.ID()%m == 1 {
			return Rejection{Reason: "node(s) were odd", Unresolvable: unresolvable}
		}
		return Rejection{}
	})
}

// genMinCount is the group's minCount out of total pods: all of them, a
// random number, or (in of-2 draws of of) rest().
func genMinCount(r choices, total, of int, rest func() int) int32 {
	switch r.IntN(of) {
	case 0:
		return int32(total)
	case 1:
		return int32(1 + r.IntN(total))
	default:
		return int32(max(1, rest()))
	}
}

// genZoneRackOptions builds a zone > rack tree over s and draws its
// solver options: kinds 4 draws a required rack, a required zone with a
// preferred rack, a preferred rack or a required zone; kinds 5 adds a
// preferred zone before the last. Then either scoring.
func genZoneRackOptions(r choices, s *Snapshot, kinds int) (Options, string, error) {
	t, err := topology.NewTree(s, []string{"zone", "rack"})
	if err != nil {
		return Options{}, "", err
	}
	var cs []topology.Constraint
	switch k := r.IntN(kinds); {
	case k == 0:
		cs = []topology.Constraint{{Key: "rack"}}
	case k == 1:
		cs = []topology.Constraint{{Key: "zone"}, {Key: "rack", Preferred: true}}
	case k == 2:
		cs = []topology.Constraint{{Key: "rack", Preferred: true}}
	case k == 3 && kinds == 5:
		cs = []topology.Constraint{{Key: "zone", Preferred: true}}
	default:
		cs = []topology.Constraint{{Key: "zone"}}
	}
	scoring := topology.Scoring(r.IntN(2))
	o, err := t.SolverOptions(cs, scoring)
	return o, fmt.Sprintf(" topo=%v/%v", cs, scoring), err
}
