package kube

import (
	"github.com/gangsched/gangsched/topology"
)

// kueueNoDomainReason is Kueue v0.17's reason when its topology snapshot
// for a flavor holds no node at all (pkg/cache/scheduler/
// tas_flavor_snapshot.go, findLevelWithFitDomains: no domain at the level
// it searches): "no topology domains at level: rack". Its snapshot keeps
// the nodes that are Ready, not cordoned, carry every level of the
// Topology and match the flavor's node labels ([admitter.inKueueSnapshot]);
// where none does, every request fails so, whatever its count.
const kueueNoDomainReason = "no topology domains at level: "

// kueueNoDomain reports whether the pod sets of ps find Kueue's topology
// snapshot for flavor (nil: every node) over tree empty, and then which
// set Kueue's message names and Kueue's reason for it; false for requests
// Kueue refuses before its TAS searches a level, which keep that reason.
// The set is the one the plan's account names (a PodSetGroup's leader),
// else the first set planned. Its level is the one Kueue searches first
// (levelKeyWithImpliedFallback): the required or preferred level, the
// highest for slices alone (unconstrained or not: Kueue's levelKey tests
// for a slice-only request first), the lowest for an unconstrained set
// or one without a request (Kueue's implied request).
func (a *admitter) kueueNoDomain(ps *plannedSets, tree *topology.Tree, flavor *KueueFlavor) (set, reason string, ok bool) {
	if len(ps.group.PodSets) == 0 || len(a.kueueLeaves(tree, flavor)) > 0 {
		return "", "", false
	}
	if a.appendedLevel(tree, ps.requests) != "" || missingLevels(tree, ps.requests) != "" {
		// Kueue refuses the request before its TAS searches a level: a
		// level the flavor lacks, or slice layers that do not nest.
		return "", "", false
	}
	set, k := ps.group.PodSets[0].Name, 0
	if nf := ps.plan.KueueNotFit; nf != nil {
		set = kueueNotFitSet(nf)
		for i := range ps.group.PodSets {
			if ps.group.PodSets[i].Name == nf.PodSet {
				k = i
			}
		}
	}
	keys := tree.Keys()
	if a.appended[tree] {
		keys = keys[:len(keys)-1] // the hostname level is gangsim's, not the Topology's
	}
	if k >= len(ps.requests) || len(keys) == 0 {
		return "", "", false
	}
	return set, kueueNoDomainReason + kueueSearchedLevel(ps.requests[k], keys), true
}

// kueueSearchedLevel is the level of keys (the Topology's, widest first)
// that Kueue's TAS searches first for request r.
func kueueSearchedLevel(r topology.PodSetRequest, keys []string) string {
	switch {
	case r.Required != "":
		return r.Required
	case r.Preferred != "":
		return r.Preferred
	case len(r.Slices) > 0:
		return keys[0]
	}
	return keys[len(keys)-1]
}
