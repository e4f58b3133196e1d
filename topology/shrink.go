package topology

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// shrinkUnit is a domain of the tree, or a node, as a sliced shrink sees
// it: the set's pods in it and the most of them it can keep so that every
// domain of every slice layer inside it holds whole slices of the layer.
type shrinkUnit struct {
	dom  DomainID // -1 for a node
	node int      // a node's index in the existing pods
	pods int64
	most int64
	kids []shrinkUnit
}

// shrinkSliced picks the n pods of existing (per node, NodeIDs set, node
// order) that a shrink of sliced set r removes, so that the pods left are
// whole slices of every layer in every domain of its level and no pod
// left moves (see [Tree.ResizePodSet]). It returns the removed pods per
// node, in no order.
//
// Every domain, from the tree's widest level down to the nodes, first
// gives up the pods it cannot keep in whole slices (an incomplete slice
// left by a lost node), then whole slices go, least filled domain first
// (by the pods it can keep, then by its pods; ties to the last by path or
// node name), and inside a domain the same way one level down. Sizes of
// nested layers divide each other, so what a domain can keep is every
// multiple of its unit up to its most, and the greedy meets the count
// exactly whenever M pods in whole slices exist at all; when they do not,
// the error (wrapping [ErrShrinkBreaksSlices]) names resize.existing.
//
// Cost: O(E·L·log E) for E nodes of existing and L levels.
func (t *Tree) shrinkSliced(r *request, existing []placement.PodSetAssignment, n int64) ([]placement.PodSetAssignment, error) {
	size := make([]int64, len(t.keys)+1) // a layer's size by level; 0 = no layer
	for _, l := range r.layers {
		size[l.level] = l.size
	}
	idx := make([]int, len(existing))
	for i := range idx {
		idx[i] = i
	}
	units := t.shrinkUnits(existing, idx, 0, size)
	var have, most int64
	for _, u := range units {
		have += u.pods
		most += u.most
	}
	if keep := have - n; keep > most {
		return nil, placement.Errorf(ErrShrinkBreaksSlices, r.obj(), "resize.existing",
			"its %s hold at most %s in whole slices, fewer than the %d to keep", plural(have, "pod"), plural(most, "pod"), keep)
	}
	var out []placement.PodSetAssignment
	var pick func(units []shrinkUnit, keep int64)
	// pick keeps keep pods of units (keep ≤ the sum of their most, a
	// multiple of their unit) and removes the rest.
	pick = func(units []shrinkUnit, keep int64) {
		extra := -keep
		for _, u := range units {
			extra += u.most
		}
		slices.SortFunc(units, func(a, b shrinkUnit) int {
			return cmp.Or(cmp.Compare(a.most, b.most), cmp.Compare(a.pods, b.pods), t.shrinkLater(existing, b, a))
		})
		for _, u := range units {
			take := min(u.most, extra)
			extra -= take
			if u.dom < 0 {
				if gone := u.pods - (u.most - take); gone > 0 {
					a := existing[u.node]
					out = append(out, placement.PodSetAssignment{PodSet: a.PodSet, Node: a.Node, NodeID: a.NodeID, Count: int32(gone)})
				}
				continue
			}
			pick(u.kids, u.most-take)
		}
	}
	pick(units, have-n)
	return out, nil
}

// shrinkUnits groups the existing pods idx by their domain of level (a
// node in none, or past the deepest level, is a unit of its own) and
// works out each unit's most (size: a layer's size by level, 0 for none).
func (t *Tree) shrinkUnits(existing []placement.PodSetAssignment, idx []int, level int, size []int64) []shrinkUnit {
	var units []shrinkUnit
	at := map[DomainID][]int{}
	for _, i := range idx {
		d := t.domainOf(existing[i].NodeID, level)
		if d < 0 {
			u := shrinkUnit{dom: -1, node: i, pods: int64(existing[i].Count)}
			// A node in no domain of a level holds no slice of a layer
			// at that level or below.
			if !slices.ContainsFunc(size[level:], func(z int64) bool { return z > 1 }) {
				u.most = u.pods
			}
			units = append(units, u)
			continue
		}
		if _, ok := at[d]; !ok {
			units = append(units, shrinkUnit{dom: d})
		}
		at[d] = append(at[d], i)
	}
	for k := range units {
		u := &units[k]
		if u.dom < 0 {
			continue
		}
		u.kids = t.shrinkUnits(existing, at[u.dom], level+1, size)
		for _, c := range u.kids {
			u.pods += c.pods
			u.most += c.most
		}
		if z := size[level]; z > 1 {
			u.most -= u.most % z
		}
	}
	return units
}

// shrinkLater orders two units the shrink would empty alike: the one
// later in the tree goes first (a node in no domain before a domain, then
// by domain path or node name).
func (t *Tree) shrinkLater(existing []placement.PodSetAssignment, a, b shrinkUnit) int {
	switch {
	case a.dom >= 0 && b.dom >= 0:
		return cmp.Compare(a.dom, b.dom)
	case a.dom < 0 && b.dom < 0:
		return strings.Compare(existing[a.node].Node, existing[b.node].Node)
	case a.dom < 0:
		return 1
	}
	return -1
}
