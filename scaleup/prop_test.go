package scaleup

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// propCase is a small cluster, a group that may not fit, and shapes.
type propCase struct {
	nodes  []placement.Node
	pods   []placement.Pod
	group  *placement.Group
	keys   []string
	cs     []topology.Constraint
	shapes []NodeShape
	opts   Options
}

// both lists GPUs and CPU even when 0, so that every snapshot tracks both.
// When a member requests a resource no node lists, topology's generator
// proposes only the closest domain, even for a group that need not place
// that member (a basic group, a gang whose minCount is below its size):
// the oracle's whole-cluster solve would then miss a domain that Suggest's
// per-domain solves find.
func both(gpus, millis int64) placement.ResourceList {
	return placement.ResourceList{gpu: gpus, cpu: millis}
}

// drawSuggested draws a case and returns it with Suggest's answer for it.
func drawSuggested(t *rapid.T) (propCase, Suggestion) {
	c := drawCase(t)
	s, err := placement.NewSnapshot(c.nodes, c.pods)
	require.NoError(t, err)
	sug, err := Suggest(s, c.group, c.cs, c.shapes, c.opts)
	require.NoError(t, err)
	return c, sug
}

// drawCase draws clusters of 1–4 nodes in 2 racks (of 2 blocks, at
// times), capacities 0–4, a group of 1–3 members that may have one bound
// member and may have to share a rack or a node, and 1–2 shapes: small enough that trying every choice is cheap.
func drawCase(t *rapid.T) propCase {
	var c propCase
	twoLevels := rapid.Bool().Draw(t, "twoLevels")
	c.keys = []string{rackKey}
	if twoLevels {
		c.keys = []string{blockKey, rackKey}
	}
	for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
		n := node(fmt.Sprintf("n%d", i), rapid.SampledFrom([]string{"r0", "r1"}).Draw(t, "rack"),
			both(rapid.Int64Range(0, 4).Draw(t, "gpu"), rapid.Int64Range(0, 4).Draw(t, "cpu")))
		if twoLevels {
			n.Labels[blockKey] = rapid.SampledFrom([]string{"b0", "b1"}).Draw(t, "block")
		}
		c.nodes = append(c.nodes, n)
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "running") {
		on := rapid.SampledFrom(c.nodes).Draw(t, "on").Name
		c.pods = append(c.pods, running(fmt.Sprintf("p%d", i), on, rl(rapid.Int64Range(0, 3).Draw(t, "pgpu"), rapid.Int64Range(0, 3).Draw(t, "pcpu"))))
	}
	n := rapid.IntRange(1, 3).Draw(t, "members")
	c.group = gangOf(n, nil)
	for i := range c.group.Members {
		c.group.Members[i].Requests = rl(rapid.Int64Range(0, 3).Draw(t, "mgpu"), rapid.Int64Range(0, 3).Draw(t, "mcpu"))
	}
	if rapid.Bool().Draw(t, "basic") {
		c.group.Policy = placement.PolicyBasic
	} else {
		c.group.MinCount = int32(rapid.IntRange(1, n).Draw(t, "minCount"))
	}
	if n > 1 && rapid.IntRange(0, 3).Draw(t, "bound") == 0 {
		b := c.group.Members[0]
		b.NodeName = rapid.SampledFrom(c.nodes).Draw(t, "boundOn").Name
		c.pods = append(c.pods, b)
		c.group.Members = c.group.Members[1:]
	}
	switch rapid.IntRange(0, 4).Draw(t, "required") {
	case 1, 2, 3:
		c.cs = []topology.Constraint{{Key: rackKey}}
	case 4: // every member on one node
		c.keys = append(c.keys, HostnameLabel)
		c.cs = []topology.Constraint{{Key: HostnameLabel}}
	}
	for i := range rapid.IntRange(1, 2).Draw(t, "shapes") {
		sh := shape(fmt.Sprintf("s%d", i), both(rapid.Int64Range(0, 4).Draw(t, "sgpu"), rapid.Int64Range(0, 4).Draw(t, "scpu")))
		if sh.Allocatable[gpu] == 0 && sh.Allocatable[cpu] == 0 {
			sh.Allocatable[cpu] = 1
		}
		c.shapes = append(c.shapes, sh)
	}
	c.opts = Options{TopologyKeys: c.keys, MaxNodes: 3}
	// A new domain helps only when existing ones have few slots left.
	if rapid.Bool().Draw(t, "newDomain") {
		c.opts.NewDomain = "rn"
		c.opts.MaxDomainNodes = rapid.IntRange(1, 3).Draw(t, "maxDomainNodes")
	} else if rapid.Bool().Draw(t, "slots") {
		c.opts.MaxDomainNodes = rapid.IntRange(1, 4).Draw(t, "maxDomainNodes")
	}
	return c
}

