package kube

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// KueueQueues are the Kueue objects that route a Workload to a
// ClusterQueue and choose its flavors: ResourceFlavors, ClusterQueues,
// LocalQueues, Cohorts, with the Topologies and the Namespaces' labels
// they read.
// [AdmitKueueWorkloads] admits through them when [KueueOptions].Queues is
// set.
type KueueQueues struct {
	// Topologies are each Kueue Topology's levels, widest first
	// ([KueueTopologyLevels]), by name.
	Topologies map[string][]string
	// Flavors are the ResourceFlavors by name.
	Flavors map[string]KueueFlavor
	// ClusterQueues are the ClusterQueues by name.
	ClusterQueues map[string]*KueueClusterQueue
	// LocalQueues name each LocalQueue's ClusterQueue.
	LocalQueues map[placement.Key]string
	// StoppedLocalQueues are the LocalQueues whose spec.stopPolicy is
	// Hold or HoldAndDrain, with it: Kueue leaves their Workloads
	// inadmissible.
	StoppedLocalQueues map[placement.Key]kueue.StopPolicy
	// Cohorts are the Cohort objects by name; a cohort named but absent
	// is implicit ([KueueCohort]).
	Cohorts map[string]*KueueCohort
	// Namespaces are the labels of the input's Namespaces. A namespace the
	// input lacks is read with only kubernetes.io/metadata.name, the label
	// the API server gives every namespace.
	Namespaces map[string]map[string]string
	// AdmissionChecks say, by AdmissionCheck name, whether each is active
	// ([ConvertAdmissionCheck]); a ClusterQueue naming one missing or
	// inactive is inactive.
	AdmissionChecks map[string]bool
	// FairSharing, when set, is Kueue's fair sharing, read from a Kueue
	// Configuration ([ConvertKueueConfiguration]): the scheduling cycle
	// orders its heads by the cohort trees' dominant resource shares, and
	// preemption follows its strategies instead of the classical rules.
	FairSharing *KueueFairSharing

	// multiKueue names the AdmissionChecks of Kueue's MultiKueue
	// controller (kueuesecondpass.go); nil when there are none.
	multiKueue map[string]bool
	// provisioning names the AdmissionChecks of Kueue's
	// ProvisioningRequest controller (kueuefirstpass.go); nil when there
	// are none.
	provisioning map[string]bool

	// idx is what the quota walks and admission checks read of the
	// specs, in the copy [KueueQueues.indexed] makes; nil elsewhere.
	idx *quotaIndex
}

// kueueQueueInputs collects the Kueue queue objects of [Load].
type kueueQueueInputs struct {
	q KueueQueues
	// queued says that a ResourceFlavor, ClusterQueue or LocalQueue was
	// read: without one, Workloads are admitted as before (no quota).
	queued bool
}

