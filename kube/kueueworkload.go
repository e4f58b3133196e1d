package kube

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// KueueUnconstrainedTopology is Kueue's pod template annotation asking
// for a pod set placed anywhere, least free nodes first ("true").
const KueueUnconstrainedTopology = "kueue.x-k8s.io/podset-unconstrained-topology"

// maxKueuePodSets is the most pod sets a Kueue Workload has (its API's
// limit on spec.podSets).
const maxKueuePodSets = 8

// KueueWorkload is a Kueue Workload (kueue.x-k8s.io/v1beta2) read for
// topology-aware admission by [AdmitKueueWorkloads].
type KueueWorkload struct {
	// Obj is the API object; admission writes its status.
	Obj *kueue.Workload
	// Job is the namespace and name of the batch/v1 Job the Workload
	// belongs to under Kueue's Job integration (built for it by [Load],
	// or owned by it in the input: see [Load]); zero for none.
	Job placement.Key
	// Group is the Workload as a gang: one [placement.PodSet] per
	// spec.podSets entry (name, count, the template's requests,
	// nodeSelector, tolerations and node affinity), MinCount all their
	// pods, named as the Workload.
	Group *placement.Group
	// Requests are the pod sets' topology requests, for
	// [topology.Tree.PlanPodSets]: spec.podSets[i].topologyRequest when
	// set (Kueue's job integrations fill it in), else the Kueue
	// annotations of the pod set's template, read as Kueue reads them.
	Requests []topology.PodSetRequest
	// Priority is spec.priority (0 when unset); a higher one is queued
	// first.
	Priority int32
	// Created is the time Kueue queues it by (Kueue's
	// GetQueueOrderTimestamp), ordering the queue, a cycle's heads and
	// LowerOrNewerEqualPriority preemption: metadata.creationTimestamp,
	// or, for a Workload evicted by an admission check (Evicted True,
	// reason AdmissionCheck), that condition's lastTransitionTime
	// ([AdmitKueueWorkloads] sets it to [KueueOptions].Now for one it
	// evicts so).
	Created time.Time
	// Admitted says that the Workload holds quota (a QuotaReserved
	// condition True); then Assigned holds, per pod set (Group.PodSets'
	// order), its pods per host from status.admission (Node is the
	// kubernetes.io/hostname value, NodeID -1) and AdmittedCount its
	// admitted count.
	Admitted      bool
	Assigned      [][]placement.PodSetAssignment
	AdmittedCount []int32
	// QuotaOnly marks the pod sets admitted without a
	// topologyAssignment: in a ResourceFlavor without a Topology, or in a
	// topology flavor whose topology Kueue delayed (delayed): they hold
	// quota and no nodes (Assigned is empty).
	QuotaOnly []bool
	// MinCounts are each pod set's spec.podSets[].minCount (Group.PodSets'
	// order; 0 for a set without one), nil when no set has one: a set
	// with one below its count may be admitted with fewer pods (Kueue's
	// partial admission; see [AdmitKueueWorkloads]).
	MinCounts []int32
	// Zero are the spec.podSets entries of count 0, which Kueue's API
	// allows (but a PodSetGroup's phantom leader, in Group: see
	// kueuephantom.go), and those whose pods are all reclaimable while
	// they hold none: no pods, no quota, nothing to place. Group, Requests,
	// Assigned and AdmittedCount leave them out (a [placement.PodSet]
	// holds at least one pod); admission writes each a count of 0 and a
	// topologyAssignment without slices, as Kueue's TAS does.
	Zero []KueueZeroPodSet

	// base is the Workload as read when this is a view of it at other
	// counts ([KueueWorkload.afterReclaim]); nil for the Workload itself.
	base *KueueWorkload
	// unplaced are, per pod set (Group.PodSets' order), the pods a
	// pending sliced set asks quota for beyond the whole slices its
	// Group count places: Kueue charges, and writes as admitted, its
	// count less its reclaimable pods, while its TAS places count/size
	// slices ([KueueWorkload.afterReclaim]). nil when there are none.
	unplaced []int32
	// noSlice, when not "", names the sliced set of pending w that keeps
	// pods not reclaimable but fewer than one slice (Group count 0, its
	// pods in unplaced). Kueue v0.17 charges their quota and its TAS
	// assigns the set no slice: once w fits, Kueue assumes it and fails to
	// write the admission, every scheduling cycle ([admitter.stick]).
	noSlice string
	// noSlicePreferred says that set prefers a level: Kueue's balanced
	// placement (TASBalancedPlacement) would plan it, and panics on it.
	noSlicePreferred bool
	// phantom names the pod sets of count 0 that Kueue places as a
	// PodSetGroup's one-pod leader (kueuephantom.go): each is in Group at
	// count 1. nil when there are none.
	phantom map[string]bool
	// zeroRequests are, by pod set name, the resources its template
	// requests at quantity 0 ([zeroRequested]): Kueue gives them flavors
	// where the template's Requests, which drop them, would not. nil when
	// no set has one.
	zeroRequests map[string][]placement.ResourceName
	// charges are, by pod set name, a pod's requests as Kueue charges them
	// to quota when its Configuration excludes resources or transforms
	// them ([KueueReadOptions.charge]), a resource charged at 0 present at
	// 0; nil without either, when the template's Requests and
	// zeroRequests are the charge.
	charges map[string]placement.ResourceList
	// resourcesInvalid is why Kueue's scheduler will not try the Workload
	// at all, its requests above their limits or outside its namespace's
	// LimitRanges ([Admission.kueueResourcesInvalid]); "" when it may.
	resourcesInvalid string
	// delayed marks, in Group.PodSets' order, the admitted sets whose
	// topology Kueue delayed until the admission checks are Ready
	// (status.admission's delayedTopologyRequest Pending without a
	// topologyAssignment): Kueue's second pass plans them
	// (kueuesecondpass.go). nil when the Workload holds no quota.
	delayed []bool
	// aboveHost are, by pod set name, the admitted sets whose
	// topologyAssignment names domains above the hostname level
	// (kueueabovehost.go): their Assigned is empty until
	// [admitter.hold] spreads them over hosts. nil when there are none.
	aboveHost map[string]*aboveHostSet
}

