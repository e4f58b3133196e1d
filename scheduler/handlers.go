package scheduler

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// implicitPrefix names the group of one that a pod in no PodGroup is
// scheduled as (kube-scheduler schedules such a pod alone, which is what a
// basic group of one does). ':' cannot appear in a PodGroup's name.
const implicitPrefix = "pod:"

func implicitGroup(k placement.Key) placement.Key {
	return placement.Key{Namespace: k.Namespace, Name: implicitPrefix + k.Name}
}

func isImplicit(k placement.Key) bool { return strings.HasPrefix(k.Name, implicitPrefix) }

// state is the scheduler's bookkeeping beside the gang queue and the
// snapshot cache.
type state struct {
	classes  map[string]schedulingv1.PriorityClass
	pcs      *kube.PriorityClasses
	queued   map[placement.Key]bool  // pods in the gang queue
	implicit map[placement.Key]bool  // implicit groups of lone pods
	groups   map[placement.Key]int64 // PodGroups known, with their metadata.generation
	// composites are the CompositePodGroups known, with their
	// metadata.generation.
	composites map[placement.Key]int64
	rejected   map[placement.Key]bool // pending pods that did not convert
	waiting    map[placement.Key]bool // pending pods whose ResourceClaims are not seen yet
	// stale are pending pods' implicit claims from an earlier attempt,
	// to delete in the next round, with the UID each had when found.
	stale map[placement.Key]types.UID
	// unconfirmed are PodGroups not yet seen with a True condition (see
	// confirmBound).
	unconfirmed map[placement.Key]bool
	// unconfirmedComposites are the CompositePodGroups not yet seen with
	// a True condition (see confirmComposites).
	unconfirmedComposites map[placement.Key]bool
}

func newState() *state {
	return &state{
		classes:    map[string]schedulingv1.PriorityClass{},
		queued:     map[placement.Key]bool{},
		implicit:   map[placement.Key]bool{},
		groups:     map[placement.Key]int64{},
		composites: map[placement.Key]int64{},
		rejected:   map[placement.Key]bool{},
		waiting:    map[placement.Key]bool{},
		stale:      map[placement.Key]types.UID{},

		unconfirmed:           map[placement.Key]bool{},
		unconfirmedComposites: map[placement.Key]bool{},
	}
}

func (st *state) unqueue(k placement.Key) { delete(st.queued, k) }

// groupKeys returns the known PodGroups, sorted.
func (st *state) groupKeys() []placement.Key {
	ks := make([]placement.Key, 0, len(st.groups))
	for k := range st.groups {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, placement.Key.Compare)
	return ks
}

func podKey(p *corev1.Pod) placement.Key { return placement.Key{Namespace: p.Namespace, Name: p.Name} }

func (s *Scheduler) onPriorityClass(o any) {
	pc := o.(*schedulingv1.PriorityClass)
	s.state.classes[pc.Name] = *pc
	s.rebuildClasses()
}

func (s *Scheduler) onPriorityClassDelete(o any) {
	if pc, ok := o.(*schedulingv1.PriorityClass); ok {
		delete(s.state.classes, pc.Name)
		s.rebuildClasses()
	}
}

func (s *Scheduler) rebuildClasses() {
	list := make([]schedulingv1.PriorityClass, 0, len(s.state.classes))
	for _, pc := range s.state.classes {
		// The built-in system- classes are kube's own (kube.PriorityClasses).
		if !strings.HasPrefix(pc.Name, "system-") {
			list = append(list, pc)
		}
	}
	slices.SortFunc(list, func(a, b schedulingv1.PriorityClass) int { return strings.Compare(a.Name, b.Name) })
	pcs, err := kube.NewPriorityClasses(list)
	if err != nil {
		s.log.Error("PriorityClasses rejected; keeping the previous set", "err", err)
		return
	}
	s.state.pcs = pcs
	// Pods that named a class not seen yet are tried again.
	for k := range s.state.rejected {
		delete(s.state.rejected, k)
		if s.pods == nil {
			continue
		}
		if p, err := s.pods.Pods(k.Namespace).Get(k.Name); err == nil {
			s.onPod(p)
		}
	}
}

func (s *Scheduler) onNode(o any) {
	n := o.(*corev1.Node)
	pn, err := kube.ConvertNode(n)
	if err != nil {
		s.log.Error("node not usable", "node", n.Name, "err", err)
		s.c.deleteNode(n.Name)
		return
	}
	if old, ok := s.c.nodes[n.Name]; ok && sameNode(old, pn) {
		return // a heartbeat or a status change that does not move placement
	}
	s.c.setNode(pn)
}

func (s *Scheduler) onNodeDelete(o any) {
	if n, ok := o.(*corev1.Node); ok {
		s.c.deleteNode(n.Name)
	}
}

