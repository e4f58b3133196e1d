package kube

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// checkGroupLevels refuses a PodSetGroup whose sets do not ask for one
// topology level the same way, both required or both preferred, as
// Kueue's job webhook refuses it (jobframework
// ValidatePodSetGroupingTopology, topologyRequestsValid). The planner
// would refuse it too, but naming pod sets of a PodGroup; here the error
// names the Workload and the field of the later set that differs from the
// group's first: its topologyRequest's, or its template's annotation.
// reqs are every set's request, in spec.podSets order.
func checkGroupLevels(obj string, ps []kueue.PodSet, reqs []topology.PodSetRequest) error {
	first := map[string]int{} // group name → spec.podSets index of its first set
	for i, r := range reqs {
		if r.Group == "" {
			continue
		}
		j, ok := first[r.Group]
		if !ok {
			first[r.Group] = i
			continue
		}
		o := reqs[j]
		if o.Required == r.Required && o.Preferred == r.Preferred {
			continue
		}
		return placement.Errorf(placement.ErrInvalid, obj, levelField(i, &ps[i], r),
			"PodSetGroup %q: pod set %q %s where %q (spec.podSets[%d]) %s; a group's sets ask for one level, both required or both preferred",
			r.Group, r.PodSet, r.Asks(), o.PodSet, j, o.Asks())
	}
	return nil
}

// checkGroupSize refuses a PodSetGroup of more than two pod sets, naming
// the group field of its third set. Kueue's job webhooks refuse any group
// of other than two sets (jobframework ValidatePodSetGroupingTopology);
// its Workload webhook does not, and for a bare Workload carrying one
// Kueue v0.17's TAS places the group's first two sets and leaves the
// others without an assignment, then dereferences that nil assignment
// (FindTopologyAssignmentsForFlavor, addAssumedUsage): its scheduler
// panics and the Kueue process exits, on every try. The real Kueue did so
// (the harness's log for kueue-oracle/group-three-sets.yaml, 2026-12-07).
// There is no answer of Kueue's to model. A group of one set is placed as
// an ungrouped set, as Kueue's scheduler places it. reqs are every set's
// request, in spec.podSets order.
func checkGroupSize(obj string, ps []kueue.PodSet, reqs []topology.PodSetRequest) error {
	seen := map[string][]int{} // group name → its sets' spec.podSets indexes
	for i, r := range reqs {
		if r.Group == "" {
			continue
		}
		seen[r.Group] = append(seen[r.Group], i)
		if n := seen[r.Group]; len(n) == 3 {
			return placement.Errorf(placement.ErrInvalid, obj, groupField(i, &ps[i]),
				"PodSetGroup %q has a third pod set %q (after spec.podSets[%d] and [%d]): a group has two pod sets, a leader and its workers; Kueue's job webhooks refuse more, and Kueue v0.17's scheduler panics on it (a nil topology assignment for the third set)",
				r.Group, r.PodSet, n[0], n[1])
		}
	}
	return nil
}

// groupField is the field where spec.podSets[i] (ps) names its group.
func groupField(i int, ps *kueue.PodSet) string {
	if ps.TopologyRequest != nil {
		return fmt.Sprintf("spec.podSets[%d].topologyRequest.podSetGroupName", i)
	}
	return fmt.Sprintf("spec.podSets[%d].template.metadata.annotations[%s]", i, KueuePodSetGroup)
}

// levelField is the field where spec.podSets[i] (ps, request r) gives its
// level: topologyRequest's required or preferred when set, else the
// template's annotation.
func levelField(i int, ps *kueue.PodSet, r topology.PodSetRequest) string {
	f := fmt.Sprintf("spec.podSets[%d]", i)
	if ps.TopologyRequest != nil {
		switch {
		case r.Required != "":
			return f + ".topologyRequest.required"
		case r.Preferred != "":
			return f + ".topologyRequest.preferred"
		}
		return f + ".topologyRequest"
	}
	ann := f + ".template.metadata.annotations"
	switch {
	case r.Required != "":
		return ann + "[" + KueueRequiredTopology + "]"
	case r.Preferred != "":
		return ann + "[" + KueuePreferredTopology + "]"
	case r.Unconstrained:
		return ann + "[" + KueueUnconstrainedTopology + "]"
	}
	return ann
}

// maxGroupName is the longest podSetGroupName Kueue's Workload API takes
// (its kubebuilder MaxLength, which the API server counts in characters,
// not bytes: kube-openapi validate.MaxLength).
const maxGroupName = 256

// checkGroupName refuses a topologyRequest.podSetGroupName (field f) that
// Kueue's scheduler would confuse with its key for an ungrouped set: its TAS
// keys each set without a group name by the set's index, as a decimal
// string, so a group named "0" takes in the first ungrouped set too (Kueue
// then places that set as the group's workers and the named sets partly).
// Kueue's job webhook refuses such a name on the annotation for that reason;
// its Workload webhook checks no group name, so a bare Workload reaches the
// scheduler with it. gangsim refuses it as it refuses the annotation, and
// the empty name (Kueue would group every set naming "" together, where the
// annotation refuses it), and one longer than the API takes.
func checkGroupName(obj, f string, g *string) error {
	if g == nil {
		return nil
	}
	if _, err := strconv.ParseUint(*g, 10, 64); err == nil || *g == "" {
		return placement.Errorf(placement.ErrInvalid, obj, f, "%q must be a name, not a number or empty (Kueue's scheduler keys ungrouped sets by their index)", *g)
	}
	if n := utf8.RuneCountInString(*g); n > maxGroupName {
		return placement.Errorf(placement.ErrInvalid, obj, f, "%d characters, more than %d", n, maxGroupName)
	}
	return nil
}
