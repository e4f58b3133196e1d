package scaleup

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// HostnameLabel is the well-known label kubelet sets to a node's name; every
// node [Suggest] adds carries it, with its own name.
const HostnameLabel = "kubernetes.io/hostname"

// NodeShape is a kind of node the cluster could add: what cluster-autoscaler
// builds from a node group's template node (its NodeInfo: labels,
// allocatable, taints), without the node's name and topology labels, which
// [Suggest] gives each node it adds.
type NodeShape struct {
	// Name identifies the shape in a [Suggestion] and prefixes the names of
	// the nodes added ("<Name>-new-1", …). It must be unique among the
	// shapes and not empty.
	Name string
	// Labels are the labels every node of the shape carries (an instance
	// type, a GPU model). Those of the topology levels and
	// kubernetes.io/hostname are replaced on each node added.
	Labels map[string]string
	// Allocatable is status.allocatable in canonical units (CPU in
	// millicores, memory in bytes). It must not be negative and must hold
	// some capacity: "pods" absent (no limit) or positive, and some other
	// resource positive.
	Allocatable placement.ResourceList
	// Taints are spec.taints of a node of the shape.
	Taints []placement.Taint
}

// ShapesOf returns the shapes of the schedulable nodes of s, sorted by
// name: nodes with the same allocatable, taints and labels share a shape,
// labels compared without kubernetes.io/hostname and the keys in ignore
// (give the topology keys, and any other label that differs per node). A
// shape is named after the first of its nodes in name order; cordoned nodes
// (spec.unschedulable) give none. Cost: O(nodes × (labels + resources)).
func ShapesOf(s *placement.Snapshot, ignore []string) []NodeShape {
	skip := func(k string) bool { return k == HostnameLabel || slices.Contains(ignore, k) }
	seen := map[string]bool{}
	var out []NodeShape
	for id := range s.NumNodes() { // in name order: a shape's first node names it
		n := s.Node(placement.NodeID(id))
		if n.Unschedulable {
			continue
		}
		labels := maps.Clone(n.Labels)
		maps.DeleteFunc(labels, func(k, _ string) bool { return skip(k) })
		key := shapeKey(labels, n.Allocatable, n.Taints)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, NodeShape{Name: n.Name, Labels: labels, Allocatable: maps.Clone(n.Allocatable), Taints: slices.Clone(n.Taints)})
	}
	return out
}

// shapeKey is a canonical text of a shape's contents: equal for equal
// contents whatever the map order.
func shapeKey(labels map[string]string, alloc placement.ResourceList, taints []placement.Taint) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(&b, "l%q=%q;", k, labels[k])
	}
	for _, r := range slices.Sorted(maps.Keys(alloc)) {
		fmt.Fprintf(&b, "a%q=%d;", r, alloc[r])
	}
	ts := make([]string, len(taints))
	for i, t := range taints {
		ts[i] = strconv.Quote(t.Key) + "=" + strconv.Quote(t.Value) + ":" + string(t.Effect)
	}
	slices.Sort(ts)
	b.WriteString(strings.Join(ts, ";"))
	return b.String()
}

// checkShapes validates shapes and returns them sorted by name.
func checkShapes(shapes []NodeShape) ([]NodeShape, error) {
	if len(shapes) == 0 {
		return nil, placement.Errorf(placement.ErrInvalid, "scale-up", "shapes", "no node shape given: name at least one kind of node that could be added")
	}
	out := slices.Clone(shapes)
	slices.SortFunc(out, func(a, b NodeShape) int { return strings.Compare(a.Name, b.Name) })
	for i := range out {
		sh := &out[i]
		obj := fmt.Sprintf("node shape %q", sh.Name)
		if sh.Name == "" {
			return nil, placement.Errorf(placement.ErrInvalid, "node shape #0", "name", "must not be empty")
		}
		if i > 0 && out[i-1].Name == sh.Name {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "name", "appears twice")
		}
		some := false
		for _, r := range slices.Sorted(maps.Keys(sh.Allocatable)) {
			q := sh.Allocatable[r]
			if q < 0 {
				return nil, placement.Errorf(placement.ErrInvalid, obj, "allocatable["+string(r)+"]", "must not be negative, got %d", q)
			}
			some = some || (q > 0 && r != placement.ResourcePods)
		}
		if q, ok := sh.Allocatable[placement.ResourcePods]; ok && q == 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "allocatable[pods]", "is 0: a node of this shape could run no pod")
		}
		if !some {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "allocatable", "has no capacity: every resource is absent or 0")
		}
	}
	return out, nil
}
