package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// rackKeys are the node labels taken for "rack" when -rack-key is not
// given, in order of preference.
var rackKeys = []string{"topology.kubernetes.io/rack", "cloud.provider.com/topology-rack"}

func summarize(c *kube.Cluster, sched *gang.Scheduler, keys []placement.Key, snap *placement.Snapshot, last map[placement.Key]string, opts options) Summary {
	var s Summary
	s.PodsWaiting = len(c.Gated)
	for _, k := range keys {
		st, ok := sched.Group(k)
		if !ok {
			continue
		}
		kind, name := kindName(k)
		s.PodsWaiting += len(st.Pending)
		placed := len(st.Pending) == 0
		need := 1
		if kind == "PodGroup" {
			s.PodGroups++
			// Placed is a fact of the cluster, not of a condition: enough
			// members run (an input whose members are all bound may have
			// no condition yet).
			if st.PodGroup != nil && st.PodGroup.Spec.SchedulingPolicy.Gang != nil {
				need = int(st.PodGroup.Spec.SchedulingPolicy.Gang.MinCount)
			}
			placed = st.PodGroup != nil && len(snap.GroupMembers(k)) >= need
			switch {
			case placed:
				s.GroupsPlaced++
			case len(st.Pending) == 0:
				s.GroupsEmpty++
				continue
			default:
				s.GroupsWaiting++
			}
		}
		if placed && len(st.Pending) == 0 {
			continue
		}
		reason := last[k]
		switch {
		case st.State == gang.Gated:
			reason = "gated: " + st.Reason
		case reason == "":
			reason = "not tried: the run stopped first (-max-cycles)"
		}
		s.Waiting = append(s.Waiting, WaitingGroup{Kind: kind, Name: name, Pending: len(st.Pending), Reason: reason})
	}
	for _, k := range c.Gated {
		s.Waiting = append(s.Waiting, WaitingGroup{Kind: "Pod", Name: k.String(), Pending: 1, Reason: "spec.schedulingGates set"})
	}
	s.Allocation = allocation(snap)
	s.Racks = racks(snap, opts.rackKey)
	for _, o := range c.Unused {
		s.Unused = append(s.Unused, o.APIVersion+" "+o.String())
	}
	for _, j := range c.Jobs {
		if j.PodGroup == nil {
			s.JobsPodByPod = append(s.JobsPodByPod, fmt.Sprintf("Job %s: %s", j.Key, j.Reason))
		}
	}
	slices.Sort(s.JobsPodByPod) // by Job, not by input order (TestSoak_Gangsim)
	return s
}

// allocation sums requests and allocatable of CPU, memory and GPUs over
// every node. A node may have up to math.MaxInt64 of each, so the sums
// are capped there (the percentage is computed from uncapped sums); a
// node with math.MaxInt64 GPUs is left out of theirs: it serves them
// through DRA while device plugins serve them on other nodes
// ([kube.PerNode]), and has no units to count.
func allocation(snap *placement.Snapshot) []Allocation {
	var out []Allocation
	for _, r := range []placement.ResourceName{placement.ResourceCPU, placement.ResourceMemory, placement.ResourceGPU} {
		a := Allocation{Resource: string(r)}
		var alloc, req float64
		for id := range snap.NumNodes() {
			al, rq := snap.Allocatable(placement.NodeID(id), r), snap.Requested(placement.NodeID(id), r)
			if r == placement.ResourceGPU && al == math.MaxInt64 {
				continue
			}
			a.Allocatable, a.Requested = addCapped(a.Allocatable, al), addCapped(a.Requested, rq)
			alloc, req = alloc+float64(al), req+float64(rq)
		}
		if a.Allocatable == 0 {
			continue
		}
		a.Percent = req * 100 / alloc
		out = append(out, a)
	}
	return out
}

// addHeld adds to each resource of as what the pods that Kueue's
// assumption holds for the Workloads of rs (KueueResult.Held) request on
// the nodes of snap, as its Held; a node left out of a resource's
// allocation (GPUs served through DRA) is left out here too.
func addHeld(as []Allocation, snap *placement.Snapshot, rs []KueueResult) {
	for i := range as {
		r := placement.ResourceName(as[i].Resource)
		for _, k := range rs {
			for _, u := range k.heldNodes {
				for _, p := range u.Nodes {
					id, ok := snap.NodeID(p.Node)
					if !ok || r == placement.ResourceGPU && snap.Allocatable(id, r) == math.MaxInt64 {
						continue
					}
					as[i].Held = addCapped(as[i].Held, mulCapped(u.Requests[r], int64(p.Count)))
				}
			}
		}
	}
}

// mulCapped returns a×n for non-negative a and n, or math.MaxInt64 when
// the product would not fit.
func mulCapped(a, n int64) int64 {
	if n > 0 && a > math.MaxInt64/n {
		return math.MaxInt64
	}
	return a * n
}

// addCapped returns a+b for non-negative a and b, or math.MaxInt64 when
// the sum would not fit.
func addCapped(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// racks counts the domains of the rack label with no pod on any node.
func racks(snap *placement.Snapshot, key string) *Racks {
	if key == "" {
		for _, k := range rackKeys {
			for id := range snap.NumNodes() {
				if _, ok := snap.Node(placement.NodeID(id)).Labels[k]; ok {
					key = k
					break
				}
			}
			if key != "" {
				break
			}
		}
	}
	if key == "" {
		return nil
	}
	// A rack is told apart by the wider levels too: Kueue's racks r1 and
	// r2 repeat in every block.
	var wider []string
	if i := slices.Index(levelKeys, key); i >= 0 {
		wider = levelKeys[:i]
	}
	used := map[string]bool{}
	for id := range snap.NumNodes() {
		n := snap.Node(placement.NodeID(id))
		v, ok := n.Labels[key]
		if !ok {
			continue
		}
		for _, w := range wider {
			if wv, ok := n.Labels[w]; ok {
				v = wv + "/" + v
			}
		}
		if _, seen := used[v]; !seen {
			used[v] = false
		}
		if snap.Requested(placement.NodeID(id), placement.ResourcePods) > 0 {
			used[v] = true
		}
	}
	if len(used) == 0 {
		return &Racks{Key: key}
	}
	r := &Racks{Key: key, Total: len(used)}
	for _, u := range used {
		if !u {
			r.Whole++
		}
	}
	return r
}

func human(r string, v int64) string {
	if v == math.MaxInt64 {
		return "2^63-1 or more" // a saturated sum: the true figure is not known
	}
	switch r {
	case string(placement.ResourceCPU):
		if v%1000 == 0 {
			return fmt.Sprint(v / 1000)
		}
		return fmt.Sprintf("%dm", v)
	case string(placement.ResourceMemory):
		q := kube.CanonicalQuantity(placement.ResourceMemory, v)
		return q.String()
	}
	return fmt.Sprint(v)
}

func joinSorted(xs []string) string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return strings.Join(xs, ", ")
}
