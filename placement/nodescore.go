package placement

import (
	"fmt"
	"math"

	"github.com/gangsched/gangsched/internal/arith"
)

// ScoringStrategy is the type of NodeResourcesFit's scoring strategy
// (kubescheduler.config.k8s.io/v1 ScoringStrategyType).
type ScoringStrategy string

// The scoring strategies of upstream's NodeResourcesFit plugin
// (pkg/scheduler/framework/plugins/noderesources).
const (
	// LeastAllocated scores a node by its free share after the pod, per
	// resource (capacity-requested)·100/capacity: members spread.
	// Upstream's default.
	LeastAllocated ScoringStrategy = "LeastAllocated"
	// MostAllocated scores a node by its used share after the pod, per
	// resource requested·100/capacity: members pack.
	MostAllocated ScoringStrategy = "MostAllocated"
	// RequestedToCapacityRatio scores a node by a broken-linear function
	// of its utilisation after the pod ([NodeScoring].Shape).
	RequestedToCapacityRatio ScoringStrategy = "RequestedToCapacityRatio"
)

// ResourceWeight is one resource a node score reads and its weight
// (upstream ResourceSpec). Weights are 1 to 100.
type ResourceWeight struct {
	Name   ResourceName
	Weight int64
}

// UtilizationShapePoint is a point of RequestedToCapacityRatio's shape
// (upstream UtilizationShapePoint): Utilization in percent (0–100), Score
// 0–10 (scaled by 10 to upstream's 0–100 node score).
type UtilizationShapePoint struct {
	Utilization int64
	Score       int64
}

// NodeScoring chooses, inside one placement, the node each member goes to
// among the nodes that pass every filter: kube-scheduler's per-pod Score
// phase, restricted to its resource plugins NodeResourcesFit and
// NodeResourcesBalancedAllocation. The highest score wins, ties by node
// name (upstream draws ties at random).
//
// The zero value is gangsched's packing: the node whose requested share
// after the member, summed over the resources the member requests, is
// highest, compared exactly (not rounded to upstream's 0–100). It keeps
// free room together for later groups, and members of one shape are
// placed as a batch over classes of identical nodes. This is not what
// kube-scheduler's default profile does for nodes — [UpstreamNodeScoring]
// is — while the placement score ([DefaultScorer]) is MostAllocated
// upstream too.
//
// Any other value scores as upstream v1.37 does, in integers of 0–100 per
// plugin: Strategy over Resources, times FitWeight, plus
// BalancedAllocation over BalancedResources, times BalancedWeight. An
// extended resource the member does not request, and a resource a node
// has none of, are left out of that node's score, as upstream. Members are
// then placed one by one (O(nodes·resources) per member).
//
// NodeResourcesFit's score reads a pod's [Pod].ScoreRequests where it has
// them (upstream's non-zero requests: 100m CPU and 200 MiB for a container
// that requests none), for the pod placed and the pods on the node; fit
// and BalancedAllocation read Requests, as upstream. On 40 random small
// clusters full of pods without cpu or memory requests (kubeoracle, 3
// runs each) gangsim's bindings matched every upstream run in 35, one of
// them in 1, and first diverged at a tie of node scores in the other 4;
// of the 23 without spread constraints, reading Requests alone matched an
// upstream run in 7 (now 20, the other 3 ties).
//
// Differences from upstream that remain: preferred pod
// affinity ([WeightedPodAffinityTerm]) ranks nodes before the resource
// score instead of being added to it with weight 2; the other score
// plugins (TaintToleration's PreferNoSchedule, NodeAffinity's preferred
// terms, ImageLocality) are not part of it; PodTopologySpread's score is
// a [NodeScoreNormalizer] a host adds as Options.NodeScorer (the kube
// package's SpreadScorer). Against
// kube-scheduler v1.37.2 (kubeoracle) on 40 random small clusters with a
// gang and lone pods, the default profile's node choices matched in 39;
// the 40th differed only by which of two identical members took which of
// two tied nodes.
type NodeScoring struct {
	// Strategy is NodeResourcesFit's scoringStrategy.type; "" is
	// gangsched's packing, and every other field must then be zero.
	Strategy ScoringStrategy
	// Resources are the resources Strategy reads and their weights
	// (scoringStrategy.resources); nil means cpu and memory, weight 1
	// each, as upstream defaults.
	Resources []ResourceWeight
	// Shape is RequestedToCapacityRatio's function (at least one point,
	// utilisation strictly ascending); only for that strategy.
	Shape []UtilizationShapePoint
	// FitWeight is NodeResourcesFit's weight in the profile (1–100); 0
	// means 1, upstream's default.
	FitWeight int64
	// BalancedWeight is NodeResourcesBalancedAllocation's weight in the
	// profile (0–100); 0 leaves that plugin out.
	BalancedWeight int64
	// BalancedResources are the resources BalancedAllocation reads; nil
	// means cpu and memory, weight 1 each (upstream's default; the weights
	// do not enter its score).
	BalancedResources []ResourceWeight
}