// quotaCount is the count pod set k of w asks quota for, and is written
// with: its Group count plus the pods no whole slice places ([KueueWorkload.unplaced]).
func (w *KueueWorkload) quotaCount(k int) int32 {
	if w.isPhantom(w.Group.PodSets[k].Name) {
		return 0 // its spec count, charged and written
	}
	n := w.Group.PodSets[k].Count
	if k < len(w.unplaced) {
		n += w.unplaced[k]
	}
	return n
}

// KueueZeroPodSet is a pod set of count 0 of a [KueueWorkload].
type KueueZeroPodSet struct {
	// Name is the pod set's name; Index its place in spec.podSets.
	Name  string
	Index int
	// Request is its topology request: a level the Topology lacks keeps
	// the Workload waiting even for no pods, as Kueue's flavor check
	// does.
	Request topology.PodSetRequest
	// AdmittedCount is the count status.admission gives it while the
	// Workload holds quota: more than 0 when the set shrank to 0 since
	// (an elastic scale-down), and admission then releases its pods.
	AdmittedCount int32
}

// Key is the Workload's namespace and name.
func (w *KueueWorkload) Key() placement.Key { return w.Group.Key() }

// allRequests are the topology requests of every pod set, those of count
// 0 last.
func (w *KueueWorkload) allRequests() []topology.PodSetRequest {
	rs := slices.Clone(w.Requests)
	for _, z := range w.Zero {
		rs = append(rs, z.Request)
	}
	return rs
}

func kueueWorkloadObj(namespace, name string) string {
	return fmt.Sprintf("Kueue Workload %q", placement.Key{Namespace: namespace, Name: name}.String())
}

