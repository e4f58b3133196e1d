package main

import (
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// solveOptions gives each PodGroup's cycle the cluster's filters.
func solveOptions(c *kube.Cluster) gang.SolveOptionsFunc {
	return func(pg *gang.PodGroup) (placement.Options, error) {
		var opts placement.Options
		if c.NodeAffinity != nil {
			opts.Filters = append(opts.Filters, c.NodeAffinity)
		}
		if len(pg.Spec.SchedulingConstraints.Topology) > 0 {
			return placement.Options{}, placement.Errorf(kube.ErrUnsupported, "PodGroup "+pg.Key().String(), "spec.schedulingConstraints.topology", "topology constraints need package topology, which this build lacks")
		}
		return opts, nil
	}
}