// add reads one Topology, ResourceFlavor, ClusterQueue, LocalQueue,
// Cohort, AdmissionCheck, Kueue Configuration or Namespace; two of one
// kind and name are refused (two Configurations by the manifest reader).
func (in *kueueQueueInputs) add(obj any) error {
	q := &in.q
	if q.Topologies == nil {
		q.Topologies, q.Flavors, q.ClusterQueues = map[string][]string{}, map[string]KueueFlavor{}, map[string]*KueueClusterQueue{}
		q.LocalQueues, q.Namespaces, q.Cohorts = map[placement.Key]string{}, map[string]map[string]string{}, map[string]*KueueCohort{}
		q.StoppedLocalQueues = map[placement.Key]kueue.StopPolicy{}
		q.AdmissionChecks = map[string]bool{}
	}
	dup := func(kind string, key placement.Key, seen bool) error {
		if !seen {
			return nil
		}
		return placement.Errorf(placement.ErrDuplicate, fmt.Sprintf("%s %q", kind, key.String()), "metadata.name", "a second %s of this name", kind)
	}
	switch v := obj.(type) {
	case *kueue.Topology:
		_, seen := q.Topologies[v.Name]
		if err := dup("Kueue Topology", placement.Key{Name: v.Name}, seen); err != nil {
			return err
		}
		levels, err := KueueTopologyLevels(v)
		if err != nil {
			return err
		}
		q.Topologies[v.Name] = levels
	case *kueue.ResourceFlavor:
		_, seen := q.Flavors[v.Name]
		if err := dup("Kueue ResourceFlavor", placement.Key{Name: v.Name}, seen); err != nil {
			return err
		}
		f, err := ConvertResourceFlavor(v)
		if err != nil {
			return err
		}
		q.Flavors[v.Name], in.queued = f, true
	case *kueue.ClusterQueue:
		_, seen := q.ClusterQueues[v.Name]
		if err := dup("Kueue ClusterQueue", placement.Key{Name: v.Name}, seen); err != nil {
			return err
		}
		cq, err := ConvertClusterQueue(v)
		if err != nil {
			return err
		}
		q.ClusterQueues[v.Name], in.queued = cq, true
	case *kueue.LocalQueue:
		k := placement.Key{Namespace: v.Namespace, Name: v.Name}
		_, seen := q.LocalQueues[k]
		if err := dup("Kueue LocalQueue", k, seen); err != nil {
			return err
		}
		cq, err := ConvertLocalQueue(v)
		if err != nil {
			return err
		}
		stop, err := stopPolicy(localQueueObj(v), v.Spec.StopPolicy)
		if err != nil {
			return err
		}
		if stop != "" {
			q.StoppedLocalQueues[k] = stop
		}
		q.LocalQueues[k], in.queued = cq, true
	case *kueue.Cohort:
		_, seen := q.Cohorts[v.Name]
		if err := dup("Kueue Cohort", placement.Key{Name: v.Name}, seen); err != nil {
			return err
		}
		c, err := ConvertCohort(v)
		if err != nil {
			return err
		}
		q.Cohorts[v.Name] = c // a Cohort alone routes nothing: Workloads still admit without quota
	case *kueue.AdmissionCheck:
		_, seen := q.AdmissionChecks[v.Name]
		if err := dup("Kueue AdmissionCheck", placement.Key{Name: v.Name}, seen); err != nil {
			return err
		}
		active, err := ConvertAdmissionCheck(v)
		if err != nil {
			return err
		}
		q.AdmissionChecks[v.Name] = active // alone it routes nothing, as a Cohort
		if v.Spec.ControllerName == kueue.MultiKueueControllerName {
			if q.multiKueue == nil {
				q.multiKueue = map[string]bool{}
			}
			q.multiKueue[v.Name] = true
		}
		if v.Spec.ControllerName == kueue.ProvisioningRequestControllerName {
			if q.provisioning == nil {
				q.provisioning = map[string]bool{}
			}
			q.provisioning[v.Name] = true
		}
	case *configv1beta1.Configuration, *configv1beta2.Configuration:
		fs, err := ConvertKueueConfiguration(v)
		if err != nil {
			return err
		}
		q.FairSharing = fs // alone it routes nothing, as a Cohort
	case *corev1.Namespace:
		q.Namespaces[v.Name] = v.Labels
	}
	return nil
}

// result returns the levels of the only Topology (nil with none or
// several) and the queues (nil when nothing was queued).
func (in *kueueQueueInputs) result() ([]string, *KueueQueues) {
	var levels []string
	if len(in.q.Topologies) == 1 {
		for _, l := range in.q.Topologies {
			levels = l
		}
	}
	if !in.queued {
		return levels, nil
	}
	return levels, &in.q
}

// inactive words why Kueue leaves cq inactive — a stopPolicy that stops
// it, a flavor it names that is missing, a topology flavor whose Topology
// is missing, an AdmissionCheck it names that is missing or not Active,
// a cohort above it in a cycle — or "" when it is active.
func (q *KueueQueues) inactive(cq *KueueClusterQueue) string {
	var missing, noTopology, why []string
	if cq.Stop != "" {
		why = append(why, "spec.stopPolicy is "+string(cq.Stop))
	}
	for _, g := range cq.Groups {
		for _, fq := range g.Flavors {
			f, ok := q.Flavors[fq.Flavor]
			switch {
			case !ok:
				missing = append(missing, fq.Flavor)
			case f.Topology != "":
				if _, ok := q.Topologies[f.Topology]; !ok {
					noTopology = append(noTopology, fmt.Sprintf("there is no Topology %q for topology flavor %q", f.Topology, f.Name))
				}
			}
		}
	}
	if len(missing) > 0 {
		why = append(why, "it names missing ResourceFlavor(s) "+strings.Join(missing, ", "))
	}
	why = append(why, noTopology...)
	why = append(why, q.checksInactive(cq)...)
	if c := q.cohortCycle(cq.Cohort); c != "" {
		why = append(why, "its cohorts' spec.parentName form a cycle, "+c)
	}
	return strings.Join(why, "; ")
}

