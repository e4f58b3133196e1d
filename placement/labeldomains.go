package placement

import (
	"slices"
	"sync"
)

// maxLabelIndexes bounds how many label keys one snapshot base keeps an
// index for. The keys come from callers' input (affinity terms, sub-group
// and hierarchy topology keys), so the cache must not grow with it; a key
// past the bound is indexed afresh on each call.
const maxLabelIndexes = 32

// labelDomains is the nodes of a snapshot partitioned by one label key:
// the domains of that key. It is read-only once built.
type labelDomains struct {
	// values are the label's distinct values, ascending ("" included when
	// a node carries the label empty).
	values []string
	// of is each node's index into values, -1 when it lacks the label.
	of []int32
	// nodes[v] are the IDs of the nodes whose value is values[v],
	// ascending; they are subslices of one array.
	nodes [][]NodeID
	// labelled is how many nodes carry the label: the length of nodes's
	// array.
	labelled int
}

// labelIndex is a base's cache of labelDomains, by key.
type labelIndex struct {
	mu   sync.Mutex
	keys map[string]*labelDomains
}

// labelDomains returns the domains of label key over b's nodes, built on
// first use — O(nodes) map lookups and O(values log values) — and kept
// for the life of the base (every snapshot derived from it), up to
// maxLabelIndexes keys.
func (b *base) labelDomains(key string) *labelDomains {
	b.labels.mu.Lock()
	ld, ok := b.labels.keys[key]
	b.labels.mu.Unlock()
	if ok {
		return ld
	}
	ld = b.indexLabel(key)
	b.labels.mu.Lock()
	defer b.labels.mu.Unlock()
	if have, ok := b.labels.keys[key]; ok {
		return have // built meanwhile by another goroutine: one copy is kept
	}
	if len(b.labels.keys) < maxLabelIndexes {
		if b.labels.keys == nil {
			b.labels.keys = map[string]*labelDomains{}
		}
		b.labels.keys[key] = ld
	}
	return ld
}

func (b *base) indexLabel(key string) *labelDomains {
	ld := &labelDomains{of: make([]int32, len(b.nodes))}
	first := map[string]int32{} // value -> its index in order of first sight
	for n := range b.nodes {
		v, ok := b.nodes[n].Labels[key]
		if !ok {
			ld.of[n] = -1
			continue
		}
		id, seen := first[v]
		if !seen {
			id = int32(len(ld.values))
			first[v] = id
			ld.values = append(ld.values, v)
		}
		ld.of[n] = id
	}
	// Renumber the values in ascending order, so that a domain's index
	// orders domains as their values do.
	order := slices.Clone(ld.values)
	slices.Sort(order)
	rank := make([]int32, len(order))
	for i, v := range order {
		rank[first[v]] = int32(i)
	}
	ld.values = order
	count := make([]int32, len(order)+1)
	for n, id := range ld.of {
		if id >= 0 {
			ld.of[n] = rank[id]
			count[rank[id]+1]++
		}
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	flat := make([]NodeID, count[len(order)])
	ld.labelled = len(flat)
	next := slices.Clone(count[:len(order)])
	for n, id := range ld.of {
		if id >= 0 {
			flat[next[id]] = NodeID(n)
			next[id]++
		}
	}
	ld.nodes = make([][]NodeID, len(order))
	for i := range order {
		ld.nodes[i] = flat[count[i]:count[i+1]:count[i+1]]
	}
	return ld
}
