package topology

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// MaxSliceLayers is the most slice layers a [PodSetRequest] may have, as
// Kueue's podset-slice-required-topology-constraints allows (KEP-2724,
// multi-layer topology).
const MaxSliceLayers = 3

// SliceLayer is one layer of a pod set's slices (Kueue's
// podSetSliceRequiredTopology with podSetSliceSize, or one entry of
// podset-slice-required-topology-constraints): the set is cut into slices
// of Size pods, and each slice lies in one domain of Key.
type SliceLayer struct {
	// Key is a level of the tree.
	Key string
	// Size is the number of pods per slice, ≥ 1. An inner layer's size
	// divides the size of the layer around it.
	Size int32
}

// PodSetRequest is the topology request of one pod set (Kueue's
// PodSetTopologyRequest, KEP-2724), planned by [Tree.PlanPodSets]. At most
// one of Required, Preferred and Unconstrained is set; with neither
// Required nor Preferred, slices alone confine each slice and nothing
// more (Kueue's slice-only request), Unconstrained set or not, and
// without slices either the set is placed as Kueue places a pod set with
// no request on a topology flavor: unconstrained.
type PodSetRequest struct {
	// PodSet names the set in the group's PodSets; "" stands for the
	// group's Members, which must then be identical pods (one template:
	// requests, nodeSelector, tolerations, node affinity, priority).
	PodSet string
	// Required is a level every pod of the set must share one domain of
	// (kueue.x-k8s.io/podset-required-topology).
	Required string
	// Preferred is a level the set should share one domain of; when none
	// holds it, the next wider level is tried, up to the whole topology
	// (kueue.x-k8s.io/podset-preferred-topology).
	Preferred string
	// Unconstrained places the pods on any nodes of the topology (those
	// with a domain at every level: see [Tree.PlanPodSets]), filling the
	// nodes with the least free capacity first (kueue.x-k8s.io/podset-unconstrained-topology:
	// Kueue's LeastFreeCapacity).
	//
	// With Slices it changes nothing: the set is planned as slices alone,
	// as Kueue v0.17 plans it (its Job webhook accepts the unconstrained
	// annotation beside the slice ones, and its TAS takes any request
	// with slices and no Required or Preferred level as slice-only).
	Unconstrained bool
	// Slices are the set's slice layers, outermost (widest level) first;
	// at most [MaxSliceLayers]. The set's count must be a multiple of the
	// outermost size, and each layer's level must be no wider than the
	// set's Required or Preferred level and narrower than the layer around
	// it.
	Slices []SliceLayer
	// Group names the set's PodSetGroup (kueue.x-k8s.io/podset-group-name):
	// the sets of one group share one domain of their (common) Required
	// or Preferred level. A set in a group takes no slices, as Kueue
	// forbids.
	Group string
}

// Asks words how r asks for its level, for errors: "requires <key>",
// "prefers <key>", "is unconstrained" or "asks for no level", Required
// read before Preferred.
func (r PodSetRequest) Asks() string {
	switch {
	case r.Required != "":
		return "requires " + r.Required
	case r.Preferred != "":
		return "prefers " + r.Preferred
	case r.Unconstrained:
		return "is unconstrained"
	}
	return "asks for no level"
}

// request is a PodSetRequest checked against a tree and a group.
type request struct {
	name          string
	gkey          placement.Key // the group's, for obj
	members       bool
	first         int   // pending index of the set's first pod
	count         int64 // pods
	req           []int64
	tmpl          *placement.Pod
	level         int // search level: Required/Preferred; 0 for slices alone; leaf level when unconstrained
	required      bool
	unconstrained bool
	preferred     bool
	layers        []layer // outermost first; {leaf level, 1} without slices
	group         string
	untracked     bool // the template requests a resource the snapshot does not track
	// near are, for an elastic growth of a set with a Preferred level,
	// the domains holding all its existing pods, the narrowest (at most
	// the level) first: planSet tries them, in turn, before its scope.
	near []int
	// hookPod is what caller filters see for the set's pods: a member, or
	// the template named as the set's pods are (see placement.PodSet).
	hookPod *placement.Pod
}

// layer is a slice layer by tree level; the leaf level (len(keys)) stands
// for single nodes.
type layer struct {
	level int
	size  int64
}