// route finds w's ClusterQueue through spec.queueName's LocalQueue in w's
// namespace. When w may not be admitted there it returns a reason, as
// Kueue leaves such a Workload inadmissible: no LocalQueue, a stopped
// one, no ClusterQueue, an inactive ClusterQueue, or a namespace its
// namespaceSelector does not select.
func (q *KueueQueues) route(w *KueueWorkload) (*KueueClusterQueue, string) {
	ns, lq := w.Obj.Namespace, w.Obj.Spec.QueueName
	name, ok := q.LocalQueues[placement.Key{Namespace: ns, Name: string(lq)}]
	if !ok {
		return nil, fmt.Sprintf("LocalQueue %q doesn't exist in namespace %q", lq, ns)
	}
	if stop, ok := q.StoppedLocalQueues[placement.Key{Namespace: ns, Name: string(lq)}]; ok {
		return nil, fmt.Sprintf("LocalQueue %s is inactive: spec.stopPolicy is %s", lq, stop)
	}
	cq, ok := q.ClusterQueues[name]
	if !ok {
		return nil, fmt.Sprintf("ClusterQueue %s doesn't exist", name)
	}
	if why := q.inactive(cq); why != "" {
		return nil, fmt.Sprintf("ClusterQueue %s is inactive: %s", name, why)
	}
	nsLabels := labels.Set{}
	maps.Copy(nsLabels, q.Namespaces[ns])
	nsLabels[corev1.LabelMetadataName] = ns // the API server sets it on every namespace
	if !cq.Namespaces.Matches(nsLabels) {
		return nil, q.namespaceMismatch(ns, name)
	}
	return cq, ""
}

// quotaUsage is the quota in use per ClusterQueue, flavor and resource,
// in canonical units.
type quotaUsage map[string]map[flavorResource]int64

// cqFR is a ClusterQueue, by name, and a flavor-resource: one entry of a
// [quotaUsage].
type cqFR struct {
	cq string
	fr flavorResource
}

// usageSum is usage a changed by b, saturating: a sum past int64 (quota
// Quantities go up to about 8Ei, and Workloads may hold several such) is
// math.MaxInt64, over any quota, and stays so when usage is taken away,
// as how far past it the usage went is lost. Usage so counted never
// wraps negative: a ClusterQueue's quota is never seen free that is not,
// at worst one is seen full that is not, with such quantities.
func usageSum(a, b int64) int64 {
	switch {
	case a == math.MaxInt64 && b <= 0:
		return a
	case b >= 0 && a >= 0:
		return arith.SatAdd(a, b)
	case b < 0 && a < 0 && b < math.MinInt64-a:
		return math.MinInt64
	}
	return a + b
}

// quotaRequests are count pods' requests of pod set k of w (Group.PodSets'
// order), as charged (its charges, when the Configuration excludes or
// transforms resources), with the pods themselves as the "pods" resource when cq covers it
// (Kueue counts pods only then). A resource its template requests at 0
// ([zeroRequested]) is there at 0, as Kueue keeps it; so is every
// resource at count 0. A product past int64 is math.MaxInt64, over any
// quota.
func (w *KueueWorkload) quotaRequests(cq *KueueClusterQueue, k int, count int32) map[placement.ResourceName]int64 {
	set := &w.Group.PodSets[k]
	out := map[placement.ResourceName]int64{}
	if ch, ok := w.charges[set.Name]; ok {
		for r, v := range ch {
			out[r] = arith.MulSat(v, int64(count))
		}
	} else {
		for r, v := range set.Template.Requests {
			out[r] = arith.MulSat(v, int64(count))
		}
		for _, r := range w.zeroRequests[set.Name] {
			out[r] = 0
		}
	}
	if cq.groupOf(placement.ResourcePods) >= 0 {
		out[placement.ResourcePods] = int64(count)
	}
	return out
}

