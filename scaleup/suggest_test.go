package scaleup

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// suggestCase is one scenario with its exact answer.
type suggestCase struct {
	name   string
	nodes  []placement.Node
	pods   []placement.Pod
	group  *placement.Group
	cs     []topology.Constraint
	shapes []NodeShape
	opts   Options
	// want
	found     bool
	shape     string
	count     int
	domain    string
	newDomain bool
	nodeNames []string
	reason    string
}

func shape(name string, alloc placement.ResourceList) NodeShape {
	return NodeShape{Name: name, Allocatable: alloc}
}

var (
	rackReq = []topology.Constraint{{Key: rackKey}}
	hostReq = []topology.Constraint{{Key: HostnameLabel}}
)

// onePodBound is member w-0 of gangOf(2, 4 GPUs) bound to node.
func onePodBound(node string) placement.Pod {
	p := gangOf(2, rl(4, 0)).Members[0]
	p.NodeName = node
	return p
}

// oneLeft is gangOf(2, 4 GPUs) with w-0 bound (see onePodBound).
func oneLeft() *placement.Group {
	g := gangOf(2, rl(4, 0))
	g.Members = g.Members[1:]
	return g
}

func twoRacks() []placement.Node {
	return []placement.Node{node("h0", "r1", rl(8, 0)), node("h1", "r1", rl(8, 0)), node("h2", "r2", rl(8, 0)), node("h3", "r2", rl(8, 0))}
}

