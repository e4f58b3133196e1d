package scheduler

import (
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// servePerNode brings up to date how pending pods' extended resources
// that DeviceClasses name are served, from the nodes, DeviceClasses and
// ResourceSlices seen: through an implicit claim where no node has the
// resource in allocatable, and per node ([kube.PerNode], as v1.37's
// kube-scheduler does: a node with the resource in allocatable serves it
// by its device plugin, any other by DRA through the pod's implicit claim)
// where device plugins serve it on some nodes and DRA on others. It keeps
// the snapshot's nodes (no limit on a resource served per node where no
// device plugin serves it), the ledger's shared plugin devices, and the
// rule pending pods are converted by (s.dra.served); when that rule
// changes, whatever event changed it (a node's allocatable, a class, a
// slice), every pending pod is converted again. It runs at the start of a
// round, when the snapshot or the inventory is rebuilt anyway. A device
// of a serving class that a plugin node reaches cannot be modelled: it is
// logged, and the resources are then served as before, by device plugins
// wherever a node has them.
func (s *Scheduler) servePerNode() {
	if !s.c.rebuild && !s.dra.invDirty {
		return
	}
	nodes := s.c.sortedNodes()
	var m kube.PerNode
	served := kube.ExtendedResourceClasses{}
	if len(s.dra.apiClasses) > 0 {
		classes := kube.NewExtendedResourceClasses(slices.Collect(maps.Values(s.dra.apiClasses)))
		dcs := slices.SortedFunc(maps.Values(s.dra.classes), func(a, b dra.DeviceClass) int { return strings.Compare(a.Name, b.Name) })
		var err error
		if m, err = kube.NewPerNode(classes, dcs, nodes, s.dra.newestSlices()); err != nil {
			s.log.Error("extended resources not served per node", "err", err)
			m = nil
		}
		rule := kube.ServedByDRA(classes, nodes, m)
		for r := range classes {
			if name, ok := rule(r); ok {
				served[r] = name
			}
		}
	}
	// A class or slice seen changed (invDirty): the inventory is rebuilt,
	// and with the plugin devices of now, whose classes carry the real
	// classes' selectors as they are now. Otherwise only nodes changed,
	// and the plugin devices are rebuilt only when they differ.
	if pc, ps := m.Inventory(nodes); s.dra.invDirty || !samePlugin(s.dra.pluginClasses, s.dra.pluginSlices, pc, ps) {
		s.dra.pluginClasses, s.dra.pluginSlices = pc, ps
		s.dra.invDirty, s.dra.dirty = true, true
	}
	changed := servedKey(served, m) != servedKey(s.dra.served, s.c.perNode)
	s.c.perNode, s.dra.served = m, served // the same rule, or a new one and a rebuild below
	if changed {
		s.c.rebuild = true
		s.reconvertPending()
	}
}

// servedKey names each resource that served (the rule of
// Scheduler.extendedClasses) serves through an implicit claim, with its
// class, and whether m serves it per node, with its class, in resource
// order: the pending pods' conversions depend on nothing else of them.
func servedKey(served kube.ExtendedResourceClasses, m kube.PerNode) string {
	var b strings.Builder
	for _, r := range slices.Sorted(maps.Keys(served)) {
		b.WriteString(string(r) + "=" + served[r])
		if dc, ok := m[placement.ResourceName(r)]; ok {
			b.WriteString(" per node by " + dc.Name)
		}
		b.WriteString(";")
	}
	return b.String()
}

// samePlugin reports whether two inventories of plugin devices, built
// from the same DeviceClasses, are alike: the same classes, and slices of
// the same names and device counts. Classes are compared by name alone,
// which holds only while the DeviceClasses are unchanged: a plugin class
// takes its real class's selectors, which cannot be compared (funcs).
func samePlugin(ac []dra.DeviceClass, as []dra.ResourceSlice, bc []dra.DeviceClass, bs []dra.ResourceSlice) bool {
	return slices.EqualFunc(ac, bc, func(a, b dra.DeviceClass) bool { return a.Name == b.Name }) &&
		slices.EqualFunc(as, bs, func(a, b dra.ResourceSlice) bool { return a.Name == b.Name && len(a.Devices) == len(b.Devices) })
}

// visibleUpdates returns a cycle's claim updates as they are written:
// without the plugin devices of resources served per node, and without an
// implicit claim that only they serve ([kube.VisibleUpdate]).
func visibleUpdates(us []dra.ClaimUpdate) []dra.ClaimUpdate {
	var out []dra.ClaimUpdate
	for _, u := range us {
		if v, ok := kube.VisibleUpdate(u); ok {
			out = append(out, v)
		}
	}
	return out
}

// sortedNodes returns the nodes seen, by name.
func (c *snapCache) sortedNodes() []placement.Node {
	nodes := slices.Collect(maps.Values(c.nodes))
	slices.SortFunc(nodes, func(a, b placement.Node) int { return strings.Compare(a.Name, b.Name) })
	return nodes
}
