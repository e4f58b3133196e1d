package placement

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// attempt is the outcome of placing the members in one placement.
type attempt struct {
	p         *Placement
	node      []NodeID // per member (in member order), -1 = waiting; nil when batched
	seq       []int    // with node: members in the order they were placed
	segs      []seg    // batched: the placed members; see segsOf
	normal    bool     // segs is segsOf's
	placed    int
	pref      int64  // preference score of the affinity terms
	violation string // a broken constraint, when enough members fit
	proven    bool   // the placed count is the most possible here
	cut       bool   // the search stopped at its budget
	untried   bool   // the budget ran out before every member was tried
	short     bool   // counted by shortByClasses or shortOfGroups: the first placed members fit, the rest wait; no segments
	score     int64
	affinity  int64        // preferred node affinity of the placement, ranked before score
	as        []Assignment // as handed to the placement filters and scorer
	reject    Rejection    // from a PlacementFilter
}

// ok reports whether the attempt satisfies the group's requirements.
func (sv *solver) ok(a *attempt) bool {
	return a.placed >= sv.need && a.placed > 0 && a.violation == ""
}

// usable checks a generated placement before its first attempt (so that
// placements of ranks never reached cost nothing) and reports whether it
// holds every bound member's node: one that does not cannot hold the whole
// group (DESIGN.md invariant 5, which Verify checks against the placement), whatever the
// generator thought.
func (sv *solver) usable(p *Placement) (bool, error) {
	if len(p.Nodes) > 0 && len(p.Nodes) == len(sv.s.b.nodes) && &p.Nodes[0] == &sv.s.b.allNodes[0] {
		return true, nil
	}
	if err := checkPlacement(sv.s, p); err != nil {
		return false, err
	}
	for _, id := range sv.boundNodes {
		if _, in := slices.BinarySearch(p.Nodes, id); !in {
			return false, nil
		}
	}
	return true, nil
}

// solve tries the placements rank by rank and decides: the best feasible
// placement of the first rank that has one, or why none was.
func (sv *solver) solve(placements []Placement) (Decision, error) {
	sel, err := sv.selectPlacement(placements)
	if err != nil {
		return Decision{}, err
	}
	if sel.win != nil {
		return sv.scheduled(sel.win), nil
	}
	return sv.unscheduled(placements, sel), nil
}

// selection is what selectPlacement found: the winner, or what the
// failure decision is built from.
type selection struct {
	win              *attempt // the best accepted attempt of the first rank with one
	bestFail         *attempt // most members placed, first tried; not rejected
	rejected         *attempt // first rejected by a PlacementFilter
	resolvableReject bool     // some rejection was not Unresolvable
	proven, cut      bool
	// excluded counts the reasons of PlacementChecker rejections, and
	// resolvableExcl says whether one of them was not Unresolvable.
	excluded       []ReasonCount
	resolvableExcl bool
}

// selectPlacement attempts each usable placement in rank order, scores
// the feasible ones that the placement filters accept, and stops at the
// first rank with a winner (the highest preferred node affinity, then the
// highest score, ties by placement name) or when the budget runs out.
func (sv *solver) selectPlacement(placements []Placement) (selection, error) {
	// Generators answer rank by rank (topology's: a placement per rack
	// in two or three ranks): a rank equal to the last one listed is
	// skipped, so that the list stays as short as the ranks, not the
	// placements.
	ranks := make([]int, 0, 4)
	for i := range placements {
		if r := placements[i].Rank; len(ranks) == 0 || r != ranks[len(ranks)-1] {
			ranks = append(ranks, r)
		}
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)

	sel := selection{proven: true}
	for _, rank := range ranks {
		for i := range placements {
			p := &placements[i]
			if p.Rank != rank {
				continue
			}
			if sv.exhausted {
				break // the budget ran out in the placement before
			}
			if ok, err := sv.usable(p); err != nil {
				return selection{}, err
			} else if !ok {
				continue
			}
			if i < 64 {
				sv.usableSeen |= 1 << i
			}
			if sv.excluded(p, &sel) {
				continue
			}
			a := sv.attempt(p)
			sel.cut = sel.cut || a.cut
			if !sv.ok(a) {
				sel.proven = sel.proven && a.proven
				if sel.bestFail == nil || a.placed > sel.bestFail.placed {
					sel.bestFail = a
				}
				continue
			}
			sv.judge(a)
			if a.reject.OK() {
				a.affinity = sv.placementAffinity(p)
				if w := sel.win; w == nil || a.affinity > w.affinity ||
					(a.affinity == w.affinity && (a.score > w.score || (a.score == w.score && p.Name < w.p.Name))) {
					sel.win = a
				}
				continue
			}
			if sel.rejected == nil {
				sel.rejected = a
			}
			sel.resolvableReject = sel.resolvableReject || !a.reject.Unresolvable
			sel.proven = sel.proven && a.proven
		}
		if sel.win != nil || sv.exhausted {
			break
		}
	}
	return sel, nil
}

