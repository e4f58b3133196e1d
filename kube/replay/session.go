package replay

import (
	"fmt"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// Session is the state a [Policy] keeps across one replay, for a policy
// whose choice depends on more than the snapshot a cycle solves on — the
// FGD paper's policies ([gpuSharePolicies]) follow every GPU device's free
// share, which the snapshot pools per node. Run makes one Session per
// replay with [Policy.Start] and then tells it, in the replay's order
// (which does not depend on the input's order):
//
//   - Bound, for each pod running before the replay (in namespace/name
//     order) and each pod a cycle binds (in the cycle's order), with the
//     node and the node's free CPU in millicores just before that pod;
//   - Ended, for each pod that ends or is evicted, after it left the
//     snapshot;
//   - Configure, for each cycle's solve, after [Policy.Configure].
//
// Any hook may be nil. An error from Bound or Ended stops the replay: Run
// returns it, naming the simulated time.
type Session struct {
	// Configure returns the options a solve runs with, as Policy.Configure.
	Configure func(placement.Options) placement.Options
	// Bound records that pod now runs on node, which had cpuFree
	// millicores free before it.
	Bound func(pod *placement.Pod, node string, cpuFree int64) error
	// Ended records that pod no longer runs.
	Ended func(pod placement.Key) error
}

// startSession asks the policy for its session and tells it of the pods
// bound before the replay (bound, in key order, on snapshot s).
func (e *engine) startSession(in Input, bound []placement.Pod, s *placement.Snapshot) error {
	if e.opts.Policy.Start == nil {
		return nil
	}
	ss, err := e.opts.Policy.Start(in)
	if err != nil {
		return fmt.Errorf("replay: policy %s: %w", e.opts.Policy.Name, err)
	}
	e.session = ss
	if ss == nil || ss.Bound == nil {
		return nil
	}
	err = ss.tellBound(bound, func(node string) int64 {
		id, _ := s.NodeID(node)
		return s.Allocatable(id, placement.ResourceCPU) // tellBound takes off the pods told before
	})
	if err != nil {
		return fmt.Errorf("replay: policy %s: %w", e.opts.Policy.Name, err)
	}
	return nil
}

// sessionBound tells the session of a cycle's binds; before is the
// snapshot the cycle started from (after any evictions).
func (e *engine) sessionBound(before *placement.Snapshot, binds []placement.Pod) error {
	if e.session == nil || e.session.Bound == nil {
		return nil
	}
	err := e.session.tellBound(binds, func(node string) int64 {
		id, _ := before.NodeID(node)
		return before.Free(id, placement.ResourceCPU)
	})
	if err != nil {
		return fmt.Errorf("replay at %s: policy %s: %w", e.now.Format(time.RFC3339), e.opts.Policy.Name, err)
	}
	return nil
}

// tellBound calls ss.Bound for each of pods in order, with the CPU its
// node had free before it: free(node) less the pods told before it.
func (ss *Session) tellBound(pods []placement.Pod, free func(node string) int64) error {
	used := map[string]int64{}
	for i := range pods {
		p := &pods[i]
		if err := ss.Bound(p, p.NodeName, free(p.NodeName)-used[p.NodeName]); err != nil {
			return err
		}
		used[p.NodeName] += p.Requests[placement.ResourceCPU]
	}
	return nil
}

// sessionEnded tells the session that the pods ks no longer run.
func (e *engine) sessionEnded(ks []placement.Key) error {
	if e.session == nil || e.session.Ended == nil {
		return nil
	}
	for _, k := range ks {
		if err := e.session.Ended(k); err != nil {
			return fmt.Errorf("replay at %s: policy %s: %w", e.now.Format(time.RFC3339), e.opts.Policy.Name, err)
		}
	}
	return nil
}
