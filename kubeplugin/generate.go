package kubeplugin

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// stateKey keys the plugin's [cycleData] in a PodGroup's cycle state.
const stateKey fwk.StateKey = Name

// cycleData is what GeneratePlacements leaves for ScorePlacement and
// NormalizePlacementScore of the same PodGroup cycle: gangsched's view of
// the cycle and, per placement handed to the framework, the one gangsched
// generated. Written once, then only read (by several goroutines).
type cycleData struct {
	snap       *placement.Snapshot
	group      *placement.Group
	scorer     placement.SumScorer
	placements map[*fwk.Placement]generated
	members    map[string]int // "namespace/name" → index in group.Members
}

// generated is one of gangsched's placements with its position in the
// generator's output (a total order for ties).
type generated struct {
	p   placement.Placement
	seq int
}

// Clone implements fwk.StateData: the data is never modified, so the
// copy is the data itself.
func (d *cycleData) Clone() fwk.StateData { return d }

// GeneratePlacements implements fwk.PlacementGeneratePlugin: the
// placements of gangsched's topology Generator (topology.Tree.SolverOptions
// documents them) over the parent placement's nodes, for the PodGroup's
// required key (spec.schedulingConstraints.topology[0].key) and the args'
// preferred key. A group with neither gets the parent placement unchanged,
// as upstream's TopologyPlacementGenerator gives it.
//
// Upstream evaluates every placement returned and picks the best score;
// gangsched's tiers (placement.Placement.Rank: a preferred rack before the
// block around it) become an order that [Plugin.NormalizePlacementScore]
// keeps. Members are described to the generator by their requests only:
// their node selectors, tolerations and affinities are checked by the
// profile's Filter plugins inside each placement.
//
// Status: UnschedulableAndUnresolvable when a key has no domain (no node
// carries its label, or those that do lack a wider level's), Unschedulable
// when no placement has a node; Error for nodes or pods whose resources
// cannot be read, and for bound members spread over two domains of the
// required key (the group already breaks its constraint).
func (pl *Plugin) GeneratePlacements(_ context.Context, state fwk.PodGroupCycleState, pgi fwk.PodGroupInfo, parent *fwk.Placement) (*fwk.GeneratePlacementsResult, *fwk.Status) {
	levels, cs := pl.constraints(pgi.GetPodGroup())
	if len(cs) == 0 {
		return &fwk.GeneratePlacementsResult{Placements: []*fwk.Placement{parent}}, nil
	}
	g, err := group(pgi)
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	pl.view.mu.Lock()
	snap, err := pl.view.sync(parent.Nodes)
	var tree *topology.Tree
	if err == nil {
		tree, err = pl.view.tree(levels)
	}
	pl.view.mu.Unlock()
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	opts, err := tree.SolverOptions(cs, pl.cfg.scoring)
	if errors.Is(err, topology.ErrNoDomain) {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	ps, err := opts.Generator.Generate(snap, placement.GroupView{Group: g})
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	byName := make(map[string]fwk.NodeInfo, len(parent.Nodes))
	for _, n := range parent.Nodes {
		byName[n.Node().Name] = n
	}
	// topology's Scorer is a SumScorer: ScorePlacement hands it the sums.
	d := &cycleData{snap: snap, group: g, scorer: opts.Scorer.(placement.SumScorer),
		placements: make(map[*fwk.Placement]generated, len(ps)), members: make(map[string]int, len(g.Members))}
	for i, m := range g.Members {
		d.members[m.Namespace+"/"+m.Name] = i
	}
	out := make([]*fwk.Placement, 0, len(ps))
	names := map[string]bool{}
	for i, p := range ps {
		if len(p.Nodes) == 0 {
			continue
		}
		fp := &fwk.Placement{Name: placementName(p.Name, i, names), Nodes: make([]fwk.NodeInfo, len(p.Nodes))}
		for j, id := range p.Nodes {
			fp.Nodes[j] = byName[snap.Node(id).Name]
		}
		d.placements[fp] = generated{p: p, seq: i}
		out = append(out, fp)
	}
	if len(out) == 0 {
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("no domain of %q holds a node the PodGroup could use", cs[0].Key))
	}
	state.Write(stateKey, d)
	return &fwk.GeneratePlacementsResult{Placements: out}, nil
}

// placementName names a placement for the scheduler's logs and metrics:
// the domain's path ("(cluster)" for the whole cluster), with the
// generator's index appended when a domain comes twice (whole, and
// restricted to some of its sub-domains).
func placementName(path string, i int, seen map[string]bool) string {
	if path == "" {
		path = "(cluster)"
	}
	if seen[path] {
		return fmt.Sprintf("%s#%d", path, i)
	}
	seen[path] = true
	return path
}

// constraints returns the tree levels and gangsched topology constraints
// for pg (nil for a CompositePodGroup, which gets none): its required key
// (the API allows one), and the args' preferred key when the required key
// is one of the args' levels or there is none. Without a required key and a
// preferred one, it returns none.
func (pl *Plugin) constraints(pg *schedulingv1beta1.PodGroup) ([]string, []topology.Constraint) {
	var cs []topology.Constraint
	var required string
	if pg != nil && pg.Spec.SchedulingConstraints != nil && len(pg.Spec.SchedulingConstraints.Topology) > 0 {
		required = pg.Spec.SchedulingConstraints.Topology[0].Key
		cs = append(cs, topology.Constraint{Key: required})
	}
	if required != "" && !slices.Contains(pl.cfg.levels, required) {
		return []string{required}, cs
	}
	if pl.cfg.preferred != "" && pl.cfg.preferred != required {
		cs = append(cs, topology.Constraint{Key: pl.cfg.preferred, Preferred: true})
	}
	return pl.cfg.levels, cs
}

// group builds the gang of pgi's unscheduled pods; its bound members are
// in the view's snapshot.
func group(pgi fwk.PodGroupInfo) (*placement.Group, error) {
	ns, name := pgi.GetNamespace(), pgi.GetName()
	g := &placement.Group{Namespace: ns, Name: name, Policy: placement.PolicyBasic}
	if pg := pgi.GetPodGroup(); pg != nil && pg.Spec.SchedulingPolicy.Gang != nil {
		g.Policy, g.MinCount = placement.PolicyGang, pg.Spec.SchedulingPolicy.Gang.MinCount
	}
	for _, p := range pgi.GetUnscheduledPods() {
		m, err := requestsOnly(p)
		if err != nil {
			return nil, err
		}
		m.SchedulingGroup, m.QueuedAt = name, p.CreationTimestamp.Time
		if p.Spec.Priority != nil {
			m.Priority = *p.Spec.Priority
		}
		g.Members = append(g.Members, m)
	}
	return g, nil
}

// requestsOnly is p as gangsched's generator needs it: its name and its
// effective requests (kube.PodRequests) in canonical units.
func requestsOnly(p *corev1.Pod) (placement.Pod, error) {
	req, err := kube.PodRequests(fmt.Sprintf("pod %s/%s", p.Namespace, p.Name), &p.Spec)
	if err != nil {
		return placement.Pod{}, err
	}
	return placement.Pod{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Requests: req}, nil
}

// groupOf returns the name of p's PodGroup, or "".
func groupOf(p *corev1.Pod) string {
	if sg := p.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return *sg.PodGroupName
	}
	return ""
}
