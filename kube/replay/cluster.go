package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// AnnotationExpectedDuration is the pod annotation that gives its expected
// run time, as a Go duration ("90m", "2h30m"); a pod without it runs past
// the end of a replay. A Job's pods take it from the Job's pod template.
const AnnotationExpectedDuration = "gangsched.io/expected-duration"

// rackKeys are the node labels taken as the domains of Result.Domains,
// in order of preference, when a cluster's nodes carry them.
var rackKeys = []string{"topology.kubernetes.io/rack", "cloud.provider.com/topology-rack", "topology.kubernetes.io/block", "topology.kubernetes.io/zone"}

// FromCluster builds a replay's input from a loaded cluster dump: its
// nodes, its bound pods (running since status.startTime) and pending pods
// (arriving at their creationTimestamp), each with the run time of its
// annotation gangsched.io/expected-duration, its PodGroups and CompositePodGroups, claims and
// disruption budgets. Pods held back by scheduling gates take no part.
// Result.Domains reports the nodes' racks (or blocks, or zones).
//
// Errors: an annotation that is not a positive duration, naming the pod (or
// the Job whose template gave it, for a pod the Job controller made)
// and the annotation, located in the input (kube.Cluster.Locate).
func FromCluster(c *kube.Cluster) (Input, error) {
	in := Input{Nodes: c.Nodes, PodGroups: c.PodGroups, CompositePodGroups: c.CompositePodGroups, Claims: c.Ledger, Budgets: c.Budgets}
	add := func(p placement.Pod) error {
		d, err := expectedDuration(c, p.Key())
		if err != nil {
			return c.Locate(err)
		}
		in.Pods = append(in.Pods, Pod{Pod: p, Duration: d})
		return nil
	}
	for p := range c.Snapshot.Pods() {
		if err := add(*p); err != nil {
			return Input{}, err
		}
	}
	for _, p := range c.Pending {
		if err := add(p); err != nil {
			return Input{}, err
		}
	}
	for _, k := range rackKeys {
		if slices.ContainsFunc(c.Nodes, func(n placement.Node) bool { _, ok := n.Labels[k]; return ok }) {
			in.DomainKey = k
			break
		}
	}
	return in, nil
}

// expectedDuration reads pod k's annotation; 0 without one.
func expectedDuration(c *kube.Cluster, k placement.Key) (time.Duration, error) {
	api, ok := c.Pod(k)
	if !ok {
		return 0, nil
	}
	v, ok := api.Annotations[AnnotationExpectedDuration]
	if !ok {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err == nil && d <= 0 {
		err = fmt.Errorf("not positive")
	}
	if err != nil {
		obj, field := madeBy(c, k)
		return 0, placement.Errorf(placement.ErrInvalid, obj, field+"metadata.annotations["+AnnotationExpectedDuration+"]",
			"%q is not a positive duration such as \"90m\" or \"2h30m\" (at most 2562047h)", v)
	}
	return d, nil
}

// madeBy names what a user wrote for pod k: the pod, or, for a pod the Job
// controller made, its Job and the prefix of the template's fields, where
// the annotation came from.
func madeBy(c *kube.Cluster, k placement.Key) (obj, fieldPrefix string) {
	for _, j := range c.Jobs {
		for _, p := range j.Pods {
			if p.Namespace == k.Namespace && p.Name == k.Name {
				return manifest.ObjectName("Job", j.Key.Namespace, j.Key.Name), "spec.template."
			}
		}
	}
	return manifest.ObjectName("Pod", k.Namespace, k.Name), ""
}
