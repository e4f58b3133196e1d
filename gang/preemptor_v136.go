package gang

import "github.com/gangsched/gangsched/placement"

// preemptorGroup is g as preemption's search sees it as a preemptor. A
// v1.36 preemptor ranks at its PodGroup's priority, 0 when unset, whatever
// its pods' own and its disruptionMode (v1.36.3 pkg/scheduler/framework/
// preemption/types.go newPodGroupPreemptor reads PodGroupPriority), while
// only a group of disruptionMode PodGroup ranks at it as a victim
// ([Profile.groupOverride]): so for the others the search gets a copy of g
// whose members carry the group's priority. Other profiles, and pg nil, get
// g itself.
func (p Profile) preemptorGroup(pg *PodGroup, g *placement.Group) *placement.Group {
	if pg == nil || p.newest() != ProfileV136 || p.groupOverride(pg) != nil {
		return g
	}
	prio := podGroupPriorityOf(pg.Spec.Priority)
	c := *g
	c.Members = append([]placement.Pod(nil), g.Members...)
	for i := range c.Members {
		c.Members[i].Priority = prio
	}
	c.PodSets = append([]placement.PodSet(nil), g.PodSets...)
	for i := range c.PodSets {
		c.PodSets[i].Template.Priority = prio
	}
	return &c
}

// perPodPreemptor reports whether preemption for pg searches pod by pod,
// with no PodGroup specs: in v1.36 for a host's lone pod ([LonePodGroup]).
// v1.36.3's DefaultPreemption.PostFilter sends a pod without
// spec.schedulingGroup to the per-pod Evaluator (pkg/scheduler/framework/
// plugins/defaultpreemption/default_preemption.go), whose
// isPreemptionAllowed compares each victim pod's own priority and whose
// victims are the pods on the chosen node, one by one: a bound member of
// a disruptionMode PodGroup group is neither ranked at its group's
// priority nor evicted with its group. Group ranking
// (newDomainForWorkloadPreemption) serves only a PodGroup preemptor.
// v1.37.2's per-pod path is group-aware (its isPreemptionAllowed reads
// the victim's Priority(), its victims span a PodGroup's nodes), as the
// v1.37 profile's search is (but for its node choice, see [Profile]);
// v1.38 ranks every pod at its own.
func (p Profile) perPodPreemptor(pg *PodGroup) bool {
	return pg != nil && pg.lone && p.newest() == ProfileV136
}