func TestScenario_Suggest(t *testing.T) {
	bound := gangOf(3, rl(8, 0))
	bound.Members[0].NodeName = "h0"
	boundPod := bound.Members[0]
	bound.Members = bound.Members[1:]
	cases := []suggestCase{
		{
			// A 3×8-GPU gang must share a rack; each rack has two free 8-GPU
			// hosts: one host more in r1, the first rack by path.
			name: "one host into the first rack", nodes: twoRacks(), group: gangOf(3, rl(8, 0)), cs: rackReq,
			shapes: []NodeShape{shape("gpu8", rl(8, 0))},
			found:  true, shape: "gpu8", count: 1, domain: "r1", nodeNames: []string{"gpu8-new-1"},
		},
		{
			// r1 runs a pod on one host, r2 is free: r2 needs one host, r1 two.
			name: "the rack that needs fewest", nodes: twoRacks(), pods: []placement.Pod{running("busy", "h0", rl(8, 0))},
			group: gangOf(3, rl(8, 0)), cs: rackReq, shapes: []NodeShape{shape("gpu8", rl(8, 0))},
			found: true, shape: "gpu8", count: 1, domain: "r2", nodeNames: []string{"gpu8-new-1"},
		},
		{
			// A member is bound in r1, whose other host is busy: the two
			// pending members need two hosts in r1, though r2 is free.
			name: "bound members pin the rack", nodes: twoRacks(), pods: []placement.Pod{boundPod, running("busy", "h1", rl(8, 0))},
			group: bound, cs: rackReq, shapes: []NodeShape{shape("gpu8", rl(8, 0))},
			found: true, shape: "gpu8", count: 2, domain: "r1", nodeNames: []string{"gpu8-new-1", "gpu8-new-2"},
		},
		{
			// Two 8-GPU pods, no constraint, one 4-GPU node: two of the
			// large shape, as the small one cannot hold a member.
			name: "the shape that holds a member", nodes: []placement.Node{node("h0", "", rl(4, 0))}, group: gangOf(2, rl(8, 0)),
			shapes: []NodeShape{shape("large", rl(8, 0)), shape("small", rl(4, 0))},
			found:  true, shape: "large", count: 2, nodeNames: []string{"large-new-1", "large-new-2"},
		},
		{
			// Four 4-GPU pods: one 16-GPU node of either shape; the tie goes to the name.
			name: "ties by shape name", nodes: []placement.Node{node("h0", "", rl(0, 1000))}, group: gangOf(4, rl(4, 0)),
			shapes: []NodeShape{shape("b-big", rl(16, 0)), shape("a-big", rl(16, 0)), shape("small", rl(4, 0))},
			found:  true, shape: "a-big", count: 1, nodeNames: []string{"a-big-new-1"},
		},
		{
			// Fewer larger nodes beat more smaller ones: 16 GPUs short is one
			// 16-GPU node, not four 4-GPU ones.
			name: "fewest nodes over shape name", nodes: []placement.Node{node("h0", "", rl(0, 1000))}, group: gangOf(4, rl(4, 0)),
			shapes: []NodeShape{shape("a-small", rl(4, 0)), shape("z-big", rl(16, 0))},
			found:  true, shape: "z-big", count: 1, nodeNames: []string{"z-big-new-1"},
		},
		{
			// Racks have a third slot: one host into r1 beats a new rack.
			name: "a rack's free slot before a new rack", nodes: twoRacks(), group: gangOf(3, rl(8, 0)), cs: rackReq,
			shapes: []NodeShape{shape("gpu8", rl(8, 0))}, opts: Options{MaxDomainNodes: 3, NewDomain: "r9"},
			found: true, shape: "gpu8", count: 1, domain: "r1", nodeNames: []string{"gpu8-new-1"},
		},
		{
			// With two slots per rack no rack can take a host, and a new
			// rack of two cannot hold the gang of three.
			name: "never: racks of two slots", nodes: twoRacks(), group: gangOf(3, rl(8, 0)), cs: rackReq,
			shapes: []NodeShape{shape("gpu8", rl(8, 0))}, opts: Options{MaxDomainNodes: 2, NewDomain: "r9"},
			found: false, reason: "no choice of up to 3 node(s) of one shape added to any of 2 domains of topology.kubernetes.io/rack or a new one makes it fit (at most 2 nodes per domain)",
		},
		{
			// Each rack's host is busy and has one slot left: a new rack of
			// two, named under the first block.
			name: "a new rack in the first block", group: gangOf(2, rl(8, 0)),
			pods: []placement.Pod{running("busy-0", "h0", rl(8, 0)), running("busy-1", "h1", rl(8, 0))},
			nodes: []placement.Node{
				{Name: "h0", Labels: map[string]string{blockKey: "b2", rackKey: "r1"}, Allocatable: rl(8, 0)},
				{Name: "h1", Labels: map[string]string{blockKey: "b1", rackKey: "r1"}, Allocatable: rl(8, 0)}},
			cs: rackReq, shapes: []NodeShape{shape("gpu8", rl(8, 0))}, opts: Options{TopologyKeys: []string{blockKey, rackKey}, MaxDomainNodes: 2, NewDomain: "rn"},
			found: true, shape: "gpu8", count: 2, domain: "b1/rn", newDomain: true, nodeNames: []string{"gpu8-new-1", "gpu8-new-2"},
		},
		{
			// A member needs 16 GPUs and no shape has more than 8.
			name: "never: a member larger than every shape", nodes: twoRacks(), group: gangOf(1, rl(16, 0)), cs: rackReq,
			shapes: []NodeShape{shape("gpu8", rl(8, 0))},
			found:  false, reason: "no choice of up to 1 node(s) of one shape added to any of 2 domains of topology.kubernetes.io/rack makes it fit",
		},
		{
			// GPUs are short and no shape has any.
			name: "never: no shape has the resource", nodes: twoRacks(), group: gangOf(3, rl(8, 0)), cs: rackReq,
			shapes: []NodeShape{shape("cpu", rl(0, 64000))},
			found:  false, reason: "no choice of up to 3 node(s) of one shape added to any of 2 domains of topology.kubernetes.io/rack makes it fit: no node shape has nvidia.com/gpu",
		},
		{
			// The shape is tainted and the members do not tolerate it.
			name: "never: a tainted shape", nodes: twoRacks(), group: gangOf(3, rl(8, 0)), cs: rackReq,
			shapes: []NodeShape{{Name: "gpu8", Allocatable: rl(8, 0), Taints: []placement.Taint{{Key: "gpu", Effect: placement.TaintEffectNoSchedule}}}},
			found:  false, reason: "no choice of up to 3 node(s) of one shape added to any of 2 domains of topology.kubernetes.io/rack makes it fit",
		},
		{
			// Two racks' two hosts hold a 2-member gang now: nothing to add.
			name: "fits as it is", nodes: twoRacks(), group: gangOf(2, rl(8, 0)), cs: rackReq,
			shapes: []NodeShape{shape("gpu8", rl(8, 0))}, found: true,
		},
		{
			// All members on one node, and no node holds both: one new node
			// of the shape that does, a domain of its own.
			name: "one node for a one-node gang", nodes: []placement.Node{node("h0", "", rl(4, 0)), node("h1", "", rl(4, 0))},
			group: gangOf(2, rl(4, 0)), cs: hostReq, shapes: []NodeShape{shape("big", rl(8, 0)), shape("small", rl(4, 0))},
			found: true, shape: "big", count: 1, domain: "big-new-1", newDomain: true, nodeNames: []string{"big-new-1"},
		},
		{
			// The same with racks above the hostname level: the node goes
			// into the first rack.
			name: "one node into the first rack", nodes: twoRacks(), group: gangOf(2, rl(8, 0)), cs: hostReq,
			shapes: []NodeShape{shape("big", rl(16, 0))}, opts: Options{TopologyKeys: []string{rackKey, HostnameLabel}},
			found: true, shape: "big", count: 1, domain: "r1/big-new-1", newDomain: true, nodeNames: []string{"big-new-1"},
		},
		{
			// A member is bound to h0, which cannot hold the other: a node
			// cannot grow.
			name: "never: the bound member's node", nodes: []placement.Node{node("h0", "", rl(4, 0))},
			pods: []placement.Pod{onePodBound("h0")}, group: oneLeft(), cs: hostReq, shapes: []NodeShape{shape("big", rl(8, 0))},
			found: false, reason: "the node of its bound members cannot grow (kubernetes.io/hostname is required)",
		},
		{
			// No shape holds both members.
			name: "never: no shape holds the one-node gang", nodes: []placement.Node{node("h0", "", rl(4, 0))},
			group: gangOf(2, rl(4, 0)), cs: hostReq, shapes: []NodeShape{shape("small", rl(4, 0))},
			found: false, reason: "no single new node of one shape holds it (kubernetes.io/hostname is required)",
		},
		{
			// A new node takes a name no node has.
			name: "names skip taken ones", nodes: []placement.Node{node("gpu8-new-1", "", rl(8, 0))}, group: gangOf(2, rl(8, 0)),
			shapes: []NodeShape{shape("gpu8", rl(8, 0))},
			found:  true, shape: "gpu8", count: 1, nodeNames: []string{"gpu8-new-2"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := placement.NewSnapshot(tc.nodes, tc.pods)
			require.NoError(t, err)
			sug, err := Suggest(s, tc.group, tc.cs, tc.shapes, tc.opts)
			require.NoError(t, err)
			require.Equal(t, tc.found, sug.Found, sug.Reason)
			require.Equal(t, tc.reason, sug.Reason)
			require.True(t, sug.Proven)
			require.Equal(t, tc.shape, sug.Shape)
			require.Equal(t, tc.count, sug.Count)
			require.Equal(t, tc.domain, sug.Domain)
			require.Equal(t, tc.newDomain, sug.NewDomain)
			var names []string
			for _, n := range sug.Nodes {
				names = append(names, n.Name)
			}
			require.Equal(t, tc.nodeNames, names)
		})
	}
}

