package scaleup

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// search is one Suggest call's state.
type search struct {
	s      *placement.Snapshot
	g      *placement.Group
	keys   []string
	level  int
	shapes []NodeShape
	opts   Options
	need   int                              // members to place beyond the bound ones
	sums   map[placement.ResourceName]int64 // see needSums

	solves    int
	proven    bool
	truncated bool
	lacking   map[placement.ResourceName]bool // resources a candidate needed and its shape lacks
	pruned    int                             // candidates whose shape lacks a needed resource
	bound     bool                            // the group has bound members: one domain only
	perNode   bool                            // the required key is kubernetes.io/hostname: a node is a domain
}

// dom is a candidate domain: its nodes and pods as a snapshot's input, and
// the labels of the levels down to the required one that its new nodes get.
type dom struct {
	path   string
	isNew  bool
	labels map[string]string
	ids    []placement.NodeID // the domain's nodes in s; none for a new domain
	nodes  []placement.Node   // their copies and pods, once a solve needs them (see input)
	pods   []placement.Pod
	short  map[placement.ResourceName]int64 // what the members need beyond the domain's summed free capacity
}

// cand is one domain and one shape, in the order ties break.
type cand struct {
	dom   *dom
	shape *NodeShape
	order int
	lower int                    // nodes it needs at least
	cap   int                    // nodes it may add at most
	nodes []placement.Node       // the nodes it would add, cap of them
	count int                    // the fewest found to fit
	lack  placement.ResourceName // a needed resource its shape lacks
}

// domains lists the candidate domains in tie order: the cluster when
// nothing is required; else the bound members' domain, or every domain of
// the required level by path, then the new domain if allowed.
func (sr *search) domains(tree *topology.Tree) ([]*dom, error) {
	s := sr.s
	if sr.level < 0 {
		all := make([]placement.NodeID, s.NumNodes())
		for i := range all {
			all[i] = placement.NodeID(i)
		}
		return []*dom{sr.existing("", nil, all)}, nil
	}
	labelsOf := func(d topology.Domain) map[string]string {
		l := map[string]string{}
		for {
			l[d.Key] = d.Value
			if d.Parent < 0 {
				return l
			}
			d, _ = tree.Domain(d.Parent)
		}
	}
	if bound := s.GroupMembers(sr.g.Key()); len(bound) > 0 {
		sr.bound = true
		// Solve accepted the group, so its bound members share one domain.
		id, _ := s.NodeOf(bound[0])
		d, _ := tree.DomainOf(id, sr.level)
		return []*dom{sr.existing(d.Path, labelsOf(d), d.Nodes)}, nil
	}
	var out []*dom
	if !sr.perNode { // no existing node can take another's place
		for d := range tree.Domains(sr.level) {
			out = append(out, sr.existing(d.Path, labelsOf(d), d.Nodes))
		}
	}
	if sr.opts.NewDomain == "" && !sr.perNode {
		return out, nil
	}
	labels := map[string]string{}
	if !sr.perNode { // a new node's own name is its hostname domain
		labels[sr.keys[sr.level]] = sr.opts.NewDomain
	}
	parent := topology.DomainID(-1)
	if sr.level > 0 {
		for p := range tree.Domains(sr.level - 1) {
			maps.Copy(labels, labelsOf(p))
			parent = p.ID
			break
		}
	}
	for d := range tree.Domains(sr.level) {
		if !sr.perNode && d.Parent == parent && d.Value == sr.opts.NewDomain {
			return nil, placement.Errorf(placement.ErrDuplicate, "scale-up options", "NewDomain",
				"domain %s of %q exists already: name a new value", d.Path, sr.keys[sr.level])
		}
	}
	out = append(out, &dom{path: sr.pathOf(labels), isNew: true, labels: labels, short: sr.shortfall(nil)})
	return out, nil
}

// pathOf returns the path of the domain of the required level that a node
// with labels is in, as the tree names it; "" when the labels lack the
// required key (a per-node domain before its node is named).
func (sr *search) pathOf(labels map[string]string) string {
	s, err := placement.NewSnapshot([]placement.Node{{Name: "n", Labels: labels}}, nil)
	if err != nil {
		return "" // a node with a name and no allocatable is always valid
	}
	t, err := topology.NewTree(s, sr.keys[:sr.level+1])
	if err != nil {
		return ""
	}
	d, _ := t.DomainOf(0, sr.level)
	return d.Path
}

