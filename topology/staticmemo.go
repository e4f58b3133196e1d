package topology

import (
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// staticMemo keeps, per node, whether the templates of one nodeSelector
// and tolerations pass it ([placement.StaticFit]: selector, taints,
// cordon), while the plans that follow keep asking with that key: Kueue
// writes a flavor's nodeLabels into every template's nodeSelector, so
// a queue of pending Workloads asks the same of every node plan after
// plan, and reading each node's labels again was two thirds of planning
// in a world of 8,000 of them. Nodes never change across Apply (see
// planScratch.plain), so an answer holds while its key does. A template
// with required node affinity is not kept: comparing its terms would
// cost what it saves.
type staticMemo struct {
	on          bool // the template in use has a key
	selector    map[string]string
	tolerations []placement.Toleration
	gen         uint32   // the key's generation, from 1
	seen        []uint32 // per node: the generation ok holds
	ok          []bool
}

// use sets the memo for tmpl over n nodes, keeping the answers when tmpl
// has the last key.
func (m *staticMemo) use(tmpl *placement.Pod, n int) {
	if m.on = !requiresNodes(tmpl); !m.on {
		return
	}
	if len(m.seen) != n {
		m.seen, m.ok, m.gen = make([]uint32, n), make([]bool, n), 0
	}
	if m.gen > 0 && maps.Equal(m.selector, tmpl.NodeSelector) && slices.Equal(m.tolerations, tmpl.Tolerations) {
		return
	}
	m.selector, m.tolerations = maps.Clone(tmpl.NodeSelector), slices.Clone(tmpl.Tolerations)
	if m.gen++; m.gen == 0 { // wrapped: no answer may pass for this key's
		clear(m.seen)
		m.gen = 1
	}
}

// fits reports placement.StaticFit(tmpl, n) for node id, tmpl being the
// template of the last use.
func (m *staticMemo) fits(tmpl *placement.Pod, n *placement.Node, id placement.NodeID) bool {
	if !m.on {
		return placement.StaticFit(tmpl, n)
	}
	if m.seen[id] != m.gen {
		m.ok[id], m.seen[id] = placement.StaticFit(tmpl, n), m.gen
	}
	return m.ok[id]
}
