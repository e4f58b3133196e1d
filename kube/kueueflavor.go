package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// KueueFlavor is a Kueue ResourceFlavor (kueue.x-k8s.io/v1beta2) as flavor
// assignment reads it.
type KueueFlavor struct {
	Name string
	// NodeLabels are spec.nodeLabels: the nodes of the flavor. A pod set
	// whose template's nodeSelector or required node affinity, read on
	// the keys some flavor of its resource group labels, contradicts them
	// does not take the flavor; a topology flavor's plan uses only the
	// nodes that carry them all.
	NodeLabels map[string]string
	// NodeTaints are spec.nodeTaints: a NoSchedule or NoExecute one that
	// neither the template nor Tolerations tolerates keeps a pod set off
	// the flavor.
	NodeTaints []placement.Taint
	// Tolerations are spec.tolerations, added to a pod set's own for the
	// flavor's taints and, for a topology flavor, its nodes' taints.
	Tolerations []placement.Toleration
	// Topology is spec.topologyName: the Kueue Topology whose levels the
	// flavor's pod sets are planned over; "" for a flavor without
	// topology-aware scheduling, whose pod sets are admitted on quota
	// alone.
	Topology string
}

// maxFlavorItems is the most nodeLabels, nodeTaints and tolerations a
// ResourceFlavor has (its API's limits).
const maxFlavorItems = 8

// ConvertResourceFlavor reads a Kueue ResourceFlavor.
//
// Errors (a [*placement.FieldError] naming the ResourceFlavor and the
// field), as Kueue's API refuses them: more than eight nodeLabels,
// nodeTaints or tolerations; a node label key or value that is not one;
// a taint without a key or with an effect other than NoSchedule,
// PreferNoSchedule or NoExecute; a bad toleration; a topologyName without
// nodeLabels.
func ConvertResourceFlavor(f *kueue.ResourceFlavor) (KueueFlavor, error) {
	if f == nil {
		return KueueFlavor{}, errNil("Kueue ResourceFlavor")
	}
	obj := fmt.Sprintf("Kueue ResourceFlavor %q", f.Name)
	s := &f.Spec
	out := KueueFlavor{Name: f.Name, NodeLabels: maps.Clone(s.NodeLabels)}
	for _, c := range []struct {
		f string
		n int
	}{{"spec.nodeLabels", len(s.NodeLabels)}, {"spec.nodeTaints", len(s.NodeTaints)}, {"spec.tolerations", len(s.Tolerations)}} {
		if c.n > maxFlavorItems {
			return KueueFlavor{}, placement.Errorf(placement.ErrInvalid, obj, c.f, "has %d entries: at most %d", c.n, maxFlavorItems)
		}
	}
	if err := checkLabels(obj, "spec.nodeLabels", s.NodeLabels); err != nil {
		return KueueFlavor{}, err
	}
	for i, t := range s.NodeTaints {
		f := fmt.Sprintf("spec.nodeTaints[%d]", i)
		if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
			return KueueFlavor{}, placement.Errorf(placement.ErrInvalid, obj, f+".key", "%q is not a taint key: %s", t.Key, strings.Join(errs, "; "))
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return KueueFlavor{}, placement.Errorf(placement.ErrInvalid, obj, f+".effect", "%q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
		}
		out.NodeTaints = append(out.NodeTaints, placement.Taint{Key: t.Key, Value: t.Value, Effect: placement.TaintEffect(t.Effect)})
	}
	for i, t := range s.Tolerations {
		tol, err := convertToleration(obj, fmt.Sprintf("spec.tolerations[%d]", i), t)
		if err != nil {
			return KueueFlavor{}, err
		}
		out.Tolerations = append(out.Tolerations, tol)
	}
	if s.TopologyName != nil {
		out.Topology = string(*s.TopologyName)
		if len(s.NodeLabels) == 0 {
			return KueueFlavor{}, placement.Errorf(placement.ErrInvalid, obj, "spec.nodeLabels", "at least one node label is needed with spec.topologyName")
		}
	}
	return out, nil
}