// oracleDomain is a domain the oracle may add nodes to. A path ending
// in "<node>" stands for the added node's name.
type oracleDomain struct {
	path   string
	labels map[string]string
	size   int
	slots  int // the most nodes it may take; 0 for Options.MaxDomainNodes
}

// oracleDomains lists where nodes may go, in tie order, read from a node
// of each domain rather than from the tree's parents.
func oracleDomains(t *rapid.T, c propCase, s *placement.Snapshot) []oracleDomain {
	if len(c.cs) == 0 {
		return []oracleDomain{{path: "", labels: map[string]string{}, size: len(c.nodes)}}
	}
	tree, err := topology.NewTree(s, c.keys)
	require.NoError(t, err)
	key := c.cs[0].Key
	level, _ := tree.Level(key)
	labelsOf := func(id placement.NodeID, upTo int) map[string]string {
		out := map[string]string{}
		for _, k := range c.keys[:upTo+1] {
			out[k] = s.Node(id).Labels[k]
		}
		return out
	}
	var out []oracleDomain
	bound := s.GroupMembers(c.group.Key())
	if key == HostnameLabel {
		// A new node of its own, in the first rack; no node grows.
		if len(bound) > 0 {
			return nil
		}
		p, _ := first(tree.Domains(level - 1))
		return []oracleDomain{{path: p.Path + "/<node>", labels: labelsOf(p.Nodes[0], level-1), slots: 1}}
	}
	for d := range tree.Domains(level) {
		if len(bound) > 0 && !slices.Contains(d.Nodes, must(s.NodeOf(bound[0]))) {
			continue
		}
		out = append(out, oracleDomain{path: d.Path, labels: labelsOf(d.Nodes[0], level), size: len(d.Nodes)})
	}
	if c.opts.NewDomain != "" && len(bound) == 0 {
		labels := map[string]string{rackKey: c.opts.NewDomain}
		path := c.opts.NewDomain
		if level > 0 {
			p, _ := first(tree.Domains(level - 1))
			maps.Copy(labels, labelsOf(p.Nodes[0], level-1))
			path = p.Path + "/" + path
		}
		out = append(out, oracleDomain{path: path, labels: labels})
	}
	return out
}

func must(id placement.NodeID, _ bool) placement.NodeID { return id }

func first[T any](seq func(func(T) bool)) (T, bool) {
	for v := range seq {
		return v, true
	}
	var zero T
	return zero, false
}

// oracleFits solves the group on the whole cluster with extra nodes and
// returns whether it is Scheduled, and in which placement.
func oracleFits(t *rapid.T, c propCase, extra []placement.Node) (bool, string) {
	s, err := placement.NewSnapshot(append(slices.Clone(c.nodes), extra...), c.pods)
	require.NoError(t, err)
	var opts placement.Options
	if len(c.cs) > 0 {
		tree, err := topology.NewTree(s, c.keys)
		require.NoError(t, err)
		opts, err = tree.SolverOptions(c.cs, topology.MostAllocated)
		require.NoError(t, err)
	}
	d, err := placement.Solve(s, c.group, opts)
	require.NoError(t, err)
	require.True(t, d.Proven, "the oracle's solves are small enough to be complete")
	return d.Status == placement.Scheduled, d.Placement.Name
}

// oracleNodes are k nodes of shape sh in domain d, named apart from
// Suggest's.
func oracleNodes(sh NodeShape, d oracleDomain, k int) []placement.Node {
	out := make([]placement.Node, k)
	for i := range out {
		labels := maps.Clone(d.labels)
		labels[HostnameLabel] = fmt.Sprintf("oracle-%d", i)
		out[i] = placement.Node{Name: fmt.Sprintf("oracle-%d", i), Labels: labels, Allocatable: sh.Allocatable, Taints: sh.Taints}
	}
	return out
}