// admissionUsage reads an admission's resourceUsage (field) in canonical
// units, a quantity past int64 as math.MaxInt64 (over any quota, as
// quotaRequests saturates a product). Errors: an empty resource name, a
// negative quantity.
func admissionUsage(obj, field string, rl corev1.ResourceList) (map[placement.ResourceName]int64, error) {
	out := make(map[placement.ResourceName]int64, len(rl))
	for _, r := range sortedNames(rl) {
		q := rl[r]
		switch {
		case r == "":
			return nil, placement.Errorf(placement.ErrInvalid, obj, field, "empty resource name")
		case q.Sign() < 0:
			return nil, placement.Errorf(placement.ErrInvalid, obj, field+"["+string(r)+"]", "%s is negative", q.String())
		case r == corev1.ResourceCPU && q.Cmp(maxMilli) > 0, r != corev1.ResourceCPU && q.Cmp(maxValue) > 0:
			out[placement.ResourceName(r)] = math.MaxInt64
		case r == corev1.ResourceCPU:
			out[placement.ResourceName(r)] = q.MilliValue()
		default:
			out[placement.ResourceName(r)] = q.Value()
		}
	}
	return out, nil
}

// admittedUsage is the quota an admitted Workload holds in its
// ClusterQueue, as Kueue v0.17 counts it (pkg/workload
// totalRequestsFromAdmission): each pod set's status.admission
// resourceUsage, in the flavors the admission gives each resource — or,
// when an admission lists none (hand-written input), its admitted count
// of the template's requests — scaled down to the pods not yet
// reclaimable (status.reclaimablePods: finished pods of a Job release
// their quota, Kueue's ReclaimablePods gate, on by default). It returns
// the ClusterQueue's name ("" when w holds no quota, or is finished or
// inactive: Kueue's HasActiveQuotaReservation).
func (q *KueueQueues) admittedUsage(w *KueueWorkload) (string, map[flavorResource]int64) {
	adm := w.Obj.Status.Admission
	if adm == nil || !apimeta.IsStatusConditionTrue(w.Obj.Status.Conditions, kueue.WorkloadQuotaReserved) || w.finished() || !w.active() {
		return "", nil
	}
	cq := q.ClusterQueues[string(adm.ClusterQueue)]
	if cq == nil {
		return "", nil // it holds quota nowhere that gangsim admits
	}
	u := map[flavorResource]int64{}
	for _, a := range adm.PodSetAssignments {
		k := w.setIndex(string(a.Name))
		if k < 0 {
			continue // a set of count 0 holds nothing
		}
		// A count left out is the set's spec count, as Kueue reads
		// admissions written before the field.
		count := w.Group.PodSets[k].Count
		if a.Count != nil {
			count = *a.Count
		}
		use := w.quotaRequests(cq, k, count)
		if len(a.ResourceUsage) > 0 {
			// Checked as the Workload was read (readAdmission).
			use, _ = admissionUsage("", "", a.ResourceUsage)
		}
		// Only reclaimable pods scale it: a spec count below the admitted
		// one is gangsim's shrink waiting to be made (Kueue's spec counts
		// are immutable while admitted), which holds its quota meanwhile.
		if rc := w.reclaimable(string(a.Name)); rc > 0 && w.specCount(string(a.Name))-rc < count && count > 0 {
			after := w.specCount(string(a.Name)) - rc
			for r, v := range use { // Kueue's Divide, then Mul: per pod, rounded down
				use[r] = v / int64(count) * int64(after)
			}
		}
		for r, v := range use {
			if f, ok := a.Flavors[corev1.ResourceName(r)]; ok {
				fr := frOf(string(f), r)
				u[fr] = usageSum(u[fr], v)
			}
		}
	}
	return cq.Name, u
}

// kueueUnit is a pod set, or the pod sets of one PodSetGroup, whose flavors
// are chosen together, as Kueue chooses them.
type kueueUnit struct {
	sets []int // indexes in the Workload's Group.PodSets
}

// kueueUnits groups w's pod sets as Kueue does: the sets of one
// PodSetGroup together, at the place of the first.
func kueueUnits(w *KueueWorkload) []kueueUnit {
	var out []kueueUnit
	at := map[string]int{}
	for k, r := range w.Requests {
		if r.Group != "" {
			if i, ok := at[r.Group]; ok {
				out[i].sets = append(out[i].sets, k)
				continue
			}
			at[r.Group] = len(out)
		}
		out = append(out, kueueUnit{sets: []int{k}})
	}
	return out
}