// obj names the set in errors and reasons: the pod set or the members.
// It is worded only when needed: a plan that fits never reads it.
func (r *request) obj() string {
	if r.members {
		return fmt.Sprintf("the members of PodGroup %q", r.gkey.String())
	}
	return fmt.Sprintf("pod set %q of PodGroup %q", r.name, r.gkey.String())
}

// asks says how the request asks for its level, for errors, as
// [PodSetRequest.Asks] words it.
func (r *request) asks(keys []string) string {
	pr := PodSetRequest{Unconstrained: r.unconstrained}
	if (r.required || r.preferred) && r.level >= 0 && r.level < len(keys) {
		if r.required {
			pr.Required = keys[r.level]
		} else {
			pr.Preferred = keys[r.level]
		}
	}
	return pr.Asks()
}

// sliceUnit returns the outermost layer's size.
func (r *request) sliceUnit() int64 { return r.layers[0].size }

// unitAt returns the size in which pods are counted into domains of level
// lv: an inner layer's size from just below the layer around it down to
// its own level (as Kueue counts multi-layer slices), else 1.
func (r *request) unitAt(lv int) int64 {
	u := int64(1)
	for i := 1; i < len(r.layers); i++ {
		if lv > r.layers[i-1].level && lv <= r.layers[i].level {
			u = r.layers[i].size
		}
	}
	return u
}

// compile checks r against the tree and the group g and returns it by
// level. field words the prefix of the request's fields, for an error
// only.
func (t *Tree) compile(g *placement.Group, r PodSetRequest, field func() string) (request, error) {
	leaf := len(t.keys)
	out := request{name: r.PodSet, group: r.Group, level: leaf}
	out.gkey, out.members = g.Key(), r.PodSet == ""
	// lvl finds key's level; f words its field, for an error only.
	lvl := func(key string, f func() string) (int, error) {
		if key == "" {
			return 0, placement.Errorf(placement.ErrInvalid, out.obj(), f(), "must not be empty")
		}
		l, ok := t.Level(key)
		if !ok {
			return 0, placement.Errorf(placement.ErrNotFound, out.obj(), f(), "%q is not a level of the topology tree (levels: %s)", key, keyList(t.keys))
		}
		if t.levelStart[l] == t.levelStart[l+1] {
			return 0, placement.Errorf(ErrNoDomain, out.obj(), f(), "%q: %s", key, t.emptyLevel(l))
		}
		return l, nil
	}
	set := 0
	for _, b := range []bool{r.Required != "", r.Preferred != "", r.Unconstrained} {
		if b {
			set++
		}
	}
	if set > 1 {
		return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), field(), "sets more than one of required, preferred and unconstrained")
	}
	var err error
	switch {
	case r.Required != "":
		out.required = true
		out.level, err = lvl(r.Required, func() string { return field() + ".required" })
	case r.Preferred != "":
		out.preferred = true
		out.level, err = lvl(r.Preferred, func() string { return field() + ".preferred" })
	case len(r.Slices) > 0:
		out.level, out.unconstrained = 0, true // Kueue: slices alone search from the widest level, least free first
	default:
		out.unconstrained = true
	}
	if err != nil {
		return request{}, err
	}
	if len(r.Slices) > MaxSliceLayers {
		return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), field()+".slices", "%d slice layers, more than %d", len(r.Slices), MaxSliceLayers)
	}
	if r.Group != "" && len(r.Slices) > 0 {
		return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), field()+".group", "a pod set of a PodSetGroup takes no slices")
	}
	if r.Group != "" && r.Required == "" && r.Preferred == "" {
		return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), field()+".group", "a pod set of a PodSetGroup needs a required or preferred level")
	}
	for i, s := range r.Slices {
		f := func(sub string) string { return fmt.Sprintf("%s.slices[%d].%s", field(), i, sub) } // for an error only
		l, err := lvl(s.Key, func() string { return f("key") })
		if err != nil {
			return request{}, err
		}
		if s.Size < 1 {
			return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), f("size"), "%d is below 1", s.Size)
		}
		if i == 0 && (out.required || out.preferred) && l < out.level {
			return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), f("key"), "slice level %q is wider than the set's level %q", s.Key, t.keys[out.level])
		}
		if i > 0 {
			prev := out.layers[i-1]
			if l <= prev.level {
				return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), f("key"), "slice level %q is not narrower than the layer around it, %q", s.Key, t.keys[prev.level])
			}
			if prev.size%int64(s.Size) != 0 {
				return request{}, placement.Errorf(placement.ErrInvalid, out.obj(), f("size"), "%d does not divide the size %d of the layer around it", s.Size, prev.size)
			}
		}
		out.layers = append(out.layers, layer{l, int64(s.Size)})
	}
	if len(out.layers) == 0 {
		out.layers = []layer{{leaf, 1}}
	}
	return out, nil
}

