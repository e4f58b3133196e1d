package preemption_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// oracleFreeable is what a CannotHelp plan's MostFreeable must say, by
// brute force: for each resource the members request (and the pod count),
// the node of the decision's placement (every node when it names none)
// where free room plus the requests of every candidate's pods there is
// the most, the first such node in the placement's order; nodes without a
// pod limit are not read for the pod count.
func (w *world) oracleFreeable(s *placement.Snapshot, d placement.Decision) []preemption.Freeable {
	nodes := d.Placement.Nodes
	if len(nodes) == 0 {
		for id := range placement.NodeID(s.NumNodes()) {
			nodes = append(nodes, id)
		}
	}
	units := w.units()
	var out []preemption.Freeable
	for _, name := range s.Resources() {
		var request int64
		for _, m := range w.group.Members {
			request = max(request, m.Requests[name])
		}
		if name == placement.ResourcePods {
			request = 1
		} else if request == 0 {
			continue
		}
		var best *preemption.Freeable
		for _, id := range nodes {
			if name == placement.ResourcePods && s.Allocatable(id, name) == math.MaxInt64 {
				continue
			}
			fr := preemption.Freeable{Resource: name, Node: s.Node(id).Name, Free: s.Free(id, name), Request: request}
			for _, u := range units {
				for _, p := range u.pods {
					if p.NodeName == fr.Node {
						if name == placement.ResourcePods {
							fr.Freed++
						} else {
							fr.Freed += p.Requests[name]
						}
					}
				}
			}
			if best == nil || fr.Free+fr.Freed > best.Free+best.Freed {
				best = &fr
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	return out
}

// A plan that cannot help says, per resource, the most a node of its
// placement could offer with every candidate gone, as a brute-force count
// of the world's candidates says.
func TestProp_MostFreeableIsTheMost(t *testing.T) {
	seen := 0
	rapid.Check(t, func(t *rapid.T) {
		w := worldGen.Draw(t, "world")
		s := w.snapshot(t)
		plan, err := preemption.Find(s, &w.group, w.in, w.opts())
		require.NoError(t, err)
		if plan.Outcome != preemption.CannotHelp {
			return
		}
		seen++
		require.Equal(t, w.oracleFreeable(s, plan.Decision), plan.MostFreeable)
	})
	require.Positive(t, seen, "no plan could not help")
}
