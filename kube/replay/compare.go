package replay

// Table is a policy × metric comparison: one row per replay, one value
// per metric, in Metrics' order.
type Table struct {
	Metrics []Metric `json:"metrics"`
	Rows    []Row    `json:"rows"`
}

// Metric names a column of a [Table] and its unit.
type Metric struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
}

// Row is one policy's values.
type Row struct {
	Policy string    `json:"policy"`
	Values []float64 `json:"values"`
}

// Compare tabulates results (one replay per policy, of the same input):
// the mean utilisation of each resource over the samples (equally
// spaced, so a time average), the queueing delay's percentiles, the mean
// and the largest number of stranded GPUs, the pods evicted and the groups
// that never started. Resources are those of the first result.
func Compare(results []*Result) Table {
	var t Table
	if len(results) == 0 {
		return t
	}
	for _, s := range results[0].Utilisation {
		t.Metrics = append(t.Metrics, Metric{Name: "mean utilisation " + s.Name, Unit: "share"})
	}
	t.Metrics = append(t.Metrics,
		Metric{Name: "delay p50", Unit: "s"}, Metric{Name: "delay p90", Unit: "s"}, Metric{Name: "delay p99", Unit: "s"},
		Metric{Name: "mean stranded GPUs", Unit: "GPUs"}, Metric{Name: "max stranded GPUs", Unit: "GPUs"},
		Metric{Name: "pods evicted", Unit: "pods"}, Metric{Name: "groups never started", Unit: "groups"})
	for _, r := range results {
		row := Row{Policy: r.Policy}
		for _, s0 := range results[0].Utilisation {
			v := 0.0
			for _, s := range r.Utilisation {
				if s.Name == s0.Name {
					v = s.Mean()
				}
			}
			row.Values = append(row.Values, v)
		}
		_, maxStranded := r.StrandedGPUs.Range()
		row.Values = append(row.Values, r.Delay.P50, r.Delay.P90, r.Delay.P99,
			r.StrandedGPUs.Mean(), maxStranded, float64(r.PodsEvicted), float64(r.GroupsWaiting))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Mean is the mean of the series' sample values; 0 without samples.
func (s Series) Mean() float64 {
	if len(s.Samples) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range s.Samples {
		sum += x.Value
	}
	return sum / float64(len(s.Samples))
}

// Range is the least and the greatest sample value; 0, 0 without samples.
func (s Series) Range() (lo, hi float64) {
	for i, x := range s.Samples {
		if i == 0 || x.Value < lo {
			lo = x.Value
		}
		if i == 0 || x.Value > hi {
			hi = x.Value
		}
	}
	return lo, hi
}