// judge runs the placement filters on a feasible attempt and, when they
// accept it, scores it. A hook's error ends the solve (see failed).
func (sv *solver) judge(a *attempt) {
	p := a.p
	// Without a hook to read them, the assignments are only listed for
	// the winner: a SumScorer reads the sums of the solver's classes.
	if ss, bySums := sv.opts.Scorer.(SumScorer); bySums && len(sv.opts.PlacementFilters) == 0 {
		var err error
		a.score, err = ss.ScoreSums(sv.s, sv.hookGroup(), p, int64(a.placed), sv.placedSums(a))
		sv.failedScore(err, "ScoreSums", p)
	} else {
		a.as = sv.assignments(a)
	}
	for k, f := range sv.opts.PlacementFilters {
		if r := f.FilterPlacement(sv.s, sv.hookGroup(), p, a.as); !r.OK() {
			if sv.failed(r, fmt.Sprintf("Options.PlacementFilters[%d] on placement %q", k, p.Name), nil, NodeInfo{}) {
				r = Rejection{Reason: "hook failed"} // the solve returns the error
			}
			a.reject = r
			return
		}
	}
	if a.as != nil {
		var err error
		a.score, err = sv.opts.Scorer.Score(sv.s, sv.hookGroup(), p, a.as)
		sv.failedScore(err, "Score", p)
	}
}

// failedScore is failed for the scorer's method: err, when not nil, ends
// the solve.
func (sv *solver) failedScore(err error, method string, p *Placement) {
	if err != nil {
		sv.failed(Rejection{Err: err}, fmt.Sprintf("Options.Scorer.%s on placement %q", method, p.Name), nil, NodeInfo{})
	}
}

// scheduled is the decision for the winning attempt.
func (sv *solver) scheduled(win *attempt) Decision {
	d := Decision{Group: sv.g.Key(), Bound: sv.bound, Required: sv.required}
	d.Status = Scheduled
	d.Placement = *win.p
	d.Assignments, d.PodSetAssignments = sv.outputs(win)
	d.Waiting = sv.waiting(win)
	d.Score = win.score
	d.MostFit = sv.bound + win.placed
	d.Steps = sv.steps
	d.Truncated = sv.exhausted
	d.Proven = win.proven && !sv.hookCut
	// Appended in a buffer on the stack, not formatted (fmt was a
	// twentieth of a small group's Solve) nor concatenated: the message
	// is then one allocation, where each number, the placement's name and
	// the whole were one apiece.
	var buf [96]byte
	b := strconv.AppendInt(buf[:0], int64(win.placed), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(len(sv.members)), 10)
	b = append(b, " members placed"...)
	if win.p.Name != "" {
		b = append(append(b, " in "...), win.p.Name...)
	}
	if sv.bound > 0 {
		b = append(strconv.AppendInt(append(b, " ("...), int64(sv.bound), 10), " already bound)"...)
	}
	if sv.pre != nil && sv.pre.resize != nil {
		d.Message = sv.pre.resize.message(b)
	} else {
		d.Message = string(b)
	}
	return d
}

