package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TreeNode is one object of a KEP-6012 hierarchy in a cycle that decided
// it, listed level by level (the root is level 1), in name order within
// a level's parent.
type TreeNode struct {
	Level int    `json:"level"`
	Kind  string `json:"kind"` // CompositePodGroup or PodGroup
	Name  string `json:"name"` // namespace/name
	// Domain is the topology domain the subtree was placed in, if keyed,
	// its value written as a flat group's placement names it
	// ([topology.Segment]): `""` for a domain whose label value is empty
	// (v1.36, v1.37).
	Domain  string `json:"domain,omitempty"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// TreeCondition is a condition a hierarchy's cycle wrote on one object.
type TreeCondition struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Condition
}

// setHierarchies gives the scheduler the input's CompositePodGroups.
func setHierarchies(c *kube.Cluster, sched *gang.Scheduler) error {
	for _, cg := range c.CompositePodGroups {
		if err := sched.SetCompositePodGroup(cg); err != nil {
			return c.Locate(err)
		}
	}
	return nil
}

// describeTree completes cy for a cycle that decided a hierarchy: the
// root's policy, the tree level by level and the conditions, which it
// writes back into c. It returns the leaf PodGroups the cycle decided:
// every leaf of the tree, from leaves ([treeLeaves] of c).
func describeTree(cy *Cycle, c *kube.Cluster, r gang.Result, leaves map[placement.Key][]placement.Key) []placement.Key {
	cy.Kind, cy.Policy, cy.MinCount = "CompositePodGroup", "basic", 0
	for _, cg := range c.CompositePodGroups {
		if cg.Key() == r.PodGroup && cg.Spec.SchedulingPolicy.Gang != nil {
			cy.Policy, cy.MinCount = "gang", cg.Spec.SchedulingPolicy.Gang.MinGroupCount
		}
	}
	h := r.Hierarchy
	if r.Err == nil {
		placed := h.Decision.Status == placement.Scheduled
		level := []placement.NodeResult{h.Decision.Root}
		for depth := 1; len(level) > 0; depth++ {
			var next []placement.NodeResult
			for _, n := range level {
				kind, name := "CompositePodGroup", n.Name
				if leaf, ok := strings.CutPrefix(n.Name, "PodGroup "); ok {
					kind, name = "PodGroup", leaf
				}
				name = placement.Key{Namespace: r.PodGroup.Namespace, Name: name}.String()
				tn := TreeNode{Level: depth, Kind: kind, Name: name, Status: n.Status.String(), Message: n.Message}
				if placed && n.TopologyKey != "" && n.Status == placement.Scheduled {
					tn.Domain = topology.Segment(n.Domain)
				}
				cy.Tree = append(cy.Tree, tn)
				next = append(next, n.Children...)
			}
			level = next
		}
	}
	for _, gc := range h.Conditions {
		t := gc.Condition.Type
		if gc.Kind == "PodGroup" {
			c.SetCondition(gc.Key, gc.Condition)
			t = c.ConditionType(gc.Key, t)
		} else {
			c.SetCompositeCondition(gc.Key, gc.Condition)
		}
		cy.TreeConditions = append(cy.TreeConditions, TreeCondition{Kind: gc.Kind, Name: gc.Key.String(),
			Condition: Condition{Type: t, Status: string(gc.Condition.Status), Reason: gc.Condition.Reason}})
	}
	// All the tree's leaves, not only those whose condition changed (a
	// tree read back from a dump changes none, and its leaves were tried).
	return leaves[h.Root]
}

// writeTree prints a hierarchy's levels and conditions (text output).
func writeTree(w io.Writer, cy Cycle) {
	for _, n := range cy.Tree {
		line := fmt.Sprintf("  %slevel %d: %s %s", strings.Repeat("  ", n.Level-1), n.Level, n.Kind, n.Name)
		if n.Domain != "" {
			line += " in " + n.Domain
		}
		fmt.Fprintf(w, "%s: %s: %s\n", line, n.Status, n.Message)
	}
	for _, tc := range cy.TreeConditions {
		fmt.Fprintf(w, "  condition %s %s %s=%s (%s)\n", tc.Kind, tc.Name, tc.Type, tc.Status, tc.Reason)
	}
}

// checkServed refuses, for an explicit -profile, a Workload, PodGroup or
// CompositePodGroup of an API version that profile's API server does not
// serve (gang.Profile.Serves), naming the object where it is.
func checkServed(objs []manifest.Object, p gang.Profile) error {
	for i := range objs {
		o := &objs[i]
		if !strings.HasPrefix(o.APIVersion, "scheduling.k8s.io/") {
			continue
		}
		switch o.Kind {
		case "Workload", "PodGroup", "CompositePodGroup":
			if !p.Serves(o.APIVersion, o.Kind) {
				return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "apiVersion", "Kubernetes %s does not serve %s %s", p, o.APIVersion, o.Kind))
			}
		}
	}
	return nil
}

// treeLeaves maps each root CompositePodGroup of c to the PodGroups of its
// hierarchy (gang.TreeRoots: a PodGroup under a cycle of CompositePodGroups
// is listed under the one where the walk up stops; the scheduler gates it
// anyway), each in c's order.
func treeLeaves(c *kube.Cluster) map[placement.Key][]placement.Key {
	roots := gang.TreeRoots(c.PodGroups, c.CompositePodGroups)
	out := map[placement.Key][]placement.Key{}
	for _, pg := range c.PodGroups {
		if root, ok := roots[pg.Key()]; ok {
			out[root] = append(out[root], pg.Key())
		}
	}
	return out
}

// settle is what a group's cycle that changed nothing left behind: the
// cluster generation it saw (plus one) and how many groups it left
// backing off.
type settle struct{ gen, n int }

// backingOff counts the PodGroups of ks the scheduler holds backing off:
// a tree's cycle that left members pending backs off each such leaf, and
// the run's stopping rule compares with the scheduler's count of them.
func backingOff(sched *gang.Scheduler, ks []placement.Key) int {
	n := 0
	for _, k := range ks {
		if st, ok := sched.Group(k); ok && st.State == gang.BackingOff {
			n++
		}
	}
	return n
}
