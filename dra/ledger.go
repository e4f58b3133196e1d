package dra

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/btree"

	"github.com/gangsched/gangsched/placement"
)

// Ledger is the immutable record of a cluster's claims: their specs,
// allocations and status.reservedFor, and so which devices are in use.
// Every operation returns a new Ledger and leaves its receiver untouched,
// sharing the unchanged parts (claims in a copy-on-write btree, device
// and counter usage in copy-on-write pages), so a what-if costs O(changes)
// and dropping the result is the rollback. An operation either applies
// whole or returns an error and applies nothing; it never panics.
//
// The state machine follows resource.k8s.io/v1 and KEP-5729:
//
//   - a claim is created unallocated ([Ledger.AddClaim]);
//   - [Ledger.Allocate] gives it devices, none of which another claim
//     holds, within the counters of partitionable devices; a device that
//     allows multiple allocations (KEP-5075) is shared instead, each claim
//     consuming part of its capacities, never more than they hold;
//   - [Ledger.Reserve] adds a consumer to status.reservedFor: a pod, or a
//     PodGroup standing for all its members; at most [MaxReservedFor];
//   - [Ledger.Unreserve] removes one; when reservedFor becomes empty the
//     claim is released (deallocated), as the resourceclaim controller
//     does; [Ledger.Release] deallocates a claim that was loaded allocated
//     with nobody reserving it;
//   - [Ledger.DeletePod] and [Ledger.DeletePodGroup] remove an object's
//     entries everywhere and delete the claims generated for it, so a
//     PodGroup's claim stays allocated while the PodGroup exists.
type Ledger struct {
	inv       *Inventory
	templates map[placement.Key]*template
	claims    *btree.BTreeG[*claimEntry]
	owners    *btree.BTreeG[ownerEntry]
	holders   *btree.BTreeG[holder] // device -> claims
	used      cow[bool]             // per device: held by a claim (devices that allow multiple allocations never are)
	ctr       cow[int64]            // per counter: consumed
	shared    cow[int64]            // per capacity of a shared device: consumed
}

type template struct {
	t    ResourceClaimTemplate
	spec *spec
}

type claimEntry struct {
	c    ResourceClaim
	spec *spec
	devs []int32  // devices held (allocated without admin access)
	caps []capUse // what the claim consumes of shared devices
}

type ownerEntry struct {
	kind                   OwnerKind
	ns, owner, entry, name string
}

type holder struct {
	dev   int32
	claim placement.Key
}

func lessEntry(a, b *claimEntry) bool { return a.c.Key().Compare(b.c.Key()) < 0 }
func lessOwner(a, b ownerEntry) bool {
	return cmp.Or(strings.Compare(string(a.kind), string(b.kind)), strings.Compare(a.ns, b.ns),
		strings.Compare(a.owner, b.owner), strings.Compare(a.entry, b.entry)) < 0
}
func lessHolder(a, b holder) bool {
	return a.dev < b.dev || a.dev == b.dev && a.claim.Compare(b.claim) < 0
}

func claimObj(k placement.Key) string { return fmt.Sprintf("ResourceClaim %q", k.String()) }

// NewLedger validates templates and claims against the inventory and builds
// a ledger. Claims may be allocated and reserved already (the cluster's
// current state); an allocation's NodeName and NodeSelectors are derived
// from its devices, whatever the input says. The result does not depend on
// the order of either slice; the values become owned by the ledger.
//
// Errors (a [*placement.FieldError]; nothing is built): a nil inventory;
// an empty or duplicate template or claim name; an invalid spec (no requests, an empty
// or duplicate request or subrequest name, not exactly one of exactly and
// firstAvailable, an unknown allocation mode, a count out of range or set
// for All, a nil selector, a constraint without matchAttribute or naming
// an unknown request); an invalid owner; two claims generated for one
// owner entry; an allocation that [Ledger.Allocate] would reject; a
// reservedFor with entries but no allocation, an empty name or resource,
// duplicates, or more than [MaxReservedFor] entries.
func NewLedger(inv *Inventory, templates []ResourceClaimTemplate, claims []ResourceClaim) (*Ledger, error) {
	if inv == nil {
		return nil, placement.Errorf(placement.ErrInvalid, "Ledger", "inventory", "must not be nil")
	}
	l := &Ledger{
		inv:       inv,
		templates: make(map[placement.Key]*template, len(templates)),
		claims:    btree.NewG(16, lessEntry),
		owners:    btree.NewG(16, lessOwner),
		holders:   btree.NewG(16, lessHolder),
		used:      newCow[bool](len(inv.devs)),
		ctr:       newCow[int64](len(inv.counters)),
		shared:    newCow[int64](len(inv.shared)),
	}
	for i := range templates {
		t := &templates[i]
		obj := fmt.Sprintf("ResourceClaimTemplate %q", t.Key().String())
		if t.Name == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		}
		if _, dup := l.templates[t.Key()]; dup {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		sp, err := compileSpec(inv, obj, "spec.spec", &t.Spec)
		if err != nil {
			return nil, err
		}
		l.templates[t.Key()] = &template{t: *t, spec: sp}
	}
	sorted := slices.Clone(claims)
	slices.SortFunc(sorted, func(a, b ResourceClaim) int { return a.Key().Compare(b.Key()) })
	for i := range sorted {
		if err := l.addClaim(&sorted[i], nil, true); err != nil {
			return nil, err
		}
	}
	l.freeze()
	return l, nil
}