// ConvertKueueWorkload reads a Kueue Workload: its pod sets (names DNS
// labels, unique; count 0..[placement.MaxPending], a set of count 0 kept
// apart in Zero, as is one whose pods are all reclaimable while it holds
// none), each template
// converted as a pod ([ConvertPod], [PodSetNodeAffinity]), its topology
// request, its minCount (partial admission), and, when it holds quota, its
// admission.
//
// Errors (a [*placement.FieldError] naming the Workload and the field):
// no or more than eight pod sets; a bad pod set name, count or template
// (one without containers included); spec.priorityClassRef without
// spec.priority (Kueue's CRD rule);
// a minCount below 1 or above the set's count, or on more than one pod
// set (Kueue's API and validation refuse each), or, on a sliced set, not
// a multiple of the outermost slice size (gangsim's own rule, as for the
// count: Kueue's TAS places only whole slices);
// a topology request with more than one of required, preferred and
// unconstrained (as annotations: more than one present, whatever their
// values), or slice annotations as [StampJob] refuses them (the layers
// annotation only when read, see [KueueReadOptions]); slice layers in
// topologyRequest that Kueue's Workload API refuses (more than three, a
// topology empty or over 63 bytes, a size below 1); a
// QuotaReserved Workload without status.admission, with an assignment
// for a pod set it lacks or none for one it has, one with neither a
// topologyAssignment nor flavors, a count other than the assigned pods,
// a topologyAssignment [readTopologyAssignment] refuses, or a
// delayedTopologyRequest other than Pending or Ready;
// status.unhealthyNodes with a repeated name or more than eight entries
// (Kueue's API refuses each), or an empty name.
//
// It reads w as Kueue v0.17 with its default feature gates
// ([ConvertKueueWorkloadWith] with the zero [KueueReadOptions]): a pod
// set's slice layers past the first are not read.
func ConvertKueueWorkload(w *kueue.Workload, pcs *PriorityClasses) (*KueueWorkload, error) {
	return ConvertKueueWorkloadWith(w, pcs, KueueReadOptions{})
}

// ConvertKueueWorkloadWith is [ConvertKueueWorkload] reading w as opts
// say (see [KueueReadOptions]).
func ConvertKueueWorkloadWith(w *kueue.Workload, pcs *PriorityClasses, opts KueueReadOptions) (*KueueWorkload, error) {
	if w == nil {
		return nil, errNil("Kueue Workload")
	}
	obj := kueueWorkloadObj(w.Namespace, w.Name)
	ps := w.Spec.PodSets
	if len(ps) == 0 || len(ps) > maxKueuePodSets {
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.podSets", "has %d pod sets: want 1 to %d", len(ps), maxKueuePodSets)
	}
	if w.Spec.PriorityClassRef != nil && w.Spec.Priority == nil {
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.priority", "must be set when spec.priorityClassRef is (Kueue's Workload API refuses it unset)")
	}
	out := &KueueWorkload{Obj: w, Group: &placement.Group{Namespace: w.Namespace, Name: w.Name, Policy: placement.PolicyGang},
		Priority: deref(w.Spec.Priority), Created: queuedAt(w)}
	index := map[string]int{} // pod set name → spec.podSets index
	var total int64
	minCountAt := -1 // the spec.podSets index of the set with a minCount
	var mins []int32 // each set's minCount, 0 without one
	// Every set's request, spec.podSets' order, count 0 too.
	var specReqs []topology.PodSetRequest
	zeroTmpls := map[int]placement.Pod{}        // the templates of the sets of count 0
	var specs []*corev1.PodSpec                 // every set's spec as Kueue adjusts it
	var effs []map[placement.ResourceName]int64 // and its effective requests, zeros kept
	for i := range ps {
		f := fmt.Sprintf("spec.podSets[%d]", i)
		name := string(ps[i].Name)
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".name", "%q: %s", name, errs[0])
		}
		if j, dup := index[name]; dup {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, f+".name", "%q is also spec.podSets[%d]", name, j)
		}
		index[name] = i
		if c := ps[i].Count; c < 0 || c > placement.MaxPending {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".count", "%d is outside 0..%d", c, placement.MaxPending)
		}
		if total += int64(ps[i].Count); total > placement.MaxPending {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.podSets", "more than %d pods in all", placement.MaxPending)
		}
		spec := opts.Admission.adjustKueueTemplate(w.Namespace, &ps[i].Template.Spec)
		tmpl, err := kueueTemplate(obj, f+".template", w, &ps[i].Template, spec, pcs)
		if err != nil {
			return nil, err
		}
		zr := zeroRequested(spec, tmpl.Requests)
		if len(zr) > 0 {
			if out.zeroRequests == nil {
				out.zeroRequests = map[string][]placement.ResourceName{}
			}
			out.zeroRequests[name] = zr
		}
		if ch := opts.charge(tmpl.Requests, zr); ch != nil {
			if out.charges == nil {
				out.charges = map[string]placement.ResourceList{}
			}
			out.charges[name] = ch
		}
		specs = append(specs, spec)
		effs = append(effs, withZeros(tmpl.Requests, zr))
		req, err := kueueRequest(obj, f, &ps[i], opts)
		if err != nil {
			return nil, err
		}
		specReqs = append(specReqs, req)
		if err := checkMinCount(obj, i, &ps[i], req, &minCountAt); err != nil {
			return nil, err
		}
		if ps[i].Count == 0 || reclaimedWhole(w, &ps[i], req) {
			out.Zero = append(out.Zero, KueueZeroPodSet{Name: name, Index: i, Request: req})
			zeroTmpls[i] = tmpl // a phantom leader's, should it be one
			continue
		}
		out.Group.PodSets = append(out.Group.PodSets, placement.PodSet{Name: name, Count: ps[i].Count, Template: tmpl})
		out.Requests = append(out.Requests, req)
		mins = append(mins, deref(ps[i].MinCount))
	}
	out.resourcesInvalid = opts.Admission.kueueResourcesInvalid(w.Namespace, specs, effs)
	if err := checkGroupSize(obj, ps, specReqs); err != nil {
		return nil, err
	}
	if err := checkGroupLevels(obj, ps, specReqs); err != nil {
		return nil, err
	}
	mins = out.promotePhantoms(phantomSets(w, specReqs), zeroTmpls, specReqs, mins)
	if minCountAt >= 0 {
		out.MinCounts = mins
	}
	for _, set := range out.Group.PodSets {
		out.Group.MinCount += set.Count // a gang of every pod it places
	}
	if err := checkStates(obj, w); err != nil {
		return nil, err
	}
	if err := checkUnhealthyNodes(obj, w); err != nil {
		return nil, err
	}
	if err := checkReclaimable(obj, w); err != nil {
		return nil, err
	}
	if err := out.readAdmission(obj, index); err != nil {
		return nil, err
	}
	return out, nil
}