// unscheduled is the decision when no placement won: its status, the
// waiting members and the message that says why.
func (sv *solver) unscheduled(placements []Placement, sel selection) Decision {
	d := Decision{Group: sv.g.Key(), Bound: sv.bound, Required: sv.required}
	bestFail, rejected, resolvableReject, proven, cut := sel.bestFail, sel.rejected, sel.resolvableReject, sel.proven, sel.cut
	d.Steps = sv.steps
	d.Proven = proven && !cut && !sv.exhausted && !sv.hookCut
	d.Waiting = make([]Key, 0, len(sv.g.Members))
	// Only listed members wait by name: once every one is found the rest
	// are a pod set's pods, thousands of them in a large set, not read.
	for i := 0; i < len(sv.members) && len(d.Waiting) < cap(d.Waiting); i++ {
		if int(sv.members[i].index) < len(sv.g.Members) {
			d.Waiting = append(d.Waiting, sv.pod(sv.members[i].row).Key())
		}
	}
	d.Status = Unschedulable
	if sv.exhausted || cut {
		d.Status = BudgetExhausted
	}
	if bestFail == nil && rejected == nil && len(sel.excluded) > 0 {
		return sv.allExcluded(d, sel)
	}
	if bestFail == nil && rejected == nil {
		d.Status = Unresolvable
		d.Message = "0 of min " + strconv.Itoa(sv.required) + " members fit: no candidate placement"
		if sv.exhausted {
			d.Status = BudgetExhausted
			d.Message = fmt.Sprintf("budget of %d steps exhausted before any placement was tried", sv.budget)
		}
		return d
	}
	if rejected != nil {
		d.Placement = *rejected.p
		d.MostFit = sv.bound + rejected.placed
		d.Message = fmt.Sprintf("%s%s but the placement was rejected: %s",
			sv.fitCount(d.MostFit), inName(rejected.p), rejected.reject.Reason)
		if !resolvableReject && bestFail == nil && d.Status == Unschedulable {
			d.Status = Unresolvable
		}
		return d
	}
	d.Placement = *bestFail.p
	d.MostFit = sv.bound + bestFail.placed
	if sv.opts.StatusOnly {
		d.Message = sv.fitCount(d.MostFit) + inName(bestFail.p)
		return d
	}
	first, reasons, unresolvable := sv.diagnose(bestFail)
	d.Reasons = reasons
	// Unresolvable is proven whatever the budget: it asks what could fit on
	// an empty cluster, not what the search found.
	if (d.Status == Unschedulable || d.Status == BudgetExhausted) && (unresolvable || !sv.roomSomewhereIfEmpty(placements)) {
		d.Status, d.Proven = Unresolvable, true
	}
	// Written piece by piece, not formatted: fmt was a tenth of a failing
	// pod set's message.
	var b strings.Builder
	b.Grow(160 + len(bestFail.p.Name) + len(bestFail.violation) + 48*len(reasons)) // one allocation, as a rule
	sv.writeFitCount(&b, d.MostFit)
	b.WriteString(inName(bestFail.p))
	if sv.bound > 0 && !sv.minMetByBound() {
		b.WriteString(" (" + strconv.Itoa(sv.bound) + " bound)")
	}
	if bestFail.violation != "" {
		b.WriteString("; " + bestFail.violation)
	} else if first != nil && !bestFail.untried {
		b.WriteString("; ")
		if int(first.index) >= len(sv.g.Members) {
			b.WriteString("a pod of pod set ")
		}
		b.WriteString(sv.pod(first.row).Key().String())
		b.WriteString(" fits on none of ")
		b.WriteString(strconv.Itoa(len(bestFail.p.Nodes)))
		b.WriteString(" nodes")
		if len(reasons) > 0 {
			b.WriteString(": ")
			writeReasons(&b, reasons)
		}
	}
	switch {
	case d.Status != BudgetExhausted:
	case sv.exhausted || !sv.searchBudgetCut:
		fmt.Fprintf(&b, "; budget of %d steps exhausted", sv.budget)
	default:
		fmt.Fprintf(&b, "; search budget exhausted")
	}
	d.Message = b.String()
	return d
}

// roomSomewhereIfEmpty reports whether some usable placement could hold the
// members the group needs once every pod but its bound members were gone
// (a necessary condition, by summed allocatable). A placement that
// selectPlacement found usable is not checked again: checking a block's
// nodes was a twentieth of a failing block resize.
func (sv *solver) roomSomewhereIfEmpty(placements []Placement) bool {
	for i := range placements {
		ok := i < 64 && sv.usableSeen&(1<<i) != 0 && !roomFastOff
		if !ok {
			u, err := sv.usable(&placements[i])
			ok = err == nil && u
		}
		if ok && sv.roomIfEmpty(&placements[i], sv.need) {
			return true
		}
	}
	return false
}