// UpstreamNodeScoring returns the resource scoring of kube-scheduler
// v1.37's default profile: NodeResourcesFit LeastAllocated over cpu and
// memory with weight 1, plus NodeResourcesBalancedAllocation over cpu and
// memory with weight 1 (pkg/scheduler/apis/config/v1 getDefaultPlugins).
func UpstreamNodeScoring() NodeScoring {
	return NodeScoring{Strategy: LeastAllocated, FitWeight: 1, BalancedWeight: 1}
}

// maxNodeScore is upstream's framework.MaxNodeScore.
const maxNodeScore = 100

// defaultScoredResources are upstream's default resources of both plugins.
var defaultScoredResources = []ResourceWeight{{ResourceCPU, 1}, {ResourceMemory, 1}}

// Validate reports a NodeScoring upstream would refuse, as a [*FieldError]
// (ErrInvalid or ErrDuplicate) on the field of Options.NodeScoring: an
// unknown Strategy; fields set with Strategy ""; a weight outside 1–100
// (BalancedWeight and FitWeight 0–100); an empty or duplicate resource
// name; a Shape with another strategy, or, with RequestedToCapacityRatio,
// an empty Shape, a utilisation outside 0–100 or not strictly ascending,
// or a score outside 0–10.
func (ns NodeScoring) Validate() error {
	const obj = "Options"
	bad := func(field, format string, args ...any) error {
		return Errorf(ErrInvalid, obj, "NodeScoring."+field, format, args...)
	}
	switch ns.Strategy {
	case "":
		if len(ns.Resources)+len(ns.Shape)+len(ns.BalancedResources) > 0 || ns.FitWeight != 0 || ns.BalancedWeight != 0 {
			return bad("Strategy", "must be set when any other field is (\"\" is gangsched's packing, which takes none)")
		}
		return nil
	case LeastAllocated, MostAllocated, RequestedToCapacityRatio:
	default:
		return bad("Strategy", "unknown strategy %q (want LeastAllocated, MostAllocated or RequestedToCapacityRatio)", ns.Strategy)
	}
	if ns.FitWeight < 0 || ns.FitWeight > 100 {
		return bad("FitWeight", "%d is outside 0–100", ns.FitWeight)
	}
	if ns.BalancedWeight < 0 || ns.BalancedWeight > 100 {
		return bad("BalancedWeight", "%d is outside 0–100", ns.BalancedWeight)
	}
	for _, l := range []struct {
		field string
		rs    []ResourceWeight
	}{{"Resources", ns.Resources}, {"BalancedResources", ns.BalancedResources}} {
		seen := map[ResourceName]bool{}
		for i, r := range l.rs {
			f := fmt.Sprintf("%s[%d]", l.field, i)
			switch {
			case r.Name == "":
				return bad(f+".Name", "must not be empty")
			case seen[r.Name]:
				return Errorf(ErrDuplicate, obj, "NodeScoring."+f+".Name", "resource %q appears twice", r.Name)
			case r.Weight < 1 || r.Weight > 100:
				return bad(f+".Weight", "%d is outside 1–100", r.Weight)
			}
			seen[r.Name] = true
		}
	}
	if ns.Strategy != RequestedToCapacityRatio {
		if len(ns.Shape) > 0 {
			return bad("Shape", "is for RequestedToCapacityRatio only, not %s", ns.Strategy)
		}
		return nil
	}
	if len(ns.Shape) == 0 {
		return bad("Shape", "must have at least one point")
	}
	for i, p := range ns.Shape {
		f := fmt.Sprintf("Shape[%d]", i)
		switch {
		case p.Utilization < 0 || p.Utilization > 100:
			return bad(f+".Utilization", "%d is outside 0–100", p.Utilization)
		case i > 0 && p.Utilization <= ns.Shape[i-1].Utilization:
			return bad(f+".Utilization", "%d does not ascend strictly", p.Utilization)
		case p.Score < 0 || p.Score > 10:
			return bad(f+".Score", "%d is outside 0–10", p.Score)
		}
	}
	return nil
}