// checkMinCount checks the minCount of pod set ps, spec.podSets[i], as Kueue's API
// (minimum 1, at most count) and Workload validation (on one pod set
// only) refuse it, and, for a set cut into slices by request r, that it is
// a multiple of the outermost slice size. at is the index of an earlier
// set with a minCount (-1 for none); it becomes this set's.
func checkMinCount(obj string, i int, ps *kueue.PodSet, r topology.PodSetRequest, at *int) error {
	if ps.MinCount == nil {
		return nil
	}
	m, f := *ps.MinCount, fmt.Sprintf("spec.podSets[%d]", i)
	switch {
	case m < 1:
		return placement.Errorf(placement.ErrInvalid, obj, f+".minCount", "%d is below 1", m)
	case m > ps.Count:
		return placement.Errorf(placement.ErrInvalid, obj, f+".minCount", "%d is more than the count %d", m, ps.Count)
	case *at >= 0:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.podSets", "spec.podSets[%d] and [%d] both set minCount: at most one pod set may", *at, i)
	case len(r.Slices) > 0 && m%r.Slices[0].Size != 0:
		return placement.Errorf(placement.ErrInvalid, obj, f+".minCount", "%d is not a multiple of the slice size %d (gangsim admits whole slices)", m, r.Slices[0].Size)
	}
	*at = i
	return nil
}

// kueueTemplate converts a pod set's template t at field f, with spec in
// place of its own (t's as Kueue adjusts it), as a pod of the Workload's
// namespace, its errors named by the Workload and the field.
func kueueTemplate(obj, f string, w *kueue.Workload, t *corev1.PodTemplateSpec, spec *corev1.PodSpec, pcs *PriorityClasses) (placement.Pod, error) {
	if len(t.Spec.Containers) == 0 {
		return placement.Pod{}, placement.Errorf(placement.ErrInvalid, obj, f+".spec.containers", "is empty: a pod template has at least one container (the API refuses it)")
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name, Labels: t.Labels}, Spec: *spec}
	if a := p.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		// Kueue reads no inter-pod terms: its TAS places by requests,
		// nodeSelector, node affinity and tolerations
		// (pkg/cache/scheduler/tas_flavor_snapshot.go), its quota by
		// requests. The Workload keeps them; the copy read drops them.
		na := *a
		na.PodAffinity, na.PodAntiAffinity = nil, nil
		p.Spec.Affinity = &na
	}
	tmpl, err := ConvertPod(p, pcs)
	if err == nil {
		tmpl.NodeAffinity, err = PodSetNodeAffinity(obj, &p.Spec)
	}
	if fe, ok := err.(*placement.FieldError); ok {
		return placement.Pod{}, &placement.FieldError{Object: obj, Field: f + "." + fe.Field, Detail: fe.Detail, Err: fe.Err}
	}
	return tmpl, err
}

