package fragment

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// Tracker keeps [Devices] in step with a host's bindings under one
// policy: the host tells it what bound and what ended, it remembers each
// pod's devices, and it hands each solve a fresh [Plugin]. It is the
// host's state (a simulator's or a scheduler's), not safe for concurrent
// use.
type Tracker struct {
	d      *Devices
	p      Policy
	pl     *Plugin
	allocs map[placement.Key]Allocation
}

// NewTracker returns a tracker of devices d under policy p.
func NewTracker(d *Devices, p Policy) *Tracker {
	return &Tracker{d: d, p: p, pl: NewPlugin(d, p), allocs: map[placement.Key]Allocation{}}
}

// Devices returns the tracked devices (read them, do not change them).
func (t *Tracker) Devices() *Devices { return t.d }

// Configure returns o with the policy's Reserver added and its node
// scorer set, for one solve.
func (t *Tracker) Configure(o placement.Options) placement.Options {
	o.Reservers = append(slices.Clip(o.Reservers), t.pl.NewReserver)
	o.NodeScorer = t.pl
	return o
}

// Bound books the devices of pod, just bound to node, which had cpuFree
// millicores free before it. Errors: those of [RequestOf] and
// [Devices.Allocate], or a pod already bound.
func (t *Tracker) Bound(pod *placement.Pod, node string, cpuFree int64) error {
	k := pod.Key()
	if _, dup := t.allocs[k]; dup {
		return fmt.Errorf("fragment: pod %q: bound twice", k.String())
	}
	r, err := RequestOf(pod)
	if err != nil {
		return err
	}
	a, err := t.d.Allocate(k.String(), r, node, cpuFree, t.p)
	if err != nil {
		return err
	}
	t.allocs[k] = a
	return nil
}

// Ended gives back the devices of pod, which ended or was evicted; a pod
// the tracker never saw bound is ignored.
func (t *Tracker) Ended(pod placement.Key) error {
	a, ok := t.allocs[pod]
	if !ok {
		return nil
	}
	delete(t.allocs, pod)
	return t.d.Release(a)
}

// Fragmentation sums, over the nodes of s that the devices know, the
// expected unusable GPU milli under w ([Workload.Expected], each node with
// its free CPU in s) and the idle GPU milli: the paper's fragmentation
// amount and the denominator of its fragmentation ratio (§6.2, Fig. 7).
func (t *Tracker) Fragmentation(s *placement.Snapshot, w *Workload) (frag float64, idle int64) {
	names := slices.Sorted(maps.Keys(t.d.index))
	for _, name := range names {
		id, ok := s.NodeID(name)
		if !ok {
			continue
		}
		i := t.d.index[name]
		n := NodeState{Name: name, CPUFree: s.Free(id, placement.ResourceCPU), Model: t.d.model[i], Free: t.d.devices(i)}
		frag += w.Expected(&n)
		idle += n.freeTotal()
	}
	return frag, idle
}
