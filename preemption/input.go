package preemption

import (
	"fmt"
	"math"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// DisruptionMode is a PodGroup's spec.disruptionMode
// (scheduling.k8s.io/v1alpha2, KEP-5710 workload-aware preemption): how the
// group's pods may be disrupted by preemption.
type DisruptionMode string

// Disruption modes. The empty mode means Pod, the API default.
const (
	// DisruptionModePod lets preemption evict the group's pods one by one.
	DisruptionModePod DisruptionMode = "Pod"
	// DisruptionModePodGroup makes the group one victim: all of its bound
	// pods, on every node, are evicted together or none is.
	DisruptionModePodGroup DisruptionMode = "PodGroup"
)

// PodGroupSpec is the part of a PodGroup's spec that preemption reads and
// that the snapshot does not carry.
type PodGroupSpec struct {
	// Priority is spec.priority: when set it replaces the priority of every
	// member pod, both for a preemptor group and for a victim (KEP-5710).
	// Nil means each pod keeps its own spec.priority.
	Priority *int32
	// DisruptionMode is spec.disruptionMode; empty means
	// [DisruptionModePod].
	DisruptionMode DisruptionMode
}

// DisruptionBudget is a PodDisruptionBudget reduced to plain data
// (policy/v1): which pods it guards and how many of them may be disrupted
// now. Budgets are soft for preemption, as upstream: the search prefers
// victims that keep every budget, and evicts pods beyond a budget only when
// nothing else makes room.
type DisruptionBudget struct {
	// Namespace and Name identify the budget; the pair is unique in an
	// [Input]. It selects pods of Namespace only.
	Namespace string
	Name      string
	// Selector is spec.selector: a pod of Namespace is guarded when its
	// labels match. The empty selector guards every pod of the namespace
	// (policy/v1 semantics).
	Selector placement.LabelSelector
	// DisruptionsAllowed is status.disruptionsAllowed, at least 0.
	DisruptionsAllowed int32
}

// Key returns the budget's namespace/name key.
func (b *DisruptionBudget) Key() placement.Key {
	return placement.Key{Namespace: b.Namespace, Name: b.Name}
}

func (b *DisruptionBudget) matches(p *placement.Pod) bool {
	return p.Namespace == b.Namespace && b.Selector.Matches(p.Labels)
}

// Input is what preemption needs beyond the snapshot and the preemptor
// group. The zero value is valid: no PodGroup overrides any priority, every
// group may be disrupted pod by pod, and no budget applies.
type Input struct {
	// PodGroups maps a PodGroup's namespace/name to its spec, for the
	// preemptor group (its Priority is the preemptor's priority) and for any
	// group with bound pods. A group absent from the map has no priority
	// override and disruptionMode Pod.
	PodGroups map[placement.Key]PodGroupSpec
	// Budgets are the disruption budgets in force, in any order.
	Budgets []DisruptionBudget
}

// validate checks the input; errors name the object and field.
func (in *Input) validate() error {
	if err := in.validatePodGroups(); err != nil {
		return err
	}
	return in.validateBudgets()
}

// firstError returns the error validate would report first: one of
// PodGroups, else err. Find checks PodGroups last when it can (see
// [specTally]) but reports errors in validate's order.
func (in *Input) firstError(err error) error {
	if e := in.validatePodGroups(); e != nil {
		return e
	}
	return err
}

func validSpec(k placement.Key, spec PodGroupSpec) bool {
	switch spec.DisruptionMode {
	case "", DisruptionModePod, DisruptionModePodGroup:
		return k.Name != ""
	}
	return false
}

// validatePodGroups checks PodGroups, O(entries).
func (in *Input) validatePodGroups() error {
	var bad []placement.Key // sorted before reporting, so the error is the same whatever the map order
	for k, spec := range in.PodGroups {
		if !validSpec(k, spec) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		k := slices.MinFunc(bad, placement.Key.Compare)
		obj := fmt.Sprintf("PodGroup %q", k.String())
		if k.Name == "" {
			return placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		}
		return placement.Errorf(placement.ErrInvalid, obj, "spec.disruptionMode", "unknown mode %q (want Pod or PodGroup)", in.PodGroups[k].DisruptionMode)
	}
	return nil
}

// validateBudgets checks Budgets.
func (in *Input) validateBudgets() error {
	keys := make([]placement.Key, len(in.Budgets))
	for i := range in.Budgets {
		b := &in.Budgets[i]
		if b.Name == "" {
			return placement.Errorf(placement.ErrInvalid, budgetObj(b.Key()), "metadata.name", "must not be empty")
		}
		if b.DisruptionsAllowed < 0 {
			return placement.Errorf(placement.ErrInvalid, budgetObj(b.Key()), "status.disruptionsAllowed", "%d is negative", b.DisruptionsAllowed)
		}
		if err := b.Selector.Validate(budgetObj(b.Key()), "spec.selector"); err != nil {
			return err
		}
		keys[i] = b.Key()
	}
	slices.SortFunc(keys, placement.Key.Compare)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return placement.Errorf(placement.ErrDuplicate, budgetObj(keys[i]), "metadata.name", "appears twice")
		}
	}
	return nil
}

func budgetObj(k placement.Key) string { return fmt.Sprintf("PodDisruptionBudget %q", k.String()) }

// specTally counts the entries of PodGroups that Find has read, each once,
// and whether one was invalid. A search reads the spec of every PodGroup
// with bound pods; when those (and the preemptor's) are all the entries,
// and valid, the map is valid without a pass of its own, which costs about
// as much as the lookups.
type specTally struct {
	read int
	bad  bool
}

// covers reports whether the entries read are all of in.PodGroups, valid.
func (t *specTally) covers(in *Input) bool { return !t.bad && t.read == len(in.PodGroups) }

// spec returns the group's spec, defaulted, counting the entry in t
// (unless nil).
func (in *Input) spec(k placement.Key, t *specTally) PodGroupSpec {
	s, ok := in.PodGroups[k]
	if ok && t != nil {
		t.read++
		t.bad = t.bad || !validSpec(k, s)
	}
	if s.DisruptionMode == "" {
		s.DisruptionMode = DisruptionModePod
	}
	return s
}

// preemptorPriority is the PodGroup's priority override, or else the lowest
// priority of a member or pod set template: a victim must be below every member it may make room
// for, and the search does not track which member uses whose room.
func (in *Input) preemptorPriority(g *placement.Group, t *specTally) int32 {
	if p := in.spec(g.Key(), t).Priority; p != nil {
		return *p
	}
	prio := int32(math.MaxInt32)
	for i := range g.Members {
		prio = min(prio, g.Members[i].Priority)
	}
	for k := range g.PodSets {
		prio = min(prio, g.PodSets[k].Template.Priority)
	}
	return prio
}

// sortedBudgets orders budgets by key so that nothing depends on the
// caller's order.
func sortedBudgets(bs []DisruptionBudget) []*DisruptionBudget {
	out := make([]*DisruptionBudget, len(bs))
	for i := range bs {
		out[i] = &bs[i]
	}
	slices.SortFunc(out, func(a, b *DisruptionBudget) int { return a.Key().Compare(b.Key()) })
	return out
}