// kueueRequest is the topology request of pod set ps at field f, its
// slice layers read as opts say.
func kueueRequest(obj, f string, ps *kueue.PodSet, opts KueueReadOptions) (topology.PodSetRequest, error) {
	r := topology.PodSetRequest{PodSet: string(ps.Name)}
	tr := ps.TopologyRequest
	if tr == nil {
		return kueueAnnotationRequest(obj, f, ps, opts)
	}
	set := f
	f += ".topologyRequest"
	r.Required, r.Preferred, r.Unconstrained = deref(tr.Required), deref(tr.Preferred), deref(tr.Unconstrained)
	r.Group = deref(tr.PodSetGroupName)
	if err := checkGroupName(obj, f+".podSetGroupName", tr.PodSetGroupName); err != nil {
		return r, err
	}
	switch {
	case tr.PodSetSliceRequiredTopology != nil && len(tr.PodsetSliceRequiredTopologyConstraints) > 0:
		return r, placement.Errorf(placement.ErrInvalid, obj, f+".podsetSliceRequiredTopologyConstraints", "may not be set with podSetSliceRequiredTopology")
	case (tr.PodSetSliceRequiredTopology == nil) != (tr.PodSetSliceSize == nil):
		return r, placement.Errorf(placement.ErrInvalid, obj, f+".podSetSliceSize", "podSetSliceRequiredTopology and podSetSliceSize must be set together")
	case tr.PodSetSliceSize != nil && *tr.PodSetSliceSize < 1:
		return r, placement.Errorf(placement.ErrInvalid, obj, f+".podSetSliceSize", "%d is below 1", *tr.PodSetSliceSize)
	case tr.PodSetSliceRequiredTopology != nil:
		r.Slices = []topology.SliceLayer{{Key: *tr.PodSetSliceRequiredTopology, Size: *tr.PodSetSliceSize}}
	}
	if err := checkFieldLayers(obj, f, tr.PodsetSliceRequiredTopologyConstraints); err != nil {
		return r, err
	}
	for _, l := range opts.fieldLayers(tr.PodsetSliceRequiredTopologyConstraints) {
		r.Slices = append(r.Slices, topology.SliceLayer{Key: l.Topology, Size: l.Size})
	}
	// gangsim's rule, as on a Job's annotations: whole slices only (Kueue
	// checks it on a Job, not on a Workload's field).
	if len(r.Slices) > 0 && ps.Count%r.Slices[0].Size != 0 {
		return r, placement.Errorf(placement.ErrInvalid, obj, set+".count", "%d pods are not a multiple of the slice size %d", ps.Count, r.Slices[0].Size)
	}
	if len(r.Slices) > 0 && r.Group != "" {
		return r, placement.Errorf(placement.ErrInvalid, obj, f+".podSetGroupName", "may not be set with slices")
	}
	return r, checkOneLevel(obj, f, r)
}

// kueueAnnotationRequest reads the request from the template's Kueue
// annotations (the layers annotation only when opts read it).
func kueueAnnotationRequest(obj, f string, ps *kueue.PodSet, opts KueueReadOptions) (topology.PodSetRequest, error) {
	r := topology.PodSetRequest{PodSet: string(ps.Name)}
	ann := opts.templateAnnotations(ps.Template.Annotations)
	tmpl := f + ".template"
	if err := checkOneAnnotation(obj, tmpl+".metadata.annotations", ann); err != nil {
		return r, err
	}
	cs, err := kueueTopologiesAt(obj, tmpl, ann)
	if err != nil {
		return r, err
	}
	for _, c := range cs {
		if c.Preferred {
			r.Preferred = c.Key
		} else {
			r.Required = c.Key
		}
	}
	if v, ok := ann[KueueUnconstrainedTopology]; ok {
		if v != "true" && v != "false" {
			return r, placement.Errorf(placement.ErrInvalid, obj, tmpl+".metadata.annotations["+KueueUnconstrainedTopology+"]", "%q: want true or false", v)
		}
		r.Unconstrained = v == "true"
	}
	sliced, err := kueueSlicesAt(obj, tmpl, f+".count", ann, ps.Count)
	if err != nil {
		return r, err
	}
	for _, c := range sliced {
		r.Slices = append(r.Slices, topology.SliceLayer{Key: c.Key, Size: c.SliceSize})
	}
	r.Group = ann[KueuePodSetGroup]
	return r, checkOneLevel(obj, tmpl+".metadata.annotations", r)
}

