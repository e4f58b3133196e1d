package bench

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// HeteroInstance returns generated instance seed of a heterogeneous gang
// (members of up to 16 shapes): size members named h-<i> of PodGroup default/h (minCount
// size), each with one of the first shapes of [Shapes] drawn at random,
// and n hosts of the GPU cluster's shape (8 GPUs, cpu 64, pods 110;
// unlabelled). Every instance has a placement, planted: the members, in a
// random order, are packed next-fit onto the first hosts, and each of
// those hosts gets the room its planted members need plus a random extra
// of 0–L GPUs and 0–8·L CPUs (within the host), where the slack L (0–3) is
// drawn once per instance; the next L/4 as many hosts again have a random
// part free (0–8 GPUs, 0–64 CPUs in steps of 2); every other host is full.
// One bound pod per host takes up the used part. The instances range from
// exact (L = 0: a solver must find a packing as good as the planted one,
// which a greedy pass often misses) to roomy. The planted placement is complete unless
// the members need more than n hosts packed next-fit; planted says
// whether it is.
func HeteroInstance(seed uint64, n, size, shapes int) (nodes []placement.Node, bound []placement.Pod, g *placement.Group, planted bool) {
	r := splitmix(seed)
	g = &placement.Group{Namespace: "default", Name: "h", Policy: placement.PolicyGang, MinCount: int32(size)}
	reqs := make([]Request, size)
	for i := range size {
		reqs[i] = Shapes[r.next()%uint64(shapes)]
		g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("h-%04d", i), SchedulingGroup: "h",
			Requests: placement.ResourceList{placement.ResourceGPU: reqs[i][0], placement.ResourceCPU: reqs[i][1]}})
	}
	// Fisher–Yates over the members, then next-fit: need[i] is the room
	// host i must have free.
	for i := size - 1; i > 0; i-- {
		j := int(r.next() % uint64(i+1))
		reqs[i], reqs[j] = reqs[j], reqs[i]
	}
	need := make([]Request, n)
	h := 0
	for _, q := range reqs {
		if need[h][0]+q[0] > HostGPU || need[h][1]+q[1] > HostCPU {
			h++
		}
		if h == n {
			break // more members than the hosts hold packed next-fit
		}
		need[h][0], need[h][1] = need[h][0]+q[0], need[h][1]+q[1]
	}
	slack := r.next() % 4
	for i := range n {
		name := fmt.Sprintf("host-%05d", i)
		nodes = append(nodes, placement.Node{Name: name, Allocatable: placement.ResourceList{
			placement.ResourceGPU: HostGPU, placement.ResourceCPU: HostCPU, placement.ResourcePods: 110}})
		free := need[i]
		if h < i && i <= h+int(slack)*(h+1)/4 {
			free = Request{int64(r.next() % (HostGPU + 1)), int64(r.next()%33) * 2000}
		}
		if i <= h {
			free[0] = min(free[0]+int64(r.next()%(slack+1)), HostGPU)
			free[1] = min(free[1]+int64(r.next()%(4*slack+1))*2000, HostCPU)
		}
		if free != (Request{HostGPU, HostCPU}) {
			bound = append(bound, placement.Pod{Namespace: "default", Name: "used-" + name, NodeName: name,
				Requests: placement.ResourceList{placement.ResourceGPU: HostGPU - free[0], placement.ResourceCPU: HostCPU - free[1]}})
		}
	}
	return nodes, bound, g, h < n
}

// Settled says how [Settle] settled an instance.
type Settled int

// How an instance was settled.
const (
	// ByHeuristic: the greedy pass or first-fit decreasing placed every
	// member; the exhaustive search did not run.
	ByHeuristic Settled = iota
	// BySearch: only the exhaustive search placed every member.
	BySearch
	// ProvenNone: the solver proved that no placement exists.
	ProvenNone
	// Unsettled: the search budget ran out without an answer.
	Unsettled
)

// String returns the constant's name.
func (x Settled) String() string {
	switch x {
	case ByHeuristic:
		return "ByHeuristic"
	case BySearch:
		return "BySearch"
	case ProvenNone:
		return "ProvenNone"
	case Unsettled:
		return "Unsettled"
	}
	return fmt.Sprintf("Settled(%d)", int(x))
}

// Settle solves g on s twice with zero Options but the search budget:
// once with placement.Options.SearchBudget 1 — the exhaustive search stops
// at its first step, so a Scheduled decision is the heuristic's (greedy in
// member order, then first-fit decreasing) — and, unless that scheduled g,
// once with SearchBudget searchBudget (0: placement.DefaultSearchBudget).
// It returns the verdict and the decision that settled it (the second
// one's unless ByHeuristic). Errors are placement.Solve's.
func Settle(s *placement.Snapshot, g *placement.Group, searchBudget int64) (Settled, placement.Decision, error) {
	h, err := placement.Solve(s, g, placement.Options{SearchBudget: 1})
	if err != nil || h.Status == placement.Scheduled {
		return ByHeuristic, h, err
	}
	d, err := placement.Solve(s, g, placement.Options{SearchBudget: searchBudget})
	switch {
	case err != nil:
		return Unsettled, d, err
	case d.Status == placement.Scheduled:
		return BySearch, d, nil
	case d.Proven:
		return ProvenNone, d, nil
	}
	return Unsettled, d, nil
}

// rng is splitmix64: a fixed sequence per seed, whatever the Go version.
type rng struct{ x uint64 }

func splitmix(seed uint64) *rng { return &rng{seed} }

func (r *rng) next() uint64 {
	r.x += 0x9e3779b97f4a7c15
	z := r.x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