// existing makes the candidate of an existing domain with the given nodes.
// Its nodes and pods are copied when a solve first needs them: most
// domains are pruned by their shortfall before any.
func (sr *search) existing(path string, labels map[string]string, ids []placement.NodeID) *dom {
	return &dom{path: path, labels: labels, ids: ids, short: sr.shortfall(ids)}
}

// input returns d's nodes and the pods bound to them, as NewSnapshot
// takes them.
func (sr *search) input(d *dom) ([]placement.Node, []placement.Pod) {
	if d.nodes == nil && len(d.ids) > 0 {
		d.nodes = make([]placement.Node, len(d.ids))
		for i, id := range d.ids {
			d.nodes[i] = *sr.s.Node(id)
			for p := range sr.s.PodsOn(id) {
				d.pods = append(d.pods, *p)
			}
		}
	}
	return d.nodes, d.pods
}

// needSums returns, per resource, what the sr.need cheapest members
// request in all (for pods, sr.need): what a domain must offer at least,
// whatever the packing.
func (sr *search) needSums() map[placement.ResourceName]int64 {
	type q struct{ v, n int64 }
	per := map[placement.ResourceName][]q{}
	for i := range sr.g.Members {
		for r, v := range sr.g.Members[i].Requests {
			per[r] = append(per[r], q{v, 1})
		}
	}
	for i := range sr.g.PodSets {
		ps := &sr.g.PodSets[i]
		for r, v := range ps.Template.Requests {
			per[r] = append(per[r], q{v, int64(ps.Count)})
		}
	}
	out := map[placement.ResourceName]int64{placement.ResourcePods: int64(sr.need)}
	for r, qs := range per {
		// A member that does not request r requests 0 of it: the cheapest
		// sr.need members take the zeros first.
		slices.SortFunc(qs, func(a, b q) int { return cmp.Compare(a.v, b.v) })
		var listed int64
		for _, x := range qs {
			listed += x.n
		}
		left := int64(sr.need) - max(int64(sr.g.NumPending())-listed, 0)
		var sum int64
		for _, x := range qs {
			if left <= 0 {
				break
			}
			take := min(x.n, left)
			sum, left = arith.SatAdd(sum, arith.MulSat(x.v, take)), left-take
		}
		if sum > 0 {
			out[r] = sum
		}
	}
	return out
}

// shortfall returns, per resource, how much of sr.sums exceeds the summed
// free capacity of nodes ids: a lower bound on what added nodes must
// bring. Only positive shortfalls are listed.
func (sr *search) shortfall(ids []placement.NodeID) map[placement.ResourceName]int64 {
	out := map[placement.ResourceName]int64{}
	for r, sum := range sr.sums {
		var free int64
		for _, id := range ids {
			free = arith.SatAdd(free, max(sr.s.Free(id, r), 0))
			if free >= sum {
				break
			}
		}
		if sum > free {
			out[r] = sum - free
		}
	}
	return out
}