// checkOneAnnotation refuses a template carrying more than one of the
// required, preferred and unconstrained topology annotations, whatever
// their values (Kueue's job webhook, ValidateTASPodSetRequest, counts
// the annotations present: the same key named required and preferred is
// refused too).
func checkOneAnnotation(obj, f string, ann map[string]string) error {
	var set []string
	for _, a := range []string{KueueRequiredTopology, KueuePreferredTopology, KueueUnconstrainedTopology} {
		if _, ok := ann[a]; ok {
			set = append(set, a)
		}
	}
	if len(set) > 1 {
		return placement.Errorf(placement.ErrInvalid, obj, f, "has %s: at most one topology annotation", strings.Join(set, " and "))
	}
	return nil
}

// checkOneLevel refuses a request with more than one of required,
// preferred and unconstrained, as Kueue's validation does.
func checkOneLevel(obj, f string, r topology.PodSetRequest) error {
	var set []string
	for _, x := range []struct {
		name string
		on   bool
	}{{"required", r.Required != ""}, {"preferred", r.Preferred != ""}, {"unconstrained", r.Unconstrained}} {
		if x.on {
			set = append(set, x.name)
		}
	}
	if len(set) > 1 {
		return placement.Errorf(placement.ErrInvalid, obj, f, "sets %s: at most one of required, preferred and unconstrained", strings.Join(set, " and "))
	}
	return nil
}

// specCount is spec.podSets' count of the set named name (0 when none).
func (w *KueueWorkload) specCount(name string) int32 {
	for _, ps := range w.Obj.Spec.PodSets {
		if string(ps.Name) == name {
			return ps.Count
		}
	}
	return 0
}

// reclaimable is status.reclaimablePods' count for the set named name:
// its pods that finished, whose quota Kueue releases (0 when none).
func (w *KueueWorkload) reclaimable(name string) int32 {
	return reclaimableOf(w.Obj, name)
}

// reclaimableOf is status.reclaimablePods' count for pod set name of w, 0
// when it lists none.
func reclaimableOf(w *kueue.Workload, name string) int32 {
	for _, r := range w.Status.ReclaimablePods {
		if string(r.Name) == name {
			return r.Count
		}
	}
	return 0
}

// reclaimedWhole reports whether pod set ps of w (topology request r)
// asks for no pods and holds none: w holds no quota and every pod of the
// set is reclaimable, or w admitted it with no pods and its count less
// its reclaimable pods leaves no whole slice ([KueueWorkload.afterReclaim]). Such a set is read as a set of count
// 0 (KueueWorkload.Zero), as Kueue plans it with none; one whose admitted
// pods are all reclaimable since still holds their nodes, as Kueue's TAS
// counts them.
func reclaimedWhole(w *kueue.Workload, ps *kueue.PodSet, r topology.PodSetRequest) bool {
	rc := reclaimableOf(w, string(ps.Name))
	if rc == 0 || wholeSlicesOf(r, ps.Count-rc) > 0 {
		return false
	}
	if !apimeta.IsStatusConditionTrue(w.Status.Conditions, kueue.WorkloadQuotaReserved) || w.Status.Admission == nil {
		// Pending with pods left below one slice, it is read whole:
		// [KueueWorkload.afterReclaim] keeps it waiting.
		return ps.Count-rc <= 0
	}
	for _, a := range w.Status.Admission.PodSetAssignments {
		if a.Name == ps.Name {
			return a.Count != nil && *a.Count == 0
		}
	}
	return false
}

// checkReclaimable refuses a status.reclaimablePods entry that names no
// pod set or one named before, or whose count is negative or above the
// set's, as Kueue's webhook does.
func checkReclaimable(obj string, w *kueue.Workload) error {
	seen := map[kueue.PodSetReference]bool{}
	for i, r := range w.Status.ReclaimablePods {
		f := fmt.Sprintf("status.reclaimablePods[%d]", i)
		j := slices.IndexFunc(w.Spec.PodSets, func(ps kueue.PodSet) bool { return ps.Name == r.Name })
		switch {
		case j < 0:
			return placement.Errorf(placement.ErrNotFound, obj, f+".name", "%q is not a pod set of spec.podSets", r.Name)
		case seen[r.Name]:
			return placement.Errorf(placement.ErrDuplicate, obj, f+".name", "pod set %q is listed twice", r.Name)
		case r.Count < 0 || r.Count > w.Spec.PodSets[j].Count:
			return placement.Errorf(placement.ErrInvalid, obj, f+".count", "%d: want 0 to the pod set's count, %d", r.Count, w.Spec.PodSets[j].Count)
		}
		seen[r.Name] = true
	}
	return nil
}