func (s *Scheduler) onPodGroup(o any) {
	v := o.(*schedulingv1beta1.PodGroup)
	k := placement.Key{Namespace: v.Namespace, Name: v.Name}
	if gen, ok := s.state.groups[k]; ok && gen == v.Generation {
		return // a status update, most likely our own condition
	}
	pg, err := kube.ConvertPodGroupV1beta1(v, s.state.pcs)
	if err == nil {
		pg.UID = string(v.UID) // the reservedFor entry of its shared claims names it
		err = s.gs.SetPodGroup(pg)
	}
	if err != nil {
		s.log.Error("PodGroup rejected", "podGroup", k.String(), "err", err)
		return
	}
	s.state.groups[k] = v.Generation
	if c, ok := pg.Condition(gang.PodGroupScheduled); !ok || c.Status != gang.ConditionTrue {
		s.state.unconfirmed[k] = true
	}
}

func (s *Scheduler) onPodGroupDelete(o any) {
	if v, ok := o.(*schedulingv1beta1.PodGroup); ok {
		k := placement.Key{Namespace: v.Namespace, Name: v.Name}
		s.gs.DeletePodGroup(k)
		delete(s.state.groups, k)
		delete(s.state.unconfirmed, k)
	}
}

func (s *Scheduler) onPod(o any) {
	p := o.(*corev1.Pod)
	k := podKey(p)
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		s.onPodDelete(p) // it holds nothing any more
		return
	}
	if p.Spec.NodeName != "" {
		s.dra.setExtended(k, extendedPod{})
		if s.state.queued[k] { // bound by someone else
			s.gs.DeletePod(k)
			s.state.unqueue(k)
			s.dropImplicit(k)
		}
		if !s.c.confirm(k, p.Spec.NodeName) {
			s.c.setBound(s.boundPod(p))
		}
		return
	}
	if s.c.assumed[k] || s.state.queued[k] {
		return // our binding is under way, or nothing that matters changed
	}
	if p.Spec.SchedulerName != s.cfg.SchedulerName || len(p.Spec.SchedulingGates) > 0 || p.DeletionTimestamp != nil {
		return
	}
	if why := s.dra.claimsMissing(p); why != "" {
		if !s.state.waiting[k] {
			s.log.Info("pod waits for its ResourceClaims", "pod", k.String(), "reason", why)
		}
		s.state.waiting[k] = true
		return
	}
	if stale := s.staleExtended(p); len(stale) > 0 {
		if !s.state.waiting[k] {
			s.log.Info("pod waits for its implicit claim from an earlier attempt to be deleted", "pod", k.String(), "claim", stale[0].claim.String())
		}
		s.state.waiting[k] = true
		s.dra.setExtended(k, extendedPod{})
		for _, c := range stale {
			s.state.stale[c.claim] = c.uid
		}
		return
	}
	delete(s.state.waiting, k)
	pp, err := kube.ConvertPod(p, s.state.pcs)
	if err == nil {
		err = s.serveExtended(p, &pp)
	}
	if err != nil {
		s.log.Error("pod not schedulable here", "pod", k.String(), "err", err)
		s.state.rejected[k] = true
		return
	}
	if pp.SchedulingGroup == "" {
		gk := implicitGroup(k)
		if err := s.gs.SetPodGroup(gang.LonePodGroup(gk, pp.Priority)); err != nil {
			s.log.Error("pod not schedulable here", "pod", k.String(), "err", err)
			return
		}
		s.state.implicit[gk] = true
		pp.SchedulingGroup = gk.Name
	}
	if err := s.gs.AddPod(pp); err != nil {
		s.log.Error("pod not schedulable here", "pod", k.String(), "err", err)
		return
	}
	s.state.queued[k] = true
	// A preemptor nominated before a restart (or by a previous leader)
	// keeps the room its victims left until its next cycle, as
	// kube-scheduler's nominator rebuilt from the pods would.
	if n := p.Status.NominatedNodeName; n != "" {
		if err := s.gs.Nominate(k, n); err != nil {
			s.log.Error("nomination not restored", "pod", k.String(), "node", n, "err", err)
		}
	}
}

// boundPod converts a bound pod for the snapshot, with every request it
// makes: which of its extended resources its implicit claim holds instead
// depends on its node and the rule of the round (snapCache.snapshot), not
// on what was seen when its handler ran. A pod this adapter cannot
// convert whole (a field gangsched does not model) still takes its
// requests from its node.
func (s *Scheduler) boundPod(p *corev1.Pod) placement.Pod {
	pp, err := kube.ConvertPod(p, s.state.pcs)
	if err == nil {
		return pp
	}
	req, _ := kube.PodRequests(p.Namespace+"/"+p.Name, &p.Spec)
	out := placement.Pod{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), NodeName: p.Spec.NodeName, Requests: req, Labels: p.Labels}
	if p.Spec.Priority != nil {
		out.Priority = *p.Spec.Priority
	}
	return out
}

func (s *Scheduler) onPodDelete(o any) {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	k := podKey(p)
	delete(s.state.rejected, k)
	delete(s.state.waiting, k)
	s.c.deleted(k)
	s.dra.setExtended(k, extendedPod{})
	s.gs.DeletePod(k)
	s.state.unqueue(k)
	s.dropImplicit(k)
}

// sameNode reports whether two conversions of a node place pods alike.
func sameNode(a, b placement.Node) bool {
	return maps.Equal(a.Labels, b.Labels) && maps.Equal(a.Allocatable, b.Allocatable) &&
		slices.Equal(a.Taints, b.Taints) && a.Unschedulable == b.Unschedulable
}
