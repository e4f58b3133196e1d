package topology

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// planSetBound plans the sliced set r around the group's bound members on
// nodes bound, which are pods of r that never move: each domain of the
// slice level whose bound members leave a slice incomplete first gets the
// pods of r that complete it, inside that domain (domains in path order);
// the pods left are planned by planSet as whole new slices inside scope.
// The answer is one set: the completing pods and the new slices' together.
func (p *planner) planSetBound(r *request, scope int, bound []placement.NodeID, opts PlanOptions) (setOut, *failure) {
	p.use(r)
	S, z := r.layers[0].level, r.sliceUnit()
	per := map[DomainID]int64{}
	var doms []DomainID
	for _, id := range bound {
		d := p.t.domainOf(id, S)
		if d < 0 {
			return setOut{}, &failure{msg: fmt.Sprintf("%s has a bound member on node %q, which is in no %s domain: its slice cannot be completed",
				r.obj, p.s.Node(id).Name, p.t.keys[S])}
		}
		if per[d] == 0 {
			doms = append(doms, d)
		}
		per[d]++
	}
	slices.Sort(doms)
	var parts []setOut
	undo := func() {
		for _, so := range parts {
			p.addUsage(so, -1)
		}
	}
	left := r.count
	for _, d := range doms {
		need := (z - per[d]%z) % z
		if need == 0 {
			continue
		}
		u := int(d)
		if need > left {
			undo()
			return setOut{}, &failure{msg: fmt.Sprintf("%s has %d pods left to complete the slice of %d pods its %d bound members began in %s; it needs %d more there",
				r.obj, left, z, per[d], p.t.doms[u].path, need)}
		}
		p.fill(u, S, true)
		if p.pods[u] < need {
			undo()
			return setOut{}, &failure{msg: fmt.Sprintf("%s needs %d more pods in %s to complete the slice of %d pods its %d bound members began there; it holds %d",
				r.obj, need, p.t.doms[u].path, z, per[d], p.pods[u])}
		}
		p.setTake(u, need)
		so := p.finish([]int{u}, S, true)
		p.addUsage(so, 1)
		parts = append(parts, so)
		left -= need
	}
	if left > 0 {
		rest := *r
		rest.count = left
		so, f := p.planSet(&rest, scope, opts)
		if f != nil {
			msg := p.reason(f)
			undo()
			if len(parts) > 0 {
				msg += fmt.Sprintf(" (besides the %d pods that complete its bound members' slices)", r.count-left)
			}
			return setOut{}, &failure{msg: msg}
		}
		parts = append(parts, so)
	}
	undo()
	p.r = r
	return mergeSets(r, scope, parts), nil
}

// mergeSets joins the parts of one set into one setOut: takes summed per
// node; fitted into scope when the set is required there, else into every
// unit a part was fitted into.
func mergeSets(r *request, scope int, parts []setOut) setOut {
	type run struct {
		u    int
		take int64
	}
	var runs []run
	out := setOut{r: r}
	for _, so := range parts {
		for i, u := range so.nodes {
			runs = append(runs, run{u, so.takes[i]})
		}
		out.fit = append(out.fit, so.fit...)
	}
	slices.SortFunc(runs, func(a, b run) int { return cmp.Compare(a.u, b.u) })
	for _, rn := range runs {
		if k := len(out.nodes); k > 0 && out.nodes[k-1] == rn.u {
			out.takes[k-1] += rn.take
			continue
		}
		out.nodes = append(out.nodes, rn.u)
		out.takes = append(out.takes, rn.take)
	}
	if scope >= 0 {
		out.fit = []int{scope}
	} else {
		slices.Sort(out.fit)
		out.fit = slices.Compact(out.fit)
	}
	return out
}