// nodeScorer is a validated NodeScoring compiled against a snapshot's
// resource columns.
type nodeScorer struct {
	strategy   ScoringStrategy
	fit, bal   []scoredRes
	shape      []UtilizationShapePoint // scores scaled to 0–100
	fitW, balW int64
	fractions  []float64 // balanced's scratch
}

// scoredRes is a resource a plugin reads: its column in the snapshot's
// rows, its weight, and whether it is scalar (upstream
// IsScalarResourceName: left out for a pod that does not request it).
type scoredRes struct {
	col    int
	weight int64
	scalar bool
	nz     int8 // 0 for cpu, 1 for memory (fitAdj's cpu, mem), else -1
}

// compileNodeScoring returns nil for packing. ns must be valid.
func compileNodeScoring(b *base, ns NodeScoring) *nodeScorer {
	if ns.Strategy == "" {
		return nil
	}
	cols := func(rs []ResourceWeight) []scoredRes {
		if rs == nil {
			rs = defaultScoredResources
		}
		var out []scoredRes
		for _, r := range rs {
			// A resource no node tracks is zero on every node, and
			// upstream leaves a zero allocatable out; the pods count is
			// never scored upstream (it is not among a node's scalars).
			if j, ok := b.resIdx[r.Name]; ok && j != b.podsR {
				scalar := r.Name != ResourceCPU && r.Name != ResourceMemory && r.Name != ResourceEphemeralStorage
				nz := int8(-1)
				switch r.Name {
				case ResourceCPU:
					nz = 0
				case ResourceMemory:
					nz = 1
				}
				out = append(out, scoredRes{j, r.Weight, scalar, nz})
			}
		}
		return out
	}
	sc := &nodeScorer{strategy: ns.Strategy, fit: cols(ns.Resources), fitW: max(ns.FitWeight, 1), balW: ns.BalancedWeight}
	if sc.balW > 0 {
		sc.bal = cols(ns.BalancedResources)
		sc.fractions = make([]float64, 0, len(sc.bal))
	}
	for _, p := range ns.Shape {
		sc.shape = append(sc.shape, UtilizationShapePoint{p.Utilization, p.Score * (maxNodeScore / 10)})
	}
	return sc
}

// readsCPUOrMemory reports whether the fit score reads cpu or memory, the
// resources Pod.ScoreRequests adjust.
func (sc *nodeScorer) readsCPUOrMemory() bool {
	for _, r := range sc.fit {
		if r.nz >= 0 {
			return true
		}
	}
	return false
}

// score is the profile's weighted score of node id (its allocatable,
// its bound usage and what the attempt added) for one more pod requesting
// req (indexed by column); the fit score reads adj's score requests
// instead (see nonZero), BalancedAllocation the requests.
func (sc *nodeScorer) score(alloc, used, extra, req []int64, adj fitAdj) int64 {
	total := sc.fitW * sc.fitScore(alloc, used, extra, req, adj)
	if sc.balW > 0 {
		total += sc.balW * sc.balancedScore(alloc, used, extra, req)
	}
	return total
}