// Inventory returns the inventory the ledger accounts for.
func (l *Ledger) Inventory() *Inventory { return l.inv }

// Claim returns the claim with key k. The result must not be modified.
func (l *Ledger) Claim(k placement.Key) (*ResourceClaim, bool) {
	e, ok := l.entry(k)
	if !ok {
		return nil, false
	}
	return &e.c, true
}

// Claims yields every claim in namespace/name order. The values must not
// be modified.
func (l *Ledger) Claims() iter.Seq[*ResourceClaim] {
	return func(yield func(*ResourceClaim) bool) {
		l.claims.Ascend(func(e *claimEntry) bool { return yield(&e.c) })
	}
}

// Template returns the claim template with key k.
func (l *Ledger) Template(k placement.Key) (*ResourceClaimTemplate, bool) {
	t, ok := l.templates[k]
	if !ok {
		return nil, false
	}
	return &t.t, true
}

// Holder returns the claim that holds device id; of a device that allows
// multiple allocations, the first of its claims in namespace/name order.
func (l *Ledger) Holder(id DeviceID) (placement.Key, bool) {
	i, ok := l.inv.byID[id]
	if !ok {
		return placement.Key{}, false
	}
	return l.holder(i)
}

func (l *Ledger) holder(i int32) (placement.Key, bool) {
	var k placement.Key
	found := false
	l.holders.AscendGreaterOrEqual(holder{dev: i}, func(h holder) bool {
		k, found = h.claim, h.dev == i
		return false
	})
	return k, found
}

// Consumed returns how much of capacity name of device id the claims
// holding it consume together (KEP-5075); ok is false unless the device
// allows multiple allocations and has that capacity.
func (l *Ledger) Consumed(id DeviceID, name QualifiedName) (int64, bool) {
	i, ok := l.inv.byID[id]
	if !ok {
		return 0, false
	}
	for _, c := range l.inv.devs[i].caps {
		if c.name == name && c.slot >= 0 {
			return l.shared.get(int(c.slot)), true
		}
	}
	return 0, false
}

// Generated returns the claim generated for the spec.resourceClaims entry
// claimName of the pod or PodGroup owner (KEP-5729 keeps the mapping in
// the owner's status; here it is looked up by owner).
func (l *Ledger) Generated(kind OwnerKind, owner placement.Key, claimName string) (placement.Key, bool) {
	e, ok := l.owners.Get(ownerEntry{kind: kind, ns: owner.Namespace, owner: owner.Name, entry: claimName})
	if !ok {
		return placement.Key{}, false
	}
	return placement.Key{Namespace: owner.Namespace, Name: e.name}, true
}

func (l *Ledger) entry(k placement.Key) (*claimEntry, bool) {
	return l.claims.Get(&claimEntry{c: ResourceClaim{Namespace: k.Namespace, Name: k.Name}})
}

// edit returns a copy to change; the receiver stays as it is.
func (l *Ledger) edit() *Ledger {
	n := *l
	n.claims = l.claims.Clone()
	n.owners = l.owners.Clone()
	n.holders = l.holders.Clone()
	n.used = l.used.fork()
	n.ctr = l.ctr.fork()
	n.shared = l.shared.fork()
	return &n
}

