package kube

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// KueueOptions configure [AdmitKueueWorkloads].
type KueueOptions struct {
	// Plan tunes the plans of pending Workloads (KueueBalanced: Kueue's
	// TASBalancedPlacement gate; Balanced: gangsched's own even spread).
	Plan topology.PlanOptions
	// TASPods are bound pods of the snapshot that Kueue's TAS cache does
	// not charge ([Cluster].KueueTASPods): the admission does not see
	// them, and the snapshot returned holds them again.
	TASPods []placement.Key
	// Now is the lastTransitionTime of the conditions written, and the
	// moment a not-ready node's time without Ready is measured to.
	Now time.Time
	// NotReady are the nodes whose Ready condition is not True, by node
	// name ([NodeNotReady], [Cluster].NotReady). None takes new pods, as
	// Kueue's topology snapshot leaves them out (and cordoned nodes, read
	// from the snapshot's spec.unschedulable); one that is failed at
	// Now ([NotReadyNode.FailedAt]: not ready for at least
	// [KueueNodeFailureDelay], or without a Ready condition) loses its
	// admitted pods, like a gone node.
	NotReady map[string]NotReadyNode
	// WaitForReplacement is Kueue with its TASFailedNodeReplacementFailFast
	// gate off (the gate is on by default since v0.14, so false is Kueue
	// v0.17's default): an admitted Workload whose failed node finds no
	// replacement stays admitted as it is, the node named in
	// status.unhealthyNodes, and waits (KueueReplacementWaits) instead of
	// being evicted whole.
	WaitForReplacement bool
	// Queues, when set, route each pending Workload through its
	// LocalQueue to a ClusterQueue and choose its flavors there within
	// nominal quota and what its cohort lends ([KueueQueues]), preempting
	// as its ClusterQueue's spec.preemption allows ([KueuePreemption]), and
	// let an admitted pod set grow only within its flavors' unused quota;
	// nil admits every Workload over the tree without quota (and preempts
	// nothing).
	Queues *KueueQueues
	// KueueWords words a Workload's quota and queue reasons exactly as
	// Kueue v0.17 writes them in its QuotaReserved condition (what a
	// flavor's maximum capacity is called, a namespace its ClusterQueue
	// does not select), as gangsim's Kueue topology profiles do; false
	// keeps gangsim's own words, which say where the capacity comes from
	// and name the namespace and selector (see kueuequotawords.go). With
	// Plan.KueueNotFit it words a topology failure as Kueue does too
	// (kueuetaswords.go). An eviction for node failures is written in
	// the Evicted message Kueue's TAS node controller or scheduler writes
	// (kueuenodefailwords.go), gangsim's reason then the outcome's Detail.
	KueueWords bool
	// Topology is the name of the Kueue Topology tree was built from
	// ([Cluster].KueueTopology), which Kueue's wording of a topology
	// failure names without Queues (with them, each flavor names its
	// own); "" leaves such a failure in gangsim's words. Read only under
	// KueueWords.
	Topology string
	// TopologyLevels are the spec.levels of the input's one Kueue
	// Topology ([Cluster].KueueLevels), which the tree passed to
	// [AdmitKueueWorkloads] is built over when no ResourceFlavor names
	// another. When their lowest level is not kubernetes.io/hostname the
	// tree has that label appended ([KueueTreeLevels]) and topology
	// assignments are written at these levels, as Kueue writes them
	// (kueueabovehost.go); nil, or levels ending in the hostname, write
	// them per host.
	TopologyLevels []string
	// noMemo turns off what the scheduling cycles keep between heads'
	// nominations ([nominationMemo]): the tests compare the decisions
	// made with and without it.
	noMemo bool
	// noEmptied turns off the emptied snapshot kept between the heads
	// that keep room ([emptiedSnapshot]), which the tests compare
	// likewise.
	noEmptied bool
	// noBound turns off the victim search's bound
	// ([admitter.attemptMayFind]), which the tests compare likewise;
	// boundProofs, when set, counts the attempts the bound proved empty.
	noBound     bool
	boundProofs *int
}

// KueueAction says what admission did with a Workload.
type KueueAction string

// The actions of [KueueOutcome].
const (
	// KueueAdmitted: a pending Workload was planned and admitted.
	KueueAdmitted KueueAction = "Admitted"
	// KueueKept: an admitted Workload keeps its assignment unchanged.
	KueueKept KueueAction = "Kept"
	// KueueResized: an admitted Workload whose pod set counts changed
	// grew or shrank in place (elastic workloads).
	KueueResized KueueAction = "Resized"
	// KueueGrowWaits: a pod set of an admitted Workload cannot be resized
	// in place: its growth does not fit yet, or its admitted pods already
	// break the set's required level or slices (nodes relabelled since),
	// so no resize keeps them. That set keeps its old assignment; the
	// Workload's other sets may have been repaired or resized (the
	// message says which), and it still waits.
	KueueGrowWaits KueueAction = "GrowWaits"
	// KueueRepaired: pods on failed nodes (gone, not ready for
	// [KueueNodeFailureDelay], or tainted NoExecute) found replacements
	// in their domains.
	KueueRepaired KueueAction = "Repaired"
	// KueueEvicted: pods on failed nodes found none, or the set's other
	// pods run on a node Kueue's topology snapshot leaves out, or its
	// LocalQueue or ClusterQueue has spec.stopPolicy HoldAndDrain (reason
	// LocalQueueStopped or ClusterQueueStopped); the Workload was evicted
	// whole, then queued again and did not fit.
	KueueEvicted KueueAction = "Evicted"
	// KueueReplacementWaits: with [KueueOptions].WaitForReplacement, the
	// pods of a failed node found no replacement: the Workload keeps its
	// admission unchanged (every set its surviving pods; status.unhealthyNodes
	// names the node) and waits for room, as Kueue retries the replacement.
	KueueReplacementWaits KueueAction = "ReplacementWaits"
	// KueuePreempted: an admitted Workload was preempted for a pending
	// one, under its ClusterQueue's spec.preemption ([KueuePreemption]),
	// then queued again and did not fit.
	KueuePreempted KueueAction = "Preempted"
	// KueueReadmitted: evicted whole (or preempted), then admitted
	// elsewhere.
	KueueReadmitted KueueAction = "Readmitted"
	// KueueAwaitingChecks: the Workload holds quota (QuotaReserved True,
	// newly or from before) in a ClusterQueue whose admission checks run
	// for its flavors, and some check is not Ready yet: it is not
	// Admitted (Kueue writes no Admitted condition on a Workload never
	// Admitted, and leaves one written before as it was) and its pods do
	// not start, though its quota and nodes are reserved; see
	// kueueadmissioncheck.go. A pending Workload whose topology Kueue's
	// first pass delays (kueuefirstpass.go) gets it with quota alone.
	KueueAwaitingChecks KueueAction = "AwaitingChecks"
	// KueueDelayedTopologyWaits: the Workload holds quota with a pod set
	// whose topology Kueue delayed (delayedTopologyRequest Pending: a
	// ProvisioningRequest check on a topology flavor), its admission
	// checks are all Ready, and Kueue's second pass finds no topology for
	// that set in the flavor it holds: it keeps its quota, is not Admitted
	// (its Admitted condition left as it was) and its pods do not start;
	// Kueue tries again with backoff. See kueuesecondpass.go. A pending
	// Workload reserved by Kueue's first pass with every check Ready
	// already gets its second pass in the same run (kueuesecondpassnow.go).
	KueueDelayedTopologyWaits KueueAction = "DelayedTopologyWaits"
	// KueuePending: a pending Workload does not fit; or a Workload whose
	// quota was reserved while it awaited admission checks lost that
	// reservation to a stopped or missing queue (reason Inadmissible;
	// its message says so first) and waits.
	KueuePending KueueAction = "Pending"
	// KueueInactive: spec.active is false: the Workload is not queued and
	// holds no quota; one admitted is evicted (reason Deactivated), as
	// Kueue's workload controller evicts it.
	KueueInactive KueueAction = "Inactive"
	// KueueFinished: its Finished condition is True: it is not queued and
	// holds no quota, and is written back as it is.
	KueueFinished KueueAction = "Finished"
)

