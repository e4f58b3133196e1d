package scheduler

import (
	"slices"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// snapCache keeps the placement.Snapshot in step with the informers. Bound pods
// (confirmed by the watch, or assumed: bound by this scheduler and not yet
// seen bound) are kept in bound; a change to them is recorded as dirty and
// applied to the snapshot with Snapshot.Apply before the next cycle, so a
// cycle costs the changes since the last one, not a rebuild. Nodes are the
// snapshot's fixed frame: a node change rebuilds it.
type snapCache struct {
	nodes   map[string]placement.Node
	bound   map[placement.Key]placement.Pod
	assumed map[placement.Key]bool // bound here, not yet seen bound by the watch
	// evicted are preemption victims taken out of the snapshot when their
	// deletion was sent; their pods' updates until the deletion shows are
	// ignored, as kube-scheduler ignores a victim once nominated over.
	evicted map[placement.Key]bool

	snap    *placement.Snapshot
	dirty   map[placement.Key]bool
	rebuild bool
	// perNode are the extended resources served per node
	// (Scheduler.servePerNode): the snapshot's nodes without a device
	// plugin for one have no limit on it.
	perNode kube.PerNode
}

func newSnapCache() *snapCache {
	return &snapCache{
		nodes:   map[string]placement.Node{},
		bound:   map[placement.Key]placement.Pod{},
		assumed: map[placement.Key]bool{},
		evicted: map[placement.Key]bool{},
		dirty:   map[placement.Key]bool{},
		rebuild: true,
	}
}

func (c *snapCache) setNode(n placement.Node) {
	c.nodes[n.Name] = n
	c.rebuild = true
}

func (c *snapCache) deleteNode(name string) {
	delete(c.nodes, name)
	c.rebuild = true
}

// setBound records a pod the watch shows bound. It confirms an assumed
// binding to the same node; a pod bound elsewhere than assumed (someone
// else bound it first) replaces the assumption.
func (c *snapCache) setBound(p placement.Pod) {
	k := p.Key()
	if c.evicted[k] {
		return
	}
	delete(c.assumed, k)
	if old, ok := c.bound[k]; ok && old.NodeName == p.NodeName {
		return // a status update of a bound pod: its placement is unchanged
	}
	c.bound[k] = p
	c.dirty[k] = true
}

// confirm does what setBound does for a pod the watch shows bound to node
// when the cache holds it there already (assumed by this scheduler, or
// seen) or ignores it (evicted), and reports whether it did; the caller
// then needs no conversion of the pod. Every binding this scheduler makes
// comes back through the watch, so this is the common case.
func (c *snapCache) confirm(k placement.Key, node string) bool {
	if c.evicted[k] {
		return true
	}
	if old, ok := c.bound[k]; ok && old.NodeName == node {
		delete(c.assumed, k)
		return true
	}
	return false
}

// assume records pods this scheduler bound; snap already holds them (it is
// the cycle's result), so nothing becomes dirty.
func (c *snapCache) assume(snap *placement.Snapshot, pods []placement.Pod) {
	c.snap = snap
	for _, p := range pods {
		c.bound[p.Key()] = p
		c.assumed[p.Key()] = true
	}
}

// forget removes a bound or assumed pod (deleted, a binding that failed).
func (c *snapCache) forget(k placement.Key) {
	delete(c.assumed, k)
	if _, ok := c.bound[k]; ok {
		delete(c.bound, k)
		c.dirty[k] = true
	}
}

// evict removes preemption victims from the snapshot at once: the cycle
// that chose them is followed by one that places the preemptor where they
// were.
func (c *snapCache) evict(keys []placement.Key) {
	for _, k := range keys {
		c.forget(k)
		c.evicted[k] = true
	}
}

// deleted is the watch's deletion of a pod.
func (c *snapCache) deleted(k placement.Key) {
	delete(c.evicted, k)
	c.forget(k)
}

// snapshot returns the snapshot with every recorded change applied. Each
// bound pod enters it as served says (servedOn). A change of served or
// of a node rebuilds it (Scheduler.servePerNode, setNode), so every bound
// pod is read again by the rule and nodes of the round.
func (c *snapCache) snapshot(served kube.ExtendedResourceClasses) (*placement.Snapshot, error) {
	if !c.rebuild && c.snap != nil {
		var ch placement.Change
		for k := range c.dirty {
			if _, ok := c.snap.Pod(k); ok {
				ch.Remove = append(ch.Remove, k)
			}
			if p, ok := c.bound[k]; ok {
				if _, known := c.nodes[p.NodeName]; known {
					ch.Bind = append(ch.Bind, c.servedOn(p, served))
				}
			}
		}
		if len(ch.Remove)+len(ch.Bind) == 0 {
			return c.snap, nil
		}
		slices.SortFunc(ch.Remove, placement.Key.Compare)
		slices.SortFunc(ch.Bind, func(a, b placement.Pod) int { return a.Key().Compare(b.Key()) })
		next, err := c.snap.Apply(ch)
		if err == nil {
			c.snap = next
			clear(c.dirty)
			return next, nil
		}
		// A bound pod requests a resource the snapshot was built without
		// (no node had it then): only a rebuild can take it.
		c.rebuild = true
	}
	nodes := c.perNode.Nodes(c.sortedNodes())
	pods := make([]placement.Pod, 0, len(c.bound))
	for _, p := range c.bound {
		// A pod on a node the watch has not shown yet (or that is gone)
		// takes nothing from any node the scheduler can place on.
		if _, ok := c.nodes[p.NodeName]; ok {
			pods = append(pods, c.servedOn(p, served))
		}
	}
	slices.SortFunc(pods, func(a, b placement.Pod) int { return a.Key().Compare(b.Key()) })
	snap, err := placement.NewSnapshot(nodes, pods)
	if err != nil {
		return nil, err
	}
	c.snap, c.rebuild = snap, false
	clear(c.dirty)
	return snap, nil
}

// servedOn returns bound pod p, on a node seen, without the extended
// resources that served (draCache.served: those served through DRA)
// serves and its node lacks in allocatable: there its implicit claim,
// reserved for it, holds their devices (kube-scheduler decides per node,
// by the node's allocatable), and the node has none of them to count
// against. A node with one in allocatable serves it by its device plugin:
// p keeps it there. p's maps are not modified.
func (c *snapCache) servedOn(p placement.Pod, served kube.ExtendedResourceClasses) placement.Pod {
	if len(served) > 0 {
		n := c.nodes[p.NodeName]
		kube.DropExtended(&p, &n, served.Class)
	}
	return p
}
