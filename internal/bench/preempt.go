package bench

import (
	"fmt"
	"time"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// Priorities of the preemption workload's victims and preemptor.
const (
	LowPriority  int32 = 10
	HighPriority int32 = 1000
)

// Packed is the preemption workload: nodes of cpu 8 packed with low
// pods of cpu 1 in PodGroups of 8 with disruptionMode PodGroup, each group
// spread over 8 nodes, and a high-priority gang of 1-CPU members that
// fits only after some groups are evicted. Beside the inputs of
// [preemption.Find] it holds the same facts as plain slices for its floor.
type Packed struct {
	Nodes []placement.Node
	Bound []placement.Pod
	Input preemption.Input
	Group *placement.Group
	// Free is each node's free cpu; PodNode, PodPriority and PodCPU are
	// each bound pod's node index, priority and cpu request; MemberCPU is
	// each member's cpu request.
	Free        []int64
	PodNode     []int32
	PodPriority []int32
	PodCPU      []int64
	MemberCPU   []int64
}

// PackedCluster returns n nodes of cpu 8 (n a multiple of 8) packed with
// n PodGroups of 8 low pods (pod j of group i on node (i + j·n/8) mod n,
// every group started at its own fixed time) and a high gang of size
// members of cpu 1, minCount size.
func PackedCluster(n, size int) *Packed {
	w := &Packed{Input: preemption.Input{PodGroups: make(map[placement.Key]preemption.PodGroupSpec, n)}}
	for i := range n {
		w.Nodes = append(w.Nodes, placement.Node{Name: fmt.Sprintf("n%05d", i), Allocatable: placement.ResourceList{placement.ResourceCPU: 8000}})
	}
	w.Free = make([]int64, n)
	for i := range w.Free {
		w.Free[i] = 8000
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for gi := range n {
		name := fmt.Sprintf("low-%05d", gi)
		w.Input.PodGroups[placement.Key{Namespace: "default", Name: name}] = preemption.PodGroupSpec{DisruptionMode: preemption.DisruptionModePodGroup}
		start := t0.Add(time.Duration(gi*7919%n) * time.Second)
		for j := range 8 {
			node := (gi + j*(n/8)) % n
			w.Bound = append(w.Bound, placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%d", name, j), SchedulingGroup: name,
				NodeName: w.Nodes[node].Name, Priority: LowPriority, StartTime: start, Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
			w.PodNode = append(w.PodNode, int32(node))
			w.PodPriority = append(w.PodPriority, LowPriority)
			w.PodCPU = append(w.PodCPU, 1000)
			w.Free[node] -= 1000
		}
	}
	w.Group = &placement.Group{Namespace: "default", Name: "high", Policy: placement.PolicyGang, MinCount: int32(size)}
	for i := range size {
		w.Group.Members = append(w.Group.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("high-%04d", i), SchedulingGroup: "high",
			Priority: HighPriority, Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
		w.MemberCPU = append(w.MemberCPU, 1000)
	}
	return w
}

// Floor is the preemption workload's touch-once floor: one pass over the
// nodes (their free cpu, into scratch), one over the bound pods (each
// candidate's — priority below the preemptor's — cpu added back to its
// node) and a first-fit of the members over the nodes. It returns how many
// members fit once every candidate is gone, writing their node indices to
// out. scratch must be as long as Free, out as MemberCPU.
func (w *Packed) Floor(scratch []int64, out []int32) int {
	copy(scratch, w.Free)
	for i, n := range w.PodNode {
		if w.PodPriority[i] < HighPriority {
			scratch[n] += w.PodCPU[i]
		}
	}
	k, placed := 0, 0
	for j, q := range w.MemberCPU {
		for k < len(scratch) && scratch[k] < q {
			k++
		}
		if k == len(scratch) {
			out[j] = -1
			continue
		}
		scratch[k] -= q
		out[j] = int32(k)
		placed++
	}
	return placed
}
