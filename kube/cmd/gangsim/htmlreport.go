package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/kube/report"
)

// reportData adapts the replays of one trace, one per policy, to the data
// of an HTML report (package report), with the replay's units turned into
// the report's:
//
//   - Utilization: per policy and resource, the series "<policy> <resource>"
//     (from replay.Result.Utilisation), each share 0–1 as a percentage and
//     each sample time as the offset from that replay's Start;
//   - Delays: per policy and group-size bucket, "<policy>: groups of <label>",
//     seconds as durations, and the groups that never started;
//   - Occupancy: the first policy's domains (replay.Result.Domains), as
//     percentages, at the first domain's sample offsets (all domains of a
//     replay are sampled at the same times);
//   - Policies: [replay.Compare] of the results, its shares ("share"
//     units) as percentages ("%"); the other units are kept.
//
// Values that are not finite become 0 (the report refuses them; a replay
// produces none). The order is the results' order, then the replay's.
func reportData(title string, results []*replay.Result) report.Data {
	d := report.Data{Title: title}
	pct := func(v float64) float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return 100 * v
	}
	for _, r := range results {
		for _, s := range r.Utilisation {
			rs := report.Series{Name: r.Policy + " " + s.Name, Points: make([]report.Point, len(s.Samples))}
			for i, x := range s.Samples {
				rs.Points[i] = report.Point{At: x.At.Sub(r.Start), Value: pct(x.Value)}
			}
			d.Utilization = append(d.Utilization, rs)
		}
		for _, b := range r.Delays {
			rb := report.DelayBucket{Name: fmt.Sprintf("%s: groups of %s", r.Policy, b.Label), Waiting: b.Waiting, Delays: make([]time.Duration, len(b.Seconds))}
			for i, s := range b.Seconds {
				rb.Delays[i] = time.Duration(math.Round(s * float64(time.Second)))
			}
			d.Delays = append(d.Delays, rb)
		}
	}
	if len(results) > 0 && len(results[0].Domains) > 0 {
		r := results[0]
		d.Occupancy.Key = r.Domains[0].Key
		for _, x := range r.Domains[0].Samples {
			d.Occupancy.Times = append(d.Occupancy.Times, x.At.Sub(r.Start))
		}
		for _, ds := range r.Domains {
			row := report.DomainRow{Domain: ds.Domain, Percent: make([]float64, len(d.Occupancy.Times))}
			for i := range row.Percent {
				if i < len(ds.Samples) {
					row.Percent[i] = pct(ds.Samples[i].Value)
				}
			}
			d.Occupancy.Rows = append(d.Occupancy.Rows, row)
		}
	}
	if len(results) > 1 {
		t := replay.Compare(results)
		share := make([]bool, len(t.Metrics))
		for i, m := range t.Metrics {
			unit := m.Unit
			if share[i] = unit == "share"; share[i] {
				unit = "%"
			}
			d.Policies.Metrics = append(d.Policies.Metrics, report.Metric{Name: m.Name, Unit: unit})
		}
		for _, row := range t.Rows {
			pr := report.PolicyRow{Policy: row.Policy, Values: make([]float64, len(row.Values))}
			for i, v := range row.Values {
				if share[i] {
					v = pct(v)
				} else if math.IsNaN(v) || math.IsInf(v, 0) {
					v = 0
				}
				pr.Values[i] = v
			}
			d.Policies.Rows = append(d.Policies.Rows, pr)
		}
	}
	return d
}

// writeReport writes the HTML report of results to path.
func writeReport(path, title string, results []*replay.Result) error {
	d := reportData(title, results)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	if err := report.Write(f, &d); err != nil {
		f.Close()
		return fmt.Errorf("-report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	return nil
}