// flavorChoice is a flavor for every resource of every pod set of a
// Workload.
type flavorChoice struct {
	// flavors are each pod set's flavor per resource (Group.PodSets'
	// order).
	flavors []map[placement.ResourceName]string
	// tas is each pod set's topology flavor; "" for a set admitted on
	// quota alone.
	tas []string
	// delayed marks the sets in a topology flavor whose topology Kueue's
	// first pass delays (kueuefirstpass.go): their tas is "", as for a
	// set admitted on quota alone, and they are written with
	// delayedTopologyRequest Pending.
	delayed []bool
	// topology is the Topology of the topology flavors ("" with none).
	topology string
	// usage is the quota the Workload takes.
	usage map[flavorResource]int64
	// picked is the index of the flavor chosen per unit and resource
	// group; tried the index of the last flavor the search looked at
	// there, after which Kueue's next attempt starts (its
	// LastTriedFlavorIdx: past the flavor chosen when the fungibility went
	// on past it, as whenCanBorrow TryNextFlavor does past one that
	// borrows).
	picked map[[2]int]int
	tried  map[[2]int]int
	// preempt, when not "", is why the choice holds the Workload only by
	// preemption: a flavor fungibility other than Kueue's default took,
	// for some unit, a flavor short of unused quota ([KueueFungibility]);
	// the Workload waits with it and its preemption is sought in this
	// choice.
	preempt string
	// masked says that a unit took a flavor graded as fitting though one
	// of its resources is short of unused quota: under
	// PreemptionOverBorrowing Kueue grades a flavor by its worst resource
	// by borrowing first, so a resource that fits by borrowing hides one
	// that needs preemption within nominal quota. Kueue then calls the
	// assignment Fit, seeks no victims, and its scheduling cycle skips the
	// Workload as no longer fitting, cycle after cycle.
	masked bool
}

// take charges a unit's requests reqs of the resources covered, those of
// one resource group, to flavor, and notes flavor's Topology when it is a
// topology flavor.
func (ch *flavorChoice) take(q *KueueQueues, covered []placement.ResourceName, flavor string, reqs map[placement.ResourceName]int64) {
	for _, r := range covered {
		if v, ok := reqs[r]; ok {
			fr := frOf(flavor, r)
			ch.usage[fr] = usageSum(ch.usage[fr], v)
		}
	}
	if t := q.Flavors[flavor].Topology; t != "" {
		ch.topology = t
	}
}

// assignFlavors chooses w's flavors in ClusterQueue cq, while admitted
// Workloads hold used, as Kueue's flavor assigner does: unit by unit (a
// pod set, or a PodSetGroup's sets together), for each resource group
// covering a resource the unit requests, a flavor from start (by unit and
// group; 0 when absent) that the unit's pods may use, chosen by cq's flavor
// fungibility ([KueueQueues.pickFlavor]). Under Kueue's default that is the
// first where what cq may take ([quotaTree.room]: its unused nominal
// quota, and in a cohort what it may borrow), less what the Workload's
// earlier units took, holds the unit's requests: a flavor that fits only
// by borrowing is taken at once (whenCanBorrow MayStopSearch); under
// another fungibility, a flavor needing preemption is graded as finding
// no victims (see [KueueQueues.assignFlavorsSim] for the search that
// grades it). A flavor may be used when it supports the unit's topology
// request (a set asking for a level, slices or no constraint needs a
// flavor with a Topology that has the levels; one asking for none, in a
// ClusterQueue whose flavors are not all topology flavors, a flavor
// without), all its topology flavors name one Topology, its nodeTaints
// are tolerated by the template's and the flavor's tolerations, and the
// template's nodeSelector and required node affinity, read on the node
// label keys of the group's flavors, match its nodeLabels. The reason is
// Kueue's "couldn't assign flavors" for the first unit none fits, "" when
// every unit has its flavors.
func (q *KueueQueues) assignFlavors(cq *KueueClusterQueue, w *KueueWorkload, t quotaTree, start map[[2]int]int) (flavorChoice, string) {
	return q.assignFlavorsSim(cq, w, t, start, nil)
}

