package kube

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// maxAssignedDomains bounds the domains one topologyAssignment may list,
// as Kueue's API does (roots and pod counts have at most 100,000 items):
// a domainCount is read before anything is allocated for it.
const maxAssignedDomains = 100_000

// readTopologyAssignment reads a Kueue topologyAssignment (the compact
// form of KEP-2724: levels, then slices of domains whose values per level
// are one universal value or prefix + roots + suffix, and whose pod counts
// are one universal count or one per domain) at field of obj into pods per
// hostname: Node is the value of kubernetes.io/hostname, NodeID is -1.
// gangsim assigns at the hostname level only, so levels must be exactly
// [kubernetes.io/hostname], as Kueue writes it for a Topology whose lowest
// level is the hostname.
//
// Errors (a [*placement.FieldError] naming the field): other levels; a
// slice whose domainCount is below 1, or whose values or counts do not
// match domainCount; a level value or pod count with neither or both of
// universal and individual; a count below 1; a hostname listed twice;
// more than 100,000 domains or [placement.MaxPending] pods in all.
func readTopologyAssignment(obj, field string, ta *kueue.TopologyAssignment) ([]placement.PodSetAssignment, error) {
	if len(ta.Levels) != 1 || ta.Levels[0] != corev1.LabelHostname {
		return nil, placement.Errorf(ErrUnsupported, obj, field+".levels", "%q: gangsim reads assignments at the %s level only", ta.Levels, corev1.LabelHostname)
	}
	ds, err := readSlices(obj, field, ta, "host", "[0]", levelValues)
	if err != nil {
		return nil, err
	}
	out := make([]placement.PodSetAssignment, len(ds))
	for i, d := range ds {
		out[i] = placement.PodSetAssignment{Node: d.values[0], NodeID: -1, Count: d.count}
	}
	return out, nil
}

// readSlices reads the slices of topologyAssignment ta at field of obj:
// its domains in the order written, each with its values at ta.Levels
// (values expands one level's of a slice of n domains) and its pods. what
// names a domain in errors ("host", "domain"), and dupAt is the suffix of
// the valuesPerLevel field a domain listed twice is reported at.
//
// Errors (a [*placement.FieldError] naming the field): no slices; a
// slice whose domainCount is below 1, or whose values or counts do not
// match domainCount; a count below 1; a domain listed twice; more than
// 100,000 domains or [placement.MaxPending] pods in all; values' own.
func readSlices(obj, field string, ta *kueue.TopologyAssignment, what, dupAt string,
	values func(obj, field string, v kueue.TopologyAssignmentSliceLevelValues, n int) ([]string, error)) ([]domainPods, error) {
	if len(ta.Slices) == 0 {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field+".slices", "must not be empty")
	}
	var out []domainPods
	seen := map[string]bool{}
	var total int64
	for i, sl := range ta.Slices {
		f := fmt.Sprintf("%s.slices[%d]", field, i)
		n := int(sl.DomainCount)
		if n < 1 || len(out)+n > maxAssignedDomains {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".domainCount", "%d: want 1 or more, at most %d domains in all", sl.DomainCount, maxAssignedDomains)
		}
		if len(sl.ValuesPerLevel) != len(ta.Levels) {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".valuesPerLevel", "has %d entries for %d levels", len(sl.ValuesPerLevel), len(ta.Levels))
		}
		perLevel := make([][]string, len(ta.Levels))
		for l, v := range sl.ValuesPerLevel {
			vs, err := values(obj, fmt.Sprintf("%s.valuesPerLevel[%d]", f, l), v, n)
			if err != nil {
				return nil, err
			}
			perLevel[l] = vs
		}
		counts, err := podCounts(obj, f+".podCounts", sl.PodCounts, n)
		if err != nil {
			return nil, err
		}
		for j := range n {
			d := domainPods{values: make([]string, len(ta.Levels)), count: counts[j]}
			for l := range ta.Levels {
				d.values[l] = perLevel[l][j]
			}
			id := strings.Join(d.values, ",")
			if seen[id] {
				return nil, placement.Errorf(placement.ErrDuplicate, obj, f+".valuesPerLevel"+dupAt, "%s %q is assigned twice", what, id)
			}
			seen[id] = true
			if total += int64(d.count); total > placement.MaxPending {
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".podCounts", "more than %d pods in all", placement.MaxPending)
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// levelValues expands one level's values of a slice of n domains.
func levelValues(obj, field string, v kueue.TopologyAssignmentSliceLevelValues, n int) ([]string, error) {
	switch {
	case (v.Universal == nil) == (v.Individual == nil):
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "exactly one of universal and individual must be set")
	case v.Universal != nil:
		if n > 1 {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, field+".universal", "host %q is assigned %d times (domainCount %d)", *v.Universal, n, n)
		}
		return []string{*v.Universal}, nil
	}
	ind := v.Individual
	if len(ind.Roots) != n {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field+".individual.roots", "has %d values for domainCount %d", len(ind.Roots), n)
	}
	pre, suf := deref(ind.Prefix), deref(ind.Suffix)
	out := make([]string, n)
	for i, r := range ind.Roots {
		out[i] = pre + r + suf
	}
	return out, nil
}

