package topology

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// Profile says who decides a topology-constrained PodGroup: the solver
// with this package's [Generator] and [Scorer] ([Tree.SolverOptions]), or
// Kueue's algorithm ([Tree.PlanPodSets]).
type Profile int

const (
	// GangschedProfile is gangsched's default: the solver places required
	// and preferred constraints (MostAllocated or BestFit scoring, the
	// complete search); only a group whose constraints have slices is
	// planned by PlanPodSets, since the solver's placements are node sets
	// and cannot hold a count per domain. Below a set's outermost slice
	// level it packs each slice onto the fewest domains
	// ([PlanOptions].BestFitInSlices).
	GangschedProfile Profile = iota
	// KueueProfile plans every constrained group with PlanPodSets, so that
	// a Kueue user gets Kueue's answers: BestFit domain choice (the
	// fewest slices that hold the set, then the fewest pods, then the
	// path), LeastFreeCapacity for unconstrained sets, the fewest
	// lower-level domains inside the chosen one (below the outermost
	// slice level, the least free first, as Kueue v0.17 fills them), a
	// preferred level widening one level at a time, and a PodSetGroup of a
	// one-pod leader and workers placed as one request with the leader
	// ([PlanOptions].KueueLeaderAware), and a Workload's sets and groups
	// planned in the order its caller lists them, spec.podSets order for
	// Kueue ([PlanOptions].InGroupOrder).
	KueueProfile
	// KueueBalancedProfile is KueueProfile with Kueue v0.17's
	// TASBalancedPlacement feature gate on ([PlanOptions].KueueBalanced):
	// a set with a preferred level is balanced one level below it (hosts
	// under a preferred rack) inside one domain of the level above it,
	// each domain used taking a threshold of slices and the rest going to
	// the largest first, as real Kueue answers (checked against it,
	// kube/testdata/kueue-oracle); where Kueue picks among equal domains
	// in Go map order, the first path wins. gangsched's own even spread
	// over the preferred level stays available as [PlanOptions].Balanced.
	KueueBalancedProfile
)

// String returns the profile's name as [ParseProfile] reads it.
func (p Profile) String() string {
	switch p {
	case GangschedProfile:
		return "gangsched"
	case KueueProfile:
		return "kueue"
	case KueueBalancedProfile:
		return "kueue-balanced"
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// ParseProfile reads a profile name: "gangsched" (or ""), "kueue" or
// "kueue-balanced".
func ParseProfile(s string) (Profile, error) {
	for _, p := range []Profile{GangschedProfile, KueueProfile, KueueBalancedProfile} {
		if s == p.String() {
			return p, nil
		}
	}
	if s == "" {
		return GangschedProfile, nil
	}
	return 0, placement.Errorf(placement.ErrInvalid, "topology profile", "name", "unknown %q (want gangsched, kueue or kueue-balanced)", s)
}

// Options returns the plan options of the profile: KueueBalanced for
// KueueBalancedProfile, KueueLeaderAware, InGroupOrder,
// KueueNegativeCounts, KueueNotFit and KueueReplacement for both Kueue
// profiles, BestFitInSlices for
// GangschedProfile.
func (p Profile) Options() PlanOptions {
	kueue := p != GangschedProfile
	return PlanOptions{KueueBalanced: p == KueueBalancedProfile, KueueLeaderAware: kueue, InGroupOrder: kueue, KueueNegativeCounts: kueue, KueueNotFit: kueue, KueueReplacement: kueue, BestFitInSlices: p == GangschedProfile}
}

// Planned reports whether a group with constraints cs is decided by
// [Tree.PlanPodSets] under profile p (see [Profile]).
func (p Profile) Planned(cs []Constraint) bool {
	if len(cs) == 0 {
		return false
	}
	if p != GangschedProfile {
		return true
	}
	for _, c := range cs {
		if c.SliceSize > 0 {
			return true
		}
	}
	return false
}

// MembersRequest turns a PodGroup's constraints into the request that
// plans its members with [Tree.PlanPodSets]: the narrowest required key
// (a wider one is implied), else the narrowest preferred key, and the
// slice layers (constraints with a SliceSize) from the widest level down.
// Kueue takes one level per pod set: a preferred key narrower than the
// required one is an error.
//
// Errors (a [*placement.FieldError] wrapping placement.ErrInvalid or
// ErrNotFound): a key that is not a level of t, a preferred key narrower
// than the required key, two slice layers on one level.
func (t *Tree) MembersRequest(cs []Constraint) (PodSetRequest, error) {
	var r PodSetRequest
	req, pref := -1, -1
	var layers []Constraint
	for i, c := range cs {
		field := fmt.Sprintf("spec.schedulingConstraints.topology[%d].key", i)
		l, ok := t.Level(c.Key)
		if !ok {
			return r, placement.Errorf(placement.ErrNotFound, fmt.Sprintf("topology key %q", c.Key), field, "is not a level of the topology tree (levels: %s)", keyList(t.keys))
		}
		switch {
		case c.SliceSize > 0:
			for _, o := range layers {
				if o.Key == c.Key {
					return r, placement.Errorf(placement.ErrInvalid, fmt.Sprintf("topology key %q", c.Key), field, "two slice layers on one level")
				}
			}
			layers = append(layers, c)
		case c.Preferred:
			pref = max(pref, l)
		default:
			req = max(req, l)
		}
	}
	if req >= 0 {
		r.Required = t.keys[req]
		if pref > req {
			return r, placement.Errorf(placement.ErrInvalid, fmt.Sprintf("topology key %q", t.keys[pref]), "spec.schedulingConstraints.topology",
				"is preferred inside the required %q: Kueue's profile takes one level per pod set", t.keys[req])
		}
	} else if pref >= 0 {
		r.Preferred = t.keys[pref]
	}
	// Widest first: level order.
	for l := range t.keys {
		for _, c := range layers {
			if c.Key == t.keys[l] {
				r.Slices = append(r.Slices, SliceLayer{Key: c.Key, Size: c.SliceSize})
			}
		}
	}
	return r, nil
}
