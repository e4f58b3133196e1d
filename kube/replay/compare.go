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
					v = mean(s.Samples)
				}
			}
			row.Values = append(row.Values, v)
		}
		maxStranded := 0.0
		for _, s := range r.StrandedGPUs.Samples {
			maxStranded = max(maxStranded, s.Value)
		}
		row.Values = append(row.Values, r.Delay.P50, r.Delay.P90, r.Delay.P99,
			mean(r.StrandedGPUs.Samples), maxStranded, float64(r.PodsEvicted), float64(r.GroupsWaiting))
		t.Rows = append(t.Rows, row)
	}
	return t
}

func mean(ss []Sample) float64 {
	if len(ss) == 0 {
		return 0
	}
	sum := 0.0
	for _, s := range ss {
		sum += s.Value
	}
	return sum / float64(len(ss))
}