// assignFlavorsSim is [KueueQueues.assignFlavors] under cq's flavor
// fungibility ([KueueQueues.pickFlavor]), sim grading the flavors that
// need preemption (nil: as finding no victims). A unit that takes a flavor
// short of unused quota (only under a fungibility other than the default)
// sets the choice's preempt to Kueue's reason.
func (q *KueueQueues) assignFlavorsSim(cq *KueueClusterQueue, w *KueueWorkload, t quotaTree, start map[[2]int]int, sim preemptSim) (flavorChoice, string) {
	n := len(w.Group.PodSets)
	ch := flavorChoice{flavors: make([]map[placement.ResourceName]string, n), tas: make([]string, n), usage: map[flavorResource]int64{}, picked: map[[2]int]int{}, tried: map[[2]int]int{}}
	tasOnly := q.tasOnly(cq)
	for u, unit := range kueueUnits(w) {
		reqs := map[placement.ResourceName]int64{}
		for _, k := range unit.sets {
			for r, v := range w.quotaRequests(cq, k, w.quotaCount(k)) {
				reqs[r] = arith.SatAdd(reqs[r], v)
			}
		}
		chosen := map[int]string{} // group → flavor
		for _, r := range slices.Sorted(maps.Keys(reqs)) {
			g := cq.groupOf(r)
			if g < 0 && reqs[r] == 0 {
				// Kueue skips a resource the unit asks 0 of that its
				// ClusterQueue does not cover (kueue#8079).
				continue
			}
			if g < 0 {
				if q.idx != nil && q.idx.kueueWords {
					return ch, q.kueueShortWords(cq, w, t, start, sim)
				}
				return ch, q.unitFails(w, unit, unavailableWords(r))
			}
			if _, ok := chosen[g]; ok {
				continue
			}
			f, m, short, reasons := q.pickFlavor(cq, cq.Fungibility, g, w, unit, reqs, t, ch, start[[2]int{u, g}], tasOnly, sim)
			if f < 0 {
				if q.idx != nil && q.idx.kueueWords {
					return ch, q.kueueShortWords(cq, w, t, start, sim)
				}
				slices.Sort(reasons)
				return ch, q.unitFails(w, unit, strings.Join(reasons, ", "))
			}
			if m.mode != modeFit && ch.preempt == "" {
				slices.Sort(reasons)
				ch.preempt = q.unitFails(w, unit, strings.Join(reasons, ", "))
				if q.idx != nil && q.idx.kueueWords {
					ch.preempt = q.kueueShortWords(cq, w, t, start, sim)
				}
			}
			ch.masked = ch.masked || m.mode == modeFit && short
			fq := cq.Groups[g].Flavors[f]
			chosen[g], ch.picked[[2]int{u, g}] = fq.Flavor, f
			// Kueue's search went past the flavor taken unless it stopped
			// there (its LastTriedFlavorIdx).
			ch.tried[[2]int{u, g}] = f
			if !cq.Fungibility.isDefault() && cq.Fungibility.tryNext(m) {
				ch.tried[[2]int{u, g}] = len(cq.Groups[g].Flavors) - 1
			}
			ch.take(q, cq.Groups[g].Covered, fq.Flavor, reqs)
		}
		for _, k := range unit.sets {
			ch.flavors[k] = map[placement.ResourceName]string{}
			for r := range w.quotaRequests(cq, k, w.quotaCount(k)) {
				if f, ok := chosen[cq.groupOf(r)]; ok {
					// A resource of 0 no group covers gets no flavor.
					ch.flavors[k][r] = f
				}
			}
			for _, f := range chosen {
				if q.Flavors[f].Topology != "" {
					ch.tas[k] = f
				}
			}
		}
	}
	q.delayTopology(cq, &ch)
	return ch, ""
}

// unitFails words Kueue's reason for a unit without flavors: Kueue gives
// every pod set of a PodSetGroup the group's status, and its message names
// each set not fitting, in order, with its status (Assignment.Message), so
// a group's reason is said once per set, "; " between them.
func (q *KueueQueues) unitFails(w *KueueWorkload, unit kueueUnit, why string) string {
	var b strings.Builder
	for i, k := range unit.sets {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "couldn't assign flavors to pod set %s: %s", w.Group.PodSets[k].Name, why)
	}
	return b.String()
}

// tasOnly reports whether every flavor of cq has a Topology: its pod sets
// are then planned over a topology even without a request (Kueue's
// implied topology request).
func (q *KueueQueues) tasOnly(cq *KueueClusterQueue) bool {
	for _, g := range cq.Groups {
		for _, fq := range g.Flavors {
			if q.Flavors[fq.Flavor].Topology == "" {
				return false
			}
		}
	}
	return true
}