// oracle tries every count from 0 up, every domain and every shape, in
// Suggest's tie order, and returns the first choice that fits.
func oracle(t *rapid.T, c propCase) (found bool, count int, shapeName, path string) {
	s, err := placement.NewSnapshot(c.nodes, c.pods)
	require.NoError(t, err)
	if ok, _ := oracleFits(t, c, nil); ok {
		return true, 0, "", ""
	}
	doms := oracleDomains(t, c, s)
	shapes := slices.SortedFunc(slices.Values(c.shapes), func(a, b NodeShape) int { return strings.Compare(a.Name, b.Name) })
	for k := 1; k <= c.opts.MaxNodes; k++ {
		for _, d := range doms {
			if c.opts.MaxDomainNodes > 0 && len(c.cs) > 0 && d.size+k > c.opts.MaxDomainNodes || d.slots > 0 && k > d.slots {
				continue
			}
			for _, sh := range shapes {
				if ok, _ := oracleFits(t, c, oracleNodes(sh, d, k)); ok {
					return true, k, sh.Name, d.path
				}
			}
		}
	}
	return false, 0, "", ""
}

// TestProp_SuggestFewest: on small cases the suggestion is exactly the
// first choice that fits when every count, domain and shape is tried in
// tie order — so its nodes, applied, make the group fit in its domain, and
// no choice with one node fewer does — and it is the same whatever the
// order of nodes, pods, members and shapes.
func TestProp_SuggestFewest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, sug := drawSuggested(t)
		require.True(t, sug.Proven)
		found, count, shapeName, path := oracle(t, c)
		require.Equal(t, found, sug.Found, sug.Reason)
		require.Equal(t, count, sug.Count)
		require.Equal(t, shapeName, sug.Shape)
		if node, ok := strings.CutSuffix(path, "<node>"); ok {
			path = node + sug.Nodes[0].Name
		}
		require.Equal(t, path, sug.Domain)
		if sug.Count > 0 {
			ok, placed := oracleFits(t, c, sug.Nodes)
			require.True(t, ok, "the suggested nodes make it fit")
			if len(c.cs) > 0 {
				require.Equal(t, sug.Domain, placed)
			}
		}

		shuffled := c
		shuffled.nodes = permute(t, c.nodes, "nodes")
		shuffled.pods = permute(t, c.pods, "pods")
		shuffled.shapes = permute(t, c.shapes, "shapes")
		g := *c.group
		g.Members = permute(t, c.group.Members, "members")
		s2, err := placement.NewSnapshot(shuffled.nodes, shuffled.pods)
		require.NoError(t, err)
		sug2, err := Suggest(s2, &g, c.cs, shuffled.shapes, c.opts)
		require.NoError(t, err)
		require.Equal(t, sug, sug2)
	})
}

func permute[T any](t *rapid.T, xs []T, label string) []T {
	out := slices.Clone(xs)
	for i := len(out) - 1; i > 0; i-- {
		j := rapid.IntRange(0, i).Draw(t, label)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// TestDrawCase_Covers: the generator yields groups that fit as they are,
// groups that fit with nodes added (in a new domain too, or on one new
// node of their own), and groups that never fit, so that
// TestProp_SuggestFewest sees every kind of answer.
func TestDrawCase_Covers(t *testing.T) {
	seen := map[string]int{}
	// Ten checks of the default hundred cases each: a new domain or a
	// node of its own is a few cases in a hundred.
	for range 10 {
		coverOnce(t, seen)
	}
	t.Logf("kinds of answer: %v", seen)
	for _, k := range []string{"never", "fits", "own node", "new domain", "added"} {
		require.Positive(t, seen[k], "kind %q: %v", k, seen)
	}
}

func coverOnce(t *testing.T, seen map[string]int) {
	rapid.Check(t, func(t *rapid.T) {
		_, sug := drawSuggested(t)
		switch {
		case !sug.Found:
			seen["never"]++
		case sug.Count == 0:
			seen["fits"]++
		case sug.Key == HostnameLabel:
			seen["own node"]++
		case sug.NewDomain:
			seen["new domain"]++
		default:
			seen["added"]++
		}
	})
}
