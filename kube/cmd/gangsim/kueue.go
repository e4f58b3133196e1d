package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// KueueResult is one Kueue Workload's admission, as -o json reports it.
type KueueResult struct {
	// Workload is namespace/name.
	Workload string `json:"workload"`
	// Job is namespace/name of the batch/v1 Job the Workload belongs to
	// under Kueue's Job integration (kube.KueueWorkload.Job): the Job it
	// was built for, or that owns it. Empty for none.
	Job string `json:"job,omitempty"`
	// Action is a kube.KueueAction: Admitted, Kept, Resized, GrowWaits,
	// Repaired, ReplacementWaits, Evicted, Preempted, Readmitted,
	// AwaitingChecks, Pending, Inactive or Finished.
	Action  string `json:"action"`
	Message string `json:"message,omitempty"`
	// Detail is gangsim's own explanation behind a message worded as
	// Kueue v0.17 words it (kube.KueueOutcome.Detail): for a topology
	// failure, the level that failed, the best domain and what it holds;
	// for a reason of quota or queue, gangsim's own words on the final
	// state. It is not written into the Workload.
	Detail string `json:"detail,omitempty"`
	// PodSets are the pod sets' pods per node after admission.
	PodSets []KueuePodSet `json:"podSets,omitempty"`
	// PreemptedBy is namespace/name of the Workload whose admission
	// preempted this one (kube.KueueOutcome.PreemptedBy); empty when none.
	PreemptedBy string `json:"preemptedBy,omitempty"`
	// Held says the Workload (its Action Pending, or Evicted or Preempted
	// and queued again) is one Kueue v0.17 assumes and cannot admit
	// (kube.KueueOutcome.Held): it holds its quota and HeldPodSets' nodes
	// from the Workloads tried after it, though nothing is written on it
	// and no pod of it runs.
	Held bool `json:"held,omitempty"`
	// HeldPodSets are the pod sets' pods per node that Kueue's assumption
	// of a Held Workload keeps, sets placing no pod left out. They are not
	// in the summary's allocation requested, only in its held.
	HeldPodSets []KueuePodSet `json:"heldPodSets,omitempty"`
	// HeldQuota is the quota a Held Workload keeps (kube.KueueOutcome.
	// HeldQuota), by flavor then resource, as Kubernetes quantities.
	HeldQuota []KueueQuantity `json:"heldQuota,omitempty"`
	// heldNodes are HeldPodSets with one pod's requests, for the summary.
	heldNodes []placement.PodSetUsage
}

// KueueQuantity is an amount of one resource of one ResourceFlavor.
type KueueQuantity struct {
	Flavor   string `json:"flavor"`
	Resource string `json:"resource"`
	// Quantity is the amount as Kubernetes writes it: "1500m", "2Gi".
	Quantity string `json:"quantity"`
}

// KueuePodSet is where one pod set's pods go, in rank order.
type KueuePodSet struct {
	Name string `json:"name"`
	// Flavor names the ResourceFlavor(s) the set holds quota in; empty
	// without ResourceFlavors in the input.
	Flavor string     `json:"flavor,omitempty"`
	Nodes  []NodePods `json:"nodes"`
	// Phantom says the set is of count 0 and its one pod in Nodes is its
	// PodSetGroup's phantom leader, as Kueue v0.17 writes it
	// (kube.KueueWorkload.PhantomLeader): no quota, no requests held on
	// the node, no pod run.
	Phantom bool `json:"phantom,omitempty"`
}

// NodePods is a count of a pod set's pods on one node.
type NodePods struct {
	Node  string `json:"node"`
	Count int32  `json:"count"`
}

// waits reports whether the Workload is left waiting: not admitted (one
// whose quota is reserved but whose admission checks are not all Ready
// too, and one whose delayed topology Kueue's second pass did not find:
// its pods do not start until it is Admitted), or admitted but unable to
// grow or to replace a failed node.
func (r KueueResult) waits() bool {
	switch kube.KueueAction(r.Action) {
	case kube.KueuePending, kube.KueueEvicted, kube.KueuePreempted, kube.KueueGrowWaits, kube.KueueReplacementWaits, kube.KueueAwaitingChecks, kube.KueueDelayedTopologyWaits:
		return true
	}
	return false
}