func inName(p *Placement) string {
	if p.Name == "" {
		return ""
	}
	return " in " + p.Name
}

func (sv *solver) spend(n int64) bool {
	sv.steps += n
	if sv.steps > sv.budget {
		sv.exhausted = true
		return false
	}
	return true
}

// attempt finds the best assignment of the members in p: the greedy pass in
// member order, then first-fit decreasing, then the complete search. It
// leaves the scratch state clean; when the whole budget ran out, it returns
// the best assignment found so far, marked cut (what the greedy placed is
// valid).
func (sv *solver) attempt(p *Placement) *attempt {
	exact := sv.batched && sv.classes == 1
	a, short := (*attempt)(nil), false
	if exact {
		a, short = sv.shortByClasses(p)
	}
	if !short {
		a = sv.greedy(p, sv.memberOrder())
	}
	if sv.exhausted {
		a.cut, a.untried = true, true // what the greedy pass placed is still a valid answer
		return a
	}
	if sv.done(a) || exact {
		// Identical members with no constraint between them: taking the
		// first in member order on the most allocated nodes places as many
		// as any assignment could.
		a.proven = true
		return a
	}
	if b := sv.greedy(p, sv.ffdOrder()); sv.better(b, a) {
		a = b
		a.untried = sv.exhausted // cut short, it may not have tried every member
	}
	if sv.exhausted {
		a.cut = true
		return a
	}
	if sv.done(a) {
		a.proven = true
		return a
	}
	return sv.search(p, a)
}

// done reports whether an attempt cannot be improved: every member placed,
// every constraint met, every preference held.
func (sv *solver) done(a *attempt) bool {
	return a.placed == len(sv.members) && a.violation == "" && (sv.cons.empty() || a.pref == sv.cons.maxPref)
}

// better orders attempts: satisfying the group first, then more members,
// then a higher preference score; ties keep the earlier one.
func (sv *solver) better(x, y *attempt) bool {
	if sv.ok(x) != sv.ok(y) {
		return sv.ok(x)
	}
	if x.placed != y.placed {
		return x.placed > y.placed
	}
	return x.pref > y.pref
}

// finish computes the attempt's constraint verdict and preference score.
func (sv *solver) finish(a *attempt) {
	if sv.cons.empty() {
		return
	}
	a.violation, a.pref = sv.cons.judge(sv.pos)
}

// minMetByBound reports whether the bound members alone reach what the
// group needs (minCount of a gang, one member of a basic group), so that a
// cycle asks for one more member only.
func (sv *solver) minMetByBound() bool {
	return sv.bound > 0 && (!sv.g.IsGang() || int(sv.g.MinCount) <= sv.bound)
}

// fitCount says how many members fit against what the decision needs: "3
// of min 4 members fit"; when bound members already meet the minimum, how
// many pending ones fit ("0 of the pending members fit (2 bound meet
// minCount 2)"), not "2 of min 3", a minimum the group never asked for.
func (sv *solver) fitCount(mostFit int) string {
	var b strings.Builder
	sv.writeFitCount(&b, mostFit)
	return b.String()
}

// writeFitCount writes fitCount's text to b: a failing solve's message
// starts with it, written in place.
func (sv *solver) writeFitCount(b *strings.Builder, mostFit int) {
	var num [20]byte
	if !sv.minMetByBound() {
		b.Write(strconv.AppendInt(num[:0], int64(mostFit), 10))
		b.WriteString(" of min ")
		b.Write(strconv.AppendInt(num[:0], int64(sv.required), 10))
		b.WriteString(" members fit")
		return
	}
	if sv.g.IsGang() {
		fmt.Fprintf(b, "%d of the pending members fit (%d bound meet minCount %d)", mostFit-sv.bound, sv.bound, sv.g.MinCount)
		return
	}
	fmt.Fprintf(b, "%d of the pending members fit (%d bound)", mostFit-sv.bound, sv.bound)
}
