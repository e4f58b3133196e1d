package gang

import "github.com/gangsched/gangsched/placement"

// TreeRoots maps each leaf PodGroup of pgs (one naming a parent
// CompositePodGroup) to the root of its KEP-6012 hierarchy among cpgs: the
// CompositePodGroup reached by following spec.parentCompositePodGroupName
// up from the leaf. A parent missing from cpgs ends the walk there (the
// scheduler gates such a leaf until it exists), as does a cycle of
// parents (which it gates for good). PodGroups without a parent are not
// in the map. Hosts use it to group a tree's leaves as the [Scheduler]
// queues them: by their root. Cost O(len(pgs) × depth) after an
// O(len(cpgs)) index.
func TreeRoots(pgs []*PodGroup, cpgs []*CompositePodGroup) map[placement.Key]placement.Key {
	parent := make(map[placement.Key]string, len(cpgs))
	for _, c := range cpgs {
		if c.Spec.ParentCompositePodGroupName != "" {
			parent[c.Key()] = c.Spec.ParentCompositePodGroupName
		}
	}
	out := map[placement.Key]placement.Key{}
	for _, pg := range pgs {
		if pg.Spec.ParentCompositePodGroupName == "" {
			continue
		}
		k := placement.Key{Namespace: pg.Namespace, Name: pg.Spec.ParentCompositePodGroupName}
		for range len(parent) {
			up, ok := parent[k]
			if !ok {
				break
			}
			k.Name = up
		}
		out[pg.Key()] = k
	}
	return out
}