// readAdmission reads status.admission of a Workload that holds quota.
func (w *KueueWorkload) readAdmission(obj string, index map[string]int) error {
	st := &w.Obj.Status
	if !apimeta.IsStatusConditionTrue(st.Conditions, kueue.WorkloadQuotaReserved) {
		return nil
	}
	if st.Admission == nil {
		return placement.Errorf(placement.ErrInvalid, obj, "status.admission", "must be set while the QuotaReserved condition is True")
	}
	sets := w.Group.PodSets
	w.Admitted = true
	w.Assigned = make([][]placement.PodSetAssignment, len(sets))
	w.AdmittedCount = make([]int32, len(sets))
	w.QuotaOnly = make([]bool, len(sets))
	w.delayed = make([]bool, len(sets))
	spec := w.Obj.Spec.PodSets
	seen := make([]bool, len(spec))
	for i, a := range st.Admission.PodSetAssignments {
		f := fmt.Sprintf("status.admission.podSetAssignments[%d]", i)
		j, ok := index[string(a.Name)]
		switch {
		case !ok:
			return placement.Errorf(placement.ErrNotFound, obj, f+".name", "%q is not a pod set of spec.podSets", a.Name)
		case seen[j]:
			return placement.Errorf(placement.ErrDuplicate, obj, f+".name", "pod set %q is assigned twice", a.Name)
		case a.TopologyAssignment == nil && len(a.Flavors) == 0 && !zeroUsage(a.ResourceUsage):
			// A set requesting nothing has no resource to give a flavor:
			// Kueue writes it with neither, and so does gangsim.
			return placement.Errorf(ErrUnsupported, obj, f+".topologyAssignment", "must be set: gangsim admits pod sets with topology assignments, or in a ResourceFlavor without a Topology")
		}
		seen[j] = true
		if d := a.DelayedTopologyRequest; d != nil && *d != kueue.DelayedTopologyRequestStatePending && *d != kueue.DelayedTopologyRequestStateReady {
			// Kueue's CRD takes any string but Kueue writes only these;
			// another would be read as no delay and admit the set with
			// no topology.
			return placement.Errorf(placement.ErrInvalid, obj, f+".delayedTopologyRequest", "%q is not Pending or Ready", *d)
		}
		if _, err := admissionUsage(obj, f+".resourceUsage", a.ResourceUsage); err != nil {
			return err
		}
		count := spec[j].Count
		if a.Count != nil {
			count = *a.Count
		}
		var pods []placement.PodSetAssignment
		quotaOnly := a.TopologyAssignment == nil
		if !quotaOnly && (count > 0 || len(a.TopologyAssignment.Slices) > 0) {
			// Kueue writes a set admitted with no pods with levels and
			// no slices.
			var err error
			if ls := a.TopologyAssignment.Levels; len(ls) == 1 && ls[0] == corev1.LabelHostname {
				pods, err = readTopologyAssignment(obj, f+".topologyAssignment", a.TopologyAssignment)
			} else {
				err = w.readAboveHost(obj, f+".topologyAssignment", string(a.Name), a.TopologyAssignment)
			}
			if err != nil {
				return err
			}
		}
		var n int64
		for p := range pods {
			n += int64(pods[p].Count)
			pods[p].PodSet = string(a.Name)
		}
		if set, ok := w.aboveHost[string(a.Name)]; ok {
			for _, d := range set.domains {
				n += int64(d.count)
			}
		}
		if w.isPhantom(string(a.Name)) {
			// Kueue writes a phantom leader at its count, 0, with its
			// one pod placed (kueuephantom.go).
			if !quotaOnly && n != 1 {
				return placement.Errorf(placement.ErrInvalid, obj, f+".topologyAssignment", "places %d pods for pod set %q of count 0 in a PodSetGroup, whose one phantom pod Kueue places: want 1", n, a.Name)
			}
			count = 1
		}
		z := slices.IndexFunc(w.Zero, func(z KueueZeroPodSet) bool { return z.Index == j })
		if count == 0 && n == 1 && !w.isPhantom(string(a.Name)) && w.grouped(string(a.Name)) {
			// Admitted as a phantom leader, which it is no longer: its
			// group's other set has no pods now, or it has pods of its
			// own. Its pod held no requests, and the set keeps none (one
			// with pods now grows from none, as a set admitted at 0).
			pods, n = nil, 0
		}
		if n != int64(count) && !quotaOnly && !w.beyondSlices(string(a.Name), count, n) {
			return placement.Errorf(placement.ErrInvalid, obj, f+".count", "%d, but the topologyAssignment places %d pods", count, n)
		}
		if !quotaOnly {
			count = int32(min(n, int64(count))) // the pods on nodes; the quota is the admission's
		}
		if z >= 0 {
			// A set now of count 0 keeps none of its pods.
			w.Zero[z].AdmittedCount = count
			continue
		}
		k := slices.IndexFunc(sets, func(ps placement.PodSet) bool { return ps.Name == string(a.Name) })
		w.Assigned[k], w.AdmittedCount[k], w.QuotaOnly[k] = pods, count, quotaOnly
		w.delayed[k] = quotaOnly && a.DelayedTopologyRequest != nil && *a.DelayedTopologyRequest == kueue.DelayedTopologyRequestStatePending
	}
	for j, ok := range seen {
		if !ok {
			return placement.Errorf(placement.ErrNotFound, obj, "status.admission.podSetAssignments", "no assignment for pod set %q", spec[j].Name)
		}
	}
	return w.readAboveHostHosts(obj)
}

