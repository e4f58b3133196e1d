package scheduler

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// draCache keeps the DRA objects the informers show (DeviceClasses,
// ResourceSlices, ResourceClaims), converted by package kube, and builds
// the gang cycle's claim ledger from them when they changed.
//
// Claims the cycles committed are assumed, as bound pods are in snapCache:
// their committed status (allocation, reservedFor) overrides the watched
// one until the watch shows it, or their write fails, so that no device
// is handed out twice between a commit and its write.
type draCache struct {
	classes map[string]dra.DeviceClass
	slices  map[string]poolSlice
	claims  map[placement.Key]dra.ResourceClaim
	assumed map[placement.Key]dra.ResourceClaim

	// apiClasses are the DeviceClasses as watched, for the extended
	// resources they serve (KEP-5004).
	apiClasses map[string]*resourcev1.DeviceClass
	// served are the extended resources that pending pods ask for
	// through an implicit claim, each with the DeviceClass that serves
	// it, as the last round decided (Scheduler.servePerNode): the rule a
	// pod is converted by between rounds too, so that every pending pod
	// is converted by one rule, and all again when it changes. Bound pods
	// enter the snapshot by it too (snapCache.servedOn).
	served kube.ExtendedResourceClasses
	// extended holds, per queued pod served so, the template of its
	// implicit claim and its request mappings; the ledger's templates are
	// theirs.
	extended map[placement.Key]extendedPod
	// pluginClasses and pluginSlices are the shared devices standing for
	// device plugins' units of resources served per node
	// (Scheduler.servePerNode), added to the inventory.
	pluginClasses []dra.DeviceClass
	pluginSlices  []dra.ResourceSlice

	inv      *dra.Inventory
	invDirty bool // classes or slices changed: the inventory is rebuilt
	dirty    bool // anything changed: the ledger is rebuilt
}

// extendedPod is a queued pod's implicit claim for extended resources
// served by DRA: the template the ledger generates it from, and the
// pod's request mappings for status.extendedResourceClaimStatus.
type extendedPod struct {
	tmpl     *kube.ExtendedTemplate
	mappings []corev1.ContainerExtendedResourceRequest
}

// poolSlice is a converted ResourceSlice with the pool generation it
// belongs to: only a pool's newest generation counts (resource.k8s.io/v1
// ResourcePool).
type poolSlice struct {
	driver, pool string
	generation   int64
	slice        dra.ResourceSlice
}

func newDRACache() *draCache {
	return &draCache{
		classes: map[string]dra.DeviceClass{}, apiClasses: map[string]*resourcev1.DeviceClass{}, extended: map[placement.Key]extendedPod{}, slices: map[string]poolSlice{},
		claims: map[placement.Key]dra.ResourceClaim{}, assumed: map[placement.Key]dra.ResourceClaim{},
		invDirty: true, dirty: true,
	}
}

// setExtended records (or, with a nil template, forgets) the implicit
// claim pending pod k needs.
func (d *draCache) setExtended(k placement.Key, e extendedPod) {
	if _, had := d.extended[k]; !had && e.tmpl == nil {
		return
	}
	if e.tmpl == nil {
		delete(d.extended, k)
	} else {
		d.extended[k] = e
	}
	d.dirty = true
}

func (d *draCache) setClass(c dra.DeviceClass) {
	d.classes[c.Name] = c
	d.invDirty, d.dirty = true, true
}

func (d *draCache) deleteClass(name string) {
	delete(d.classes, name)
	d.invDirty, d.dirty = true, true
}

func (d *draCache) setSlice(s *resourcev1.ResourceSlice, c dra.ResourceSlice) {
	d.slices[s.Name] = poolSlice{driver: s.Spec.Driver, pool: s.Spec.Pool.Name, generation: s.Spec.Pool.Generation, slice: c}
	d.invDirty, d.dirty = true, true
}

func (d *draCache) deleteSlice(name string) {
	delete(d.slices, name)
	d.invDirty, d.dirty = true, true
}

// setClaim records a watched claim. An assumption ends once the watch
// shows the claim allocated and reserved for every consumer the commit
// reserved it for.
func (d *draCache) setClaim(c dra.ResourceClaim) {
	k := c.Key()
	d.claims[k] = c
	if a, ok := d.assumed[k]; ok && (a.UID != c.UID || covers(c.Status, a.Status)) {
		delete(d.assumed, k)
	}
	d.dirty = true
}