// run tries the candidates and returns the best, or nil.
func (sr *search) run(doms []*dom) (*cand, error) {
	var cands []*cand
	for di, d := range doms {
		for si := range sr.shapes {
			c := &cand{dom: d, shape: &sr.shapes[si], order: di*len(sr.shapes) + si}
			sr.bounds(c)
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, func(a, b *cand) int { return cmp.Or(cmp.Compare(a.lower, b.lower), cmp.Compare(a.order, b.order)) })
	var best *cand
	for _, c := range cands {
		if c.lack != "" {
			if sr.lacking == nil {
				sr.lacking = map[placement.ResourceName]bool{}
			}
			sr.lacking[c.lack] = true
			sr.pruned++
			continue
		}
		hi := c.cap
		if best != nil {
			hi = min(hi, best.count)
			if c.order > best.order {
				hi = best.count - 1
			}
		}
		if c.lower > hi {
			continue
		}
		if sr.truncated {
			break
		}
		c.nodes = sr.newNodes(c, hi)
		ok, err := sr.fits(c, hi)
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		// The fewest in [lower, hi]: fitting only grows with nodes added.
		lo, top := c.lower, hi
		if lo < top {
			if ok, err = sr.fits(c, lo); err != nil {
				return nil, err
			}
			if ok {
				top = lo
			}
			for lo++; lo < top; {
				mid := lo + (top-lo)/2
				if ok, err = sr.fits(c, mid); err != nil {
					return nil, err
				}
				if ok {
					top = mid
				} else {
					lo = mid + 1
				}
			}
		}
		c.count, best = top, c
	}
	return best, nil
}

// bounds sets c's lower bound, its cap, and lack when its shape has none of
// a resource the domain is short of.
func (sr *search) bounds(c *cand) {
	c.cap = min(sr.opts.MaxNodes, sr.need)
	if m := sr.opts.MaxDomainNodes; m > 0 && sr.level >= 0 {
		c.cap = min(c.cap, m-len(c.dom.ids))
	}
	if sr.perNode {
		c.cap = min(c.cap, 1-len(c.dom.ids)) // a node of its own, or the bound members' node as it is
	}
	c.lower = 1
	for _, r := range slices.Sorted(maps.Keys(c.dom.short)) {
		a, ok := c.shape.Allocatable[r]
		if r == placement.ResourcePods && !ok {
			continue // no pod limit
		}
		if a == 0 {
			c.lack = r
			return
		}
		need := c.dom.short[r]
		k := need / a
		if need%a != 0 {
			k++
		}
		c.lower = max(c.lower, int(min(k, int64(c.cap)+1)))
	}
}

// newNodes returns the n nodes candidate c would add, named after its
// shape, with names no node of s has.
func (sr *search) newNodes(c *cand, n int) []placement.Node {
	out := make([]placement.Node, 0, n)
	for k := 1; len(out) < n; k++ {
		name := c.shape.Name + "-new-" + strconv.Itoa(k)
		if _, taken := sr.s.NodeID(name); taken {
			continue
		}
		labels := maps.Clone(c.shape.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		for _, key := range sr.keys {
			delete(labels, key)
		}
		maps.Copy(labels, c.dom.labels)
		labels[HostnameLabel] = name
		out = append(out, placement.Node{Name: name, Labels: labels, Allocatable: c.shape.Allocatable, Taints: c.shape.Taints})
	}
	return out
}

// fits solves the group on c's domain with its first n new nodes. It
// reports false without solving once MaxSolves is spent.
func (sr *search) fits(c *cand, n int) (bool, error) {
	if sr.solves >= sr.opts.MaxSolves {
		sr.truncated = true
		return false, nil
	}
	sr.solves++
	nodes, pods := sr.input(c.dom)
	sub, err := placement.NewSnapshot(append(slices.Clip(nodes), c.nodes[:n]...), pods)
	if err != nil {
		return false, err
	}
	var opts placement.Options
	if sr.level >= 0 {
		t, err := topology.NewTree(sub, sr.keys[:sr.level+1])
		if err != nil {
			return false, err
		}
		if opts, err = t.SolverOptions([]topology.Constraint{{Key: sr.keys[sr.level]}}, topology.MostAllocated); err != nil {
			return false, err
		}
	}
	opts.Filters = sr.opts.Filters
	d, err := placement.Solve(sub, sr.g, opts)
	if err != nil {
		return false, err
	}
	if d.Status != placement.Scheduled && !d.Proven {
		sr.proven = false
	}
	return d.Status == placement.Scheduled, nil
}

// reason says why no candidate of the n domains fits.
func (sr *search) reason(n int) string {
	where := "the cluster"
	if sr.level >= 0 {
		where = fmt.Sprintf("any of %d domains of %s", n, sr.keys[sr.level])
		if sr.opts.NewDomain != "" && !sr.bound {
			where = fmt.Sprintf("any of %d domains of %s or a new one", n-1, sr.keys[sr.level])
		}
		if sr.bound {
			where = fmt.Sprintf("the domain of %s holding its bound members", sr.keys[sr.level])
		}
	}
	msg := fmt.Sprintf("no choice of up to %d node(s) of one shape added to %s makes it fit", min(sr.opts.MaxNodes, sr.need), where)
	if sr.perNode {
		msg = fmt.Sprintf("no single new node of one shape holds it (%s is required)", HostnameLabel)
		if sr.bound {
			msg = fmt.Sprintf("the node of its bound members cannot grow (%s is required)", HostnameLabel)
		}
	}
	if sr.opts.MaxDomainNodes > 0 && sr.level >= 0 {
		msg += fmt.Sprintf(" (at most %d nodes per domain)", sr.opts.MaxDomainNodes)
	}
	if sr.pruned == n*len(sr.shapes) {
		msg += ": no node shape has " + joinResources(sr.lacking)
	}
	if sr.truncated {
		msg += fmt.Sprintf(" within %d solves (Options.MaxSolves)", sr.opts.MaxSolves)
	}
	return msg
}

func joinResources(m map[placement.ResourceName]bool) string {
	var out string
	for i, r := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			out += ", "
		}
		out += string(r)
	}
	return out
}