// beyondSlices reports whether an admission of pod set name of w may
// write count while its topologyAssignment places placed pods: the set is
// sliced and has reclaimable pods, placed is whole slices, and count lies
// less than a slice above it — Kueue charges and writes a pending set's
// count less its reclaimable pods, and its TAS places the whole slices
// of that ([KueueWorkload.afterReclaim]).
func (w *KueueWorkload) beyondSlices(name string, count int32, placed int64) bool {
	k := w.setIndex(name)
	if k < 0 || k >= len(w.Requests) || len(w.Requests[k].Slices) == 0 || w.reclaimable(name) == 0 {
		return false
	}
	size := int64(w.Requests[k].Slices[0].Size)
	return placed%size == 0 && int64(count) > placed && int64(count)-placed < size
}

// KueueTopologyLevels reads a Kueue Topology's spec.levels as node label
// keys, widest first. A lowest level other than kubernetes.io/hostname is
// read as Kueue v0.17 reads it: gangsim plans over the levels with the
// hostname appended ([KueueTreeLevels]) and writes assignments at the
// Topology's own levels (kueueabovehost.go).
//
// Errors (a [*placement.FieldError] naming the Topology and the field):
// no levels, more than 16, a key that is not a label key, one listed
// twice, kubernetes.io/hostname above the lowest level.
func KueueTopologyLevels(t *kueue.Topology) ([]string, error) {
	if t == nil {
		return nil, errNil("Kueue Topology")
	}
	obj := fmt.Sprintf("Kueue Topology %q", t.Name)
	ls := t.Spec.Levels
	if len(ls) == 0 || len(ls) > 16 {
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.levels", "has %d levels: want 1 to 16", len(ls))
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		f := fmt.Sprintf("spec.levels[%d].nodeLabel", i)
		if errs := validation.IsQualifiedName(l.NodeLabel); len(errs) > 0 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "%q is not a node label key: %s", l.NodeLabel, strings.Join(errs, "; "))
		}
		for j := range i {
			if out[j] == l.NodeLabel {
				return nil, placement.Errorf(placement.ErrDuplicate, obj, f, "%q is also spec.levels[%d]", l.NodeLabel, j)
			}
		}
		out[i] = l.NodeLabel
	}
	if i := slices.Index(out, corev1.LabelHostname); i >= 0 && i < len(out)-1 {
		// Each host is its own domain: no level can be below it (Kueue's
		// webhook refuses it too).
		return nil, placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("spec.levels[%d].nodeLabel", i), "%s must be the lowest level", corev1.LabelHostname)
	}
	return out, nil
}

// zeroUsage reports whether a podSetAssignment's resourceUsage holds no
// amount above zero: the set requests nothing.
func zeroUsage(u corev1.ResourceList) bool {
	for _, q := range u {
		if q.Sign() > 0 {
			return false
		}
	}
	return true
}
