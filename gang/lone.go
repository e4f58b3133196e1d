package gang

import "github.com/gangsched/gangsched/placement"

// LonePodGroup returns the implicit basic PodGroup k that a host gives a
// pod of the given priority that belongs to no PodGroup: kube-scheduler
// schedules such a pod alone, at its own priority, which is what a basic
// group of one at that priority does. The priority is set because since
// v1.37 every member must carry its PodGroup's priority, 0 when unset (see
// [Profile]); a lone pod belongs to no group upstream and is held to none.
// k's name should not be a PodGroup's (e.g. "pod:" and the pod's name: ':'
// cannot appear in one). The group is marked as a lone pod's, which
// v1.36 preemption tells apart from a PodGroup ([Profile.perPodPreemptor]);
// the mark survives [Scheduler.SetPodGroup]'s copy, not a rebuilt struct.
func LonePodGroup(k placement.Key, priority int32) *PodGroup {
	return &PodGroup{
		ObjectMeta: ObjectMeta{Namespace: k.Namespace, Name: k.Name},
		Spec:       PodGroupSpec{SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}, Priority: &priority},
		lone:       true,
	}
}