// KueueClusterQueue is a Kueue ClusterQueue (kueue.x-k8s.io/v1beta2) as
// flavor assignment reads it: its resource groups with each flavor's
// nominal quota and borrowing and lending limits, its cohort, and the
// namespaces it admits from, and its preemption policies
// ([KueuePreemption]), its flavor fungibility ([KueueFungibility]), its
// admission checks and its fair-sharing weight.
type KueueClusterQueue struct {
	Name string
	// Cohort is spec.cohortName: the cohort whose unused quota it may
	// borrow and to which it lends its own; "" for none.
	Cohort string
	// Groups are spec.resourceGroups, in order.
	Groups []KueueResourceGroup
	// Namespaces selects the namespaces whose Workloads it admits
	// (spec.namespaceSelector; none when unset, as Kueue reads a null
	// selector, every namespace for {}).
	Namespaces labels.Selector
	// Stop is spec.stopPolicy when it is Hold or HoldAndDrain ("" for
	// None or unset): Kueue makes such a ClusterQueue inactive, and it
	// admits nothing.
	Stop kueue.StopPolicy
	// Preemption is spec.preemption: which admitted Workloads a pending
	// one may preempt when it does not fit ([AdmitKueueWorkloads]).
	Preemption KueuePreemption
	// Fungibility is spec.flavorFungibility: which of a resource group's
	// flavors a pod set takes when the first it may use fits only by
	// borrowing or by preempting. The zero value is Kueue's default.
	Fungibility KueueFungibility
	// StrictFIFO says spec.queueingStrategy is StrictFIFO: a head that
	// does not fit stays the ClusterQueue's head and the Workloads queued
	// after it wait (Kueue requeues it at once instead of setting it
	// aside). false: BestEffortFIFO, Kueue's default.
	StrictFIFO bool
	// Checks are spec.admissionChecksStrategy.admissionChecks: the
	// AdmissionChecks a Workload holding quota here waits on before it is
	// Admitted ([KueueCheckRule]).
	Checks []KueueCheckRule
	// FairWeight is spec.fairSharing.weight, nil when unset (Kueue's
	// default, 1): under fair sharing a ClusterQueue's share of what it
	// borrows is divided by it ([KueueQueues].FairSharing).
	FairWeight *float64
}

// stopPolicy reads a ClusterQueue's or LocalQueue's spec.stopPolicy:
// Hold or HoldAndDrain, or "" for None or unset.
//
// Errors: a value that is none of the three (ErrInvalid, naming obj and
// spec.stopPolicy).
func stopPolicy(obj string, p *kueue.StopPolicy) (kueue.StopPolicy, error) {
	if p == nil {
		return "", nil
	}
	switch *p {
	case kueue.None:
		return "", nil
	case kueue.Hold, kueue.HoldAndDrain:
		return *p, nil
	}
	return "", placement.Errorf(placement.ErrInvalid, obj, "spec.stopPolicy", "%q is not None, Hold or HoldAndDrain", *p)
}

// KueueResourceGroup is one entry of a ClusterQueue's
// spec.resourceGroups: resources whose flavor is chosen together.
type KueueResourceGroup struct {
	// Covered are coveredResources.
	Covered []placement.ResourceName
	// Flavors are the flavors in the order they are tried.
	Flavors []KueueFlavorQuota
}

// KueueFlavorQuota is a flavor of a resource group with its nominal quota
// and limits.
type KueueFlavorQuota struct {
	Flavor string
	// Nominal is each covered resource's nominalQuota in canonical units
	// (see [Quantity]); 0 where the quota is 0.
	Nominal map[placement.ResourceName]int64
	// Borrowing is each covered resource's borrowingLimit, in canonical
	// units, where one is set (none: no limit): the most the queue or
	// cohort may take beyond its own quota from its parent.
	Borrowing map[placement.ResourceName]int64
	// Lending is each covered resource's lendingLimit, where one is set
	// (none: all of it may be lent): the most of its quota it lends to
	// its parent; the rest only its own subtree uses.
	Lending map[placement.ResourceName]int64
}

// groupOf returns the index of the group covering r, or -1.
func (cq *KueueClusterQueue) groupOf(r placement.ResourceName) int {
	return slices.IndexFunc(cq.Groups, func(g KueueResourceGroup) bool { return slices.Contains(g.Covered, r) })
}

// ConvertClusterQueue reads a Kueue ClusterQueue.
//
// Errors (a [*placement.FieldError] naming the ClusterQueue and the
// field), as Kueue's API refuses them: a bad spec.stopPolicy; more than 16 resource groups; a
// group without covered resources or flavors, or with more than 64; a
// resource covered twice (in one group or two); a flavor listed twice; a
// flavor whose resources are not the covered ones in order; a bad
// nominalQuota; a negative borrowingLimit or lendingLimit, one set without
// spec.cohortName, or a lendingLimit above its nominalQuota; a cohortName
// that is not a DNS subdomain; a bad namespaceSelector; a spec.preemption
// policy outside its enum, or borrowWithinCohort without
// reclaimWithinCohort ([KueuePreemption]); a bad spec.flavorFungibility
// ([KueueFungibility]); a spec.queueingStrategy other than StrictFIFO or
// BestEffortFIFO; a negative spec.fairSharing.weight,
// or one in (0, 10⁻⁹].
func ConvertClusterQueue(cq *kueue.ClusterQueue) (*KueueClusterQueue, error) {
	if cq == nil {
		return nil, errNil("Kueue ClusterQueue")
	}
	obj := fmt.Sprintf("Kueue ClusterQueue %q", cq.Name)
	out := &KueueClusterQueue{Name: cq.Name}
	sel, err := metav1.LabelSelectorAsSelector(cq.Spec.NamespaceSelector)
	if err != nil {
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.namespaceSelector", "%v", err)
	}
	out.Namespaces = sel
	if out.Stop, err = stopPolicy(obj, cq.Spec.StopPolicy); err != nil {
		return nil, err
	}
	if out.Cohort, err = cohortName(obj, "spec.cohortName", cq.Spec.CohortName); err != nil {
		return nil, err
	}
	out.Groups, err = convertResourceGroups(obj, cq.Spec.ResourceGroups, limitRule{parent: out.Cohort != "", parentField: "spec.cohortName", lendWithinNominal: true})
	if err != nil {
		return nil, err
	}
	if out.Preemption, err = convertPreemption(obj, cq.Spec.Preemption); err != nil {
		return nil, err
	}
	if out.Fungibility, err = convertFungibility(obj, cq.Spec.FlavorFungibility); err != nil {
		return nil, err
	}
	if out.Checks, err = convertCheckRules(obj, cq.Spec.AdmissionChecksStrategy); err != nil {
		return nil, err
	}
	if out.FairWeight, err = fairWeight(obj, cq.Spec.FairSharing); err != nil {
		return nil, err
	}
	switch cq.Spec.QueueingStrategy {
	case "", kueue.BestEffortFIFO:
	case kueue.StrictFIFO:
		out.StrictFIFO = true
	default:
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.queueingStrategy", "%q is not StrictFIFO or BestEffortFIFO", cq.Spec.QueueingStrategy)
	}
	return out, nil
}

