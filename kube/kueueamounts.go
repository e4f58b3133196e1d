package kube

import (
	"maps"
	"slices"
)

// frAmount is a quantity of a flavor-resource, in canonical units.
type frAmount struct {
	fr flavorResource
	v  int64
}

// amountsOf is usage u as a list, by flavor-resource. A victim search
// reads every candidate's usage, each a few flavor-resources: walking or
// looking them up in the map hashed two names per flavor-resource, a
// tenth of a crowded run; the list is made once per quota holder.
func amountsOf(u map[flavorResource]int64) []frAmount {
	out := make([]frAmount, 0, len(u))
	for _, fr := range slices.SortedFunc(maps.Keys(u), compareFlavorResources) {
		out = append(out, frAmount{fr, u[fr]})
	}
	return out
}

// kueueAmounts is usage u as [KueueAmount]s, by flavor then resource.
func kueueAmounts(u map[flavorResource]int64) []KueueAmount {
	var out []KueueAmount
	for _, a := range amountsOf(u) {
		out = append(out, KueueAmount{Flavor: a.fr.Flavor(), Resource: a.fr.Resource(), Amount: a.v})
	}
	return out
}

// amountList is c's usage as a list: the holder's, or, for a candidate
// made without one, made from its usage and kept.
func (c *preemptCand) amountList() []frAmount {
	if c.amounts == nil && len(c.usage) > 0 {
		c.amounts = amountsOf(c.usage)
	}
	return c.amounts
}
