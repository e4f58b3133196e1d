package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// levelKeys are node labels taken as topology levels whenever nodes carry
// them, so that a rack is told apart by its block (Kueue's racks r1 and r2
// repeat in every block), in the order used to break ties.
var levelKeys = []string{
	"topology.kubernetes.io/region",
	"topology.kubernetes.io/zone",
	"cloud.provider.com/topology-block",
	"topology.kubernetes.io/block",
	"cloud.provider.com/topology-rack",
	"topology.kubernetes.io/rack",
	"kubernetes.io/hostname",
}

// topologyKeys returns the levels of the topology tree, widest first:
// explicit when given (-topology-keys), else the well-known level labels
// the nodes carry plus every key a PodGroup requires, ordered by how many
// distinct values they take on the nodes (fewer is wider), then by
// levelKeys, then by name.
func topologyKeys(c *kube.Cluster, explicit string) []string {
	if explicit != "" {
		return strings.Split(explicit, ",")
	}
	values := map[string]map[string]bool{}
	add := func(k string) {
		if _, ok := values[k]; !ok {
			values[k] = map[string]bool{}
		}
	}
	for _, pg := range c.PodGroups {
		for _, t := range pg.Spec.SchedulingConstraints.Topology {
			add(t.Key)
		}
	}
	if len(values) == 0 {
		return nil
	}
	for _, n := range c.Nodes {
		for _, k := range levelKeys {
			if _, ok := n.Labels[k]; ok {
				add(k)
			}
		}
	}
	for _, n := range c.Nodes {
		for k, vs := range values {
			if v, ok := n.Labels[k]; ok {
				vs[v] = true
			}
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		if i := slices.Index(levelKeys, k); i >= 0 {
			return i
		}
		return len(levelKeys)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(values[a]), len(values[b])), cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return keys
}

// solver holds what every cycle's options are made from.
type solver struct {
	c    *kube.Cluster
	tree *topology.Tree // nil when no PodGroup has a topology constraint
}

// newSolver builds the topology tree and checks every PodGroup's topology
// keys against it, so that a key no node carries is bad input, reported at
// the PodGroup, not a failed cycle.
func newSolver(c *kube.Cluster, explicitKeys string) (*solver, error) {
	s := &solver{c: c}
	keys := topologyKeys(c, explicitKeys)
	if len(keys) == 0 {
		return s, nil
	}
	var err error
	if s.tree, err = topology.NewTree(c.Snapshot, keys); err != nil {
		return nil, fmt.Errorf("-topology-keys: %w", err)
	}
	for _, pg := range c.PodGroups {
		if _, err := s.options(pg); err != nil {
			return nil, c.Locate(err)
		}
	}
	return s, nil
}

// options gives one PodGroup's cycle its solver options: a topology
// generator and scorer for its required keys, and the required node
// affinity of the pods that have one.
func (s *solver) options(pg *gang.PodGroup) (placement.Options, error) {
	var opts placement.Options
	if cs := pg.Spec.SchedulingConstraints.Topology; len(cs) > 0 {
		var tc []topology.Constraint
		for i, t := range cs {
			if _, ok := s.tree.Level(t.Key); !ok {
				return placement.Options{}, placement.Errorf(placement.ErrNotFound, "PodGroup "+fmt.Sprintf("%q", pg.Key().String()),
					fmt.Sprintf("spec.schedulingConstraints.topology[%d].key", i), "%q is not a topology level (levels: %s)", t.Key, strings.Join(s.tree.Keys(), ", "))
			}
			tc = append(tc, topology.Constraint{Key: t.Key, Required: true})
		}
		var err error
		if opts, err = s.tree.SolverOptions(tc, topology.MostAllocated); err != nil {
			return placement.Options{}, placement.Errorf(placement.ErrNotFound, "PodGroup "+fmt.Sprintf("%q", pg.Key().String()), "spec.schedulingConstraints.topology", "%v", err)
		}
	}
	if s.c.NodeAffinity != nil {
		opts.Filters = append(opts.Filters, s.c.NodeAffinity)
	}
	return opts, nil
}
