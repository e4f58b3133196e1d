package kube

import "slices"

// Kueue's second pass for a Workload its first pass reserved in this run
// whose admission checks were all Ready already (listed so while it was
// pending): Kueue queues the second pass as soon as the reservation is
// written and runs it a second later, in a scheduling cycle of its own
// after the cycles that admitted the pending Workloads (recorded on the
// real Kueue in kueue-oracle/preemption/fp6: the Workload's topology was
// planned in the same run). gangsim runs it once every pending Workload
// was tried, in queue order, so that one run reaches what Kueue reaches
// and its output is a fixed point.

// secondPassesNow runs Kueue's second pass for each Workload of a.queue
// reserved in this call (out, in a.queue's order, Admitted or Readmitted)
// with a set whose topology the first pass delayed and no check awaited,
// as [admitter.secondPass] does for a Workload read so, and words its
// outcome after the first pass's. A Workload of a ClusterQueue with a
// MultiKueue check is left to [firstPassOutcome]: Kueue delays its
// topology again for the worker cluster. Errors are the plan's.
func (a *admitter) secondPassesNow(out []KueueOutcome) error {
	if a.opts.Queues == nil {
		return nil
	}
	prev := a.tree
	defer func() { a.tree = prev }()
	for i, w := range a.queue {
		o := &out[i]
		names := delayedSets(w.Obj)
		if o.Action != KueueAdmitted && o.Action != KueueReadmitted || names == "" || len(a.awaiting[w.Key()]) > 0 || a.multiKueueCheck(w) != "" {
			continue
		}
		v, err := reserved(w.orig())
		if err != nil {
			return err
		}
		view, tree, err := a.admittedView(v)
		if err != nil {
			return err
		}
		view = view.asAdmitted()
		// Its other sets' pods were reserved when it was admitted: held
		// as they are, not reserved again.
		h := &held{survivors: slices.Clone(o.PodSets)}
		a.tree = tree
		second := KueueOutcome{Workload: o.Workload}
		if err := a.secondPass(view, h, &second); err != nil {
			return err
		}
		o.PodSets = second.PodSets
		o.Message = joinReasons([]string{o.Message, firstPassWords(names), second.Message})
		if second.Action != KueueAdmitted {
			o.Action = second.Action
		}
	}
	return nil
}

// reserved is Workload w as read with the admission its status now holds
// (written in this call): a copy whose admitted pods, counts and delayed
// sets come from status.admission, as [KueueWorkload.readAdmission] reads
// a Workload admitted before the run. w is not changed.
func reserved(w *KueueWorkload) (*KueueWorkload, error) {
	v := *w
	v.Zero = slices.Clone(w.Zero)
	index := make(map[string]int, len(w.Obj.Spec.PodSets))
	for j, ps := range w.Obj.Spec.PodSets {
		index[string(ps.Name)] = j
	}
	if err := v.readAdmission(kueueWorkloadObj(w.Obj.Namespace, w.Obj.Name), index); err != nil {
		return nil, err
	}
	return &v, nil
}