// idle reports whether the Workload is one Kueue does not schedule:
// inactive or finished.
func (r KueueResult) idle() bool {
	a := kube.KueueAction(r.Action)
	return a == kube.KueueInactive || a == kube.KueueFinished
}

// admitKueue admits the cluster's Kueue Workloads over its nodes and bound
// pods (kube.AdmitKueueWorkloads), before any scheduling cycle, and leaves
// their usage in c.Snapshot so that the cycles see it. The levels are the
// input's Kueue Topology's (when it has one alone; kubernetes.io/hostname
// appended below a lowest level that is not, kube.KueueTreeLevels), else
// -topology-keys', whose lowest must be kubernetes.io/hostname. With ResourceFlavors,
// ClusterQueues or LocalQueues in the input, each Workload is admitted
// through its queue, its flavors' Topologies and nominal quota.
func admitKueue(c *kube.Cluster, opts options) ([]KueueResult, error) {
	if len(c.KueueWorkloads) == 0 {
		return nil, nil
	}
	levels := c.KueueLevels
	if levels == nil && opts.topologyKeys != "" {
		levels = strings.Split(opts.topologyKeys, ",")
		if levels[len(levels)-1] != corev1.LabelHostname {
			return nil, fmt.Errorf("-topology-keys %q: Kueue Workloads are admitted over levels whose lowest is %s", opts.topologyKeys, corev1.LabelHostname)
		}
	}
	var tree *topology.Tree
	switch {
	case levels != nil:
		var err error
		if tree, err = topology.NewTree(c.Snapshot, kube.KueueTreeLevels(levels)); err != nil {
			return nil, err
		}
	case c.KueueQueues == nil:
		// With ResourceFlavors each flavor names its Topology.
		return nil, errors.New("Kueue Workloads are admitted over one Kueue Topology (kueue.x-k8s.io/v1beta2), or over the Topologies their ResourceFlavors name: give one, ResourceFlavors and ClusterQueues, or -topology-keys ending in " + corev1.LabelHostname)
	}
	// Now is the latest Workload creation or node Ready transition (the
	// epoch when none is later): a time that the objects fix, so that a
	// second run writes the same; the dump was taken no earlier. The
	// conditions written change then, and a not-ready node's time without
	// Ready is measured to it.
	now := epoch
	for _, w := range c.KueueWorkloads {
		if w.Created.After(now) {
			now = w.Created
		}
	}
	for _, nr := range c.NotReady {
		if nr.Since.After(now) {
			now = nr.Since
		}
	}
	plan := opts.kueueProfile.Options()
	plan.NodeAffinityPreferred = opts.kueueNodeAffinityPreferred
	snap, outs, err := kube.AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, kube.KueueOptions{Plan: plan, TASPods: c.KueueTASPods, Now: now, NotReady: c.NotReady, Queues: c.KueueQueues, TopologyLevels: c.KueueLevels, WaitForReplacement: opts.kueueWaitForReplacement,
		KueueWords: opts.kueueProfile != topology.GangschedProfile, Topology: c.KueueTopology})
	if err != nil {
		return nil, c.Locate(err)
	}
	c.Snapshot = snap
	byKey := make(map[placement.Key]*kube.KueueWorkload, len(c.KueueWorkloads))
	for _, w := range c.KueueWorkloads {
		byKey[w.Key()] = w
	}
	var out []KueueResult
	for i, o := range outs {
		r := KueueResult{Workload: o.Workload.String(), Action: string(o.Action), Message: o.Message, Detail: o.Detail}
		if o.PreemptedBy != (placement.Key{}) {
			r.PreemptedBy = o.PreemptedBy.String()
		}
		r.Held, r.heldNodes = o.Held, o.HeldNodes
		for _, q := range o.HeldQuota {
			r.HeldQuota = append(r.HeldQuota, KueueQuantity{Flavor: q.Flavor, Resource: string(q.Resource), Quantity: quantityOf(q.Resource, q.Amount)})
		}
		for _, u := range o.HeldNodes {
			ps := KueuePodSet{Name: u.PodSet, Nodes: []NodePods{}}
			for _, p := range u.Nodes {
				ps.Nodes = append(ps.Nodes, NodePods{Node: p.Node, Count: p.Count})
			}
			r.HeldPodSets = append(r.HeldPodSets, ps)
		}
		w := byKey[o.Workload]
		if w.Job != (placement.Key{}) {
			r.Job = w.Job.String()
		}
		for k, pods := range outs[i].PodSets {
			ps := KueuePodSet{Name: w.Group.PodSets[k].Name, Nodes: []NodePods{}, Phantom: w.PhantomLeader(w.Group.PodSets[k].Name)}
			if o.Flavors != nil {
				ps.Flavor = o.Flavors[k]
			}
			for _, p := range pods {
				ps.Nodes = append(ps.Nodes, NodePods{Node: p.Node, Count: p.Count})
			}
			r.PodSets = append(r.PodSets, ps)
		}
		out = append(out, r)
	}
	return out, nil
}

