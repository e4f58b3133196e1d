package topology

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsched/gangsched/internal/buffers"
	"github.com/gangsched/gangsched/placement"
)

// PlanOptions tune [Tree.PlanPodSets], and the plans of
// [Tree.ResizePodSet] and [Tree.ReplacePodSet]. The zero value is Kueue's
// default topology-aware scheduling (profile BestFit, LeastFreeCapacity for
// unconstrained sets), but for a PodSetGroup, which it places with
// gangsched's group search unless KueueLeaderAware is set.
//
// Most hosts set no field by hand: [Profile.Options] gives a profile's
// options, gangsched's own or Kueue v0.17's answers (see the example of
// Profile.Options). Each field's doc leads with what it changes; the
// Kueue steps and quirks a Kueue* field reproduces, with the Kueue source
// they were read from, are in docs/kueue.md, "PlanOptions in depth".
type PlanOptions struct {
	// KueueLeaderAware places a PodSetGroup of a one-pod leader and
	// workers as Kueue v0.17 does: as one request at the workers' level,
	// each domain counted with the leader and the workers beside it, and
	// a group Kueue would write but never admit is Unschedulable. Without
	// it a group goes to the first domain of its level, in best-fit order
	// for its largest set, where every set fits, each set placed there in
	// turn. KueueProfile and KueueBalancedProfile set it.
	//
	// The group's leader is Kueue's ([KueueLeader]): of its two sets in
	// the order they are planned in (g.PodSets' under InGroupOrder, as
	// Kueue's spec.podSets; by name otherwise), the second unless it has
	// more pods than the first, so of two one-pod sets the second leads,
	// whatever the requests' order. As Kueue, the group's hosts
	// are filtered by the workers' node selector, node affinity and
	// tolerations alone and the leader's own are never read: the leader
	// may land on a host they refuse (the real Kueue admits it there and
	// its pod never starts), which [placement.Verify] of g then refuses;
	// it accepts the decision for g with the leader's filters replaced
	// by its workers'. Check the leader's hosts with
	// [placement.StaticFit] to find such a pod. Kueue's admission checks
	// are the caller's: its job webhooks refuse a group of other than two
	// sets, or of two sets of more than one pod each (jobframework
	// ValidatePodSetGroupingTopology), which the planner places with its
	// own group search; its Workload webhook lets a bare Workload's group
	// of three through, on which Kueue v0.17's scheduler panics. A group
	// of one set is placed as Kueue places it, as an ungrouped set.
	KueueLeaderAware bool
	// InGroupOrder plans the sets in the order of the group's PodSets (the
	// members first), each PodSetGroup where its first set appears, rather
	// than by name. Each set's pods take capacity before the next set is
	// searched, so the order can decide the hosts and even admission: a
	// caller with Kueue's semantics lists the sets in spec.podSets order,
	// as Kueue plans them. The answer's PodSets and PodSetAssignments stay
	// in name order. Under KueueLeaderAware the order also picks a
	// PodSetGroup's leader, as Kueue's spec.podSets order does.
	// KueueProfile and KueueBalancedProfile set it.
	InGroupOrder bool
	// KueueNegativeCounts counts a node whose free room is below zero
	// (pods bound outside the planner requesting more than its
	// allocatable) as Kueue v0.17 does: as a negative number of pods that
	// lowers the totals of its domains, where the node itself takes no
	// pod. It changes which domains are chosen; where Kueue would write a
	// negative count, which its Workload API refuses, the plan is
	// Unschedulable with [Plan].KueueAssumed set. It applies to sets of
	// one slice layer at most. KueueProfile and KueueBalancedProfile set
	// it.
	//
	// A node the set's template or the caller's Filters refuse counts 0,
	// as Kueue leaves it out. How the counts are truncated, summed and
	// split (checked on the real Kueue) is in docs/kueue.md.
	KueueNegativeCounts bool
	// KueueLift, with KueueNegativeCounts, are the negative counts that
	// Kueue's assumptions of held Workloads wrote ([KueueAssumed].Lifts),
	// each usage's Nodes counting the pods below zero as positive
	// counts: Kueue's TAS takes count × one pod's requests as negative
	// usage there, which gives that room back to the sets planned while
	// it holds the assumption. A node not in the snapshot is skipped, as
	// Kueue skips a leaf it does not have.
	KueueLift []placement.PodSetUsage
	// Balanced spreads a set with a Preferred level evenly over the fewest
	// domains of that level that hold it, inside one domain of the level
	// above: the counts per domain differ by at most one slice, and among
	// the balanced choices the tightest wins (the fewest slices of the
	// set's room left in the domains used, then the first path). When no
	// domain of the level above holds the set, it is placed as without
	// Balanced.
	//
	// Room is counted as the set's pods that fit, not as quantities: two
	// choices that both leave no room for another slice tie, however much
	// CPU each strands. This is gangsched's even spread after the idea of
	// Kueue's TASBalancedPlacement gate, not Kueue's answer with it on:
	// for that, set KueueBalanced.
	Balanced bool
	// KueueBalanced places a set with a Preferred level as Kueue v0.17
	// does with its TASBalancedPlacement feature gate on: balanced one
	// level below the preferred one, inside one domain of the level above,
	// each domain used taking a threshold of slices and the rest going to
	// the largest first; with no such domain the set is placed as without
	// it. A PodSetGroup of a one-pod leader and workers is balanced as
	// Kueue balances it; other groups are placed as without it.
	// KueueBalancedProfile sets it; it overrides Balanced.
	//
	// Where Kueue picks among equal choices in Go map order, the first
	// path wins; with NodeAffinityPreferred, preferred node affinity
	// breaks only those ties, so the answer stays one Kueue could give.
	// One order is not map order: Kueue sorts the chosen domain's
	// children in place (by leader, room beside it, entropy), and a later
	// set of the same Workload meets them in that order, in its own
	// sort's ties and in the children it fills below a preferred level;
	// so do the later sets of one plan here (kueuebalancedorder.go).
	// Kueue's steps and the quirks kept are in docs/kueue.md.
	KueueBalanced bool
	// KueueHostAppended says that the tree's lowest level is
	// kubernetes.io/hostname appended below the levels of a Kueue Topology
	// that lacks it (kube.KueueTreeLevels): Kueue's TAS takes the domains
	// of the level above as its leaves, so KueueBalanced balances no lower
	// than that level (a set preferred at it is balanced over its
	// domains, not over their hosts). The tree must have two levels or
	// more. kube sets it for such trees.
	KueueHostAppended bool
	// BestFitInSlices packs each slice onto the fewest domains below the
	// set's outermost slice level, best fit last, as domains above that
	// level are filled. Without it (Kueue v0.17) the children with the
	// fewest of the set's pods free are filled first: a 3-pod slice in a
	// rack whose hosts hold 4, 3 and 2 goes to the host of 3 with it, and
	// takes 2 + 1 on the two smallest without it. GangschedProfile sets it.
	BestFitInSlices bool
	// NodeAffinityPreferred ranks domains and nodes by the template's
	// preferred node affinity, as Kueue's TASRespectNodeAffinityPreferred
	// feature gate (alpha, off by default as there) does: the higher
	// summed weight of matched terms comes first at every level, before
	// BestFit's or LeastFreeCapacity's order.
	//
	// A node scores the weights of the preferred terms it matches
	// (upstream's NodeAffinity score before normalisation) when the set's
	// pods pass it, room or not; a domain the sum of its nodes'. The best
	// fit of a last domain looks only among the domains of the first
	// one's score. A Required level that the first domain does not hold
	// is searched further down that order; a Preferred one widens. A
	// PodSetGroup's domain is the first of the highest score of its
	// largest set (the workers, whose template Kueue scores a group by)
	// that holds every set, then by best fit; each set ranks its nodes
	// inside by its own terms. A Balanced set keeps the fewest domains
	// first; among splits over that many, the one whose domains have the
	// highest summed score wins, and inside a scope the domains of the
	// highest score are taken first.
	NodeAffinityPreferred bool
	// Filters are the caller's per-pod, per-node checks: a node a filter
	// rejects holds none of the set's pods. They run after the built-in
	// ones, as placement.Solve runs Options.Filters. Each is asked once
	// per set and node, with a pod named as the set's pods are (a member
	// for the members) and a NodeInfo of the snapshot alone
	// (placement.NewNodeInfo): it must not depend on the sets planned
	// before it. A Rejection with Err stops the plan with an error
	// wrapping placement.ErrHook that names the filter, pod and node.
	Filters []placement.Filter
	// KueueReplacement makes [Tree.ReplacePodSet] give Kueue v0.17's
	// node hot swap answer (TASFailedNodeReplacement): the lost pods are
	// planned as one new request of their count, confined to Kueue's
	// replacement domain (see ReplacePodSet), rather than completing each
	// broken slice in its own domain and placing the slices lost whole
	// beside the survivors. KueueProfile and KueueBalancedProfile set it.
	KueueReplacement bool
	// KueueNotFit records, when a set does not fit, Kueue v0.17's own
	// account of it ([Plan].KueueNotFit) for a caller that words the
	// reason as Kueue does; the decision's Message keeps gangsched's.
	// KueueProfile and KueueBalancedProfile set it.
	KueueNotFit bool
	// Buffers, when set, is memory the plan's slices are carved from
	// instead of allocated (see [PlanBuffers]); the plan is then valid
	// only until the next plan with the same Buffers. [Tree.PlanPodSets]
	// reads it, and [Tree.ResizePodSet] for its delta when the resize
	// has buffers of its own (placement.Resize.Buffers); the repair
	// call, which keeps several plans, and a resize without them ignore
	// it.
	Buffers *PlanBuffers
}

