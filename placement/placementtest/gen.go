package placementtest

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// Label keys the generated nodes carry, each with a few values so that node
// selectors and topology domains collide: ZoneLabel in {z0, z1}, RackLabel
// in {r0, r1, r2}. A node may lack either label.
const (
	ZoneLabel = "topology.kubernetes.io/zone"
	RackLabel = "topology.kubernetes.io/rack"
)

// epoch is the QueuedAt of the earliest generated member; the others are
// at most two seconds later, so that equal timestamps occur.
var epoch = time.Unix(1_700_000_000, 0).UTC()

const gi = int64(1) << 30

var (
	zones  = []string{"z0", "z1"}
	racks  = []string{"r0", "r1", "r2"}
	spaces = []string{"default", "team-a"}
	groups = []string{"pg0", "pg1"}
	taints = []placement.Taint{
		{Key: "dedicated", Value: "gpu", Effect: placement.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "batch", Effect: placement.TaintEffectNoExecute},
		{Key: "spot", Value: "true", Effect: placement.TaintEffectPreferNoSchedule},
	}
	tolerations = []placement.Toleration{
		{Key: "dedicated", Operator: placement.TolerationOpEqual, Value: "gpu", Effect: placement.TaintEffectNoSchedule},
		{Key: "dedicated", Operator: placement.TolerationOpExists},
		{Key: "node.kubernetes.io/unschedulable", Operator: placement.TolerationOpExists, Effect: placement.TaintEffectNoSchedule},
		{Operator: placement.TolerationOpExists},
	}
)

// Cluster is a generated cluster: nodes and the pods bound to them. Its
// fields are plain values so that a test can reorder or edit them before
// building a snapshot.
type Cluster struct {
	// Nodes are named n00, n01, … with small capacities so that fits and
	// misfits both occur.
	Nodes []placement.Node
	// Pods are bound pods (NodeName set); some are bound members of the
	// PodGroups pg0 and pg1 in namespaces default and team-a.
	Pods []placement.Pod
}

// Snapshot builds the cluster's snapshot with [placement.NewSnapshot]. A
// generated cluster is always valid; the error is for clusters a test
// edited.
func (c Cluster) Snapshot() (*placement.Snapshot, error) {
	return placement.NewSnapshot(c.Nodes, c.Pods)
}

// quantity draws 0..8 units or absent. rapid favours the low end of a
// range and shrinks towards it, so the draw counts down from 8: roomy nodes
// are common and a shrunk failure has the simplest capacities.
func quantity(t *rapid.T, label string, unit int64) (int64, bool) {
	v := rapid.IntRange(0, 9).Draw(t, label)
	return int64(8-v) * unit, v < 9
}

// label draws one of values, or "" (absent) less often.
func label(t *rapid.T, name string, values []string) string {
	if i := rapid.IntRange(0, len(values)).Draw(t, name); i < len(values) {
		return values[i]
	}
	return ""
}

func drawNode(t *rapid.T, i int) placement.Node {
	n := placement.Node{Name: fmt.Sprintf("n%02d", i), Allocatable: placement.ResourceList{}, Labels: map[string]string{}}
	for _, r := range []struct {
		name placement.ResourceName
		unit int64
	}{{placement.ResourceCPU, 1000}, {placement.ResourceMemory, gi}, {placement.ResourceGPU, 1}, {placement.ResourcePods, 1}} {
		if q, ok := quantity(t, string(r.name), r.unit); ok {
			n.Allocatable[r.name] = q
		}
	}
	if z := label(t, "zone", zones); z != "" {
		n.Labels[ZoneLabel] = z
	}
	if r := label(t, "rack", racks); r != "" {
		n.Labels[RackLabel] = r
	}
	for _, tn := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(taints)-1), 0, 2, rapid.ID).Draw(t, "taints") {
		n.Taints = append(n.Taints, taints[tn])
	}
	n.Unschedulable = rapid.IntRange(0, 7).Draw(t, "unschedulable") == 7
	return n
}

// Clusters generates clusters of 1–8 nodes named n00, n01, … with cpu 0–8
// cores, memory 0–8 GiB, nvidia.com/gpu 0–8 and pods 0–8, each sometimes
// absent (an absent pods limit means no limit); zone and rack labels from
// small sets; up to two taints from a fixed set; sometimes unschedulable.
// Up to 12 pods named p00, p01, … are bound to random nodes, in namespace
// default or team-a, requesting 0–4 cores, 0–4 GiB and sometimes 0–2 GPUs;
// some are members of PodGroup pg0 or pg1. Bound pods may overcommit a
// node, as a real cluster can.
func Clusters() *rapid.Generator[Cluster] {
	return rapid.Custom(func(t *rapid.T) Cluster {
		var c Cluster
		for i := range rapid.IntRange(1, 8).Draw(t, "nodes") {
			c.Nodes = append(c.Nodes, drawNode(t, i))
		}
		names := make([]string, len(c.Nodes))
		for i := range c.Nodes {
			names[i] = c.Nodes[i].Name
		}
		for i := range rapid.IntRange(0, 12).Draw(t, "pods") {
			p := placement.Pod{
				Namespace: rapid.SampledFrom(spaces).Draw(t, "namespace"),
				Name:      fmt.Sprintf("p%02d", i),
				NodeName:  rapid.SampledFrom(names).Draw(t, "nodeName"),
				Requests:  drawRequests(t, 4),
				Priority:  rapid.SampledFrom([]int32{0, 100, 1000}).Draw(t, "priority"),
			}
			p.SchedulingGroup = label(t, "schedulingGroup", groups)
			c.Pods = append(c.Pods, p)
		}
		return c
	})
}

