package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// planSetBound plans the sliced set r around its fixed pods (the group's
// bound members, or an elastic set's existing pods), which never move. Layer by layer, the
// innermost first, each domain of the layer's level whose pods (bound, and
// those added for the layers inside) leave a slice incomplete gets the
// pods of r that complete it, inside that domain, in whole slices of the
// layer inside (domains in path order); the pods left are planned by
// planSet as whole new slices inside scope. Every domain of every slice
// level then holds whole slices of its layer. Which of a domain's inner
// domains take a completion does not change how many slices of any outer
// layer are left in it (each takes exactly its share), so completing the
// forced residues first and the rest after finds a plan whenever one
// exists. The answer is one set: the completing pods and the new slices'.
func (p *planner) planSetBound(r *request, scope int, fixed *fixedPods, opts PlanOptions) (setOut, *failure) {
	p.use(r)
	in := map[DomainID]int64{} // per domain of a slice level: the set's pods there so far
	for _, id := range fixed.nodes {
		for _, l := range r.layers {
			d := p.t.domainOf(id, l.level)
			if d < 0 {
				return setOut{}, &failure{msg: fmt.Sprintf("%s has one of its %s on node %q, which is in no %s domain: its slice cannot be completed",
					r.obj(), fixed.what, p.s.Node(id).Name, p.t.keys[l.level])}
			}
			in[d]++
		}
	}
	var parts []setOut
	undo := func() {
		for _, so := range parts {
			p.addUsage(so, -1)
		}
	}
	left := r.count
	for i := len(r.layers) - 1; i >= 0; i-- {
		l := r.layers[i]
		var doms []DomainID
		for d := range in {
			if p.t.doms[d].level == l.level {
				doms = append(doms, d)
			}
		}
		slices.Sort(doms)
		// The completions of this layer, placed as a set of the layers
		// from this one in: whole slices of the layer inside.
		sub := *r
		sub.layers = r.layers[i:]
		began := func(n int64) string {
			if i == len(r.layers)-1 {
				return "its " + plural(n, strings.TrimSuffix(fixed.what, "s"))
			}
			return fmt.Sprintf("its %s (%s and the pods completing their inner slices)", plural(n, "pod"), fixed.what)
		}
		for _, d := range doms {
			need := (l.size - in[d]%l.size) % l.size
			if need == 0 {
				continue
			}
			u := int(d)
			if need > left {
				undo()
				return setOut{}, &failure{msg: fmt.Sprintf("%s has %s left to complete the slice of %d pods %s began in %s; it needs %d more there",
					r.obj(), plural(left, "pod"), l.size, began(in[d]), p.t.doms[u].path, need)}
			}
			sub.count = need
			p.use(&sub)
			p.fill(u, l.level, true)
			p.t.plan.forget() // u's counts are now sub's, after the completions so far
			if p.pods[u] < need {
				undo()
				return setOut{}, &failure{msg: fmt.Sprintf("%s needs %s in %s to complete the slice of %d pods %s began there; it holds %d",
					r.obj(), plural(need, "more pod"), p.t.doms[u].path, l.size, began(in[d]), p.pods[u])}
			}
			p.setTake(u, need)
			so := p.finish([]int{u}, l.level, true)
			so.r = r
			p.addUsage(so, 1)
			parts = append(parts, so)
			left -= need
			for _, o := range r.layers[:i+1] {
				in[p.t.ancestor(d, o.level)] += need
			}
		}
	}
	if left > 0 {
		rest := *r
		rest.count = left
		so, f := p.planSet(&rest, scope, opts)
		if f != nil {
			msg := p.reason(f)
			undo()
			if len(parts) > 0 {
				n, verb := plural(r.count-left, "pod"), "complete"
				if r.count-left == 1 {
					verb = "completes"
				}
				msg += fmt.Sprintf(" (besides the %s that %s its %s' slices)", n, verb, fixed.what)
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