// bind finds r's pods in g: the pod set it names, or the members, which
// must be identical. countField names the count in errors.
func (r *request) bind(s *placement.Snapshot, g *placement.Group) error {
	if r.members {
		if len(g.Members) == 0 {
			return placement.Errorf(placement.ErrNotFound, r.obj(), "members", "the group has no pending members")
		}
		m0 := &g.Members[0]
		for i := range g.Members {
			m := &g.Members[i]
			if m.Affinity != nil || len(m.ResourceClaims) > 0 {
				return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", m.Key().String()), "spec", "a planned member takes no affinity terms or resource claims")
			}
			if f := templateDiff(m0, m); f != "" {
				return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", m.Key().String()), f, "differs from member %q's: planned members are one pod set", m0.Name)
			}
		}
		r.first, r.count, r.tmpl = 0, int64(len(g.Members)), m0
	} else {
		k := slices.IndexFunc(g.PodSets, func(ps placement.PodSet) bool { return ps.Name == r.name })
		if k < 0 {
			return placement.Errorf(placement.ErrNotFound, r.obj(), "podSet", "the group has no pod set of that name")
		}
		ps := &g.PodSets[k]
		if ps.Count < 1 {
			return placement.Errorf(placement.ErrInvalid, r.obj(), "count", "%d is below 1", ps.Count)
		}
		r.first, r.count, r.tmpl = g.PodSetStart(k), int64(ps.Count), &ps.Template
	}
	r.req = g.RequestVector(s, r.first)
	return nil
}

// setHookPod sets r.hookPod, for caller filters: the first member, or the
// template named as the set's pods are (see placement.PodSet).
func (r *request) setHookPod(g *placement.Group) {
	if r.members {
		r.hookPod = &g.Members[0]
		return
	}
	hp := *r.tmpl
	hp.Namespace, hp.Name, hp.SchedulingGroup, hp.NodeName = g.Namespace, r.name, g.Name, ""
	r.hookPod = &hp
}

// checkCount checks that the set's pods, with the fixed pods it owns
// (bound members, or existing pods: what), make whole slices of its
// outermost layer, as Kueue requires of a count.
func (r *request) checkCount(bound int64, what string) error {
	u := r.sliceUnit()
	if (r.count+bound)%u == 0 {
		return nil
	}
	f := "count"
	if r.members {
		f = "members"
	}
	if bound > 0 {
		return placement.Errorf(placement.ErrInvalid, r.obj(), f, "%d pods and %d %s are not a multiple of the slice size %d", r.count, bound, what, u)
	}
	return placement.Errorf(placement.ErrInvalid, r.obj(), f, "%d pods is not a multiple of the slice size %d", r.count, u)
}

// sliced reports whether r has slices of more than one pod.
func (r *request) sliced() bool { return len(r.layers) > 1 || r.sliceUnit() > 1 }

// templateDiff names the first field in which b differs from a as pods
// of one pod set must not: "requests" (a zero request is none, as
// everywhere else), "nodeSelector", "tolerations", "nodeAffinity" or
// "priority"; "" when they may be one set's pods.
func templateDiff(a, b *placement.Pod) string {
	switch {
	case !sameNonZero(a.Requests, b.Requests):
		return "requests"
	case !maps.Equal(a.NodeSelector, b.NodeSelector):
		return "nodeSelector"
	case !slices.Equal(a.Tolerations, b.Tolerations):
		return "tolerations"
	case !reflect.DeepEqual(a.NodeAffinity, b.NodeAffinity):
		return "nodeAffinity"
	case a.Priority != b.Priority:
		return "priority"
	}
	return ""
}

// sameNonZero reports whether a and b request the same, zero entries
// left out.
func sameNonZero(a, b placement.ResourceList) bool {
	for _, x := range []struct{ p, q placement.ResourceList }{{a, b}, {b, a}} {
		for k, v := range x.p {
			if v != 0 && x.q[k] != v {
				return false
			}
		}
	}
	return true
}