func drawRequests(t *rapid.T, maxUnits int) placement.ResourceList {
	rl := placement.ResourceList{
		placement.ResourceCPU:    int64(rapid.IntRange(0, 2*maxUnits).Draw(t, "cpu")) * 500,
		placement.ResourceMemory: int64(rapid.IntRange(0, maxUnits).Draw(t, "memory")) * gi,
	}
	if g := rapid.IntRange(-1, 2).Draw(t, "gpu"); g >= 0 {
		rl[placement.ResourceGPU] = int64(g)
	}
	return rl
}

// Snapshots generates the snapshots of [Clusters].
func Snapshots() *rapid.Generator[*placement.Snapshot] {
	return rapid.Custom(func(t *rapid.T) *placement.Snapshot {
		s, err := Clusters().Draw(t, "cluster").Snapshot()
		if err != nil {
			t.Fatalf("generated cluster is invalid: %v", err)
		}
		return s
	})
}

// shape is what makes members interchangeable for the built-in filters.
type shape struct {
	requests    placement.ResourceList
	selector    map[string]string
	tolerations []placement.Toleration
}

func drawShape(t *rapid.T) shape {
	sh := shape{requests: drawRequests(t, 3)}
	switch rapid.IntRange(0, 3).Draw(t, "nodeSelector") {
	case 1:
		sh.selector = map[string]string{ZoneLabel: rapid.SampledFrom(zones).Draw(t, "zone")}
	case 2:
		sh.selector = map[string]string{RackLabel: rapid.SampledFrom(racks).Draw(t, "rack")}
	}
	for _, i := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(tolerations)-1), 0, 2, rapid.ID).Draw(t, "tolerations") {
		sh.tolerations = append(sh.tolerations, tolerations[i])
	}
	return sh
}

// Groups generates valid groups to solve on s: PodGroup pg0 or pg1 in
// namespace default or team-a (so that some have bound members in s),
// policy Gang, "" (gang) or Basic, 1–6 pending members named m00, m01, …
// drawn from one or two shapes (requests, nodeSelector, tolerations) so that
// identical members are common, priority 0 or 100, QueuedAt within two
// seconds of one fixed instant, and a minCount in 1..bound+pending.
func Groups(s *placement.Snapshot) *rapid.Generator[*placement.Group] {
	return rapid.Custom(func(t *rapid.T) *placement.Group {
		g := &placement.Group{
			Namespace: rapid.SampledFrom(spaces).Draw(t, "namespace"),
			Name:      rapid.SampledFrom(groups).Draw(t, "name"),
			Policy:    rapid.SampledFrom([]placement.Policy{placement.PolicyGang, "", placement.PolicyBasic}).Draw(t, "policy"),
		}
		shapes := []shape{drawShape(t)}
		if rapid.Bool().Draw(t, "twoShapes") {
			shapes = append(shapes, drawShape(t))
		}
		for i := range rapid.IntRange(1, 6).Draw(t, "members") {
			sh := shapes[rapid.IntRange(0, len(shapes)-1).Draw(t, "shape")]
			g.Members = append(g.Members, placement.Pod{
				Namespace:       g.Namespace,
				Name:            fmt.Sprintf("m%02d", i),
				SchedulingGroup: g.Name,
				Requests:        maps.Clone(sh.requests),
				NodeSelector:    maps.Clone(sh.selector),
				Tolerations:     slices.Clone(sh.tolerations),
				Priority:        rapid.SampledFrom([]int32{0, 100}).Draw(t, "priority"),
				QueuedAt:        epoch.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "queuedAt")) * time.Second),
			})
		}
		bound := len(s.GroupMembers(g.Key()))
		g.MinCount = int32(rapid.IntRange(1, bound+len(g.Members)).Draw(t, "minCount"))
		return g
	})
}

// Shuffle returns copies of c and g with nodes, bound pods and members in
// an order drawn by t; the contents are unchanged, so a deterministic solver
// must decide the same (DESIGN.md invariant 6).
func Shuffle(t *rapid.T, c Cluster, g *placement.Group) (Cluster, *placement.Group) {
	out := Cluster{
		Nodes: rapid.Permutation(c.Nodes).Draw(t, "nodeOrder"),
		Pods:  rapid.Permutation(c.Pods).Draw(t, "podOrder"),
	}
	g2 := *g
	g2.Members = rapid.Permutation(g.Members).Draw(t, "memberOrder")
	return out, &g2
}
