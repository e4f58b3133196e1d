// Package report writes a what-if run's results as one self-contained HTML
// file: utilisation over time per resource (lines), the queueing-delay CDF
// per group-size bucket (lines, with a percentile table), per-domain
// occupancy over time (a heat map), and a policy comparison (a table and a
// bar chart per metric).
//
// The charts are Apache ECharts charts whose options go-echarts builds; the
// ECharts library (assets/echarts.min.js, with its licences) is inlined, so
// the page fetches nothing. Each chart's options are a JSON document in the
// page (a script element of type application/json with the id
// "<chart>-option"), read by a few lines of script that start ECharts: the
// data can be taken back out of a report, and tests compare it with a
// golden file.
//
// # Usage
//
//	err := report.Write(f, &report.Data{Title: "openb replay", Utilization: ..., Delays: ...})
//
// [Data] is a plain struct, filled by the host (a trace replay, gangsim);
// a section without data is left out of the page. The output depends only
// on Data: the same Data gives byte-identical HTML.
//
// # Cost
//
// Linear in the samples: a report holds every sample in its options
// (about 20 bytes each) besides the 1 MB of ECharts.
package report
