package report

import "time"

// sample is a small report with every section: two resources over three
// hours, delays of single pods and of gangs, two racks, two policies.
func sample() *Data {
	h := time.Hour
	return &Data{
		Title: "sample replay",
		Utilization: []Series{
			{Name: "nvidia.com/gpu", Points: []Point{{0, 0}, {h, 50}, {2 * h, 87.5}, {3 * h, 25}}},
			{Name: "cpu", Points: []Point{{0, 0}, {h, 12.5}, {2 * h, 30}, {3 * h, 10}}},
		},
		Delays: []DelayBucket{
			{Name: "1 pod", Delays: []time.Duration{10 * time.Second, 0, 2 * time.Minute, 10 * time.Second}},
			{Name: "2–8 pods", Delays: []time.Duration{5 * time.Minute, 30 * time.Second}, Waiting: 2},
			{Name: "9+ pods", Waiting: 1},
		},
		Occupancy: Occupancy{
			Key:   "topology.kubernetes.io/rack",
			Times: []time.Duration{0, h, 2 * h, 3 * h},
			Rows: []DomainRow{
				{Domain: "b1/r1", Percent: []float64{0, 100, 100, 50}},
				{Domain: "b1/r2", Percent: []float64{0, 0, 75, 0}},
			},
		},
		Policies: Comparison{
			Metrics: []Metric{{Name: "GPUs unallocated", Unit: "GPUs"}, {Name: "mean delay", Unit: "s"}},
			Rows: []PolicyRow{
				{Policy: "MostAllocated", Values: []float64{290, 41.5}},
				{Policy: "BestFit", Values: []float64{312, 38.25}},
			},
		},
	}
}