// fitScore is NodeResourcesFit's score (least_allocated.go,
// most_allocated.go, requested_to_capacity_ratio.go upstream), over the
// non-zero requests adj gives for cpu and memory.
func (sc *nodeScorer) fitScore(alloc, used, extra, req []int64, adj fitAdj) int64 {
	if adj.req != nil {
		req = adj.req
	}
	var sum, weights int64
	for _, r := range sc.fit {
		q, capacity := req[r.col], alloc[r.col]
		if capacity == 0 || (r.scalar && q == 0) {
			continue
		}
		requested := arith.SatAdd(usedOf(used, extra, r.col), q)
		switch r.nz {
		case 0:
			requested = arith.SatAdd(requested, adj.cpu)
		case 1:
			requested = arith.SatAdd(requested, adj.mem)
		}
		var s int64
		switch sc.strategy {
		case LeastAllocated:
			if requested <= capacity {
				s = arith.MulDiv(capacity-requested, maxNodeScore, capacity)
			}
		case MostAllocated:
			s = arith.MulDiv(min(requested, capacity), maxNodeScore, capacity)
		case RequestedToCapacityRatio:
			u := int64(maxNodeScore)
			if requested <= capacity {
				u = arith.MulDiv(requested, maxNodeScore, capacity)
			}
			if s = sc.shapeAt(u); s <= 0 {
				continue // upstream counts neither the score nor the weight
			}
		}
		sum += s * r.weight
		weights += r.weight
	}
	if weights == 0 {
		return 0
	}
	if sc.strategy == RequestedToCapacityRatio {
		return int64(math.Round(float64(sum) / float64(weights)))
	}
	return sum / weights
}

// shapeAt is upstream's broken-linear function of the shape at
// utilisation u (helper.BuildBrokenLinearFunction).
func (sc *nodeScorer) shapeAt(u int64) int64 {
	for i, p := range sc.shape {
		if u <= p.Utilization {
			if i == 0 {
				return p.Score
			}
			q := sc.shape[i-1]
			return q.Score + (p.Score-q.Score)*(u-q.Utilization)/(p.Utilization-q.Utilization)
		}
	}
	return sc.shape[len(sc.shape)-1].Score
}

// balancedScore is NodeResourcesBalancedAllocation's score
// (balanced_allocation.go upstream): how much the pod improves the
// balance of the node's requested shares, 50–100; 0 on every node for a
// pod that requests none of its resources.
func (sc *nodeScorer) balancedScore(alloc, used, extra, req []int64) int64 {
	any := false
	for _, r := range sc.bal {
		any = any || req[r.col] > 0
	}
	if !any {
		return 0
	}
	with, without := sc.balance(alloc, used, extra, req, true), sc.balance(alloc, used, extra, req, false)
	return maxNodeScore/2 + (maxNodeScore/2+with-without)/2
}

// balance is upstream's balancedResourceScore of the node with the pod
// (withPod) or without it: (1 - the standard deviation of the requested
// shares)·100, truncated. A scalar resource the pod does not request is
// left out of both. Explicit float64 conversions keep the arithmetic
// unfused, so every platform rounds alike.
func (sc *nodeScorer) balance(alloc, used, extra, req []int64, withPod bool) int64 {
	fr := sc.fractions[:0]
	var total float64
	for _, r := range sc.bal {
		capacity, q := alloc[r.col], req[r.col]
		if capacity == 0 || (r.scalar && q == 0) {
			continue
		}
		if !withPod {
			q = 0
		}
		f := float64(arith.SatAdd(usedOf(used, extra, r.col), q)) / float64(capacity)
		if f > 1 {
			f = 1
		}
		total += f
		fr = append(fr, f)
	}
	std := 0.0
	switch {
	case len(fr) == 2:
		std = math.Abs((fr[0] - fr[1]) / 2)
	case len(fr) > 2:
		mean := total / float64(len(fr))
		var sum float64
		for _, f := range fr {
			sum += float64((f - mean) * (f - mean))
		}
		std = math.Sqrt(sum / float64(len(fr)))
	}
	sc.fractions = fr
	return int64(float64(1-std) * maxNodeScore)
}

// usedOf is a node's requested quantity in column c: bound usage plus what
// the attempt added (extra may be nil).
func usedOf(used, extra []int64, c int) int64 {
	if extra == nil {
		return used[c]
	}
	return arith.SatAdd(used[c], extra[c])
}
