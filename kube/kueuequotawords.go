package kube

import "fmt"

// The reasons a Workload waits for its queue or its quota, worded two
// ways. Under [KueueOptions].KueueWords (gangsim's Kueue topology
// profiles) they are Kueue v0.17's own, as its QuotaReserved condition
// holds them, so that a message read off gangsim can be searched for in
// Kueue's documentation and issues, and compared with a real Kueue's
// verbatim: the flavor assigner's "previously considered podsets requests
// … > maximum capacity (N)", where N is the most the ClusterQueue could
// ever hold of the flavor-resource with nothing in use (Kueue's
// PotentialAvailable: its subtree quota and, up its cohorts, what they
// could lend it, each step capped by a borrowingLimit;
// pkg/scheduler/flavorassigner fitsResourceQuota, pkg/cache/scheduler
// resource_node.go), and the scheduler's namespace mismatch
// (pkg/scheduler nominate), which names neither the namespace nor the
// ClusterQueue. Without it they are
// gangsim's, which say the same number but where it comes from: a
// ClusterQueue's nominal quota alone, or with what its cohort may lend
// it, and which namespace and which ClusterQueue's selector.

// overCapacity words why ClusterQueue cq's flavor-resource fr cannot hold
// a pod set's request v beside the earlier pod sets' requests earlier of
// the same Workload: capacity, the most cq could ever hold of it
// ([quotaTree.room]), is below their sum. Quantities are canonical units,
// written as Kubernetes quantities.
func (q *KueueQueues) overCapacity(cq *KueueClusterQueue, fr flavorResource, earlier, v, capacity int64) string {
	r, f := fr.Resource(), fr.Flavor()
	if q.idx != nil && q.idx.kueueWords {
		return fmt.Sprintf("insufficient quota for %s in flavor %s, previously considered podsets requests (%s) + current podset request (%s) > maximum capacity (%s)",
			r, f, quantityString(r, earlier), quantityString(r, v), quantityString(r, capacity))
	}
	what := "nominal quota"
	if cq.Cohort != "" {
		what = "maximum capacity with borrowing in cohort " + cq.Cohort
	}
	return fmt.Sprintf("insufficient quota for %s in flavor %s, earlier pod sets' requests (%s) + this pod set's request (%s) > %s (%s)",
		r, f, quantityString(r, earlier), quantityString(r, v), what, quantityString(r, capacity))
}

// namespaceMismatchWords is Kueue's reason for a namespace a
// ClusterQueue's selector does not select.
const namespaceMismatchWords = "Workload namespace doesn't match ClusterQueue selector"

// namespaceMismatch words why a Workload in namespace ns may not be
// admitted in ClusterQueue cq, whose spec.namespaceSelector does not
// select ns (Kueue's scheduler leaves it inadmissible with that reason
// before it assigns flavors).
func (q *KueueQueues) namespaceMismatch(ns, cq string) string {
	if q.idx != nil && q.idx.kueueWords {
		return namespaceMismatchWords
	}
	return fmt.Sprintf("namespace %q doesn't match ClusterQueue %s's namespaceSelector", ns, cq)
}
