package gang

import (
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// planned is a group decided by Kueue's algorithm
// (topology.Tree.PlanPodSets) instead of the solver: its members form one
// pod set with the request its constraints make.
type planned struct {
	tree *topology.Tree
	req  topology.PodSetRequest
	opts topology.PlanOptions
}

// newPlanned checks that pg can be planned: its constraints make one
// request, and it uses no ResourceClaims (the plan reserves no devices).
func newPlanned(t *topology.Tree, pg *PodGroup, cs []topology.Constraint, claims bool, p topology.Profile) (*planned, error) {
	if claims {
		return nil, placement.Errorf(placement.ErrInvalid, objRef("PodGroup", &pg.ObjectMeta), "spec.schedulingConstraints.topology",
			"a group planned with profile %s (slices, or a Kueue profile) cannot use ResourceClaims", p)
	}
	req, err := t.MembersRequest(cs)
	if err != nil {
		return nil, err
	}
	return &planned{tree: t, req: req, opts: p.Options()}, nil
}

func (p *planned) solve(snap *placement.Snapshot, g *placement.Group) (placement.Decision, error) {
	pl, err := p.tree.PlanPodSets(snap, g, []topology.PodSetRequest{p.req}, p.opts)
	return pl.Decision, err
}
