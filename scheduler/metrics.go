package scheduler

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Metrics are the scheduler's Prometheus metrics, all prefixed gangsched_:
//
//   - scheduling_cycle_duration_seconds{result}: a histogram of cycle
//     latency, by decision (Scheduled, Unschedulable, ..., Error);
//   - pod_groups_waiting{reason}: PodGroups with pending members, by queue
//     state (Active, Gated, BackingOff);
//   - bindings_total{result}: pods bound (bound) or whose binding failed
//     (failed);
//   - evictions_total: preemption victims deleted.
type Metrics struct {
	cycle     *prometheus.HistogramVec
	waiting   *prometheus.GaugeVec
	bindings  *prometheus.CounterVec
	evictions prometheus.Counter
}

func newMetrics(r prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		cycle: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "gangsched", Name: "scheduling_cycle_duration_seconds",
			Help:    "Latency of one PodGroup scheduling cycle (solve, preemption search), by result.",
			Buckets: prometheus.ExponentialBuckets(1e-5, 4, 12), // 10 µs to about 40 s
		}, []string{"result"}),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "gangsched", Name: "pod_groups_waiting",
			Help: "PodGroups with pending members, by queue state.",
		}, []string{"reason"}),
		bindings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gangsched", Name: "bindings_total",
			Help: "Pod bindings posted, by result.",
		}, []string{"result"}),
		evictions: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "gangsched", Name: "evictions_total",
			Help: "Preemption victims deleted.",
		}),
	}
	if r != nil {
		for _, c := range []prometheus.Collector{m.cycle, m.waiting, m.bindings, m.evictions} {
			if err := r.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func (m *Metrics) observeCycle(r gang.Result, d time.Duration) {
	result := r.Decision.Status.String()
	if r.Err != nil {
		result = "Error"
	}
	m.cycle.WithLabelValues(result).Observe(d.Seconds())
}

// queueStates are the states counted by pod_groups_waiting.
var queueStates = []gang.QueueState{gang.Active, gang.Gated, gang.BackingOff}

func (m *Metrics) observeQueue(gs *gang.Scheduler, keys []placement.Key) {
	counts := map[gang.QueueState]int{}
	for _, k := range keys {
		if st, ok := gs.Group(k); ok && len(st.Pending) > 0 {
			counts[st.State]++
		}
	}
	for _, q := range queueStates {
		m.waiting.WithLabelValues(q.String()).Set(float64(counts[q]))
	}
}
