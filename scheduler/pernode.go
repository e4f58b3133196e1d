package scheduler

import (
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// servePerNode brings up to date how the extended resources that device
// plugins serve on some nodes and DRA on others are served ([kube.PerNode],
// as v1.37's kube-scheduler does per node: a node with the resource in
// allocatable by its device plugin, any other by DRA through the pod's
// implicit claim), from the nodes, DeviceClasses and ResourceSlices seen:
// the snapshot's nodes (no limit on such a resource where no device plugin
// serves it), the ledger's shared plugin devices, and, when the set of
// such resources or their classes change, the pending pods' conversions.
// It runs at the start of a round, when the snapshot or the inventory is
// rebuilt anyway. A device of a serving class that a plugin node reaches
// cannot be modelled: it is logged, and the resources are then served as
// before, by device plugins wherever a node has them.
func (s *Scheduler) servePerNode() {
	if !s.c.rebuild && !s.dra.invDirty {
		return
	}
	nodes := s.c.sortedNodes()
	var m kube.PerNode
	if len(s.dra.apiClasses) > 0 {
		classes := kube.NewExtendedResourceClasses(slices.Collect(maps.Values(s.dra.apiClasses)))
		dcs := slices.SortedFunc(maps.Values(s.dra.classes), func(a, b dra.DeviceClass) int { return strings.Compare(a.Name, b.Name) })
		var err error
		if m, err = kube.NewPerNode(classes, dcs, nodes, s.dra.newestSlices()); err != nil {
			s.log.Error("extended resources not served per node", "err", err)
			m = nil
		}
	}
	if pc, ps := m.Inventory(nodes); !samePlugin(s.dra.pluginClasses, s.dra.pluginSlices, pc, ps) {
		s.dra.pluginClasses, s.dra.pluginSlices = pc, ps
		s.dra.invDirty, s.dra.dirty = true, true
	}
	changed := perNodeKey(m) != perNodeKey(s.c.perNode)
	s.c.perNode = m // the same resources, or new ones and a rebuild below
	if changed {
		s.c.rebuild = true
		s.reconvertPending()
	}
}

// perNodeKey names each resource m serves per node and its class, in
// resource order: the pending pods' conversions depend on nothing else
// of m.
func perNodeKey(m kube.PerNode) string {
	var b strings.Builder
	for _, r := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(string(r) + "=" + m[r].Name + ";")
	}
	return b.String()
}

// samePlugin reports whether two inventories of plugin devices are alike:
// the same classes, and slices of the same names and device counts.
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