// TestSuggest_NodeLabels: an added node carries the shape's labels, the
// domain's labels of the required level and every wider one, none of a
// narrower level, and its own hostname.
func TestSuggest_NodeLabels(t *testing.T) {
	nodes := []placement.Node{
		{Name: "h0", Labels: map[string]string{blockKey: "b1", rackKey: "r1", "zone-sub": "x"}, Allocatable: rl(8, 0)},
	}
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	sh := NodeShape{Name: "gpu8", Allocatable: rl(8, 0), Labels: map[string]string{"instance-type": "p5", rackKey: "stale", "zone-sub": "stale", HostnameLabel: "stale"}}
	sug, err := Suggest(s, gangOf(2, rl(8, 0)), []topology.Constraint{{Key: blockKey}}, []NodeShape{sh},
		Options{TopologyKeys: []string{blockKey, rackKey, "zone-sub"}})
	require.NoError(t, err)
	require.Len(t, sug.Nodes, 1)
	require.Equal(t, map[string]string{"instance-type": "p5", blockKey: "b1", HostnameLabel: "gpu8-new-1"}, sug.Nodes[0].Labels)
	require.Equal(t, blockKey, sug.Key)
	require.Equal(t, "b1", sug.Domain)
}

// TestSuggest_Filters: the caller's filter rejects nodes without the label
// pool=new, so the existing free host does not count and two are added.
func TestSuggest_Filters(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{node("h0", "", rl(8, 0))}, nil)
	require.NoError(t, err)
	pool := placement.FilterFunc(func(_ *placement.Pod, n placement.NodeInfo) placement.Rejection {
		if n.Node().Labels["pool"] != "new" {
			return placement.Rejection{Reason: "not in pool new", Unresolvable: true}
		}
		return placement.Rejection{}
	})
	sh := NodeShape{Name: "gpu8", Allocatable: rl(8, 0), Labels: map[string]string{"pool": "new"}}
	sug, err := Suggest(s, gangOf(2, rl(8, 0)), nil, []NodeShape{sh}, Options{Filters: []placement.Filter{pool}})
	require.NoError(t, err)
	require.True(t, sug.Found)
	require.Equal(t, 2, sug.Count)
}

// TestSuggest_MaxSolves: a search cut short says so and is not Proven.
func TestSuggest_MaxSolves(t *testing.T) {
	s, err := placement.NewSnapshot(twoRacks(), nil)
	require.NoError(t, err)
	sug, err := Suggest(s, gangOf(3, rl(8, 0)), rackReq, []NodeShape{shape("gpu8", rl(8, 0))}, Options{MaxSolves: 1})
	require.NoError(t, err)
	require.False(t, sug.Found)
	require.True(t, sug.Truncated)
	require.False(t, sug.Proven)
	require.Equal(t, 1, sug.Solves)
	require.Contains(t, sug.Reason, "within 1 solves (Options.MaxSolves)")
}
