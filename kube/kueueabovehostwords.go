package kube

import (
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A pending Workload's failure over a Topology whose lowest level is not
// the hostname (kueueabovehost.go), in Kueue v0.17's numbers: its TAS
// leaves are then the Topology's lowest-level domains, each counting the
// pods its nodes' free room holds summed (tas_flavor_snapshot.go:
// addNode, fillInCounts with isLowestLevelNode false), less what the
// Workload's sets placed before it take there (assumedUsage), and both the
// "allows to fit only N" count and the "Total nodes: …; excluded: …"
// suffix are counted on those leaves. gangsim's plan counts one host's
// room per pod, so its own count ([topology.KueueNotFit].Fit) is
// recounted here (kueueabovehostcount.go).

// aboveHostDomain is one of Kueue's leaves over such a Topology.
type aboveHostDomain struct {
	values []string // its values at the Topology's levels
	pods   int64    // the pods of the request its summed room holds
	limit  placement.ResourceName
	// leader says a PodSetGroup's leader fits in the summed room, and
	// withLeader is then the pods that fit beside it (pods otherwise):
	// Kueue's leaderState and stateWithLeader.
	leader     bool
	withLeader int64
}

// aboveHostDomains are Kueue's leaves over tree, one with
// kubernetes.io/hostname appended: the lowest-level domains of the nodes
// leaves (Kueue's snapshot for the flavor), in the order of their values,
// each counting the pods of requests req (as [domainRoom]) that its nodes'
// free room summed holds after the sets of before and less the room lifts
// give back ([topology.PlanOptions].KueueLift), each pod charged to its
// node's domain where the node is one of leaves (Kueue counts the
// assumed usage of the flavor's own sets alone); with the requests lead
// of a PodSetGroup's leader (nil: none), also whether one leader pod fits
// there and how many of req fit beside it.
func (a *admitter) aboveHostDomains(tree *topology.Tree, req, lead placement.ResourceList, leaves []placement.NodeID, before, lifts []placement.PodSetUsage) []aboveHostDomain {
	keys := tree.Keys()
	levels := keys[:len(keys)-1]
	byDomain := map[string][]placement.NodeID{}
	keyOf := make(map[placement.NodeID]string, len(leaves))
	for _, id := range leaves {
		if key, ok := domainKey(levels, a.s.Node(id)); ok {
			byDomain[key] = append(byDomain[key], id)
			keyOf[id] = key
		}
	}
	used := map[string]placement.ResourceList{}
	charge := func(us []placement.PodSetUsage, sign int64) {
		for _, u := range us {
			for _, n := range u.Nodes {
				id, ok := a.s.NodeID(n.Node)
				if !ok {
					continue
				}
				key, ok := keyOf[id]
				if !ok {
					continue // not in Kueue's snapshot for the flavor
				}
				if used[key] == nil {
					used[key] = placement.ResourceList{}
				}
				c := sign * int64(n.Count)
				for r, q := range u.Requests {
					if r != placement.ResourcePods {
						used[key][r] += c * q
					}
				}
				used[key][placement.ResourcePods] += c
			}
		}
	}
	charge(before, 1)
	charge(lifts, -1)
	out := make([]aboveHostDomain, 0, len(byDomain))
	for key, ids := range byDomain {
		lim, n := domainRoom(a.s, ids, req, used[key])
		d := aboveHostDomain{values: strings.Split(key, "\x00"), pods: n, limit: lim, withLeader: n}
		if lead != nil {
			if _, l := domainRoom(a.s, ids, lead, used[key]); l > 0 {
				u := maps.Clone(used[key])
				if u == nil {
					u = placement.ResourceList{}
				}
				for r, q := range lead {
					if r != placement.ResourcePods {
						u[r] += q
					}
				}
				u[placement.ResourcePods]++
				_, d.withLeader = domainRoom(a.s, ids, req, u)
				d.leader = true
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y aboveHostDomain) int { return slices.Compare(x.values, y.values) })
	return out
}

// aboveHostExclusions are Kueue's exclusions over such leaves: Total is
// how many there are, and a leaf is left out only when its summed room
// holds no pod, by the resource that limits it; no node's taints,
// nodeSelector or affinity are read there. A leaf whose count is negative
// (an overcommitted resource) is not counted, as Kueue counts a count of
// exactly 0 only.
func aboveHostExclusions(doms []aboveHostDomain) kueueExclusions {
	ex := kueueExclusions{Total: len(doms), Taints: map[string]int{}, Resources: map[placement.ResourceName]int{}}
	for _, d := range doms {
		if d.pods == 0 {
			ex.Resources[d.limit]++
		}
	}
	return ex
}
