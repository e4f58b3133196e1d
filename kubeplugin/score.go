package kubeplugin

import (
	"cmp"
	"context"
	"slices"

	fwk "k8s.io/kube-scheduler/framework"

	"github.com/gangsched/gangsched/placement"
)

// ScorePlacement implements fwk.PlacementScorePlugin: gangsched's
// topology Scorer (MostAllocated or BestFit, by the args) of the placement
// with the pods the framework assigned in it. The raw score is
// gangsched's, on its own scale; [Plugin.NormalizePlacementScore] brings
// the scores into 0..100. A placement this plugin did not generate (another
// PlacementGenerate plugin runs first) scores 0.
func (pl *Plugin) ScorePlacement(_ context.Context, state fwk.PlacementCycleState, _ fwk.PodGroupInfo, pga *fwk.PodGroupAssignments) (int64, *fwk.Status) {
	d, ok := read(state.GetPodGroupSchedulingCycle())
	if !ok {
		return 0, nil
	}
	gp, ok := d.placements[pga.Placement]
	if !ok {
		return 0, nil
	}
	res := d.snap.Resources()
	requested := make([]int64, len(res))
	placed := int64(0)
	for _, a := range pga.ProposedAssignments {
		p := a.GetPod()
		i, ok := d.members[p.Namespace+"/"+p.Name]
		if !ok {
			continue // not a pod the generator was shown: nothing to count
		}
		placed++
		for r, name := range res {
			requested[r] += d.group.Members[i].Requests[name]
		}
	}
	if r, ok := slices.BinarySearch(res, placement.ResourcePods); ok {
		requested[r] = placed
	}
	s, err := d.scorer.ScoreSums(d.snap, placement.GroupView{Group: d.group}, &gp.p, placed, requested)
	if err != nil {
		return 0, fwk.AsStatus(err)
	}
	return s, nil
}

// PlacementScoreExtensions implements fwk.PlacementScorePlugin.
func (pl *Plugin) PlacementScoreExtensions() fwk.PlacementScoreExtensions { return pl }

// NormalizePlacementScore implements fwk.PlacementScoreExtensions. It
// makes the scores ordinal, in the order gangsched's solver chooses: a
// lower tier (placement.Placement.Rank) first, then the higher raw score,
// then the generator's order. The first gets 100, the next 99, and so on
// down to 0, so the placement gangsched would choose has the one highest
// score and upstream's random tie-break never decides. Combined with other
// PlacementScore plugins the weights still add up; the example
// configuration runs this one alone.
func (pl *Plugin) NormalizePlacementScore(_ context.Context, state fwk.PodGroupCycleState, _ fwk.PodGroupInfo, scores []fwk.PlacementScore) *fwk.Status {
	d, ok := read(state)
	if !ok {
		return nil
	}
	type entry struct {
		i   int
		g   generated
		raw int64
	}
	es := make([]entry, 0, len(scores))
	for i, s := range scores {
		g, ok := d.placements[s.Placement]
		if !ok {
			scores[i].Score = fwk.MinScore
			continue
		}
		es = append(es, entry{i, g, s.Score})
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.g.p.Rank, b.g.p.Rank), cmp.Compare(b.raw, a.raw), cmp.Compare(a.g.seq, b.g.seq))
	})
	for k, e := range es {
		scores[e.i].Score = max(fwk.MaxScore-int64(k), fwk.MinScore)
	}
	return nil
}

// read returns the plugin's data of a PodGroup cycle, if GeneratePlacements
// left some.
func read(state fwk.PodGroupCycleState) (*cycleData, bool) {
	if state == nil {
		return nil, false
	}
	v, err := state.Read(stateKey)
	if err != nil {
		return nil, false
	}
	d, ok := v.(*cycleData)
	return d, ok
}