// KueueOutcome is what [AdmitKueueWorkloads] did with one Workload.
type KueueOutcome struct {
	Workload placement.Key
	Action   KueueAction
	// Message is the reason: why it waits, why it was evicted, how it
	// was repaired or resized, which sets a partial admission reduced.
	// Under [KueueOptions].KueueWords a reason of quota or queue, a
	// pending Workload's topology failure, and an eviction for node
	// failures are worded as Kueue v0.17 words them (kueuequotawords.go,
	// kueuetaswords.go, kueuenodefailwords.go).
	Message string
	// Detail is gangsim's own explanation behind a message worded as
	// Kueue's, where it says more: for a topology failure, the level that
	// failed, the best domain and what it holds (kueuetastry.go); for a
	// reason of quota or queue, its own words on the final state
	// (kueuequotadetail.go); for an eviction for node failures, which
	// node failed how and why no replacement fits; "" when Message says
	// it all. It is not written into the Workload.
	Detail string
	// PodSets are the pod sets' pods per node after admission, in the
	// order of the Workload's Group.PodSets (its sets of count 0 left
	// out, but for a phantom leader's one pod: kueuephantom.go); empty
	// when it holds no quota.
	PodSets [][]placement.PodSetAssignment
	// Flavors are the flavors each pod set holds quota in, in PodSets'
	// order ("gpu", or "a, b" when its resources have several); nil
	// without [KueueOptions].Queues or when it holds no quota.
	Flavors []string
	// PreemptedBy is the Workload whose admission preempted this one in
	// the call (Kueue's Preempted condition; its Action is Preempted, or
	// Readmitted when it was admitted again later in the call); zero when
	// none did.
	PreemptedBy placement.Key
	// Held says the Workload, left Pending (or Evicted or Preempted and
	// queued again), is one Kueue v0.17 assumes and cannot admit: its
	// quota and its planned sets' nodes are kept from every Workload
	// tried after it, though nothing is written on it and no pod of it
	// runs (see kueuestuck.go). Its Message words the quota held.
	Held bool
	// HeldNodes are the reservations Kueue's assumption of a Held
	// Workload keeps: one per set that places pods, in the order of the
	// Workload's Group.PodSets, each with one pod's requests and its pods
	// per node. They are out of the snapshot AdmitKueueWorkloads returns
	// (no pod of them runs), so a caller reporting what the nodes hold
	// adds them itself; nil when the held sets place no pod.
	HeldNodes []placement.PodSetUsage
	// HeldQuota is the quota Kueue's assumption of a Held Workload keeps
	// from the Workloads tried after it, by flavor then resource name, in
	// canonical units (CPU millicores, bytes); nil when it holds none
	// (no ClusterQueues, or a set placing nodes alone).
	HeldQuota []KueueAmount
}

// KueueAmount is an amount of one resource of one ResourceFlavor, in
// canonical units (CPU millicores, bytes, counts).
type KueueAmount struct {
	Flavor   string
	Resource placement.ResourceName
	Amount   int64
}