func (l *Ledger) freeze() {
	l.used.owned = nil
	l.ctr.owned = nil
	l.shared.owned = nil
}

// apply runs f on a copy and returns it, or the error with nothing applied.
func (l *Ledger) apply(f func(n *Ledger) error) (*Ledger, error) {
	n := l.edit()
	if err := f(n); err != nil {
		return nil, err
	}
	n.freeze()
	return n, nil
}

// AddClaim adds a new, unallocated claim (one a user created, or one
// generated from a template, with Owner set).
//
// Errors: an empty name; a claim with this key exists; an invalid spec or
// owner (see [NewLedger]); an owner entry that already has a generated
// claim; a status that is not empty.
func (l *Ledger) AddClaim(c ResourceClaim) (*Ledger, error) {
	return l.apply(func(n *Ledger) error {
		if c.Status.Allocation != nil || len(c.Status.ReservedFor) > 0 {
			return placement.Errorf(placement.ErrInvalid, claimObj(c.Key()), "status", "a new claim must be unallocated and unreserved")
		}
		return n.addClaim(&c, nil, false)
	})
}

// addClaim adds c; sp is its compiled spec when the caller has it (a
// claim generated from a template shares the template's, and with it the
// template's memo of matching devices), nil to compile c.Spec.
func (l *Ledger) addClaim(c *ResourceClaim, sp *spec, loading bool) error {
	obj := claimObj(c.Key())
	if c.Name == "" {
		return placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	if _, dup := l.entry(c.Key()); dup {
		return placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "a claim with this name exists")
	}
	if sp == nil {
		var err error
		if sp, err = compileSpec(l.inv, obj, "spec", &c.Spec); err != nil {
			return err
		}
	}
	e := &claimEntry{c: *c, spec: sp}
	e.c.Status.ReservedFor = slices.Clone(c.Status.ReservedFor)
	if o := c.Owner; o != nil {
		oc := *o
		e.c.Owner = &oc
		if o.Kind != OwnerPod && o.Kind != OwnerPodGroup {
			return placement.Errorf(placement.ErrInvalid, obj, "metadata.ownerReferences", "owner kind %q is neither Pod nor PodGroup", o.Kind)
		}
		if o.Name == "" || o.ClaimName == "" {
			return placement.Errorf(placement.ErrInvalid, obj, "metadata.ownerReferences", "owner name and claim name must not be empty")
		}
		oe := ownerEntry{kind: o.Kind, ns: c.Namespace, owner: o.Name, entry: o.ClaimName, name: c.Name}
		if prev, dup := l.owners.Get(oe); dup {
			return placement.Errorf(placement.ErrDuplicate, obj, "metadata.ownerReferences", "%s %q already has claim %q for entry %q", o.Kind, o.Name, prev.name, o.ClaimName)
		}
		l.owners.ReplaceOrInsert(oe)
	}
	if loading {
		st := &c.Status
		if len(st.ReservedFor) > 0 && st.Allocation == nil {
			return placement.Errorf(placement.ErrInvalid, obj, "status.reservedFor", "has entries but the claim is not allocated")
		}
		if len(st.ReservedFor) > MaxReservedFor {
			return placement.Errorf(placement.ErrInvalid, obj, "status.reservedFor", "%d entries exceed the limit of %d", len(st.ReservedFor), MaxReservedFor)
		}
		for i, r := range st.ReservedFor {
			if err := checkRef(obj, fmt.Sprintf("status.reservedFor[%d]", i), r); err != nil {
				return err
			}
			for _, q := range st.ReservedFor[:i] {
				if q.same(r) {
					return placement.Errorf(placement.ErrDuplicate, obj, fmt.Sprintf("status.reservedFor[%d]", i), "%s %q appears twice", r.Resource, r.Name)
				}
			}
		}
		if st.Allocation != nil {
			e.c.Status.Allocation = nil
			if err := l.allocate(e, st.Allocation.Devices, "status.allocation"); err != nil {
				return err
			}
		}
	}
	l.claims.ReplaceOrInsert(e)
	return nil
}

func checkRef(obj, field string, r ConsumerRef) error {
	if r.Resource == "" || r.Name == "" {
		return placement.Errorf(placement.ErrInvalid, obj, field, "resource and name must not be empty")
	}
	return nil
}