// pickFlavor returns the index of the flavor of cq's group g, from
// start, that unit takes under flavor fungibility fung (cq's own, or
// graded: kueuequotashort.go), and how that flavor holds the unit's
// requests; -1 with the reason each flavor tried failed when none may be
// taken. Under Kueue's default fungibility that is the first flavor the unit
// may use that holds its requests in the quota cq may take now
// (borrowing or not; modeFit). Under another ([KueueFungibility]) each
// flavor is graded as Kueue's findFlavorForPodSets grades it — the worst
// mode of its resources, a resource cq may take less of than it needs
// graded by sim ([KueueQueues.needMode]) — and the search stops at the
// first flavor whose mode does not make it go on
// ([KueueFungibility.tryNext]), else takes the best of those tried
// ([KueueFungibility.preferred]), the first among equals; reasons then
// are those of every flavor tried, as Kueue's status lists them. short
// says that a resource of the flavor taken is short of unused quota.
func (q *KueueQueues) pickFlavor(cq *KueueClusterQueue, fung KueueFungibility, g int, w *KueueWorkload, unit kueueUnit, reqs map[placement.ResourceName]int64,
	t quotaTree, ch flavorChoice, start int, tasOnly bool, sim preemptSim) (int, flavorMode, bool, []string) {
	group := &cq.Groups[g]
	keys := q.groupLabelKeys(cq, g)
	var reasons []string
	best, bestMode, bestShort := -1, noFitMode, false
	for i := start; i < len(group.Flavors); i++ {
		fq := group.Flavors[i]
		f := q.Flavors[fq.Flavor]
		if why := q.unitMayUse(&f, group, w, unit, keys, ch.topology, tasOnly); why != "" {
			reasons = append(reasons, why)
			continue
		}
		m, short := flavorMode{mode: modeFit}, false
		for _, r := range group.Covered {
			v, ok := reqs[r]
			if !ok {
				continue
			}
			fr := frOf(f.Name, r)
			capacity, free := t.room(cq, fr)
			earlier := ch.usage[fr]
			rm := flavorMode{mode: modeFit}
			switch {
			// A sum saturated at math.MaxInt64 went past int64, more
			// than any capacity, a saturated one included (quotas near
			// int64 add up past it in a cohort too).
			case arith.SatAdd(earlier, v) > capacity || arith.SatAdd(earlier, v) == math.MaxInt64:
				reasons = append(reasons, q.overCapacity(cq, fr, earlier, v, capacity))
				rm = noFitMode
			case arith.SatAdd(earlier, v) > free: // free <= capacity: no overflow
				reasons = append(reasons, fmt.Sprintf("insufficient unused quota for %s in flavor %s, %s", r, f.Name, moreNeeded(r, usageSum(earlier, v), free)))
				rm, short = noFitMode, true
				if !fung.isDefault() && m.mode != modeNoFit {
					rm = q.needMode(cq, fr, usageSum(earlier, v), t, sim)
				}
			case !fung.isDefault():
				rm.borrow = t.borrowLevel(cq, fr, usageSum(earlier, v))
			}
			if fung.preferred(m, rm) { // the worst of the resources
				m = rm
			}
		}
		if fung.isDefault() {
			if m.mode == modeFit {
				return i, m, false, nil
			}
			continue
		}
		if !fung.tryNext(m) {
			return i, m, short, reasons
		}
		if fung.preferred(m, bestMode) {
			best, bestMode, bestShort = i, m, short
		}
	}
	if best >= 0 && bestMode.mode == modeFit {
		reasons = nil
	}
	return best, bestMode, bestShort, reasons
}

// groupLabelKeys are the node label keys of the flavors of cq's resource
// group g, not to be changed. With q's index they are kept per group:
// every flavor choice of every head read the flavors' labels again.
func (q *KueueQueues) groupLabelKeys(cq *KueueClusterQueue, g int) map[string]bool {
	x := q.idx
	if x != nil {
		if keys, ok := x.labelKeys[cqGroup{cq, g}]; ok {
			return keys
		}
	}
	keys := map[string]bool{}
	for _, fq := range cq.Groups[g].Flavors {
		for k := range q.Flavors[fq.Flavor].NodeLabels {
			keys[k] = true
		}
	}
	if x != nil {
		if x.labelKeys == nil {
			x.labelKeys = map[cqGroup]map[string]bool{}
		}
		x.labelKeys[cqGroup{cq, g}] = keys
	}
	return keys
}

