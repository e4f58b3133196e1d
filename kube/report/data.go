package report

import (
	"fmt"
	"math"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// Data is what a report shows. Every section is optional: one without data
// is left out. Lists keep the order given (it is the order of legends, rows
// and bars), so a host that wants a canonical order sorts them first.
type Data struct {
	// Title heads the page, e.g. "openb trace, 1,523 nodes".
	Title string
	// Utilization is one line per resource: the share of the cluster's
	// allocatable that bound pods request, over time.
	Utilization []Series
	// Delays are the queueing delays of groups, one CDF line per bucket of
	// group size.
	Delays []DelayBucket
	// Occupancy is the heat map of domains × sample times.
	Occupancy Occupancy
	// Policies is the policy × metric comparison.
	Policies Comparison
}

// Series is one line of samples, e.g. the GPUs allocated over a replay.
type Series struct {
	// Name is the legend entry, e.g. "nvidia.com/gpu"; unique in its list.
	Name string
	// Points are the samples in ascending At (equal At allowed: a step).
	Points []Point
}

// Point is one sample.
type Point struct {
	// At is the simulated time since the start of the run.
	At time.Duration
	// Value is, for Utilization, the percentage of allocatable requested
	// (0–100, finite).
	Value float64
}

// DelayBucket holds the queueing delays of the groups of one size range.
type DelayBucket struct {
	// Name is the bucket's legend entry, e.g. "1 pod", "2–8 pods"; unique.
	Name string
	// Delays are, per group that started, the time from its arrival (its
	// first member's creationTimestamp) to its start (the cycle that bound
	// its members), in any order; none negative.
	Delays []time.Duration
	// Waiting counts the groups of the bucket that never started; not
	// negative. They count among the CDF's groups, so its line ends below
	// 100% by their share, and in the table's "never started".
	Waiting int
}

// Occupancy is how full each domain of one topology level is over time.
type Occupancy struct {
	// Key is the topology key of the domains, e.g.
	// "topology.kubernetes.io/rack", shown in the section's heading.
	Key string
	// Times are the sample times, ascending; one column each.
	Times []time.Duration
	// Rows are the domains, one row each, in the order given (the replay's
	// domain path order, say).
	Rows []DomainRow
}

// DomainRow is one domain's occupancy.
type DomainRow struct {
	// Domain is the domain's path (topology.Domain.Path); unique.
	Domain string
	// Percent holds, per entry of Occupancy.Times, the percentage (0–100)
	// of the domain's allocatable that bound pods request, of the resource
	// the host chose (GPUs, for a GPU cluster).
	Percent []float64
}

// Comparison is a table of policies by metrics, e.g. the scorers of a
// replay by GPUs left unallocated and queueing delay.
type Comparison struct {
	// Metrics are the columns.
	Metrics []Metric
	// Rows are the policies, one row each.
	Rows []PolicyRow
}

// Metric is one column of a [Comparison].
type Metric struct {
	// Name is the column head, e.g. "GPUs unallocated"; unique.
	Name string
	// Unit follows the name in the head and names the bar chart's axis,
	// e.g. "GPUs", "%", "s"; may be empty.
	Unit string
}

// PolicyRow is one policy's figures.
type PolicyRow struct {
	// Policy names the policy, e.g. "MostAllocated"; unique.
	Policy string
	// Values hold one finite figure per metric, in Metrics' order.
	Values []float64
}

// validate reports the first thing wrong with d, naming the field.
func (d *Data) validate() error {
	if err := unique("Utilization", "Name", d.Utilization, func(s Series) string { return s.Name }); err != nil {
		return err
	}
	for i, s := range d.Utilization {
		for j, p := range s.Points {
			f := fmt.Sprintf("Utilization[%d].Points[%d]", i, j)
			if j > 0 && p.At < s.Points[j-1].At {
				return bad(f+".At", "%v is before the sample before it (%v): samples must be in time order", p.At, s.Points[j-1].At)
			}
			if err := finite(f+".Value", p.Value); err != nil {
				return err
			}
		}
	}
	if err := unique("Delays", "Name", d.Delays, func(b DelayBucket) string { return b.Name }); err != nil {
		return err
	}
	for i, b := range d.Delays {
		f := fmt.Sprintf("Delays[%d]", i)
		if b.Waiting < 0 {
			return bad(f+".Waiting", "%d is negative", b.Waiting)
		}
		for j, v := range b.Delays {
			if v < 0 {
				return bad(fmt.Sprintf("%s.Delays[%d]", f, j), "%v is negative", v)
			}
		}
	}
	o := &d.Occupancy
	for j := 1; j < len(o.Times); j++ {
		if o.Times[j] < o.Times[j-1] {
			return bad(fmt.Sprintf("Occupancy.Times[%d]", j), "%v is before the time before it (%v)", o.Times[j], o.Times[j-1])
		}
	}
	if err := unique("Occupancy.Rows", "Domain", o.Rows, func(r DomainRow) string { return r.Domain }); err != nil {
		return err
	}
	for i, r := range o.Rows {
		if err := tableRow(fmt.Sprintf("Occupancy.Rows[%d].Percent", i), r.Percent, len(o.Times), "times"); err != nil {
			return err
		}
	}
	c := &d.Policies
	if err := unique("Policies.Metrics", "Name", c.Metrics, func(m Metric) string { return m.Name }); err != nil {
		return err
	}
	if err := unique("Policies.Rows", "Policy", c.Rows, func(r PolicyRow) string { return r.Policy }); err != nil {
		return err
	}
	for i, r := range c.Rows {
		if err := tableRow(fmt.Sprintf("Policies.Rows[%d].Values", i), r.Values, len(c.Metrics), "metrics"); err != nil {
			return err
		}
	}
	return nil
}

func bad(field, format string, args ...any) error {
	return placement.Errorf(placement.ErrInvalid, "report", field, format, args...)
}

func finite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return bad(field, "must be finite, got %v", v)
	}
	return nil
}

// unique reports the first item of list whose key an earlier item has,
// naming it list[i].keyField.
func unique[T any](list, keyField string, items []T, key func(T) string) error {
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		k := key(item)
		if seen[k] {
			return bad(fmt.Sprintf("%s[%d].%s", list, i, keyField), "%q appears twice", k)
		}
		seen[k] = true
	}
	return nil
}

// tableRow checks that a row of a table holds one finite value per column.
func tableRow(field string, values []float64, columns int, what string) error {
	if len(values) != columns {
		return bad(field, "has %d values for %d %s", len(values), columns, what)
	}
	for j, v := range values {
		if err := finite(fmt.Sprintf("%s[%d]", field, j), v); err != nil {
			return err
		}
	}
	return nil
}
