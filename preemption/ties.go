package preemption

import (
	"cmp"
	"slices"
)

// compareUnitNames orders units by name: the victim's key (the whole
// group's namespace/name, else the pod's), a pod before a whole group of
// the same name.
func compareUnitNames(a, b *unit) int {
	if c := a.v.key().Compare(b.v.key()); c != 0 {
		return c
	}
	return cmp.Compare(boolInt(a.v.Whole), boolInt(b.v.Whole))
}

// byName returns units sorted by name.
func byName(units []*unit) []*unit {
	out := slices.Clone(units)
	slices.SortFunc(out, compareUnitNames)
	return out
}

// compareNames compares two victim sets, each sorted by name, as their
// lists of names: element by element, a list before its extensions.
func compareNames(a, b []*unit) int {
	return slices.CompareFunc(a, b, compareUnitNames)
}

// compareToBest compares the victim set names (sorted by name), found in
// the placement of the given rank and name, with the best set's names and
// placement: the tie rule of sets of equal cost.
func (f *finder) compareToBest(names []*unit, rank int, place string) int {
	b := f.best
	if c := compareNames(names, b.names); c != 0 {
		return c
	}
	if c := cmp.Compare(rank, b.r.rank); c != 0 {
		return c
	}
	return cmp.Compare(place, b.r.name)
}

// sawTie notes that the first pass passed over a set, or a bound, that
// costs k, the best's cost at the time: the best may have a rival of equal
// cost whose names come first.
func (f *finder) sawTie(k Cost) { f.tie, f.tied = k, true }

// mayTie reports whether the ties pass must run: the first pass was
// exact, and met a set or bound that costs as much as the best.
func (f *finder) mayTie() bool {
	return f.best != nil && f.tied && f.tie.Compare(f.best.cost) == 0 && f.limit == NoLimit && !f.cut
}

// breakTies is the ties pass over areas (searched exactly, in the first
// pass or skipped by their bound): each area whose bound is no dearer than
// the best is searched again in name order (see [finder.exactSearch]),
// areas with the least first name first, until no area left can hold a set
// whose names come before the best's. search runs the ties pass of one
// area.
func (f *finder) breakTies(areas []area, search func(a *area) error) error {
	var tied []*area
	for i := range areas {
		if areas[i].lb.cost.Compare(f.best.cost) <= 0 {
			tied = append(tied, &areas[i])
		}
	}
	first := make(map[*area]*unit, len(tied))
	for _, a := range tied {
		first[a] = slices.MinFunc(a.units, compareUnitNames)
	}
	slices.SortStableFunc(tied, func(a, b *area) int { return compareUnitNames(first[a], first[b]) })
	for _, a := range tied {
		// Every set of a begins with a name at least first[a]'s.
		if compareUnitNames(f.best.names[0], first[a]) < 0 {
			break
		}
		if err := search(a); err != nil || f.cut {
			return err
		}
	}
	return nil
}