// Allocate allocates devices to the unallocated claim k (the scheduler's
// allocation, resource.k8s.io/v1 status.allocation). The result's
// NodeName and NodeSelectors are derived from the devices.
//
// Errors: no claim k (ErrNotFound); k already allocated; a device listed
// twice, unknown, or not matching its request's class and selectors; a
// request with a wrong count or served by two subrequests; a broken
// matchAttribute constraint; node-local devices on two nodes; a device
// another claim holds (ErrDuplicate); a counter of a partitionable device
// exceeded; a device with a NoSchedule or NoExecute taint the request does
// not tolerate (KEP-5055; a loaded allocation is not checked, since a
// taint added later leaves it in place).
func (l *Ledger) Allocate(k placement.Key, devices []DeviceResult) (*Ledger, error) {
	return l.apply(func(n *Ledger) error {
		e, ok := n.entry(k)
		if !ok {
			return placement.Errorf(placement.ErrNotFound, claimObj(k), "metadata.name", "no such claim")
		}
		if e.c.Status.Allocation != nil {
			return placement.Errorf(placement.ErrInvalid, claimObj(k), "status.allocation", "already allocated")
		}
		ne := *e
		if err := n.allocate(&ne, devices, "status.allocation"); err != nil {
			return err
		}
		for j := range devices {
			dv := &n.inv.devs[n.inv.byID[devices[j].DeviceID]]
			if t, bad := ne.spec.findAlt(devices[j].Request).untolerated(dv); bad {
				return placement.Errorf(placement.ErrInvalid, claimObj(k), fmt.Sprintf("status.allocation.devices.results[%d]", j),
					"device %s has taint %s=%s:%s, which request %q does not tolerate", dv.id, t.Key, t.Value, t.Effect, devices[j].Request)
			}
		}
		n.claims.ReplaceOrInsert(&ne)
		return nil
	})
}

// allocate records devices for e, which the caller owns.
func (l *Ledger) allocate(e *claimEntry, devices []DeviceResult, field string) error {
	obj := claimObj(e.c.Key())
	idx, res, err := checkDevices(l.inv, obj, field, e.spec, devices)
	if err != nil {
		return err
	}
	// Devices given with admin access (KEP-5018) are not held: they take
	// no device, counter or capacity.
	held := make([]int32, 0, len(idx))
	var caps []capUse
	for k, i := range idx {
		if devices[k].AdminAccess {
			continue
		}
		held = append(held, i)
		f := fmt.Sprintf("%s.devices.results[%d]", field, k)
		if l.used.get(int(i)) {
			h, _ := l.holder(i)
			return placement.Errorf(placement.ErrDuplicate, obj, f, "device %s is already allocated to claim %s", l.inv.devs[i].id, h)
		}
		n := len(caps)
		caps, _ = e.spec.findAlt(devices[k].Request).consumption(&l.inv.devs[i], caps) // checkDevices checked it
		for _, u := range caps[n:] {
			if exceeds(l.inv.shared[u.slot], l.shared.get(int(u.slot)), u.n) {
				dv := &l.inv.devs[i]
				return placement.Errorf(placement.ErrInvalid, obj, f, "capacity %s of device %s would be exceeded: %d of %d consumed, %d more needed",
					capName(dv, u.slot), dv.id, l.shared.get(int(u.slot)), l.inv.shared[u.slot], u.n)
			}
		}
	}
	need := map[int32]int64{}
	for _, i := range held {
		for _, u := range l.inv.devs[i].uses {
			// A sum past math.MaxInt64 exceeds every counter; mark it
			// with -1 rather than let it wrap.
			if need[u.c] < 0 || need[u.c] > math.MaxInt64-u.n {
				need[u.c] = -1
				continue
			}
			need[u.c] += u.n
		}
	}
	for _, c := range slices.Sorted(maps.Keys(need)) {
		if need[c] < 0 {
			return placement.Errorf(placement.ErrInvalid, obj, field, "counter %s would be exceeded: its devices need more than %d together", l.inv.ctrNames[c], int64(math.MaxInt64))
		}
		if exceeds(l.inv.counters[c], l.ctr.get(int(c)), need[c]) {
			return placement.Errorf(placement.ErrInvalid, obj, field, "counter %s would be exceeded: %d of %d in use, %d more needed", l.inv.ctrNames[c], l.ctr.get(int(c)), l.inv.counters[c], need[c])
		}
	}
	for _, u := range caps {
		l.shared.set(int(u.slot), l.shared.get(int(u.slot))+u.n)
	}
	e.caps = caps
	for _, i := range held {
		if !l.inv.devs[i].multi {
			l.used.set(int(i), true)
		}
		l.holders.ReplaceOrInsert(holder{dev: i, claim: e.c.Key()})
		for _, u := range l.inv.devs[i].uses {
			l.ctr.set(int(u.c), l.ctr.get(int(u.c))+u.n)
		}
	}
	e.devs = held
	e.c.Status.Allocation = &res
	return nil
}