// unitMayUse says why unit may not use flavor f of group (whose flavors
// label the node label keys keys) while the Workload's topology flavors
// name Topology topology; "" when it may.
func (q *KueueQueues) unitMayUse(f *KueueFlavor, group *KueueResourceGroup, w *KueueWorkload, unit kueueUnit, keys map[string]bool, topology string, tasOnly bool) string {
	for _, k := range unit.sets {
		r, tmpl := w.Requests[k], &w.Group.PodSets[k].Template
		explicit := r.Required != "" || r.Preferred != "" || r.Unconstrained || len(r.Slices) > 0
		switch {
		case explicit || tasOnly:
			if f.Topology == "" {
				// Only the pod's own requests count, at any quantity
				// (0 written out too), as in Kueue: a group covering
				// just "pods" may give them a plain flavor.
				if slices.ContainsFunc(group.Covered, func(c placement.ResourceName) bool { return w.requestsResource(k, c) }) {
					return fmt.Sprintf("Flavor %q does not support TopologyAwareScheduling", f.Name)
				}
				break
			}
			if topology != "" && f.Topology != topology {
				return fmt.Sprintf("flavor %s's Topology %q is not %q of the Workload's other pod sets (gangsim plans a Workload over one Topology)", f.Name, f.Topology, topology)
			}
			if key := missingKey(q.Topologies[f.Topology], r); key != "" {
				if q.idx != nil && q.idx.kueueWords { // Kueue names no level
					return fmt.Sprintf("Flavor %q does not contain the requested level", f.Name)
				}
				return fmt.Sprintf("Flavor %q does not contain the requested level (%s)", f.Name, key)
			}
		case f.Topology != "":
			return fmt.Sprintf("Flavor %q supports only TopologyAwareScheduling", f.Name)
		}
		for _, t := range f.NodeTaints {
			if t.Effect == placement.TaintEffectPreferNoSchedule {
				continue
			}
			tolerated := func(tol placement.Toleration) bool { return tol.Tolerates(t) }
			if !slices.ContainsFunc(tmpl.Tolerations, tolerated) && !slices.ContainsFunc(f.Tolerations, tolerated) {
				return fmt.Sprintf("untolerated taint %s=%s:%s in flavor %s", t.Key, t.Value, t.Effect, f.Name)
			}
		}
		if !flavorMatches(tmpl, keys, f.NodeLabels) {
			return fmt.Sprintf("flavor %s doesn't match node affinity", f.Name)
		}
	}
	return ""
}

// missingKey is the first level request r names that levels lack, or "".
func missingKey(levels []string, r topology.PodSetRequest) string {
	keys := []string{cmp.Or(r.Required, r.Preferred)}
	for _, l := range r.Slices {
		keys = append(keys, l.Key)
	}
	for _, k := range keys {
		if k != "" && !slices.Contains(levels, k) {
			return k
		}
	}
	return ""
}

// flavorMatches reports whether template tmpl's nodeSelector and required
// node affinity, read only on the label keys keys, match a node labelled
// nodeLabels. A term left with no expression on keys drops the affinity,
// as Kueue's flavor assigner drops it.
func flavorMatches(tmpl *placement.Pod, keys map[string]bool, nodeLabels map[string]string) bool {
	for k, v := range tmpl.NodeSelector {
		if keys[k] && nodeLabels[k] != v {
			return false
		}
	}
	if tmpl.NodeAffinity == nil || len(tmpl.NodeAffinity.Required) == 0 {
		return true
	}
	var terms []placement.NodeSelectorTerm
	for _, t := range tmpl.NodeAffinity.Required {
		var kept []placement.NodeSelectorRequirement
		for _, e := range t.MatchExpressions {
			if keys[e.Key] {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			return true
		}
		terms = append(terms, placement.NodeSelectorTerm{MatchExpressions: kept})
	}
	na := placement.NodeAffinity{Required: terms}
	return na.Matches(&placement.Node{Labels: nodeLabels})
}

// moreNeeded words the shortfall of a need over free quota of r: "2
// more needed", or, when the need saturated (its sum passed what an int64
// holds, so a difference would be made up), that it cannot be counted.
func moreNeeded(r placement.ResourceName, need, free int64) string {
	if need == math.MaxInt64 {
		return "the requests add up past 2^63-1, the most gangsim counts (its sums saturate), so no shortfall is known"
	}
	return quantityString(r, need-free) + " more needed"
}

// quantityString writes v of resource r, in canonical units, as a
// Kubernetes quantity ([CanonicalQuantity]).
func quantityString(r placement.ResourceName, v int64) string {
	q := CanonicalQuantity(r, v)
	return q.String()
}
