package kube

import (
	"math"
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
// recounted here.

// aboveHostDomain is one of Kueue's leaves over such a Topology.
type aboveHostDomain struct {
	values []string // its values at the Topology's levels
	pods   int64    // the pods of the request its summed room holds
	limit  placement.ResourceName
}

// aboveHostDomains are Kueue's leaves over tree, one with
// kubernetes.io/hostname appended: the lowest-level domains of the nodes
// leaves (Kueue's snapshot for the flavor), in the order of their values,
// each counting the pods of requests req (as [domainRoom]) that its nodes'
// free room summed holds after the sets of before and less the room lifts
// give back ([topology.PlanOptions].KueueLift), each pod charged to its
// node's domain where the node is one of leaves (Kueue counts the
// assumed usage of the flavor's own sets alone).
func (a *admitter) aboveHostDomains(tree *topology.Tree, req placement.ResourceList, leaves []placement.NodeID, before, lifts []placement.PodSetUsage) []aboveHostDomain {
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
		out = append(out, aboveHostDomain{values: strings.Split(key, "\x00"), pods: n, limit: lim})
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

// aboveHostFit is the count Kueue's reason gives for nf over leaves doms
// of tree, for the set's request r (nil: none, Kueue's implied one): each
// domain of the slice level (r's outermost, else the lowest) holds its
// leaves' pods over nf.SliceSize in slices; a required level's count is
// its domain's with the most slices (Kueue's first domain in best-fit
// order), any other request's every slice-level domain's added up (its
// greedy fill over the widest level searched takes all). ok is false
// where the count is not recounted: a PodSetGroup's (whose leader Kueue
// counts too), several slice layers, TASBalancedPlacement's reason, or a
// count of nf.Total or more, where Kueue's summed room holds the set and
// it gives no reason at all (docs/kueue.md, Not modelled).
func aboveHostFit(nf *topology.KueueNotFit, r *topology.PodSetRequest, tree *topology.Tree, doms []aboveHostDomain) (int64, bool) {
	if nf.Leader != "" || len(nf.Layers) > 0 || nf.Balanced || nf.SliceSize < 1 {
		return 0, false
	}
	keys := tree.Keys()
	levels := keys[:len(keys)-1]
	sl, q := len(levels)-1, -1
	if r != nil {
		if len(r.Slices) > 1 {
			return 0, false
		}
		if len(r.Slices) == 1 {
			sl = slices.Index(levels, r.Slices[0].Key)
		}
		if r.Required != "" {
			q = slices.Index(levels, r.Required)
			if q < 0 {
				return 0, false
			}
		}
	}
	if sl < 0 || q > sl {
		return 0, false
	}
	// The leaves come in the order of their values: each slice-level
	// domain's are consecutive, and so are each required domain's.
	var fit, inQ, pods int64
	if q >= 0 {
		fit = math.MinInt64 // the first domain's count, were all below zero
	}
	for i, d := range doms {
		pods += d.pods
		if i+1 < len(doms) && slices.Equal(doms[i+1].values[:sl+1], d.values[:sl+1]) {
			continue
		}
		inQ += pods / nf.SliceSize
		pods = 0
		if q < 0 {
			continue
		}
		if i+1 < len(doms) && slices.Equal(doms[i+1].values[:q+1], d.values[:q+1]) {
			continue
		}
		fit, inQ = max(fit, inQ), 0
	}
	if q < 0 {
		fit = inQ
	}
	if fit >= nf.Total {
		return 0, false
	}
	return fit, true
}