func (l *Ledger) deallocate(e *claimEntry) {
	for _, u := range e.caps {
		l.shared.set(int(u.slot), l.shared.get(int(u.slot))-u.n)
	}
	e.caps = nil
	for _, i := range e.devs {
		l.used.set(int(i), false)
		l.holders.Delete(holder{dev: i, claim: e.c.Key()})
		for _, u := range l.inv.devs[i].uses {
			l.ctr.set(int(u.c), l.ctr.get(int(u.c))-u.n)
		}
	}
	e.devs = nil
	e.c.Status.Allocation = nil
}

// Reserve adds consumer to claim k's status.reservedFor.
//
// Errors: no claim k (ErrNotFound); k not allocated; an empty resource or
// name; the consumer already listed (ErrDuplicate); reservedFor already
// holding [MaxReservedFor] entries.
func (l *Ledger) Reserve(k placement.Key, consumer ConsumerRef) (*Ledger, error) {
	return l.apply(func(n *Ledger) error { return n.reserve(k, consumer) })
}

func (l *Ledger) reserve(k placement.Key, r ConsumerRef) error {
	obj := claimObj(k)
	e, ok := l.entry(k)
	if !ok {
		return placement.Errorf(placement.ErrNotFound, obj, "metadata.name", "no such claim")
	}
	if err := checkRef(obj, "status.reservedFor", r); err != nil {
		return err
	}
	if e.c.Status.Allocation == nil {
		return placement.Errorf(placement.ErrInvalid, obj, "status.allocation", "not allocated: allocate before reserving")
	}
	for _, q := range e.c.Status.ReservedFor {
		if q.same(r) {
			return placement.Errorf(placement.ErrDuplicate, obj, "status.reservedFor", "%s %q is already listed", r.Resource, r.Name)
		}
	}
	if len(e.c.Status.ReservedFor) >= MaxReservedFor {
		return placement.Errorf(placement.ErrInvalid, obj, "status.reservedFor", "already holds %d entries, the limit", MaxReservedFor)
	}
	ne := *e
	ne.c.Status.ReservedFor = append(slices.Clip(e.c.Status.ReservedFor), r)
	l.claims.ReplaceOrInsert(&ne)
	return nil
}

// Unreserve removes consumer (matched by apiGroup, resource and name) from
// claim k's status.reservedFor. When the list becomes empty the claim is
// released: its devices are free again.
//
// Errors: no claim k, or consumer not listed (ErrNotFound).
func (l *Ledger) Unreserve(k placement.Key, consumer ConsumerRef) (*Ledger, error) {
	return l.apply(func(n *Ledger) error { return n.unreserve(k, consumer) })
}

func (l *Ledger) unreserve(k placement.Key, r ConsumerRef) error {
	obj := claimObj(k)
	e, ok := l.entry(k)
	if !ok {
		return placement.Errorf(placement.ErrNotFound, obj, "metadata.name", "no such claim")
	}
	i := slices.IndexFunc(e.c.Status.ReservedFor, r.same)
	if i < 0 {
		return placement.Errorf(placement.ErrNotFound, obj, "status.reservedFor", "%s %q is not listed", r.Resource, r.Name)
	}
	ne := *e
	ne.c.Status.ReservedFor = slices.Delete(slices.Clone(e.c.Status.ReservedFor), i, i+1)
	if len(ne.c.Status.ReservedFor) == 0 {
		ne.c.Status.ReservedFor = nil
		l.deallocate(&ne)
	}
	l.claims.ReplaceOrInsert(&ne)
	return nil
}