// PlanBuffers is memory a caller keeps between [Tree.PlanPodSets] calls
// ([PlanOptions].Buffers) so that a plan's slices — its PodSets, their
// Ranks, the decision's PodSetAssignments and its Placement.Nodes when
// the set spans several domains — reuse it rather than being allocated
// each call, as a batch system that plans every cycle would
// keep it: the answer of a 4,096-pod set over 512 hosts is two arrays of
// 512 entries with a string in each, whose allocation and collection
// cost more than the plan's search on small clusters (BENCHMARKS.md,
// "Pod sets planned as Kueue plans them"). The slices of a plan made with
// Buffers are overwritten by the next plan with the same Buffers: copy
// what you keep. The decision's Assignments (the members' set) are
// allocated as before. The zero value is ready to use; one PlanBuffers
// serves one call at a time.
type PlanBuffers struct {
	ranks []Rank
	sets  []placement.PodSetAssignment
	plans []PodSetPlan
	nodes []placement.NodeID
}

// Plan is the answer of [Tree.PlanPodSets].
type Plan struct {
	// Decision is the group's decision, in the form [placement.Solve]
	// gives: all pods of every set, or none (Status Unschedulable, with
	// the reasons in Message). [placement.Verify] accepts it, but for a
	// PodSetGroup's leader on a host only its own filters refuse, under
	// [PlanOptions].KueueLeaderAware, as Kueue places it.
	Decision placement.Decision
	// PodSets are the planned sets, sorted by name ("" for the members
	// first); empty unless Scheduled.
	PodSets []PodSetPlan
	// KueueAssumed, with [PlanOptions].KueueLeaderAware or KueueBalanced,
	// is set (Decision then Unschedulable) where Kueue v0.17 takes the
	// plan as a fit but cannot write it: a PodSetGroup whose leader-aware
	// split loses the leader, or every pod, on the way down, for which
	// Kueue's TAS returns the assignments it has and no failure reason
	// (findTopologyAssignment); or, with KueueNegativeCounts, a set
	// whose least-free-first fill writes a node's negative count. Kueue
	// then assumes the Workload in its cache and its Workload API refuses
	// the empty topologyAssignment, or the count below 1, every
	// scheduling cycle (see docs/kueue.md, Quota). nil otherwise.
	KueueAssumed *KueueAssumed
	// KueueNotFit, with [PlanOptions].KueueNotFit, is Kueue v0.17's
	// account of the set that does not fit (Decision then Unschedulable);
	// nil when the plan fits, or fails where gangsim does not model
	// Kueue's numbers (a PodSetGroup placed by the group search, bound
	// pods, an elastic growth's nearby domains).
	KueueNotFit *KueueNotFit
}

