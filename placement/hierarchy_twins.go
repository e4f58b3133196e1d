package placement

import (
	"maps"
	"slices"
	"strings"
)

// Twins are consecutive children (by name) whose subtrees are identical
// but for names: same policy, minimum and key, no bound members, and
// leaf groups whose pending pods match one for one in name order. Two
// twins a < b placed in domains of their key with b's before a's would
// be the same placement as the one with the two swapped, which the
// search (domains in value order) reaches first; so b is tried only in
// a's domain or after it, and skipped when a is. This keeps the first
// placement found — the decision — the same, while a gang of k twins
// costs combinations of domains instead of permutations.

// twins reports whether a and b are twins.
func twins(a, b *hnode) bool {
	x, y := a.src, b.src
	if x.Policy != y.Policy || x.MinGroupCount != y.MinGroupCount || x.TopologyKey != y.TopologyKey ||
		a.pins != nil || b.pins != nil || a.done != 0 || b.done != 0 || a.bound != 0 || b.bound != 0 ||
		len(a.children) != len(b.children) || (x.Group == nil) != (y.Group == nil) {
		return false
	}
	if x.Group != nil {
		return sameGroup(x.Group, y.Group)
	}
	for i := range a.children {
		if !twins(a.children[i], b.children[i]) {
			return false
		}
	}
	return true
}

// sameGroup reports whether a and b differ only in the names of the group,
// its members and its pod sets, the members' names ascending in both, the
// sets' too and merged alike with them (so that any tie broken by name is
// broken alike).
func sameGroup(a, b *Group) bool {
	if a.Namespace != b.Namespace || a.Policy != b.Policy || a.MinCount != b.MinCount ||
		len(a.SubGroups)+len(b.SubGroups) > 0 || !slices.Equal(a.TopologyLevels, b.TopologyLevels) ||
		len(a.Members) != len(b.Members) || len(a.PodSets) != len(b.PodSets) {
		return false
	}
	for i := range a.Members {
		if i > 0 && (a.Members[i-1].Name >= a.Members[i].Name || b.Members[i-1].Name >= b.Members[i].Name) {
			return false
		}
		if !samePod(&a.Members[i], &b.Members[i]) {
			return false
		}
	}
	// A set's name, as a member's, matters only for ties between the
	// group's own pods: names in the same order, members and sets merged
	// (as variants cuts them), break them alike.
	for i := range a.PodSets {
		p, q := &a.PodSets[i], &b.PodSets[i]
		if i > 0 && (a.PodSets[i-1].Name >= p.Name || b.PodSets[i-1].Name >= q.Name) {
			return false
		}
		if p.Count != q.Count || !samePod(&p.Template, &q.Template) || !sameMerge(a, b, i) {
			return false
		}
	}
	return true
}

// sameMerge reports whether pod set i of a and of b fall at one place
// among their groups' members by name.
func sameMerge(a, b *Group, i int) bool {
	at := func(g *Group) int {
		name := g.PodSets[i].Name
		k, _ := slices.BinarySearchFunc(g.Members, name, func(p Pod, name string) int { return strings.Compare(p.Name, name) })
		return k
	}
	return at(a) == at(b)
}

// samePod reports whether p and q schedule alike: equal in every field
// but Name, UID and SchedulingGroup, with no affinity, node affinity or
// claims (which are not compared).
func samePod(p, q *Pod) bool {
	return p.Namespace == q.Namespace && p.Priority == q.Priority && p.PreemptionPolicy == q.PreemptionPolicy &&
		p.NodeName == q.NodeName && p.QueuedAt.Equal(q.QueuedAt) && p.StartTime.Equal(q.StartTime) &&
		p.Affinity == nil && q.Affinity == nil && p.NodeAffinity == nil && q.NodeAffinity == nil &&
		len(p.ResourceClaims)+len(q.ResourceClaims) == 0 &&
		maps.Equal(p.Requests, q.Requests) && maps.Equal(p.Labels, q.Labels) &&
		maps.Equal(p.NodeSelector, q.NodeSelector) && slices.Equal(p.Tolerations, q.Tolerations)
}
