package placement

import (
	"fmt"
	"strconv"
	"strings"
)

// Status is the outcome of a decision. Its zero value, [NoDecision], is
// what a Decision returned beside an error carries: no Solve decided it.
type Status int

// Decision statuses. Unresolvable and Unschedulable follow kube-scheduler's
// UnschedulableAndUnresolvable and Unschedulable codes: the first tells
// preemption not to try.
const (
	// NoDecision: nothing was decided, as in the Decision that Solve
	// returns with an error, or a zero Decision. Never committed.
	NoDecision Status = iota
	// Scheduled: the assignments satisfy the policy and may be committed.
	Scheduled
	// Unschedulable: no placement satisfies the policy now; freeing
	// resources (pods leaving, preemption) may help.
	Unschedulable
	// Unresolvable: removing pods cannot help. Too few members could run
	// even on an empty cluster, each judged alone (node selectors, taints,
	// allocatable too small, a caller's unresolvable rejection), or
	// together by summed requests: members that each fit an empty node but
	// whose summed requests exceed every placement's summed allocatable
	// (less what bound members use) are Unresolvable too. Members that fit
	// by their sums but not packed onto the nodes are Unschedulable, and
	// preemption.Find then answers CannotHelp.
	Unresolvable
	// BudgetExhausted: the search stopped at Options.Budget before finding a
	// placement; a larger budget may find one.
	BudgetExhausted
)

// String returns the status's name, e.g. "Unschedulable", or "Status(n)"
// for a value outside the constants.
func (s Status) String() string {
	switch s {
	case NoDecision:
		return "NoDecision"
	case Scheduled:
		return "Scheduled"
	case Unschedulable:
		return "Unschedulable"
	case Unresolvable:
		return "Unresolvable"
	case BudgetExhausted:
		return "BudgetExhausted"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Assignment places one pending member on a node — or, in the assignments
// handed to hooks, Count pods of a pod set (see Count).
type Assignment struct {
	Pod    Key
	Node   string
	NodeID NodeID
	// Count is 0 for a member, which the entry places alone. Hooks get
	// the pods of a pod set as one entry per set and node: Pod names the
	// set (the group's namespace and the set's name) and Count is how many
	// of its pods go to Node, so that a hook's work does not grow with the
	// set's count. [Assignment.Pods] reads both cases. (Next to NodeID, the
	// two fill one word: an entry is 64 bytes.)
	Count int32
	// Member is the pod's pending index (see [Group.NumPending]: its
	// index in Group.Members, or the first index of its pod set) in the
	// assignments handed to hooks, so that they can read its compiled
	// requests with [GroupView.RequestVector]. It is 0 in a Decision, whose
	// content never depends on the order of the input.
	Member int
}

// Pods returns how many pods a places: 1 for a member, Count for the pods
// of a pod set.
func (a Assignment) Pods() int64 { return max(int64(a.Count), 1) }

// PodSetAssignment places Count pods of one [PodSet] on one node: the
// per-node counts that Kueue's TopologyAssignment records for a PodSet.
type PodSetAssignment struct {
	PodSet string
	Node   string
	NodeID NodeID
	Count  int32
}

// ReasonCount is how many nodes rejected a member for one reason, as in
// kube-scheduler's FitError ("3 Insufficient cpu").
type ReasonCount struct {
	Reason string
	Nodes  int
}

// Decision is the result of [Solve]: all-or-nothing for a gang.
type Decision struct {
	// Group is the PodGroup decided.
	Group Key
	// Status says whether Assignments may be committed.
	Status Status
	// Placement is the chosen placement when Scheduled (Name "" and every
	// node for a group without constraints), or the placement where the
	// most members fit otherwise. Its Nodes slice is shared with the
	// generator and must not be modified.
	Placement Placement
	// Assignments are the placed members in member order; empty unless
	// Scheduled.
	Assignments []Assignment
	// PodSetAssignments place the pods of the group's pod sets: one entry
	// per set and node, sorted by set name, then node name; empty unless
	// Scheduled. A set's pods beyond the listed counts wait.
	PodSetAssignments []PodSetAssignment
	// Waiting are the pending members not placed, in member order (pods
	// of pod sets are not listed).
	Waiting []Key
	// Score is the chosen placement's score.
	Score int64
	// Bound is the number of members already bound (they count toward
	// MinCount and are never moved).
	Bound int
	// Required is how many members (bound included) the decision must
	// reach to count as Scheduled: for a gang, MinCount, but at least one
	// more than are bound (a gang already at its minimum still needs a new
	// member placed); for a basic group, bound+1.
	Required int
	// MostFit is the largest number of members (bound included) placed in
	// any single placement tried. An attempt stops once the requirement is
	// out of reach, so for a failed gang it is a lower bound on what fits.
	MostFit int
	// Reasons count, over the nodes of Placement, why the first waiting
	// member fits on none of them after the members that did fit; sorted by
	// count descending, then reason. A node refused for several reasons
	// counts under each, so the counts may add up to more than the nodes
	// (kube-scheduler's "0/3 nodes are available" counts a node under the
	// first filter that refuses it only): a tainted node without room
	// shows both why it is out now and that freeing room would not do.
	Reasons []ReasonCount
	// Message is a one-line explanation a person can act on.
	Message string
	// Steps is the work spent, in the steps (node visits) that
	// [Options].Budget caps.
	Steps int64
	// Truncated is set when the budget ran out after a feasible placement
	// was found: the answer is valid, but some placements were not tried,
	// or the greedy pass in the chosen one stopped before every member.
	Truncated bool
	// Proven is set when the answer needs no larger budget: for a Scheduled
	// decision, no assignment in the chosen placement places more members;
	// otherwise, no assignment in any placement satisfies the group (the
	// search was complete). It is false when the search was cut short and
	// the answer is the heuristic's, or when a hook's rejection was Cut
	// (its own search stopped at its budget). A PlacementFilter is shown one
	// assignment per placement: Proven does not cover other assignments of
	// a placement it rejected; nor, with a Filter that reads a node's
	// usage, orders of placement the solver does not try (see [Filter]).
	// An Unresolvable decision is always Proven.
	Proven bool
}

func formatReasons(rc []ReasonCount) string {
	size := 0
	for _, r := range rc {
		size += len(r.Reason) + 2 + 20 // ", ", and the widest count
	}
	var b strings.Builder
	b.Grow(size) // one allocation; fmt took a few per reason
	writeReasons(&b, rc)
	return b.String()
}

// writeReasons writes formatReasons' text to b: a failing solve's message
// ends with it, written in place.
func writeReasons(b *strings.Builder, rc []ReasonCount) {
	var num [20]byte
	for i, r := range rc {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(strconv.AppendInt(num[:0], int64(r.Nodes), 10))
		b.WriteByte(' ')
		b.WriteString(r.Reason)
	}
}