// KueueAssumed is a plan Kueue v0.17 assumes and cannot write
// ([Plan].KueueAssumed).
type KueueAssumed struct {
	// Why says which set Kueue writes with an empty topologyAssignment
	// and why, e.g. `PodSetGroup "lws": Kueue v0.17's split of pod sets
	// "leader" and "workers" (3 pods) over the domains under b1/r1 does not
	// complete, so it writes both with empty topologyAssignments`.
	Why string
	// Decision is Scheduled and places only the pods Kueue's assumption
	// puts on nodes: the workers of a group that lost its leader, none of
	// a group that lost both sets, the positive counts of a set with a
	// negative one written (more pods than the set has, by the negative
	// ones; the node in deficit holds none), and every pod of the
	// Workload's other sets. It is not a whole placement:
	// [placement.Verify] refuses it.
	Decision placement.Decision
	// PodSets are the sets Decision places, as [Plan].PodSets.
	PodSets []PodSetPlan
	// Lifts are the negative counts written of hosts in deficit, per
	// set, as [PlanOptions].KueueLift takes them (counts below zero as
	// positive counts): a caller holding the assumption passes them to
	// the plans made meanwhile. Empty for an empty topologyAssignment.
	Lifts []placement.PodSetUsage
	// Refused says what Kueue's Workload API refuses in the admission,
	// worded to follow "the admission": "whose topologyAssignment has no
	// slices" (an empty one), or "whose topologyAssignment counts a node
	// below 1 pod" (a negative count, [PlanOptions].KueueNegativeCounts).
	Refused string
}

// PodSetPlan is where one set's pods go, in rank order.
type PodSetPlan struct {
	// Name is the set's name, "" for the members.
	Name string
	// Domain is the path of the one domain the set was fitted into (its
	// Required or Preferred level's, or a wider one's when that one did
	// not hold it), or "" when the set spreads over several domains of the
	// widest level, or is unconstrained.
	Domain string
	// Ranks are the nodes the set's pods go to, ordered by the path of
	// their deepest domain, then node name, so that the set's pods taken
	// in rank order fill the domains one after the other: pod i lands in
	// the same domain as pod i-1 or the next one, at every level, and each
	// slice of the set (pods [k·size, (k+1)·size)) lies in one domain of
	// its slice level. A host that maps completion indexes to ranks keeps
	// neighbours together.
	Ranks []Rank
}

// Rank is a run of a set's pods on one node.
type Rank struct {
	Node   string
	NodeID placement.NodeID
	// First is the rank (0-based) of the run's first pod in the set.
	First int32
	Count int32
}