func (d *draCache) deleteClaim(k placement.Key) {
	delete(d.claims, k)
	delete(d.assumed, k)
	d.dirty = true
}

// assume records claims a cycle committed; the scheduler's ledger holds
// them already, so nothing becomes dirty.
func (d *draCache) assume(updates []dra.ClaimUpdate) {
	for _, u := range updates {
		d.assumed[u.Claim.Key()] = u.Claim
	}
}

// unassume drops the assumptions of claims whose write failed (and was
// undone): the next ledger is the watched state.
func (d *draCache) unassume(keys []placement.Key) {
	for _, k := range keys {
		delete(d.assumed, k)
	}
	d.dirty = true
}

// covers reports whether watched status w carries assumed status a: an
// allocation, and every consumer a reserves the claim for.
func covers(w, a dra.ClaimStatus) bool {
	if a.Allocation != nil && w.Allocation == nil {
		return false
	}
	for _, r := range a.ReservedFor {
		if !slices.ContainsFunc(w.ReservedFor, func(x dra.ConsumerRef) bool { return x.UID == r.UID && x.Name == r.Name }) {
			return false
		}
	}
	return true
}

// ledger returns the claim ledger of the watched objects with the
// assumed claims' status, or nil when the inventory cannot be built. A
// class, slice or claim the ledger refuses is logged and left out, so
// that one bad object does not stop every group that uses DRA: a pod that
// names a claim left out waits, and its group's condition says why.
// podUID gives a pod's UID as watched, to tell a pod's implicit claim from
// one an earlier pod of the same name left.
func (d *draCache) ledger(log *slog.Logger, podUID func(placement.Key) (string, bool)) *dra.Ledger {
	if d.invDirty || d.inv == nil {
		inv, err := dra.NewInventory(slices.Concat(slices.Collect(maps.Values(d.classes)), d.pluginClasses), slices.Concat(d.newestSlices(), d.pluginSlices))
		if err != nil {
			log.Error("DRA inventory refused; keeping the previous one", "err", err)
		} else {
			d.inv = inv
		}
		d.invDirty = false
	}
	d.dirty = false
	if d.inv == nil {
		return nil
	}
	l, err := dra.NewLedger(d.inv, d.templates(), nil)
	if err != nil {
		log.Error("DRA ledger not built", "err", err)
		return nil
	}
	// An implicit claim the scheduler is creating is assumed under the
	// name the ledger gave it until the create answers; its object, seen
	// meanwhile under the generated name, waits for that.
	creating := map[dra.Owner]bool{}
	for k, a := range d.assumed {
		if _, seen := d.claims[k]; !seen && a.Owner != nil {
			creating[ownerEntry(a.Owner)] = true
		}
	}
	keys := slices.Collect(maps.Keys(d.claims))
	for k := range d.assumed {
		if _, seen := d.claims[k]; !seen {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, placement.Key.Compare)
	for _, k := range keys {
		c, seen := d.claims[k]
		a, ok := d.assumed[k]
		switch {
		case !seen:
			c = a
		case ok:
			c.Status = a.Status
		case c.Owner != nil && creating[ownerEntry(c.Owner)]:
			continue
		}
		if o := c.Owner; o != nil && o.Kind == dra.OwnerPod && o.ClaimName == kube.ExtendedResourceClaimName {
			if uid, ok := podUID(placement.Key{Namespace: c.Namespace, Name: o.Name}); ok && uid != o.UID {
				// An earlier pod's of the same name: kube-scheduler matches
				// the UID, and makes the pod a new claim. This one holds its
				// devices until the garbage collector removes it.
				c.Owner = nil
			}
		}
		next, err := addClaim(l, c)
		if err != nil {
			log.Error("ResourceClaim left out of the DRA ledger", "claim", k.String(), "err", err)
			continue
		}
		l = next
	}
	return l
}

// ownerEntry is the owner's entry a generated claim serves, whatever UID
// the ledger knew.
func ownerEntry(o *dra.Owner) dra.Owner {
	return dra.Owner{Kind: o.Kind, Name: o.Name, ClaimName: o.ClaimName}
}

// templates returns the templates of the queued pods' implicit claims,
// each once, by name.
func (d *draCache) templates() []dra.ResourceClaimTemplate {
	byKey := map[placement.Key]dra.ResourceClaimTemplate{}
	for _, e := range d.extended {
		byKey[e.tmpl.Key()] = e.tmpl.ResourceClaimTemplate
	}
	return slices.SortedFunc(maps.Values(byKey), func(a, b dra.ResourceClaimTemplate) int { return a.Key().Compare(b.Key()) })
}

// addClaim adds claim c to l with its status: allocated to its devices
// and reserved for its consumers. On error l is unchanged.
func addClaim(l *dra.Ledger, c dra.ResourceClaim) (*dra.Ledger, error) {
	st := c.Status
	c.Status = dra.ClaimStatus{}
	l, err := l.AddClaim(c)
	if err != nil {
		return nil, err
	}
	if st.Allocation != nil {
		if l, err = l.Allocate(c.Key(), st.Allocation.Devices); err != nil {
			return nil, err
		}
	}
	for _, r := range st.ReservedFor {
		if l, err = l.Reserve(c.Key(), r); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// newestSlices returns the slices of each pool's newest generation,
// sorted by name.
func (d *draCache) newestSlices() []dra.ResourceSlice {
	type pool struct{ driver, name string }
	newest := map[pool]int64{}
	for _, s := range d.slices {
		p := pool{s.driver, s.pool}
		if g, ok := newest[p]; !ok || s.generation > g {
			newest[p] = s.generation
		}
	}
	var out []dra.ResourceSlice
	for _, name := range slices.Sorted(maps.Keys(d.slices)) {
		s := d.slices[name]
		if s.generation == newest[pool{s.driver, s.pool}] {
			out = append(out, s.slice)
		}
	}
	return out
}

// claimsMissing says which of pod p's ResourceClaims the scheduler cannot
// see yet, or "" when it sees them all. kube-scheduler waits for them the
// same way: a claim from a template exists once the resourceclaim
// controller has created it and named it in the pod's
// status.resourceClaimStatuses (for an entry shared with the PodGroup, it
// names the PodGroup's claim there too); the scheduler never creates one.
func (d *draCache) claimsMissing(p *corev1.Pod) string {
	for _, rc := range p.Spec.ResourceClaims {
		name := rc.ResourceClaimName
		if rc.ResourceClaimTemplateName != nil {
			i := slices.IndexFunc(p.Status.ResourceClaimStatuses, func(s corev1.PodResourceClaimStatus) bool { return s.Name == rc.Name })
			if i < 0 || p.Status.ResourceClaimStatuses[i].ResourceClaimName == nil {
				return fmt.Sprintf("spec.resourceClaims %q: the ResourceClaim from template %q is not created yet", rc.Name, *rc.ResourceClaimTemplateName)
			}
			name = p.Status.ResourceClaimStatuses[i].ResourceClaimName
		}
		if name == nil {
			continue // neither set: kube.ConvertPod rejects the pod
		}
		if _, ok := d.claims[placement.Key{Namespace: p.Namespace, Name: *name}]; !ok {
			return fmt.Sprintf("spec.resourceClaims %q: ResourceClaim %q is not seen yet", rc.Name, *name)
		}
	}
	return ""
}

func (s *Scheduler) onDeviceClass(o any) {
	v := o.(*resourcev1.DeviceClass)
	s.dra.apiClasses[v.Name] = v
	c, err := kube.ConvertDeviceClass(v)
	if err != nil {
		s.log.Error("DeviceClass not usable", "deviceClass", v.Name, "err", err)
		s.dra.deleteClass(v.Name)
		return
	}
	s.dra.setClass(c)
}

// extendedClasses says which DeviceClass serves an extended resource
// through DRA (KEP-5004) for a pending pod, by the rule of the last round
// (see draCache.served): one a class names, on a cluster where no node's
// allocatable has it (no device plugin serves it), or one served per node
// (Scheduler.servePerNode), as gangsim decides. Before the first round
// the rule serves nothing; the first round converts the pods again.
func (s *Scheduler) extendedClasses() func(corev1.ResourceName) (string, bool) {
	if len(s.dra.served) == 0 {
		return nil
	}
	return s.dra.served.Class
}

// serveExtended gives pending pod pp (converted from p) the implicit
// claim its extended resources served through DRA need, as a template
// the ledger generates the claim from; writeClaim creates it.
func (s *Scheduler) serveExtended(p *corev1.Pod, pp *placement.Pod) error {
	var e extendedPod
	if class := s.extendedClasses(); class != nil {
		var err error
		requests := pp.Requests
		if e.tmpl, e.mappings, err = kube.ServeExtendedPod(p, pp, class); err != nil {
			s.dra.setExtended(pp.Key(), extendedPod{})
			return err
		}
		if e.tmpl != nil {
			s.c.perNode.ServePod(pp, requests, e.tmpl, e.mappings)
		}
	}
	s.dra.setExtended(pp.Key(), e)
	return nil
}

func (s *Scheduler) onDeviceClassDelete(o any) {
	if v, ok := o.(*resourcev1.DeviceClass); ok {
		delete(s.dra.apiClasses, v.Name)
		s.dra.deleteClass(v.Name)
	}
}

func (s *Scheduler) onResourceSlice(o any) {
	v := o.(*resourcev1.ResourceSlice)
	c, err := kube.ConvertResourceSlice(v)
	if err != nil {
		s.log.Error("ResourceSlice not usable", "resourceSlice", v.Name, "err", err)
		s.dra.deleteSlice(v.Name)
		return
	}
	s.dra.setSlice(v, c)
}

func (s *Scheduler) onResourceSliceDelete(o any) {
	if v, ok := o.(*resourcev1.ResourceSlice); ok {
		s.dra.deleteSlice(v.Name)
	}
}

func (s *Scheduler) onResourceClaim(o any) {
	v := o.(*resourcev1.ResourceClaim)
	k := placement.Key{Namespace: v.Namespace, Name: v.Name}
	c, err := kube.ConvertResourceClaim(v)
	if err != nil {
		s.log.Error("ResourceClaim not usable", "claim", k.String(), "err", err)
		s.dra.deleteClaim(k)
		return
	}
	_, known := s.dra.claims[k]
	s.dra.setClaim(c)
	if !known {
		s.retryWaiting(v.Namespace)
		s.recheckQueued(v)
	}
}

func (s *Scheduler) onResourceClaimDelete(o any) {
	if v, ok := o.(*resourcev1.ResourceClaim); ok {
		s.dra.deleteClaim(placement.Key{Namespace: v.Namespace, Name: v.Name})
		if v.Annotations[resourcev1.ExtendedResourceClaimAnnotation] == "true" {
			s.retryWaiting(v.Namespace) // a pod may wait for this stale claim to go
		}
	}
}

// reconvertPending converts the queued and refused pending pods again
// once the rule by which extended resources are served changed
// (Scheduler.servePerNode): whether a pod asks for one through an implicit
// claim follows the classes, slices and nodes seen (a pod may be seen
// before the class that serves it, or before the node whose device plugin
// does).
func (s *Scheduler) reconvertPending() {
	if s.pods == nil {
		return
	}
	keys := slices.Concat(slices.Collect(maps.Keys(s.state.queued)), slices.Collect(maps.Keys(s.state.rejected)))
	slices.SortFunc(keys, placement.Key.Compare)
	for _, k := range slices.Compact(keys) {
		p, err := s.pods.Pods(k.Namespace).Get(k.Name)
		if err != nil || p.Spec.NodeName != "" {
			continue
		}
		s.gs.DeletePod(k)
		s.state.unqueue(k)
		delete(s.state.rejected, k)
		s.onPod(p)
	}
}

// retryWaiting takes up again the pods of namespace ns that wait for a
// claim to be seen.
func (s *Scheduler) retryWaiting(ns string) {
	for _, k := range slices.SortedFunc(maps.Keys(s.state.waiting), placement.Key.Compare) {
		if k.Namespace != ns || s.pods == nil {
			continue
		}
		delete(s.state.waiting, k)
		if p, err := s.pods.Pods(k.Namespace).Get(k.Name); err == nil {
			s.onPod(p)
		}
	}
}
