package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/scaleup"
	"github.com/gangsched/gangsched/topology"
)

// NodeSuggestion is what -suggest-nodes says of a group left waiting: the
// fewest nodes of one shape already in the cluster to add, and the domain
// of its required topology key to add them to, so that it fits (see
// scaleup.Suggest), or why none would.
type NodeSuggestion struct {
	// Kind is "PodGroup", or "Pod" for a pod in no PodGroup; Name is
	// namespace/name.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Found is false when no choice within the limits makes it fit (Reason
	// says why), or the group was not searched (NotSearched says why).
	Found bool `json:"found"`
	// NotSearched says why the group was not searched; "" when it was.
	NotSearched string `json:"notSearched,omitempty"`
	// Shape names the shape by the first node of it in name order.
	Shape string `json:"shape,omitempty"`
	// Allocatable is the shape's, in canonical units.
	Allocatable map[string]int64 `json:"allocatable,omitempty"`
	// Count is how many nodes to add, 0 when the group fits as it is.
	Count int `json:"count"`
	// Key is the group's required topology key, Domain the path of its
	// domain the nodes join, NewDomain set when that domain is new
	// (-suggest-new-domain, or a node of its own for kubernetes.io/hostname).
	Key       string `json:"key,omitempty"`
	Domain    string `json:"domain,omitempty"`
	NewDomain bool   `json:"newDomain,omitempty"`
	// Nodes name the nodes to add.
	Nodes []string `json:"nodes,omitempty"`
	// Reason says why no choice would do, when Found is false.
	Reason string `json:"reason,omitempty"`
	// Proven says no choice of fewer nodes of one shape in one domain
	// fits (every solve that said no was complete).
	Proven bool `json:"proven"`
}

// suggestNodes asks scaleup.Suggest for every group of keys left waiting
// on snap, with the shapes of snap's nodes. Groups whose members use
// ResourceClaims or DoNotSchedule spread constraints are not searched:
// added nodes carry no devices, and spread is not among the filters.
func suggestNodes(c *kube.Cluster, sched *gang.Scheduler, keys []placement.Key, snap *placement.Snapshot, opts options) ([]NodeSuggestion, error) {
	levels := topologyKeys(c, opts.topologyKeys)
	// Nodes alike but for where they stand are one shape, whether or not
	// a PodGroup names the level.
	shapes := scaleup.ShapesOf(snap, append(slices.Clone(levels), levelKeys...))
	spread, err := c.TopologySpreadFilter()
	if err != nil {
		return nil, err
	}
	pending := map[placement.Key]placement.Pod{}
	for _, p := range c.Pending {
		pending[p.Key()] = p
	}
	so := *opts.suggest
	so.TopologyKeys = levels
	if c.NodeAffinity != nil {
		so.Filters = []placement.Filter{c.NodeAffinity}
	}
	var out []NodeSuggestion
	for _, k := range keys {
		st, ok := sched.Group(k)
		if !ok || st.PodGroup == nil || len(st.Pending) == 0 || st.State == gang.Gated {
			continue
		}
		kind, name := kindName(k)
		ns := NodeSuggestion{Kind: kind, Name: name}
		members := make([]placement.Pod, 0, len(st.Pending))
		claims := len(st.PodGroup.Spec.ResourceClaims) > 0
		spreads := false
		for _, pk := range st.Pending {
			p, ok := pending[pk]
			if !ok { // a victim the Job controller created again
				bound, ok := c.Snapshot.Pod(pk)
				if !ok {
					return nil, fmt.Errorf("-suggest-nodes: %s %s: pending pod %s is unknown", kind, name, pk)
				}
				p = *bound
				p.NodeName = ""
			}
			p.SchedulingGroup = k.Name // a lone pod's implicit group
			claims = claims || len(p.ResourceClaims) > 0
			spreads = spreads || (spread != nil && len(spread.Constraints[pk]) > 0)
			members = append(members, p)
		}
		switch {
		case claims:
			ns.NotSearched = "the group uses ResourceClaims, and added nodes would carry no devices"
		case spreads:
			ns.NotSearched = "members have DoNotSchedule topology spread constraints, which the search does not check"
		default:
			var cs []topology.Constraint
			for _, t := range st.PodGroup.Spec.SchedulingConstraints.Topology {
				cs = append(cs, topology.Constraint{Key: t.Key, Preferred: t.Preferred})
			}
			sug, err := scaleup.Suggest(snap, st.PodGroup.Group(members), cs, shapes, so)
			if err != nil {
				return nil, fmt.Errorf("-suggest-nodes: %s %s: %w", kind, name, err)
			}
			ns.Found, ns.Count, ns.Key, ns.Domain, ns.NewDomain, ns.Reason, ns.Proven =
				sug.Found, sug.Count, sug.Key, sug.Domain, sug.NewDomain, sug.Reason, sug.Proven
			if sug.Count > 0 {
				ns.Shape = sug.Shape
				i, _ := slices.BinarySearchFunc(shapes, sug.Shape, func(s scaleup.NodeShape, n string) int { return strings.Compare(s.Name, n) })
				ns.Allocatable = map[string]int64{}
				for r, q := range shapes[i].Allocatable {
					ns.Allocatable[string(r)] = q
				}
			}
			for _, n := range sug.Nodes {
				ns.Nodes = append(ns.Nodes, n.Name)
			}
		}
		out = append(out, ns)
	}
	return out, nil
}

// writeSuggestions prints -suggest-nodes' answers after the summary.
func writeSuggestions(w io.Writer, sugs []NodeSuggestion) {
	for _, s := range sugs {
		head := fmt.Sprintf("  add nodes: %s %s: ", s.Kind, s.Name)
		switch {
		case s.NotSearched != "":
			fmt.Fprintln(w, head+"not searched: "+s.NotSearched)
		case !s.Found:
			fmt.Fprintln(w, head+"none would do: "+s.Reason)
		case s.Count == 0:
			fmt.Fprintln(w, head+"fits without new nodes")
		default:
			var alloc []string
			for _, r := range slices.Sorted(maps.Keys(s.Allocatable)) {
				if r != string(placement.ResourcePods) {
					alloc = append(alloc, r+" "+human(r, s.Allocatable[r]))
				}
			}
			where := "to the cluster"
			if s.Key != "" {
				where = fmt.Sprintf("to %s %s", s.Key, s.Domain)
				if s.NewDomain {
					where = fmt.Sprintf("as a new %s %s", s.Key, s.Domain)
				}
			}
			fewest := "fewest"
			if !s.Proven {
				fewest = "not proven fewest"
			}
			fmt.Fprintf(w, "%s%d like %s (%s) %s (%s): %s\n", head, s.Count, s.Shape, strings.Join(alloc, ", "), where, fewest, list(s.Nodes))
		}
	}
}
