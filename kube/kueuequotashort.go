package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/placement"
)

// kueueShortWords is Kueue v0.17's pending message for w in ClusterQueue
// cq when its flavors cannot all be assigned now (quota tree t, each
// unit's first flavor per resource group in start, preemption graded by
// sim, nil as finding no victims), as its flavor assigner writes it
// (pkg/scheduler/flavorassigner assignFlavors, findFlavorForPodSets,
// Assignment.Message):
//
//   - unit by unit (a pod set, or a PodSetGroup's sets together), each
//     resource group covering a resource it requests is given its best
//     flavor by cq's fungibility — Kueue's defaults graded like any other
//     ([KueueQueues.pickFlavor] with every flavor graded) — even one that
//     holds the unit only by preemption ("no candidates" included), whose
//     reasons (those of every flavor tried) the unit's status collects,
//     and whose requests later units find as "previously considered";
//   - a group no flavor may hold at all (every flavor over its maximum
//     capacity, refused, or needing preemption Kueue would not try), or a
//     resource cq does not cover, ends the search: that unit's status is
//     that group's reasons alone (Kueue replaces the unit's status), and
//     no later unit is tried;
//   - each unit with reasons is said in order, "couldn't assign flavors to
//     pod set p: " and its reasons sorted and joined by ", " (once per set
//     of a PodSetGroup), the units joined by "; ".
//
// Within one flavor Kueue goes over the resources in Go map order and
// stops at the first over its maximum capacity, so the resources it names
// beside that one vary from run to run; gangsim names every resource short
// (kueuequota.go), as Kueue does when none is over its capacity.
func (q *KueueQueues) kueueShortWords(cq *KueueClusterQueue, w *KueueWorkload, t quotaTree, start map[[2]int]int, sim preemptSim) string {
	fung := cq.Fungibility
	fung.graded = true
	n := len(w.Group.PodSets)
	ch := flavorChoice{flavors: make([]map[placement.ResourceName]string, n), tas: make([]string, n), usage: map[flavorResource]int64{}, picked: map[[2]int]int{}, tried: map[[2]int]int{}}
	tasOnly := q.tasOnly(cq)
	var said []string
	for u, unit := range kueueUnits(w) {
		reqs := map[placement.ResourceName]int64{}
		for _, k := range unit.sets {
			for r, v := range w.quotaRequests(cq, k, w.quotaCount(k)) {
				reqs[r] = arith.SatAdd(reqs[r], v)
			}
		}
		chosen := map[int]bool{}
		var reasons []string
		for _, r := range slices.Sorted(maps.Keys(reqs)) {
			g := cq.groupOf(r)
			if g < 0 && reqs[r] == 0 {
				continue // as assignFlavorsSim (kueue#8079)
			}
			if g < 0 {
				return strings.Join(append(said, q.unitFails(w, unit, unavailableWords(r))), "; ")
			}
			if chosen[g] {
				continue
			}
			chosen[g] = true
			f, m, _, why := q.pickFlavor(cq, fung, g, w, unit, reqs, t, ch, start[[2]int{u, g}], tasOnly, sim)
			if f < 0 {
				slices.Sort(why)
				return strings.Join(append(said, q.unitFails(w, unit, strings.Join(why, ", "))), "; ")
			}
			if m.mode != modeFit {
				reasons = append(reasons, why...)
			}
			ch.take(q, cq.Groups[g].Covered, cq.Groups[g].Flavors[f].Flavor, reqs)
		}
		if len(reasons) > 0 {
			slices.Sort(reasons)
			said = append(said, q.unitFails(w, unit, strings.Join(reasons, ", ")))
		}
	}
	return strings.Join(said, "; ")
}

// unavailableWords is Kueue's reason for a resource r a unit requests
// that its ClusterQueue does not cover.
func unavailableWords(r placement.ResourceName) string {
	return fmt.Sprintf("resource %s unavailable in ClusterQueue", r)
}