// AdmitKueueWorkloads admits Kueue Workloads over s as Kueue's
// topology-aware scheduling does, committing each admitted pod set as usage
// per node ([placement.Change].Reserve, no pods), and writes each
// Workload's status back into its object. Workloads are queued by
// spec.priority (higher first), then creationTimestamp, then namespace and
// name.
//
// First the Workloads that hold quota: every one's pods per node are
// reserved as status.admission assigns them, except those on a failed
// node — one that is gone; one whose Ready condition has not been True
// for at least [KueueNodeFailureDelay] before opts.Now, or that lists
// conditions without a Ready one (opts.NotReady); or one tainted NoExecute
// without a toleration: Kueue's unhealthy node, every kind handled alike
// — so that no repair takes room an admitted pod still holds. A node not
// ready for less is not failed yet: its pods stay, but it takes no new
// pod (no replacement, growth or admission), as Kueue's topology snapshot
// leaves out every node that is not ready or is cordoned
// (spec.unschedulable): neither holds capacity in any domain, whatever
// the template tolerates. A node with a NoSchedule or NoExecute taint that
// a set's template does not tolerate holds nothing for that set, as in
// Kueue's TAS (PreferNoSchedule is ignored). Then, in queue order, a
// Workload holding quota whose topology Kueue delayed (a ProvisioningRequest
// check), its checks now all Ready, gets Kueue's second pass with the
// repairs (kueuesecondpass.go), and a pod
// set that lost pods on failed nodes is repaired by
// [topology.Tree.ReplacePodSet] with the set's request and opts.Plan: its
// survivors stay, the slices the lost pods leave incomplete are completed
// inside their own domains (read from the survivors, so a gone node's
// labels are not needed), slices lost whole come back whole anywhere in
// the domain of the required level, as Kueue's node hot swap confines a
// replacement. A pod set whose count no longer matches its admitted count
// is resized in the same step, or alone by [topology.Tree.ResizePodSet]
// (a growth inside the domain of its required level that first completes
// the slices its pods leave incomplete and then adds whole slices, so
// every slice stays in one domain of its level, and with a preferred
// level as near the existing pods as it fits; a shrink that keeps whole
// slices at every layer, emptying the least filled domains first and
// re-picking among its pods when a lost node left a slice incomplete;
// if the growth does not fit, or the admitted pods already break the
// required level or slices, it keeps its pods and waits). A set to
// resize, none of whose nodes failed, with pods on a cordoned node or one
// not ready but not yet failed (a "stale" assignment, naming a node
// Kueue's topology snapshot leaves out) is not resized in place: as
// Kueue v0.17's elastic workloads fall back to a fresh placement, it is
// planned anew for its whole count by [topology.Tree.PlanPodSets],
// growing or shrinking alike, while its admitted pods still hold their
// room (Kueue's old Workload slice keeps its usage until the new one
// replaces it); the new pods then replace them, or, when they do not
// fit, the set keeps its pods and waits. A set sharing a PodSetGroup
// with another is still resized in place, so that it stays in its
// group's domain: such a set names a required or preferred level, which
// Kueue v0.17 refuses for elastic Workloads with TAS, so Kueue has no
// rule for it.
// A set that
// lost pods and whose replacements do not fit, whose admitted pods
// break its request, or that shrinks to more pods than its survivors
// hold in whole slices (Kueue plans an elastic set whose assignment
// names a gone node as new), or whose other pods run on a cordoned node or
// one not ready but not yet failed (Kueue's replacement refuses such a
// "stale" assignment) cannot be repaired: the Workload is evicted
// whole (Evicted True, reason NodeFailures, the message saying why each
// node failed; QuotaReserved False) and queued again. Then the pending Workloads, in queue order, are
// planned with [topology.Tree.PlanPodSets]; those that fit are admitted
// (status.admission with a topologyAssignment per pod set, at the hostname
// level, in rank order; QuotaReserved and Admitted True; a set whose
// topology Kueue's first pass delays, on quota alone, kueuefirstpass.go)
// and the others
// get QuotaReserved False, reason Pending, with the plan's reason. The
// pending ones are tried until none more fits, so that each reason is the
// one of the final state and a second run over the written objects
// changes nothing. Without queues each try admits in queue order, each
// Workload seeing those before it. With queues ([KueueOptions].Queues)
// the pending Workloads are admitted in Kueue's scheduling cycles
// ([admitter.admitInCycles]): one head per ClusterQueue a cycle, each
// planned on the cycle's starting state, taken not borrowing before
// borrowing (by the height of the cohort borrowed from), then by
// priority and creation, each admitted if it still fits beside those the
// cycle admitted before it and the room kept for those before it that
// Kueue would have preempted for but that found no victims; a head that
// does not fit is set aside, or, in
// a StrictFIFO ClusterQueue, stays its head and the Workloads behind it
// wait untried.
//
// Preemption (with queues): a pending Workload that fits no flavor, whose
// ClusterQueue's spec.preemption allows it ([KueuePreemption]), preempts
// the admitted Workloads that Kueue v0.17's classical preemption picks —
// of its own ClusterQueue under withinClusterQueue, of cohort members over
// their nominal quota under reclaimWithinCohort (while it borrows, only
// those of the nearer claim or, under borrowWithinCohort LowerPriority,
// of a lower priority within maxPriorityThreshold); lowest priority and
// newest reservation first, removed until it fits (quota, and topology on
// the nodes they free), then put back from the second last while it still
// fits. The victims are evicted (Evicted True, reason Preempted;
// Preempted True, reason InClusterQueue, InCohortReclamation or
// InCohortReclaimWhileBorrowing, with
// Kueue's message; outcome KueuePreempted) and queued again; as in Kueue,
// the preemptor is not admitted in the pass (with queues, the cycle) that
// evicts them but waits ("Pending the preemption of n workload(s)");
// nothing else is admitted after it in that pass or cycle, and in the
// next, the victims gone and queued again, it is tried again. A preemptor that would preempt the same Workloads again in
// one call (they were admitted again before it: Kueue would cycle) waits
// instead, its reason saying so.
//
// Partial admission (Kueue's PartialAdmission gate, on by default): a
// pending Workload that does not fit whole, one of whose sets has a
// minCount below its count, is tried at the smaller counts of Kueue's
// binary search, within the same flavors with queues, and admitted at the
// last that fit (status.admission counts, topologyAssignment and
// resourceUsage for them; the outcome's message names the sets reduced;
// spec.podSets keep their counts, as Kueue's do while a Job runs the
// admitted count). A sliced set is tried at whole slices of each count the
// search reaches, where Kueue writes the count itself over fewer pods
// placed. Once admitted, such a set keeps its admitted count as its own
// (while it lies from the minCount up to the count): it is kept or
// repaired at that count, never grown back to spec.podSets', as in
// Kueue; evicted, it is searched again from its whole count.
//
// As Kueue v0.17 (its TAS node controller and scheduler), one failed node
// of a Workload is replaced at a time: a Workload whose pods run on two
// failed nodes — failing together, or one while status.unhealthyNodes
// records another — is evicted whole before any repair; the node a
// Workload waits on (opts.WaitForReplacement) is written to
// status.unhealthyNodes, and the field is cleared otherwise (a node
// replaced, or healthy again).
//
// Stopped queues (with queues): before anything is held, a Workload
// holding quota whose LocalQueue or ClusterQueue is stopped is drained as
// Kueue v0.17's workload controller drains it — admitted (Admitted True,
// or its checks all Ready), it is evicted under HoldAndDrain (Evicted and
// Requeued False, reason LocalQueueStopped, else ClusterQueueStopped: the
// ClusterQueue's only while the LocalQueue is not stopped) and runs on
// under Hold; still awaiting checks, its reservation is cancelled
// under either policy or when a queue is missing (QuotaReserved False,
// reason Inadmissible) — and then waits while the queue is held. One
// drained before whose queue runs again gets Requeued True.
//
// Reclaimable pods (status.reclaimablePods, Kueue's ReclaimablePods gate):
// an admitted Workload's quota is its admission's, scaled down to the pods
// not reclaimable, while its nodes hold every admitted pod; a Workload
// holding no quota is planned and admitted at each set's count less its
// reclaimable pods (a set left with none as a set of count 0), as Kueue's
// totalRequestsFromPodSets counts it, and a set admitted so keeps its
// count later.
//
// A pod set of count 0 (KueueWorkload.Zero) places nothing and holds no
// room: it is written with count 0 and a topologyAssignment of levels
// and no slices, as Kueue's TAS writes one; a level its request names
// must still exist. An admitted set scaled to 0 releases its pods (the
// Workload is Resized); one admitted at 0 that now asks for pods grows
// from none as a new set would be planned. A PodSetGroup's phantom leader
// (KueueWorkload.PhantomLeader) holds its node's pod slot for Kueue's
// decisions in the call, and not in the snapshot returned: no pod of it
// is ever made, so kube-scheduler's cycles see the slot free.
//
// tree must be built on s (or a snapshot s derives from) with levels whose
// lowest is kubernetes.io/hostname. A request naming a level the tree
// lacks (the Kueue Topology's levels) leaves its Workload waiting, as
// Kueue's "no requested topology level" does; admitted, with pods to
// replace it is evicted, with a count to change it waits to change it.
// A required or preferred level with no domain on the nodes as they are
// now ([topology.ErrNoDomain]: no node carries its label, e.g. hosts that
// joined unlabelled, or every node of it is gone) is the cluster's state, not an error: a pending Workload
// waits and an admitted one that lost pods is evicted, each with the
// level in its reason. Errors are the plan's or solver's for other bad
// requests, or two nodes of s with one kubernetes.io/hostname value (an
// admission names hosts by it, so it would not say which node), each a
// [*placement.FieldError]; s and the objects are then
// left as they were only in part, and must be discarded.
func AdmitKueueWorkloads(s *placement.Snapshot, tree *topology.Tree, ws []*KueueWorkload, opts KueueOptions) (*placement.Snapshot, []KueueOutcome, error) {
	if len(opts.TASPods) > 0 {
		return admitBesideTASPods(s, tree, ws, opts)
	}
	a := &admitter{s: s, tree: tree, opts: opts, host: map[string]placement.NodeID{}, evictedFor: map[placement.Key]string{}, evictedDetail: map[placement.Key]string{}, preempted: map[placement.Key]string{}, issued: map[string]bool{}, cycleStart: -1}
	if opts.Queues != nil {
		a.opts.Queues = opts.Queues.indexed()
		a.opts.Queues.idx.kueueWords = opts.KueueWords
	}
	outOfTAS := len(opts.NotReady) > 0 // a node Kueue's topology snapshot leaves out
	for id := range placement.NodeID(s.NumNodes()) {
		outOfTAS = outOfTAS || s.Node(id).Unschedulable
		h, ok := s.Node(id).Labels[corev1.LabelHostname]
		if !ok {
			continue
		}
		if prev, dup := a.host[h]; dup {
			return nil, nil, placement.Errorf(placement.ErrDuplicate, manifest.ObjectName("Node", "", s.Node(id).Name), "metadata.labels["+corev1.LabelHostname+"]",
				"%q is node %q's too (Kueue's topology assignments name a host by this label: give each node its own)", h, s.Node(prev).Name)
		}
		a.host[h] = id
	}
	if outOfTAS {
		// The filter keeps plans off them; without such nodes it would
		// only keep the planner from caching its counts.
		a.opts.Plan.Filters = append(slices.Clip(opts.Plan.Filters), outOfTASFilter(opts.NotReady))
	}
	if err := a.initQueues(); err != nil {
		return nil, nil, err
	}
	if tree != nil && aboveHost(opts.TopologyLevels) {
		a.markAppended(tree)
	}
	for _, w := range ws {
		if retryEvicts(w) {
			// Evicted now by its check, Kueue queues it by that time.
			w.Created = opts.Now
		}
	}
	queue := slices.Clone(ws)
	slices.SortStableFunc(queue, func(x, y *KueueWorkload) int {
		return cmp.Or(cmp.Compare(y.Priority, x.Priority), x.Created.Compare(y.Created), x.Key().Compare(y.Key()))
	})
	out := make([]KueueOutcome, len(queue))
	a.queue = queue
	hs := make([]*held, len(queue))
	views, trees := make([]*KueueWorkload, len(queue)), make([]*topology.Tree, len(queue))
	var pending []int
	for i, w := range queue {
		out[i].Workload = w.Key()
		if a.idle(w, &out[i]) {
			continue
		}
		a.restarted(w)
		done, requeue := a.failedChecks(w, &out[i])
		if done {
			continue
		}
		// A stopped queue evicts or un-reserves it before anything is
		// held, so that nothing counts it.
		requeue = requeue || a.drain(w, &out[i])
		if !w.Admitted || requeue {
			queue[i] = w.afterReclaim() // pending: planned without its reclaimable pods
			pending = append(pending, i)
			continue
		}
		v, t, err := a.admittedView(w)
		if err != nil {
			return nil, nil, err
		}
		v = v.asAdmitted() // a set admitted partially keeps its admitted count
		prev := a.tree
		a.tree = t // a set read above the hostname level is spread over it
		h, err := a.hold(v)
		a.tree = prev
		if err != nil {
			return nil, nil, err
		}
		views[i], trees[i], hs[i] = v, t, h
	}
	a.countUsage(queue) // the quota a growth must fit beside
	for _, i := range runningOrder(views, hs) {
		if msg := quotaOnlyResized(views[i]); msg != "" {
			out[i].Action, out[i].Message, out[i].PodSets = KueueGrowWaits, msg, hs[i].survivors
			a.heldChecks(queue[i], &out[i])
			continue
		}
		a.tree = trees[i] // its flavor's Topology's, with queues
		if views[i].needsSecondPass() {
			if err := a.secondPass(views[i], hs[i], &out[i]); err != nil {
				return nil, nil, err
			}
			continue
		}
		requeue, err := a.running(views[i], hs[i], &out[i])
		if err != nil {
			return nil, nil, err
		}
		if requeue {
			a.queue[i] = a.queue[i].afterReclaim()
			pending = append(pending, i)
		} else {
			a.heldChecks(queue[i], &out[i])
		}
	}
	a.tree = tree
	a.countUsage(queue) // after repairs, resizes and evictions
	slices.Sort(pending)
	var err error
	if opts.Queues != nil {
		err = a.admitInCycles(pending, out)
	} else {
		err = a.admitInOrder(pending, out)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := a.secondPassesNow(out); err != nil {
		return nil, nil, err
	}
	if err := a.releaseStuck(out); err != nil {
		return nil, nil, err
	}
	if err := a.releasePhantoms(); err != nil {
		return nil, nil, err
	}
	if err := a.restoreRequests(); err != nil {
		return nil, nil, err
	}
	a.quotaDetails(out)
	for i, w := range queue {
		out[i].Flavors = a.admittedFlavors(w.orig())
		a.unreservedChecks(w)
		if out[i].Action != KueueAdmitted && out[i].Action != KueueReadmitted {
			continue
		}
		awaited := a.awaiting[w.Key()]
		if names := delayedSets(w.Obj); names != "" {
			firstPassOutcome(&out[i], names, awaited)
			continue
		}
		if len(awaited) > 0 {
			out[i].Action, out[i].Message = KueueAwaitingChecks, joinReasons([]string{out[i].Message, checksAwaited(awaited)})
		}
	}
	return a.s, out, nil
}

// admitInOrder admits pending Workloads (indexes in a.queue, sorted)
// without queues: in queue order, each seeing those admitted before it,
// in passes until one admits nothing.
func (a *admitter) admitInOrder(pending []int, out []KueueOutcome) error {
	for more := true; more; {
		more = false
		for _, i := range pending {
			if o := &out[i]; o.Action == KueueAdmitted || o.Action == KueueReadmitted || a.isStuck(a.queue[i]) && !a.retriable(a.queue[i]) {
				continue
			}
			if a.retriable(a.queue[i]) {
				if err := a.unstick(a.queue[i], &out[i]); err != nil {
					return err
				}
			}
			admitted, victims, err := a.pending(a.queue[i], &out[i], out)
			if err != nil {
				return err
			}
			more = more || admitted
			if len(victims) > 0 {
				// As in Kueue, the preemptor waits for the next pass
				// (Kueue's next scheduling cycle), where the victims are
				// gone; nothing else is admitted in this one, as Kueue
				// keeps the room for it.
				pending = mergePending(pending, victims)
				more = true
				break
			}
		}
	}
	return nil
}

// mergePending adds victims to pending, sorted, each once (a victim
// admitted in this call is pending already).
func mergePending(pending, victims []int) []int {
	pending = append(pending, victims...)
	slices.Sort(pending)
	return slices.Compact(pending)
}

// admitter carries the snapshot as reservations change it.
type admitter struct {
	s *placement.Snapshot
	// tracked are the resources of s ([admitter.onHosts]), once asked.
	tracked []placement.ResourceName
	tree    *topology.Tree
	opts    KueueOptions
	host    map[string]placement.NodeID // kubernetes.io/hostname value → node
	// appended are the trees built with kubernetes.io/hostname appended
	// below their Topology's levels ([KueueTreeLevels]): a request may not
	// name that level there.
	appended map[*topology.Tree]bool
	// evictedFor is each evicted Workload's eviction reason, worded (or
	// the cancellation of a reservation, [admitter.drain]): a
	// Workload still pending is planned again in every pass of the
	// admission loop, and its message is that reason and the last try's.
	evictedFor map[placement.Key]string
	// evictedDetail is gangsim's own reason behind an eviction for node
	// failures worded as Kueue words it ([admitter.evict]); it stays in
	// the Workload's outcome Detail once it is queued again.
	evictedDetail map[placement.Key]string
	// trees are each Topology's tree, by name, and used the quota in
	// use; both only with [KueueOptions].Queues.
	trees map[string]*topology.Tree
	used  quotaUsage
	// sums are the cohorts' usage under used, changed with it
	// ([admitter.addUsage], [admitter.usedWithout]).
	sums *cohortSums
	// queue are the Workloads in queue order; preemptions counts the
	// Workloads preempted so far, and preempted words, per preemptor, whom
	// it preempted.
	queue       []*KueueWorkload
	preemptions int
	preempted   map[placement.Key]string
	// issued are the preemptions issued, by preemptor and victims.
	issued map[string]bool
	// holders, while not nil, keeps the Workloads holding quota between
	// status changes ([admitter.quotaHolders]).
	holders *holderCache
	// tasDetails are gangsim's own reasons behind the topology failures
	// worded as Kueue words them, by Workload and Kueue's message
	// ([admitter.kueueTASWorded]).
	tasDetails map[placement.Key]map[string]string
	// reducing says that a partial admission's smaller counts are being
	// tried ([admitter.reduce]): a count that fails is dropped, its
	// reason never said, so it is not worded as Kueue's.
	reducing bool
	// leavesOf are the nodes of Kueue's TAS snapshot per tree and flavor
	// ([admitter.kueueLeaves]).
	leavesOf map[kueueLeavesKey][]placement.NodeID
	// tasKept are the Kueue-worded topology failures of Workloads still
	// pending, kept until something frees room ([admitter.keptTASMessage]).
	tasKept map[placement.Key]tasKept
	// tasDropped are, per Workload, gangsim's reasons for the flavors
	// tried before the last when Kueue's message keeps the last try's
	// alone ([admitter.lastTry]).
	tasDropped map[placement.Key][]string
	// held keeps, per ClusterQueue, the quota its last preemptor's
	// candidates hold ([admitter.candidatesHold]).
	held map[*KueueClusterQueue]*heldCache
	// searched, when set, is the preemption search the scheduling cycle
	// made for a head on the cycle's starting state, which
	// [admitter.tryPreempt] issues instead of searching again: Kueue
	// issues the targets it nominated at the cycle's start, whatever the
	// heads before changed since (see [admitter.admitInCycles]).
	searched *preemptSearch
	// stuck are the pending Workloads, by key, that hold quota
	// and nodes Kueue cannot write an admission for ([admitter.stick]):
	// no longer tried in this run, but for those in assumed.
	stuck map[placement.Key]bool
	// assumed are those of them whose plan Kueue assumes and cannot
	// write ([assumedHold]), tried again once changes counts more:
	// the admissions and preemptions made in this run.
	assumed map[placement.Key]assumedHold
	changes int
	// cycleStart is changes when the scheduling cycle being settled
	// began, whose state its heads were planned on, or -1 outside the
	// cycles, where a plan is settled on the state it was made on.
	cycleStart int
	// nominating, while not nil, keeps what the preemption searches of
	// one scheduling cycle's nominations read of its starting state
	// ([nominationCache]).
	nominating *nominationCache
	// memo, while not nil (the scheduling cycles), keeps each head's
	// nomination with the state it was made on ([nominationMemo]).
	memo *nominationMemo
	// usageEpoch counts the changes [admitter.addUsage] made, and
	// withoutHeld the changes [admitter.without] made and not yet put
	// back: with both as they were, the usage is as it was.
	usageEpoch, withoutHeld int
	// emptied, while not nil, is a.s with every queue Workload's pod
	// sets released, kept while it stands ([emptiedSnapshot]).
	emptied *emptiedSnapshot
	// routes keep [KueueQueues.route]'s result by LocalQueue, as each is
	// first read: within a call it depends on nothing else, and the
	// scheduling cycles route every head again in each cycle.
	routes map[placement.Key]routeResult
	// keyStrings are the queue's namespace/names, by index, as
	// [admitter.keyString] reads them; queueKeys each pending Workload's
	// queue, as [admitter.queueKey] reads it.
	keyStrings []string
	queueKeys  []keptQueueKey
	// awaiting are the admission checks not Ready of each Workload whose
	// quota was reserved in this call ([admitter.afterReservation]).
	awaiting map[placement.Key][]string
}

// hostOf is the hostname label value of node id (its name without one).
func (a *admitter) hostOf(id placement.NodeID) string {
	n := a.s.Node(id)
	if h, ok := n.Labels[corev1.LabelHostname]; ok {
		return h
	}
	return n.Name
}

// held is an admitted Workload's pods as [admitter.hold] reserved them.
type held struct {
	// all are each pod set's admitted pods per node, the failed nodes'
	// included (Node is the node's name, or the hostname value of a gone
	// node), in node order with the gone nodes last.
	all [][]placement.PodSetAssignment
	// survivors are the pods of all on nodes that did not fail, as
	// reserved.
	survivors [][]placement.PodSetAssignment
	// failed names each set's failed nodes as all does; words says why
	// each failed ("b1-r2-h9 (gone)").
	failed, words [][]string
}

// hold reserves the pods of an admitted Workload that still run: those on
// a node that is gone, not ready past Kueue's delay, or tainted NoExecute
// without a toleration, are lost (a failed node, Kueue's unhealthy node:
// every kind goes through one replacement). Every admitted Workload's survivors are held before any
// is resized or repaired, so that no repair takes room an admitted pod
// still uses.
func (a *admitter) hold(w *KueueWorkload) (*held, error) {
	n := len(w.Group.PodSets)
	h := &held{all: make([][]placement.PodSetAssignment, n), survivors: make([][]placement.PodSetAssignment, n),
		failed: make([][]string, n), words: make([][]string, n)}
	for k := range w.Group.PodSets {
		set := &w.Group.PodSets[k]
		var gone []placement.PodSetAssignment
		assigned := w.Assigned[k]
		if set, ok := w.aboveHost[w.Group.PodSets[k].Name]; ok {
			assigned = a.spreadAboveHost(w, k, set) // hosts in turn: each sees the room of those before
		}
		for _, p := range assigned {
			id, ok := a.host[p.Node]
			if !ok {
				gone = append(gone, p)
				continue
			}
			p.Node, p.NodeID = a.s.Node(id).Name, id
			h.all[k] = append(h.all[k], p)
		}
		slices.SortFunc(h.all[k], func(x, y placement.PodSetAssignment) int { return int(x.NodeID) - int(y.NodeID) })
		for _, p := range h.all[k] {
			if nr, ok := a.opts.NotReady[p.Node]; ok {
				if failed, why := nr.FailedAt(a.opts.Now); failed {
					h.failed[k] = append(h.failed[k], p.Node)
					h.words[k] = append(h.words[k], p.Node+" ("+why+")")
					continue
				}
			}
			if noExecute(&set.Template, a.s.Node(p.NodeID)) {
				h.failed[k] = append(h.failed[k], p.Node)
				h.words[k] = append(h.words[k], p.Node+" (tainted NoExecute)")
				continue
			}
			h.survivors[k] = append(h.survivors[k], p)
		}
		for _, p := range gone {
			h.failed[k] = append(h.failed[k], p.Node)
			h.words[k] = append(h.words[k], p.Node+" (gone)")
		}
		h.all[k] = append(h.all[k], gone...)
		if err := a.reserve(w, set.Name, h.survivors[k]); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// reserve adds a set's pods as a reservation.
func (a *admitter) reserve(w *KueueWorkload, set string, pods []placement.PodSetAssignment) error {
	if len(pods) == 0 {
		return nil
	}
	k := w.setIndex(set)
	ch := placement.Change{Reserve: []placement.PodSetUsage{{Group: w.Key(), PodSet: set, Requests: a.onHosts(w.nodeRequests(k)), Nodes: pods}}}
	next, err := a.s.Apply(ch)
	if err != nil {
		return err
	}
	a.moveTo(next, ch)
	return nil
}

// release takes a set's reservation out, if it has one.
func (a *admitter) release(w *KueueWorkload, set string) error {
	if _, ok := a.s.PodSetUsage(w.Key(), set); !ok {
		return nil
	}
	ch := placement.Change{Release: []placement.PodSetRef{{Group: w.Key(), PodSet: set}}}
	next, err := a.s.Apply(ch)
	if err != nil {
		return err
	}
	a.moveTo(next, ch)
	return nil
}

// replace swaps a set's reservation for pods and returns them.
func (a *admitter) replace(w *KueueWorkload, set string, pods []placement.PodSetAssignment) ([]placement.PodSetAssignment, error) {
	if err := a.release(w, set); err != nil {
		return nil, err
	}
	return pods, a.reserve(w, set, pods)
}

// evict releases every reservation of w and writes its eviction for
// node failures: reason is gangsim's own words, kueueMsg Kueue v0.17's
// Evicted message ([nodeFailuresWords], [noReplacementWords]; "" when
// not known), which [KueueOptions].KueueWords writes instead, reason then
// the Detail.
func (a *admitter) evict(w *KueueWorkload, o *KueueOutcome, reason, kueueMsg string) error {
	a.releaseQuota(w)
	for _, set := range w.Group.PodSets {
		if err := a.release(w, set.Name); err != nil {
			return err
		}
	}
	reason = kueueWords(w, reason)
	detail := ""
	if a.opts.KueueWords && kueueMsg != "" {
		reason, detail = kueueMsg, reason
	}
	a.evictedFor[w.Key()], a.evictedDetail[w.Key()] = reason, detail
	o.Action, o.Message, o.Detail, o.PodSets = KueueEvicted, reason, detail, nil
	writeEvicted(w, reason, a.opts.Now)
	return nil
}

// pending plans a Workload that holds no quota and admits it when it
// fits, or, when it does not fit whole and may be admitted partially, at
// the counts of Kueue's search ([admitter.reduce]); it reports whether
// it did. When it does not fit (or fits only at smaller counts) and its
// ClusterQueue's spec.preemption lets it preempt admitted Workloads that
// make room for it whole ([admitter.preempt]),
// it preempts them, writing their outcomes in out, and returns their
// indexes in the queue: it is not admitted in the same pass, as Kueue
// admits a preemptor only in a scheduling cycle after its victims'
// eviction, and waits "Pending the preemption of n workload(s)".
func (a *admitter) pending(w *KueueWorkload, o *KueueOutcome, out []KueueOutcome) (bool, []int, error) {
	ps, err := a.nominate(w)
	if err != nil {
		return false, nil, err
	}
	return a.settle(w, ps, o, out)
}

// nominate plans pending Workload w on the snapshot and quota as they
// stand, changing neither: through its queues when the input has them,
// else over the admitter's tree, at smaller counts when it does not fit
// whole and may be admitted partially.
func (a *admitter) nominate(w *KueueWorkload) (plannedSets, error) {
	var ps plannedSets
	var err error
	if a.opts.Queues == nil && w.resourcesInvalid != "" {
		return plannedSets{plan: waits(w.resourcesInvalid)}, nil
	}
	if a.opts.Queues != nil {
		ps, err = a.planQueued(w)
	} else if ps, err = a.planTree(w); err == nil && ps.plan.Decision.Status != placement.Scheduled && w.canBePartial() {
		if reduced, ok, e := a.reduce(w, a.planTree); e != nil || ok {
			ps, err = reduced, e
		}
	}
	return ps, err
}

// settle admits pending Workload w as nominated plan ps says, or, when
// ps does not fit, preempts for it or leaves it pending with its reason;
// see [admitter.pending].
func (a *admitter) settle(w *KueueWorkload, ps plannedSets, o *KueueOutcome, out []KueueOutcome) (bool, []int, error) {
	var err error
	p := ps.plan
	fits := p.Decision.Status == placement.Scheduled
	var victims []int
	msg := kueueWords(w, p.Decision.Message)
	var partial string // which sets a fitting plan reduces
	if fits {
		partial = partialWords(w, ps.w)
	}
	switch {
	case partial != "":
		// Kueue preempts for the whole Workload before it searches the
		// smaller counts.
		var withVictims string
		if victims, withVictims, err = a.tryPreempt(w, out, ""); err != nil {
			return false, nil, err
		}
		if len(victims) > 0 {
			fits, msg = false, withVictims
		}
	case !fits:
		if victims, msg, err = a.tryPreempt(w, out, msg); err != nil {
			return false, nil, err
		}
	}
	if !fits {
		detail := a.tasDetail(w, msg)
		msg = a.keptTASMessage(w, msg)
		if o.Action != KueueEvicted && o.Action != KueuePreempted {
			// A reservation a stopped queue cancelled ([admitter.drain])
			// is said first.
			o.Action, o.Message = KueuePending, joinReasons([]string{a.evictedFor[w.Key()], msg})
		} else {
			o.Message = joinReasons([]string{a.evictedFor[w.Key()], "queued again: " + msg})
		}
		o.Detail = joinReasons([]string{a.evictedDetail[w.Key()], detail})
		writePending(w, msg, a.opts.Now)
		return false, victims, nil
	}
	if as := ps.plan.KueueAssumed; as != nil {
		held, v, err := a.stick(w, ps, o, kueueWords(w, as.Why), false, as.Refused)
		a.noteAssumed(w, ps)
		return held, v, err
	}
	if why, preferred := a.unwritable(w, ps); why != "" {
		return a.stick(w, ps, o, why, preferred, "")
	}
	if len(ps.group.PodSets) > 0 {
		next, us, err := a.withPlan(ps)
		if err != nil {
			return false, nil, err
		}
		a.moveTo(next, placement.Change{Reserve: us})
	}
	// A set admitted on quota alone has no plan, one whose pods are all
	// reclaimable none either ([KueueWorkload.afterReclaim]).
	planned := map[string][]placement.PodSetAssignment{}
	for _, ps := range p.PodSets {
		for _, r := range ps.Ranks {
			planned[ps.Name] = append(planned[ps.Name], placement.PodSetAssignment{PodSet: ps.Name, Node: r.Node, NodeID: r.NodeID, Count: r.Count})
		}
	}
	o.PodSets = podSetsByName(w.orig(), planned) // the Workload's sets, as the outcome gives them
	if ch := ps.adm.choice; ch != nil {
		partial = joinReasons([]string{partial, borrowWords(ps.adm.cq, a.used[ps.adm.clusterQueue], ch.usage)})
	}
	if a.opts.Plan.KueueLeaderAware && slices.ContainsFunc(ps.requests, func(r topology.PodSetRequest) bool { return r.Group != "" }) {
		// Only a PodSetGroup's leader is planned by other sets' filters.
		partial = joinReasons([]string{partial, refusedLeaderWords(a.s, ps.group, planned, w.isPhantom)})
	}
	partial = joinReasons([]string{a.preempted[w.Key()], partial})
	if o.Action == KueueEvicted || o.Action == KueuePreempted {
		o.Action, o.Message = KueueReadmitted, joinReasons([]string{a.evictedFor[w.Key()], partial})
	} else {
		o.Action, o.Message = KueueAdmitted, partial
	}
	if ch := ps.adm.choice; ch != nil {
		a.addUsage(ps.adm.clusterQueue, ch.usage, 1)
	}
	a.changes++
	writeAdmitted(ps.w, podSetsByName(ps.w, planned), a.hostOf, a.opts.Now, ps.adm)
	a.liftAssignments(ps.w)
	awaited := a.afterReservation(ps.w, ps.adm.cq, true)
	if len(awaited) > 0 {
		// Its outcome says so once admission is over: until then the
		// passes and cycles read it as admitted, which it is for quota.
		if a.awaiting == nil {
			a.awaiting = map[placement.Key][]string{}
		}
		a.awaiting[w.Key()] = awaited
	} else {
		delete(a.awaiting, w.Key())
	}
	return true, nil, nil
}

// tryPreempt preempts for pending Workload w, whose reason to wait is
// msg ("" when it fits at smaller counts), the admitted Workloads that
// make room for its whole count or, with none, for the smaller count
// Kueue's partial admission search ends on ([admitter.preemptFor]),
// unless that would repeat a cycle ([admitter.repeats]); it returns the
// victims' indexes in the queue and msg with what it did.
func (a *admitter) tryPreempt(w *KueueWorkload, out []KueueOutcome, msg string) ([]int, string, error) {
	var targets []preemptTarget
	at := w
	var err error
	if a.searched != nil && a.searched.w == w {
		targets, at = a.searched.targets, a.searched.at // nominated at the cycle's start
	} else {
		targets, _, at, err = a.preemptFor(w)
	}
	if err != nil || len(targets) == 0 {
		return nil, msg, err
	}
	switch words := preemptWords(w, at); {
	case msg != "":
		msg = joinReasons([]string{msg, words})
	case words != "":
		msg = words // it fits at smaller counts without
	default:
		msg = "its whole pod sets fit by preemption"
	}
	if why := a.repeats(w, targets); why != "" {
		return nil, msg + "; " + why, nil
	}
	victims, err := a.issuePreemptions(w, targets, out)
	if err != nil {
		return nil, "", err
	}
	a.changes++
	return victims, msg + fmt.Sprintf(". Pending the preemption of %d workload(s)", len(victims)), nil
}

// planTree plans pending Workload w over the admitter's tree, without
// queues: topology alone decides whether it fits.
func (a *admitter) planTree(w *KueueWorkload) (plannedSets, error) {
	ps := plannedSets{w: w, group: w.Group, requests: w.Requests}
	if w.noSlice != "" {
		// The set placing no slice (count 0) is left out of the plan.
		g := *w.Group
		g.PodSets, ps.requests = nil, nil
		for k, set := range w.Group.PodSets {
			if set.Count > 0 {
				g.PodSets = append(g.PodSets, set)
				ps.requests = append(ps.requests, w.Requests[k])
			}
		}
		ps.group = &g
	}
	var err error
	ps.plan, err = a.plan(a.tree, w, ps.group, ps.requests, w.allRequests())
	a.kueueTASWorded(&ps, w, a.tree, a.opts.Topology, nil, "")
	return ps, err
}

// plan plans pod sets g of requests (of Workload w) over tree, checking first that tree
// has every level of all (theirs and the Workload's sets of count 0). A
// level it lacks, or one without a domain on the nodes as they are now,
// is a plan that does not fit with the reason, as Kueue leaves such a
// Workload waiting.
func (a *admitter) plan(tree *topology.Tree, w *KueueWorkload, g *placement.Group, requests, all []topology.PodSetRequest) (topology.Plan, error) {
	var p topology.Plan
	var err error
	if msg := cmp.Or(a.appendedLevel(tree, all), missingLevels(tree, all)); msg != "" {
		// The Topology lacks a level the Workload names: it waits, as
		// Kueue's does.
		p.Decision = placement.Decision{Status: placement.Unresolvable, Message: a.kueueLayersWorded(tree, all, msg)}
	} else if len(g.PodSets) == 0 {
		// Every set has count 0: nothing to place.
		p.Decision.Status = placement.Scheduled
	} else {
		if a.opts.Plan.KueueLeaderAware {
			// Kueue's profiles: the planner takes Kueue's leader of a
			// group, but for a phantom one, which it must be told of.
			g, requests = kueuePhantomsLast(g, requests, w.isPhantom)
		}
		if lp, ok := a.lowestDomainPlan(tree, g, requests); ok {
			p = lp // kueueabovehost.go
		} else {
			p, err = tree.PlanPodSets(a.s, g, requests, a.planOptions(tree))
		}
		if as := p.KueueAssumed; as != nil {
			// Kueue's TAS calls it a fit: its quota decides, and what it
			// places is held as Kueue assumes it ([admitter.stick]).
			p.Decision, p.PodSets = as.Decision, as.PodSets
		}
	}
	if errors.Is(err, topology.ErrNoDomain) {
		// The nodes, not the Workload, lack the level: it waits for them.
		msg := noDomainWords(err)
		if fe := (*placement.FieldError)(nil); errors.As(err, &fe) {
			msg = fe.Object + ": " + msg
		}
		p, err = topology.Plan{Decision: placement.Decision{Status: placement.Unresolvable, Message: msg}}, nil
	}
	return p, err
}

// noDomainWords says why a pod set's request names a level without a
// domain on the nodes as they are now (err wraps topology.ErrNoDomain),
// e.g. `no domain at the topology level "cloud.provider.com/topology-rack":
// no node carries this label`.
func noDomainWords(err error) string {
	if fe := (*placement.FieldError)(nil); errors.As(err, &fe) {
		return "no domain at the topology level " + fe.Detail
	}
	return err.Error()
}

// kueueWords words a plan's or solver's message for a Workload: the
// pod sets are the Workload's, not a PodGroup's.
func kueueWords(w *KueueWorkload, msg string) string {
	return strings.ReplaceAll(msg, fmt.Sprintf(" of PodGroup %q", w.Key().String()), "")
}

// noExecute reports whether node n has a NoExecute taint that the
// template does not tolerate: its pods are evicted.
func noExecute(tmpl *placement.Pod, n *placement.Node) bool {
	for _, t := range n.Taints {
		if t.Effect != placement.TaintEffectNoExecute {
			continue
		}
		if !slices.ContainsFunc(tmpl.Tolerations, func(tol placement.Toleration) bool { return tol.Tolerates(t) }) {
			return true
		}
	}
	return false
}