// PlanPodSets places the group's pod sets (and its Members, as one more set
// named "") with Kueue's topology-aware scheduling algorithm (KEP-2724;
// kubernetes-sigs/kueue pkg/cache/scheduler tas_flavor_snapshot.go for the
// semantics): each set whole or the group not at all.
//
// Only the nodes with a domain at every level of the tree take part, for
// every request, unconstrained ones too: Kueue's TAS flavor holds only the
// nodes carrying each level's label (a node lacking one, say a new node
// before its labeller ran, never gets a pod here, whatever its room; a
// failure's reason counts such nodes when there are any).
//
// For each set it counts, bottom up, how many of its pods and slices fit in
// every domain (a node counts the template's copies that fit its free
// capacity and pass its nodeSelector, tolerations, taints and
// unschedulable); then it picks, at the set's level, the domain with the
// fewest slices that still holds the set, among equals the fewest pods,
// then the first path (Kueue's BestFit) — for an unconstrained set the node
// with the least free capacity that holds it, else the least free nodes
// first (LeastFreeCapacity); for a Preferred level that no domain holds,
// the next wider level, and at the widest the fewest domains, largest first;
// then it walks down, filling the largest domains of each level first and
// the last by best fit, so that the set uses as few lower-level domains as
// possible, with each slice layer's domains taking whole slices. Sets are
// planned one after the other, the pods of each taking the capacity the
// next sees: the sets of a PodSetGroup together in one domain of their
// level (the first domain, by best fit for the largest set, where all fit,
// or Kueue's search with [PlanOptions].KueueLeaderAware), smaller sets
// first; the sets and groups by name (the members, "", first), or with
// [PlanOptions].InGroupOrder in the order of g.PodSets, a group where its
// first set appears, as Kueue plans a Workload's spec.podSets. A set or the members without a
// request are placed unconstrained, as Kueue places a pod set without
// topology annotations on a topology flavor.
//
// Bound members of the group are left where they are: a Required set goes
// to the domain holding them. They are pods of the group's one sliced set
// (if any): its count plus theirs must be a multiple of the outermost
// slice size; layer by layer, the innermost first, each domain of the
// layer's level where the set's pods leave a slice incomplete gets the
// set's pods that complete it first (in whole slices of the layer inside),
// then the rest are planned as whole new slices, so every slice of every
// layer, bound pods and new, lies in one domain of its level (the new
// pods' ranks then go by domain, not slice by slice). Otherwise a set's count (or the number of members) that is not
// a multiple of its outermost slice size is an error, as in Kueue.
//
// Cost: O(nodes × resources) per set to count, plus sorting the domains of
// the levels searched and the children of the domains used.
//
// Errors (a [*placement.FieldError]; no plan): a nil or zero Tree, a nil
// snapshot or group,
// a group [placement.Solve] would reject (names, counts, minCount), a
// request naming a set the group lacks or one set twice, a request with
// more than one of Required, Preferred and Unconstrained, a level that is
// not the tree's (ErrNotFound) or has no domain ([ErrNoDomain]), slice
// layers out of order or whose sizes do not divide, more than
// [MaxSliceLayers] layers, members that are not identical or have
// affinity terms or claims, a count not a multiple of the slice size,
// PodSetGroups whose sets ask for different levels or one required and
// another preferred, bound members with two
// sliced sets, bound members in two domains of
// a Required level, a nil filter. A filter's error is returned as above.
func (t *Tree) PlanPodSets(s *placement.Snapshot, g *placement.Group, reqs []PodSetRequest, opts PlanOptions) (Plan, error) {
	if err := t.checkBuilt(); err != nil {
		return Plan{}, err
	}
	if err := checkPlanArgs(s, g, opts); err != nil {
		return Plan{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.planLocked(s, g, reqs, opts, nil)
}

// checkPlanArgs checks a plan's group, as Solve checks it, and filters.
func checkPlanArgs(s *placement.Snapshot, g *placement.Group, opts PlanOptions) error {
	if s == nil {
		return placement.Errorf(placement.ErrInvalid, "topology plan", "snapshot", "must not be nil")
	}
	if g == nil {
		return placement.Errorf(placement.ErrInvalid, "topology plan", "group", "must not be nil")
	}
	// Verify of no decision checks the group alone.
	if err := placement.Verify(s, g, placement.Decision{}); err != nil {
		return err
	}
	for i, f := range opts.Filters {
		if f == nil {
			return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("PodGroup %q", g.Key().String()), fmt.Sprintf("PlanOptions.Filters[%d]", i), "must not be nil")
		}
	}
	return nil
}

// fixedPods are pods of a group's one sliced set (or of its only set)
// that never move: its bound members, or an elastic set's existing pods
// (ResizePodSet), one node per pod.
type fixedPods struct {
	nodes []placement.NodeID
	pods  []placement.Key // for errors: the bound member, or the set's pods' key
	what  string          // how reasons call them: "bound members", "existing pods"
}

// planLocked is PlanPodSets after its checks, t.mu held. existing, when
// not nil, are the existing pods of the group's one set (an elastic
// growth): they take the place of the bound members as the pods the set
// keeps, confines itself to and completes the slices of; the bound
// members still count in the decision.
func (t *Tree) planLocked(s *placement.Snapshot, g *placement.Group, reqs []PodSetRequest, opts PlanOptions, existing *fixedPods) (Plan, error) {
	c, err := t.capacityFor(s)
	if err != nil {
		return Plan{}, err
	}
	rs, err := t.requests(s, g, reqs, c, opts.InGroupOrder)
	if err != nil {
		return Plan{}, err
	}
	if opts.KueueLeaderAware {
		kueueLeaders(rs)
	}
	bm := t.boundOf(s, g.Key())
	out := &planOut{fixed: fixedPods{nodes: bm.nodes, pods: bm.pods, what: "bound members"}, buffers: opts.Buffers, group: g.Key()}
	if existing != nil {
		out.fixed = *existing
	}
	fixed := &out.fixed
	N := s.NumNodes()
	D, R := len(t.doms), len(c.res)
	if sc := t.plan; sc == nil || len(sc.pods) != D+N || len(sc.extra) != N*R {
		t.plan = newPlanScratch(t, s, D+N, R)
	}
	// The planner lives in the scratch, as its arrays do: a plan does not
	// allocate it.
	sc := t.plan
	p := &sc.planner
	*p = planner{t: t, s: s, c: c, L: len(t.keys), D: D, R: R, opts: opts,
		pods: sc.pods, slice: sc.slice, take: sc.take, neg: sc.neg, aff: sc.aff, taken: sc.taken[:0],
		reqIdx: p.reqIdx[:0], reqQ: p.reqQ[:0]}
	sc.setNodes, sc.setTakes, sc.setFit = sc.setNodes[:0], sc.setTakes[:0], sc.setFit[:0]
	defer p.release()
	if opts.KueueNegativeCounts {
		p.lift(opts.KueueLift)
	}
	owner, err := ownerOf(rs, len(fixed.nodes))
	if err != nil {
		return Plan{}, err
	}
	scope := make([]int, len(rs)) // per request, the domain its fixed pods confine it to, or -1
	for i := range rs {
		if len(opts.Filters) > 0 {
			rs[i].setHookPod(g)
		}
		var b int64
		if i == owner {
			b = int64(len(fixed.nodes))
		}
		if err := rs[i].checkCount(b, fixed.what); err != nil {
			return Plan{}, err
		}
		scope[i] = -1
		if len(fixed.nodes) == 0 {
			continue
		}
		if rs[i].required {
			d, err := t.boundScope(s, g, fixed, rs[i].level)
			if err != nil {
				return Plan{}, err
			}
			scope[i] = int(d)
		} else if existing != nil && rs[i].preferred {
			rs[i].near = t.nearScopes(fixed.nodes, rs[i].level)
		}
	}
	out.p, out.owner = p, owner
	ws := works(rs)
	for i, w := range ws {
		out.last = i == len(ws)-1
		msg := out.planWork(rs, w, scope, opts)
		if p.hookErr != nil {
			return Plan{}, p.hookErr
		}
		if msg != "" {
			if out.notFit != nil {
				out.notFit.Before = out.before()
			}
			return Plan{Decision: p.failed(g, len(bm.nodes), msg), KueueNotFit: out.notFit}, nil
		}
	}
	pl := out.plan(g, bm.nodes, existing != nil)
	if out.assumed != "" {
		// Every set Kueue's TAS answers fits: it assumes the Workload.
		return Plan{Decision: p.failed(g, len(bm.nodes), out.assumedMsg),
			KueueAssumed: &KueueAssumed{Why: out.assumed, Decision: pl.Decision, PodSets: pl.PodSets, Refused: out.refused(), Lifts: out.lifts}}, nil
	}
	return pl, nil
}

// ownerOf returns the index of the request that the group's bound
// members belong to: the one sliced set, or -1 when none is sliced or
// nothing is bound.
func ownerOf(rs []request, bound int) (int, error) {
	owner := -1
	if bound == 0 {
		return owner, nil
	}
	for i := range rs {
		if !rs[i].sliced() {
			continue
		}
		if owner >= 0 {
			return -1, placement.Errorf(placement.ErrInvalid, rs[i].obj(), "slices", "the group has %d bound members, which belong to its one sliced set, and %s is sliced too", bound, rs[owner].obj())
		}
		owner = i
	}
	return owner, nil
}

// requests compiles and binds reqs, adding an unconstrained request for
// every set (and the members) that has none; sorted by set name, or with
// inGroupOrder the members first, then the sets in g.PodSets' order.
func (t *Tree) requests(s *placement.Snapshot, g *placement.Group, reqs []PodSetRequest, c *capacity, inGroupOrder bool) ([]request, error) {
	// requested finds a set's request: by a scan for a few requests (Kueue
	// allows 8 pod sets), by a map for many.
	var seen map[string]int
	if len(reqs) > 8 {
		seen = make(map[string]int, len(reqs))
	}
	requested := func(name string, among []PodSetRequest) (int, bool) {
		if seen != nil {
			j, ok := seen[name]
			return j, ok
		}
		j := slices.IndexFunc(among, func(r PodSetRequest) bool { return r.PodSet == name })
		return j, j >= 0
	}
	rs := make([]request, 0, len(g.PodSets)+1)
	for i, r := range reqs {
		if j, dup := requested(r.PodSet, reqs[:i]); dup {
			return nil, placement.Errorf(placement.ErrDuplicate, fmt.Sprintf("pod set %q", r.PodSet), fmt.Sprintf("requests[%d].podSet", i), "also requests[%d]", j)
		}
		if seen != nil {
			seen[r.PodSet] = i
		}
		cr, err := t.compile(g, r, func() string { return fmt.Sprintf("requests[%d]", i) })
		if err != nil {
			return nil, err
		}
		rs = append(rs, cr)
	}
	implied := func(name string) error {
		if _, ok := requested(name, reqs); ok {
			return nil
		}
		cr, err := t.compile(g, PodSetRequest{PodSet: name}, func() string { return "requests" })
		rs = append(rs, cr)
		return err
	}
	if len(g.Members) > 0 {
		if err := implied(""); err != nil {
			return nil, err
		}
	}
	for k := range g.PodSets {
		if err := implied(g.PodSets[k].Name); err != nil {
			return nil, err
		}
	}
	if inGroupOrder {
		sortInGroupOrder(rs, g)
	} else {
		slices.SortFunc(rs, func(a, b request) int { return strings.Compare(a.name, b.name) })
	}
	for i := range rs {
		if err := rs[i].bind(s, g); err != nil {
			return nil, err
		}
		for r, q := range rs[i].tmpl.Requests {
			if _, ok := c.resIdx[r]; !ok && q > 0 {
				rs[i].untracked = true
			}
		}
	}
	var groups map[string]int // made at the first set in a PodSetGroup
	for i := range rs {
		if rs[i].group == "" {
			continue
		}
		if groups == nil {
			groups = map[string]int{}
		}
		if j, ok := groups[rs[i].group]; ok && (rs[j].level != rs[i].level || rs[j].required != rs[i].required) {
			return nil, placement.Errorf(placement.ErrInvalid, rs[i].obj(), "group", "PodSetGroup %q: %s where pod set %q %s; a group's sets ask for one level, all required or all preferred", rs[i].group, rs[i].asks(t.keys), rs[j].name, rs[j].asks(t.keys))
		}
		groups[rs[i].group] = i
	}
	return rs, nil
}

// works returns the order in which the requests are planned, each entry
// the requests planned together: a PodSetGroup (smaller sets first, then
// in rs's order), or one set; in rs's order of each entry's first set
// (by name, or the group's order: see [PlanOptions].InGroupOrder).
func works(rs []request) [][]int {
	if len(rs) == 1 {
		return oneWork
	}
	var out [][]int
	at := map[string]int{}
	for i := range rs {
		if g := rs[i].group; g != "" {
			if k, ok := at[g]; ok {
				out[k] = append(out[k], i)
				continue
			}
			at[g] = len(out)
		}
		out = append(out, []int{i})
	}
	for _, w := range out {
		slices.SortStableFunc(w, func(a, b int) int { return cmp.Compare(rs[a].count, rs[b].count) })
	}
	return out
}

// oneWork is works' answer for one request, shared: planWork only reads
// it.
var oneWork = [][]int{{0}}

// nearScopes returns the domains that hold every node of nodes, from the
// narrowest at level or above to the widest: an elastic set's delta
// tries them in turn, so that it joins the existing pods' preferred
// domain when it fits there and widens around them before the rest of
// the cluster.
func (t *Tree) nearScopes(nodes []placement.NodeID, level int) []int {
	if len(nodes) == 0 {
		return nil
	}
	// The narrowest common ancestor, walked up in step from the level;
	// a node in no domain of the level (a missing label) leaves none,
	// and the delta is planned as a new set.
	d := t.domainOf(nodes[0], level)
	for _, id := range nodes[1:] {
		e := t.domainOf(id, level)
		for d >= 0 && e >= 0 && d != e {
			d, e = t.doms[d].parent, t.doms[e].parent
		}
		if e < 0 {
			d = -1
		}
		if d < 0 {
			return nil
		}
	}
	var out []int
	for ; d >= 0; d = t.doms[d].parent {
		out = append(out, int(d))
	}
	return out
}

// boundScope returns the domain of level holding every fixed pod.
func (t *Tree) boundScope(s *placement.Snapshot, g *placement.Group, f *fixedPods, level int) (DomainID, error) {
	b := &builder{t: t, s: s, g: placement.GroupView{Group: g}, bound: f.nodes, boundPods: f.pods}
	return b.boundDomain(level)
}

// planOut collects the planned sets.
type planOut struct {
	p     *planner
	sets  []setOut
	last  bool      // planning the last work: no set after it reads its usage
	owner int       // the request the fixed pods belong to, or -1
	fixed fixedPods // the bound members, or an elastic set's existing pods
	// buffers is PlanOptions.Buffers: the answer's memory, or nil.
	buffers *PlanBuffers
	// assumed, when not "", says why Kueue cannot write the plan it
	// assumes ([Plan].KueueAssumed); assumedMsg is the whole reason the
	// decision gives.
	assumed, assumedMsg string
	// assumedNeg says the assumed set is one with a negative count
	// written, not an empty assignment; lifts are those counts
	// ([KueueAssumed].Lifts).
	assumedNeg bool
	lifts      []placement.PodSetUsage
	group      placement.Key // the group planned
	// notFit is Kueue's account of the set that failed ([Plan].KueueNotFit).
	notFit *KueueNotFit
}

// refused is [KueueAssumed].Refused of o's assumed plan.
func (o *planOut) refused() string {
	if o.assumedNeg {
		return "whose topologyAssignment counts a node below 1 pod"
	}
	return "whose topologyAssignment has no slices"
}

// assume records that a PodSetGroup's sets are kept as Kueue v0.17's TAS
// answers them though it cannot write them: why (for a Kueue admitter)
// and msg (the decision's reason). The first such group is named.
func (o *planOut) assume(why, msg string) {
	if o.assumed == "" {
		o.assumed, o.assumedMsg = why, msg
	}
}

// release leaves the tree's scratch as PlanPodSets expects it: take and
// extra all zero.
func (p *planner) release() {
	p.clearTakes()
	p.t.plan.taken = p.taken
	if p.extra != nil {
		clear(p.extra)
	}
	*p = planner{reqIdx: p.reqIdx[:0], reqQ: p.reqQ[:0]} // keeps no snapshot or request alive
}

type setOut struct {
	r     *request
	fit   []int // units the set was fitted into
	nodes []int // node units used
	takes []int64
}

// planWork plans the requests of one work entry and keeps their usage;
// it returns a reason when they do not fit.
func (o *planOut) planWork(rs []request, w []int, scope []int, opts PlanOptions) string {
	p := o.p
	if len(w) == 1 {
		plan := p.planSet
		if w[0] == o.owner {
			plan = func(r *request, scope int, opts PlanOptions) (setOut, *failure) {
				return p.planSetBound(r, scope, &o.fixed, opts)
			}
		}
		so, f := plan(&rs[w[0]], scope[w[0]], opts)
		if f != nil && f.assumed != nil && (opts.KueueLeaderAware || opts.KueueBalanced) {
			// Kueue's TAS answers the set, its API refuses the answer.
			so = *f.assumed
			if o.assumed == "" {
				o.assumedNeg = true
			}
			o.assume(f.why, f.msg)
			if len(f.lift) > 0 {
				r := &rs[w[0]]
				o.lifts = append(o.lifts, placement.PodSetUsage{Group: o.group, PodSet: r.name, Requests: r.tmpl.Requests, Nodes: f.lift})
			}
		} else if f != nil {
			if w[0] != o.owner && scope[w[0]] < 0 {
				o.notFit = p.kueueNotFit(f, "")
			}
			return p.reason(f)
		}
		o.keep(so)
		return ""
	}
	if opts.KueueBalanced {
		if msg, done := o.kueueBalancedGroup(rs, w, scope); done {
			return msg
		}
	}
	if opts.KueueLeaderAware {
		if msg, done := o.kueueGroup(rs, w, scope); done {
			return msg
		}
	}
	// A PodSetGroup: the first domain of the level (widening for a
	// preferred one) where every set fits, in best-fit order for the
	// largest set.
	big := &rs[w[len(w)-1]]
	lvScope := scope[w[len(w)-1]]
	stop := 0
	if lvScope >= 0 {
		stop = p.level(lvScope)
	}
	var names []string
	for _, i := range w {
		names = append(names, fmt.Sprintf("%q", rs[i].name))
	}
	var firstFail string
	for q := max(big.level, stop); q >= stop; q-- {
		p.use(big)
		p.fillScope(lvScope)
		p.t.plan.forget()
		// Best fit: the domains that hold the largest set alone, the
		// fewest slices first, then the fewest pods, then path; while
		// the largest set's preferred node affinity ranks domains, the
		// highest summed score before all of these (Kueue scores a group
		// by its workers' template).
		all := p.unitsAt(q, lvScope)
		if firstFail == "" {
			f := &failure{level: q, best: -1}
			for _, u := range all {
				if f.best < 0 || p.pods[u] > f.holds {
					f.best, f.holds = u, p.pods[u]
				}
			}
			if f.holds < big.count {
				firstFail = p.reason(f)
			}
		}
		cands := slices.DeleteFunc(all, func(u int) bool { return p.pods[u] < big.count })
		slices.SortFunc(cands, func(a, b int) int {
			if p.prefer && p.aff[a] != p.aff[b] {
				return cmp.Compare(p.aff[b], p.aff[a])
			}
			if c := cmp.Compare(p.slice[a], p.slice[b]); c != 0 {
				return c
			}
			if c := cmp.Compare(p.pods[a], p.pods[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		for _, u := range cands {
			f := o.planAll(rs, w, func(r *request) (setOut, *failure) { return p.planSetIn(r, u) })
			if f == nil {
				return ""
			}
			if firstFail == "" {
				firstFail = p.reason(f)
			}
		}
		if big.required {
			break
		}
	}
	// Kueue widens a preferred group past the top level: over the
	// whole cluster, each set as a preferred set alone (so across
	// several top-level domains).
	if !big.required && lvScope < 0 && o.planAll(rs, w, func(r *request) (setOut, *failure) { return p.planSet(r, -1, opts) }) == nil {
		return ""
	}
	if firstFail == "" {
		firstFail = "no domain to try"
	}
	if !big.required && lvScope < 0 {
		return fmt.Sprintf("PodSetGroup %q prefers pod sets %s in one %s domain; neither one domain of any level nor the cluster holds them together: %s",
			big.group, strings.Join(names, ", "), p.t.keys[big.level], firstFail)
	}
	return fmt.Sprintf("PodSetGroup %q needs pod sets %s in one %s domain; none holds them together: %s",
		big.group, strings.Join(names, ", "), p.t.keys[big.level], firstFail)
}

// planAll plans the sets w of a group one after another with plan, each
// seeing the usage of those before it, and keeps them all when every one
// fits; else it keeps none and returns the first failure.
func (o *planOut) planAll(rs []request, w []int, plan func(*request) (setOut, *failure)) *failure {
	p := o.p
	var got []setOut
	var fail *failure
	kids := maps.Clone(p.kbKids) // a set not kept leaves no sort behind
	for _, i := range w {
		so, f := plan(&rs[i])
		if f != nil {
			fail = f
			break
		}
		got = append(got, so)
		p.addUsage(so, 1)
	}
	for _, so := range got {
		p.addUsage(so, -1)
	}
	if fail == nil {
		for _, so := range got {
			o.keep(so)
		}
	} else {
		p.kbKids = kids
	}
	return fail
}

// before is [KueueNotFit].Before: the sets o kept, with their pods per
// node, copied out of the planner's arenas.
func (o *planOut) before() []placement.PodSetUsage {
	var out []placement.PodSetUsage
	for _, so := range o.sets {
		u := placement.PodSetUsage{Group: o.group, PodSet: so.r.name, Requests: so.r.tmpl.Requests}
		for i, n := range so.nodes {
			if so.takes[i] == 0 {
				continue
			}
			id := placement.NodeID(n - o.p.D)
			u.Nodes = append(u.Nodes, placement.PodSetAssignment{Node: o.p.s.Node(id).Name, NodeID: id, PodSet: so.r.name, Count: int32(so.takes[i])})
		}
		slices.SortFunc(u.Nodes, func(a, b placement.PodSetAssignment) int { return cmp.Compare(a.NodeID, b.NodeID) })
		out = append(out, u)
	}
	return out
}

// keep records a planned set and charges its usage to the sets after it.
func (o *planOut) keep(so setOut) {
	if !o.last {
		o.p.addUsage(so, 1)
	}
	o.sets = append(o.sets, so)
}

// planSet plans one set inside scope (-1: the cluster); an elastic
// growth with r.near, first inside each of those domains in turn.
func (p *planner) planSet(r *request, scope int, opts PlanOptions) (setOut, *failure) {
	if scope < 0 {
		for _, d := range r.near {
			if so, f := p.planSetScoped(r, d, opts); f == nil {
				return so, nil
			}
		}
	}
	return p.planSetScoped(r, scope, opts)
}

// planSetScoped is planSet inside scope alone.
func (p *planner) planSetScoped(r *request, scope int, opts PlanOptions) (setOut, *failure) {
	p.use(r)
	kept := scope < 0 && p.extra == nil && p.cacheable() && p.t.plan.counted.same(r, p.cut)
	if sc := p.t.plan; kept && (sc.counted.s == p.s || p.moveCounts(sc.counted.s)) {
		// The counts of the last plan's first set, on this snapshot or
		// moved to it: the same template and layers count the same.
		sc.counted.s = p.s
	} else {
		p.fillScope(scope)
		sc.forget()
		if scope < 0 && p.extra == nil && p.cacheable() {
			sc.counted = newCountKey(p.s, r, p.cut)
		}
	}
	if opts.KueueBalanced && r.preferred {
		units, fl, _, applied, f := p.kueueBalanced(scope, nil)
		if f != nil {
			p.clearTakes()
			return setOut{}, f
		}
		if applied {
			return p.finishNeg(units, fl, true)
		}
	} else if opts.Balanced && r.preferred {
		if units, ok := p.balanced(scope); ok {
			return p.finish(units, r.level, true), nil
		}
	}
	units, fl, f := p.fit(scope)
	if f != nil {
		p.clearTakes()
		return setOut{}, f
	}
	return p.finishNeg(units, fl, false)
}

// finishNeg is finish, failing the set where Kueue writes a negative
// count in its assignment on the way (planner.negatives).
func (p *planner) finishNeg(units []int, fl int, perParent bool) (setOut, *failure) {
	so := p.finish(units, fl, perParent)
	if p.negAt >= 0 {
		return setOut{}, p.negFailure(so)
	}
	p.trimDropped(&so)
	return so, nil
}

// planSetIn plans one set of a PodSetGroup inside domain u alone.
func (p *planner) planSetIn(r *request, u int) (setOut, *failure) {
	p.use(r)
	p.fill(u, p.level(u), false)
	p.t.plan.forget()
	need := r.count
	if p.pods[u] < need {
		return setOut{}, &failure{level: p.level(u), best: u, holds: p.pods[u]}
	}
	p.setTake(u, need)
	return p.finish([]int{u}, p.level(u), false), nil
}

// finish descends from the fitted units to the nodes and reads the takes.
// The set's fit, nodes and takes are cut from the scratch's arenas, which
// live until the next plan: a plan does not allocate them per set.
func (p *planner) finish(units []int, fl int, perParent bool) setOut {
	sc := p.t.plan
	so := setOut{r: p.r}
	k := len(sc.setFit)
	sc.setFit = append(sc.setFit, units...)
	so.fit = sc.setFit[k:len(sc.setFit):len(sc.setFit)]
	k = len(sc.setNodes)
	kt := len(sc.setTakes)
	nodes := p.descend(units, fl, perParent) // whole domains' nodes already in the arenas
	for _, u := range nodes {
		take := p.take[u]
		if u < p.D { // a host of one node, standing for it
			u = p.D + int(sc.only[u])
		}
		sc.setNodes = append(sc.setNodes, u)
		sc.setTakes = append(sc.setTakes, take)
	}
	so.nodes = sc.setNodes[k:len(sc.setNodes):len(sc.setNodes)]
	so.takes = sc.setTakes[kt:len(sc.setTakes):len(sc.setTakes)]
	p.clearTakes()
	return so
}

func (p *planner) clearTakes() {
	for _, u := range p.taken {
		p.take[u] = 0
	}
	p.taken = p.taken[:0]
}

// addUsage adds (sign 1) or removes (-1) a planned set's requests on its
// nodes to what later sets see.
func (p *planner) addUsage(so setOut, sign int64) {
	if p.extra == nil {
		p.extra = p.t.plan.extra
	}
	for i, u := range so.nodes {
		id := u - p.D
		for j, q := range so.r.req {
			p.extra[id*p.R+j] += sign * q * so.takes[i]
		}
	}
}

// failed is the decision for a group that does not fit.
func (p *planner) failed(g *placement.Group, bound int, msg string) placement.Decision {
	return placement.Decision{Group: g.Key(), Status: placement.Unschedulable, Bound: bound, Required: required(g, bound),
		MostFit: bound, Message: msg}
}

func required(g *placement.Group, bound int) int {
	if g.IsGang() {
		return max(int(g.MinCount), bound+1)
	}
	return bound + 1
}

// plan builds the Scheduled decision and the rank orders. bound are the
// group's bound members' nodes; with resize, o.fixed are an elastic set's
// existing pods, whose nodes the placement holds too.
func (o *planOut) plan(g *placement.Group, bound []placement.NodeID, resize bool) Plan {
	p := o.p
	d := placement.Decision{Group: g.Key(), Status: placement.Scheduled, Bound: len(bound), Required: required(g, len(bound)), Proven: true}
	var out Plan
	// The units the sets were fitted into, ascending, once each.
	units := p.t.plan.fitUnits[:0]
	for _, so := range o.sets {
		units = append(units, so.fit...)
	}
	if !strictlyAscending(units) {
		slices.Sort(units)
		units = slices.Compact(units)
	}
	p.t.plan.fitUnits = units
	placed := 0
	slices.SortFunc(o.sets, func(a, b setOut) int { return strings.Compare(a.r.name, b.r.name) })
	// One array for every set's entries, each written field by field:
	// a whole struct moved into a slice of pointers costs a bulk write
	// barrier while the GC marks.
	entries, ranks := 0, 0
	for _, so := range o.sets {
		ranks += len(so.nodes)
		if !so.r.members {
			entries += len(so.nodes)
		}
	}
	var kept struct {
		ranks *[]Rank
		sets  *[]placement.PodSetAssignment
		plans *[]PodSetPlan
		nodes *[]placement.NodeID
	}
	if b := o.buffers; b != nil {
		kept.ranks, kept.sets, kept.plans, kept.nodes = &b.ranks, &b.sets, &b.plans, &b.nodes
	}
	if entries > 0 {
		d.PodSetAssignments = buffers.Overwrite(kept.sets, entries)
	}
	out.PodSets = buffers.Take(kept.plans, len(o.sets))
	allRanks := buffers.Overwrite(kept.ranks, ranks) // every field written below
	for _, so := range o.sets {
		sp := PodSetPlan{Name: so.r.name}
		if len(so.fit) == 1 && so.fit[0] < p.D {
			sp.Domain = p.t.doms[so.fit[0]].path
		}
		nodes, takes := p.rankOrder(so)
		var first int32
		k := len(allRanks)
		allRanks = allRanks[:k+len(nodes)]
		sp.Ranks = allRanks[k : k+len(nodes) : k+len(nodes)]
		var set []placement.PodSetAssignment
		if !so.r.members {
			k := len(d.PodSetAssignments)
			d.PodSetAssignments = d.PodSetAssignments[:k+len(nodes)]
			set = d.PodSetAssignments[k:]
		}
		byID := true // rank order is node order too
		for i, u := range nodes {
			id := placement.NodeID(u - p.D)
			n := int32(takes[i])
			byID = byID && (i == 0 || nodes[i-1] < u)
			name := p.s.Node(id).Name
			rk := &sp.Ranks[i]
			rk.Node, rk.NodeID, rk.First, rk.Count = name, id, first, n
			first += n
			if set != nil {
				e := &set[i]
				e.PodSet, e.Node, e.NodeID, e.Count = so.r.name, name, id, n
			}
		}
		// The sets come in name order; each set's entries by node name,
		// which NodeIDs follow (a snapshot numbers its nodes in name order).
		if set != nil && !byID {
			slices.SortFunc(set, func(a, b placement.PodSetAssignment) int { return cmp.Compare(a.NodeID, b.NodeID) })
		}
		placed += int(first)
		if so.r.members {
			d.Assignments = memberAssignments(g, sp.Ranks)
		}
		out.PodSets = append(out.PodSets, sp)
	}

	// The placement: every node of the domains the sets were fitted into
	// (which hold every node a set was given), and the bound members'
	// nodes. One domain and nothing bound: its nodes, shared, as a
	// generated placement's are.
	var nodes []placement.NodeID
	if len(units) == 1 && len(bound) == 0 && !resize && units[0] < p.D {
		nodes = p.t.doms[units[0]].nodes
	} else {
		// Sized once: many domains' nodes grew it step by step.
		n := len(bound)
		if resize {
			n += len(o.fixed.nodes)
		}
		for _, u := range units {
			if u >= p.D {
				n++
			} else {
				n += len(p.t.doms[u].nodes)
			}
		}
		if n > 0 { // none: nil, as appending nothing leaves it
			nodes = buffers.Overwrite(kept.nodes, n) // appended, every entry written
		}
		for _, u := range units {
			if u >= p.D {
				nodes = append(nodes, placement.NodeID(u-p.D))
			} else {
				nodes = append(nodes, p.t.doms[u].nodes...)
			}
		}
		nodes = append(nodes, bound...)
		if resize {
			nodes = append(nodes, o.fixed.nodes...)
		}
		// Domains in ID order usually list their nodes in ID order too
		// (nodes named by their paths): then nothing is sorted.
		if !strictlyAscending(nodes) {
			slices.Sort(nodes)
			nodes = slices.Compact(nodes)
		}
	}
	d.Placement.Nodes = nodes
	if len(units) == 1 {
		d.Placement.Name = p.path(units[0])
		if units[0] >= p.D {
			d.Placement.Name = ""
		}
	}
	d.MostFit = len(bound) + placed
	// One string, built in a stack buffer when it fits.
	msg := make([]byte, 0, 96)
	msg = strconv.AppendInt(msg, int64(placed), 10)
	msg = append(msg, " of "...)
	msg = strconv.AppendInt(msg, int64(placed), 10)
	msg = append(msg, " members placed"...)
	if d.Placement.Name != "" {
		msg = append(append(msg, " in "...), d.Placement.Name...)
	}
	if len(bound) > 0 {
		msg = fmt.Appendf(msg, " (%d already bound)", len(bound))
	}
	d.Message = string(msg)
	out.Decision = d
	return out
}

// strictlyAscending reports whether xs ascend with no repeat.
func strictlyAscending[T cmp.Ordered](xs []T) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i-1] >= xs[i] {
			return false
		}
	}
	return true
}

// memberAssignments gives the members, in member order, the ranks' nodes
// in rank order. An assumed plan's ranks may hold more pods than there
// are members (Kueue's TAS writes a node in deficit's negative count and
// as many pods more elsewhere, [KueueAssumed]): the members take the
// first, the rest stand for no pod.
func memberAssignments(g *placement.Group, ranks []Rank) []placement.Assignment {
	order := make([]*placement.Pod, len(g.Members))
	for i := range g.Members {
		order[i] = &g.Members[i]
	}
	slices.SortFunc(order, placement.MemberOrder)
	out := make([]placement.Assignment, 0, len(order))
	k := 0
	for _, rk := range ranks {
		for range rk.Count {
			if k == len(order) {
				return out
			}
			out = append(out, placement.Assignment{Pod: order[k].Key(), Node: rk.Node, NodeID: rk.NodeID})
			k++
		}
	}
	return out
}

// sortInGroupOrder sorts rs as [PlanOptions].InGroupOrder plans them:
// the members ("") first, then the sets in g.PodSets' order. Every
// request names a set of g (compile checked it). A set's position is
// found by a scan for a few sets (Kueue allows 8), by a map for many.
func sortInGroupOrder(rs []request, g *placement.Group) {
	var pos map[string]int
	if len(g.PodSets) > 8 {
		pos = make(map[string]int, len(g.PodSets))
		for i := range g.PodSets {
			pos[g.PodSets[i].Name] = i
		}
	}
	at := func(name string) int {
		if name == "" {
			return -1
		}
		if pos != nil {
			return pos[name]
		}
		return slices.IndexFunc(g.PodSets, func(ps placement.PodSet) bool { return ps.Name == name })
	}
	slices.SortFunc(rs, func(a, b request) int { return cmp.Compare(at(a.name), at(b.name)) })
}
