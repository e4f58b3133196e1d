package trace

import (
	"fmt"
	"math"
	"time"

	"github.com/gangsched/gangsched/kube/replay"
)

// SpeedUp makes a trace's pods arrive factor times as fast, keeping their
// durations: arrival offsets from from are divided by factor, so the
// arrival rate grows factor times. (openb's load does not grow as much: a
// few pods run for months and most for minutes, so at 400 times its
// arrival rate its GPUs peak at 8% busy, from under 1%.) Running pods are
// left as they are. It changes in's pods in place.
//
// Errors: a factor that is not a finite number of at least 1.
func SpeedUp(in *replay.Input, from time.Time, factor float64) error {
	if !(factor >= 1) || math.IsInf(factor, 0) {
		return fmt.Errorf("trace: speed-up %v: want a finite factor of at least 1", factor)
	}
	for i := range in.Pods {
		p := &in.Pods[i]
		if p.NodeName != "" || p.QueuedAt.Before(from) {
			continue
		}
		p.QueuedAt = from.Add(time.Duration(float64(p.QueuedAt.Sub(from)) / factor).Round(time.Second))
	}
	return nil
}