// Release deallocates claim k, which nobody reserves (a state only a
// loaded ledger can be in, since Unreserve releases by itself).
//
// Errors: no claim k (ErrNotFound); k not allocated; reservedFor not
// empty.
func (l *Ledger) Release(k placement.Key) (*Ledger, error) {
	return l.apply(func(n *Ledger) error {
		obj := claimObj(k)
		e, ok := n.entry(k)
		if !ok {
			return placement.Errorf(placement.ErrNotFound, obj, "metadata.name", "no such claim")
		}
		if e.c.Status.Allocation == nil {
			return placement.Errorf(placement.ErrInvalid, obj, "status.allocation", "not allocated")
		}
		if len(e.c.Status.ReservedFor) > 0 {
			return placement.Errorf(placement.ErrInvalid, obj, "status.reservedFor", "still reserved for %d consumers", len(e.c.Status.ReservedFor))
		}
		ne := *e
		n.deallocate(&ne)
		n.claims.ReplaceOrInsert(&ne)
		return nil
	})
}

// DeleteClaim deletes the unallocated claim k (an allocated claim is kept
// until released, like upstream's delete-protection finalizer).
//
// Errors: no claim k (ErrNotFound); k allocated.
func (l *Ledger) DeleteClaim(k placement.Key) (*Ledger, error) {
	return l.apply(func(n *Ledger) error {
		e, ok := n.entry(k)
		if !ok {
			return placement.Errorf(placement.ErrNotFound, claimObj(k), "metadata.name", "no such claim")
		}
		if e.c.Status.Allocation != nil {
			return placement.Errorf(placement.ErrInvalid, claimObj(k), "status.allocation", "allocated: release it first")
		}
		n.deleteClaim(e)
		return nil
	})
}

func (l *Ledger) deleteClaim(e *claimEntry) {
	if o := e.c.Owner; o != nil {
		l.owners.Delete(ownerEntry{kind: o.Kind, ns: e.c.Namespace, owner: o.Name, entry: o.ClaimName})
	}
	l.claims.Delete(e)
}

// DeletePod records that pod left the cluster: it is removed from every
// reservedFor in its namespace (claims left empty are released) and the
// claims generated for it are deleted unless someone else still reserves
// them. It costs O(claims in the namespace) and never fails.
func (l *Ledger) DeletePod(pod placement.Key) *Ledger {
	return l.deleteOwner(pod, PodRef(pod.Name, ""), OwnerPod)
}

// DeletePodGroup records that the PodGroup g was deleted: its entry is
// removed from every reservedFor in its namespace, releasing the claims it
// alone held, and the claims generated for it are deleted (KEP-5729: they
// live as long as their PodGroup). It costs O(claims in the namespace) and
// never fails.
func (l *Ledger) DeletePodGroup(g placement.Key) *Ledger {
	return l.deleteOwner(g, PodGroupRef(g.Name, ""), OwnerPodGroup)
}

func (l *Ledger) deleteOwner(k placement.Key, ref ConsumerRef, kind OwnerKind) *Ledger {
	n := l.edit()
	var touched []placement.Key
	n.claims.AscendGreaterOrEqual(&claimEntry{c: ResourceClaim{Namespace: k.Namespace}}, func(e *claimEntry) bool {
		if e.c.Namespace != k.Namespace {
			return false
		}
		owned := e.c.Owner != nil && e.c.Owner.Kind == kind && e.c.Owner.Name == k.Name
		if owned || slices.ContainsFunc(e.c.Status.ReservedFor, ref.same) {
			touched = append(touched, e.c.Key())
		}
		return true
	})
	for _, ck := range touched {
		e, _ := n.entry(ck)
		if slices.ContainsFunc(e.c.Status.ReservedFor, ref.same) {
			_ = n.unreserve(ck, ref) // listed, so it cannot fail
			e, _ = n.entry(ck)
		}
		if o := e.c.Owner; o != nil && o.Kind == kind && o.Name == k.Name && len(e.c.Status.ReservedFor) == 0 {
			if e.c.Status.Allocation != nil {
				ne := *e
				n.deallocate(&ne)
				e = &ne
			}
			n.deleteClaim(e)
		}
	}
	n.freeze()
	return n
}

// exceeds reports whether the terms, each non-negative, sum to more than
// limit. It subtracts instead of adding: counters and what devices consume
// of them may be as large as math.MaxInt64, where a sum would wrap and let
// a device in twice.
func exceeds(limit int64, terms ...int64) bool {
	for _, t := range terms {
		if t > limit {
			return true
		}
		limit -= t
	}
	return false
}