// podCounts expands a slice's pod counts for n domains.
func podCounts(obj, field string, c kueue.TopologyAssignmentSlicePodCounts, n int) ([]int32, error) {
	switch {
	case (c.Universal == nil) == (c.Individual == nil):
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "exactly one of universal and individual must be set")
	case c.Universal != nil:
		if *c.Universal < 1 || *c.Universal > placement.MaxPending {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field+".universal", "%d is outside 1..%d", *c.Universal, placement.MaxPending)
		}
		out := make([]int32, n)
		for i := range out {
			out[i] = *c.Universal
		}
		return out, nil
	}
	if len(c.Individual) != n {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field+".individual", "has %d counts for domainCount %d", len(c.Individual), n)
	}
	for i, k := range c.Individual {
		if k < 1 || k > placement.MaxPending {
			return nil, placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s.individual[%d]", field, i), "%d is outside 1..%d", k, placement.MaxPending)
		}
	}
	return c.Individual, nil
}

// writeTopologyAssignment is the topologyAssignment of pods per node
// (Node is the node's hostname label value), in the order given, at the
// level [kubernetes.io/hostname], in the compact form
// [writeDomainAssignment] writes.
func writeTopologyAssignment(pods []placement.PodSetAssignment) *kueue.TopologyAssignment {
	domains := make([]domainPods, len(pods))
	for i, a := range pods {
		domains[i] = domainPods{values: []string{a.Node}, count: a.Count}
	}
	return writeDomainAssignment(hostnameLevels, domains)
}

// hostnameLevels are the levels of an assignment at the hostname level.
var hostnameLevels = []string{corev1.LabelHostname}

// domainPods are the pods of one domain of a topologyAssignment above
// the hostname level: its values at the assignment's levels.
type domainPods struct {
	values []string
	count  int32
}

// writeDomainAssignment is the topologyAssignment of domains at levels in
// Kueue's compact form (KEP-2724, as Kueue's V1Beta2From writes it): one
// slice; per level one universal value when all domains share it, else
// the values' longest common prefix and suffix taken out (the prefix
// shortened when they overlap in the shortest value) and the roots; one
// universal pod count when all are equal. No domains: the levels and no
// slices.
func writeDomainAssignment(levels []string, domains []domainPods) *kueue.TopologyAssignment {
	ta := &kueue.TopologyAssignment{Levels: slices.Clone(levels), Slices: []kueue.TopologyAssignmentSlice{}}
	if len(domains) == 0 {
		return ta
	}
	sl := kueue.TopologyAssignmentSlice{DomainCount: int32(len(domains)), ValuesPerLevel: make([]kueue.TopologyAssignmentSliceLevelValues, len(levels))}
	for l := range levels {
		vs := make([]string, len(domains))
		for i, d := range domains {
			vs[i] = d.values[l]
		}
		sl.ValuesPerLevel[l] = compactValues(vs)
	}
	counts := make([]int32, len(domains))
	same := true
	for i, d := range domains {
		counts[i] = d.count
		same = same && d.count == counts[0]
	}
	if same {
		sl.PodCounts.Universal = &counts[0]
	} else {
		sl.PodCounts.Individual = counts
	}
	ta.Slices = append(ta.Slices, sl)
	return ta
}

// compactValues writes one level's values as Kueue's encoding does: all
// equal is one universal value; else the common prefix and suffix, each
// found over all values, the prefix cut back so that the two fit in the
// shortest value (a root may then be empty), and the roots.
func compactValues(vs []string) kueue.TopologyAssignmentSliceLevelValues {
	pre, suf := vs[0], vs[0]
	shortest, longest := len(vs[0]), len(vs[0])
	for _, v := range vs[1:] {
		shortest, longest = min(shortest, len(v)), max(longest, len(v))
		i := 0
		for i < min(len(pre), len(v)) && pre[i] == v[i] {
			i++
		}
		pre = pre[:i]
		j := 0
		for j < min(len(suf), len(v)) && suf[len(suf)-1-j] == v[len(v)-1-j] {
			j++
		}
		suf = suf[len(suf)-j:]
	}
	if len(pre) == longest {
		u := pre
		return kueue.TopologyAssignmentSliceLevelValues{Universal: &u}
	}
	if len(pre)+len(suf) > shortest {
		pre = pre[:shortest-len(suf)]
	}
	roots := make([]string, len(vs))
	for i, v := range vs {
		roots[i] = v[len(pre) : len(v)-len(suf)]
	}
	return kueue.TopologyAssignmentSliceLevelValues{Individual: &kueue.TopologyAssignmentSliceLevelIndividualValues{
		Prefix: ptrOrNil(pre), Suffix: ptrOrNil(suf), Roots: roots}}
}