// writeKueue writes the Kueue Workloads' admissions for -o text, in queue
// order.
func writeKueue(w io.Writer, rs []KueueResult) {
	for _, r := range rs {
		if r.Job != "" {
			fmt.Fprintf(w, "kueue Workload %s (Job %s): %s\n", r.Workload, r.Job, r.Action)
		} else {
			fmt.Fprintf(w, "kueue Workload %s: %s\n", r.Workload, r.Action)
		}
		if r.Message != "" {
			fmt.Fprintf(w, "  %s\n", r.Message)
		}
		if r.Detail != "" {
			fmt.Fprintf(w, "  gangsim: %s\n", r.Detail)
		}
		for _, ps := range r.HeldPodSets {
			var nodes []string
			for _, n := range ps.Nodes {
				nodes = append(nodes, fmt.Sprintf("%s×%d", n.Node, n.Count))
			}
			fmt.Fprintf(w, "  pod set %s held by Kueue's assumption, no pod running: %s\n", ps.Name, list(nodes))
		}
		for _, ps := range r.PodSets {
			var nodes []string
			for _, n := range ps.Nodes {
				nodes = append(nodes, fmt.Sprintf("%s×%d", n.Node, n.Count))
			}
			if ps.Phantom && len(nodes) > 0 {
				nodes[len(nodes)-1] += " (count 0: Kueue's phantom leader, no requests held on its node, no pod run)"
			}
			switch {
			case ps.Flavor == "":
				fmt.Fprintf(w, "  pod set %s: %s\n", ps.Name, list(nodes))
			case len(nodes) == 0:
				fmt.Fprintf(w, "  pod set %s (flavor %s): quota only, no topology\n", ps.Name, ps.Flavor)
			default:
				fmt.Fprintf(w, "  pod set %s (flavor %s): %s\n", ps.Name, ps.Flavor, list(nodes))
			}
		}
	}
}

// kueueProfileOf is the profile Kueue Workloads are planned with: the
// -topology-profile given (not empty), else topology.KueueProfile — a Kueue Workload is
// admitted as Kueue would admit it unless the user asks for another
// planner, where the flag's default, gangsched, is about kube-scheduler's
// groups.
func kueueProfileOf(fs *flag.FlagSet, given topology.Profile) topology.Profile {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "topology-profile" && f.Value.String() != "" })
	if set {
		return given
	}
	return topology.KueueProfile
}

// kueueMultiLayerTopology says whether Kueue Workloads planned with
// profile are read with every slice layer (kube.LoadOptions.
// KueueMultiLayerTopology): under the kueue profiles as
// -kueue-multi-layer-topology (flag) says, Kueue's TASMultiLayerTopology
// gate being off by default; under gangsched always, the layers being
// gangsched's own feature there (as for Jobs' annotations), not Kueue's.
func kueueMultiLayerTopology(profile topology.Profile, flag bool) bool {
	return flag || profile == topology.GangschedProfile
}

// quantityOf writes v of resource r, in canonical units, as Kubernetes
// writes the quantity.
func quantityOf(r placement.ResourceName, v int64) string {
	q := kube.CanonicalQuantity(r, v)
	return q.String()
}