// convertResourceGroups reads the spec.resourceGroups of ClusterQueue or
// Cohort obj, the limits as rule allows them.
func convertResourceGroups(obj string, rgs []kueue.ResourceGroup, rule limitRule) ([]KueueResourceGroup, error) {
	var out []KueueResourceGroup
	if len(rgs) > 16 {
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.resourceGroups", "has %d groups: at most 16", len(rgs))
	}
	covered := map[placement.ResourceName]string{}
	flavors := map[string]string{}
	for i, rg := range rgs {
		f := fmt.Sprintf("spec.resourceGroups[%d]", i)
		if n := len(rg.CoveredResources); n == 0 || n > 64 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".coveredResources", "has %d resources: want 1 to 64", n)
		}
		if n := len(rg.Flavors); n == 0 || n > 64 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".flavors", "has %d flavors: want 1 to 64", n)
		}
		g := KueueResourceGroup{}
		for j, r := range rg.CoveredResources {
			fr := fmt.Sprintf("%s.coveredResources[%d]", f, j)
			if r == "" {
				return nil, placement.Errorf(placement.ErrInvalid, obj, fr, "empty resource name")
			}
			if prev, dup := covered[placement.ResourceName(r)]; dup {
				return nil, placement.Errorf(placement.ErrDuplicate, obj, fr, "%q is also %s", r, prev)
			}
			covered[placement.ResourceName(r)] = fr
			g.Covered = append(g.Covered, placement.ResourceName(r))
		}
		for j, fq := range rg.Flavors {
			ff := fmt.Sprintf("%s.flavors[%d]", f, j)
			if prev, dup := flavors[string(fq.Name)]; dup {
				return nil, placement.Errorf(placement.ErrDuplicate, obj, ff+".name", "%q is also %s", fq.Name, prev)
			}
			flavors[string(fq.Name)] = ff
			if len(fq.Resources) != len(rg.CoveredResources) {
				return nil, placement.Errorf(placement.ErrInvalid, obj, ff+".resources", "has %d resources: want the %d of coveredResources", len(fq.Resources), len(rg.CoveredResources))
			}
			q := KueueFlavorQuota{Flavor: string(fq.Name), Nominal: map[placement.ResourceName]int64{}}
			for k, rq := range fq.Resources {
				fk := fmt.Sprintf("%s.resources[%d]", ff, k)
				if rq.Name != rg.CoveredResources[k] {
					return nil, placement.Errorf(placement.ErrInvalid, obj, fk+".name", "%q: must be coveredResources[%d], %q", rq.Name, k, rg.CoveredResources[k])
				}
				v, err := Quantity(obj, fk+".nominalQuota", rq.Name, rq.NominalQuota)
				if err != nil {
					return nil, err
				}
				q.Nominal[placement.ResourceName(rq.Name)] = v
				if err := rule.read(obj, fk, rq, &q); err != nil {
					return nil, err
				}
			}
			g.Flavors = append(g.Flavors, q)
		}
		out = append(out, g)
	}
	return out, nil
}

// ConvertLocalQueue reads a Kueue LocalQueue: the ClusterQueue it sends
// its namespace's Workloads to (spec.clusterQueue, which must be set).
func ConvertLocalQueue(lq *kueue.LocalQueue) (string, error) {
	if lq == nil {
		return "", errNil("Kueue LocalQueue")
	}
	if lq.Spec.ClusterQueue == "" {
		return "", placement.Errorf(placement.ErrInvalid, localQueueObj(lq), "spec.clusterQueue", "must name a ClusterQueue")
	}
	return string(lq.Spec.ClusterQueue), nil
}

// localQueueObj names LocalQueue lq in errors.
func localQueueObj(lq *kueue.LocalQueue) string {
	return fmt.Sprintf("Kueue LocalQueue %q", placement.Key{Namespace: lq.Namespace, Name: lq.Name}.String())
}
