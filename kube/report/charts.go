package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// chart is one chart of the page: its container's id and height, and its
// ECharts options as HTML-safe JSON.
type chart struct {
	ID     string
	Height int
	Option template.JS
}

// optioned is what go-echarts' charts share: defaults filled in by
// Validate, then the options as JSON.
type optioned interface {
	Validate()
	JSONNotEscaped() template.HTML
}

// newChart turns a go-echarts chart into the page's form. go-echarts writes
// its options without HTML escaping; decoding and encoding them again
// escapes <, > and & (a domain named "</script>" stays data) and orders
// every object's keys, so the same chart always gives the same bytes.
func newChart(id string, height int, c optioned) (chart, error) {
	c.Validate()
	var v any
	if err := json.Unmarshal([]byte(c.JSONNotEscaped()), &v); err != nil {
		return chart{}, fmt.Errorf("report: chart %s: go-echarts wrote options that are not JSON: %w", id, err)
	}
	drawAtOnce(v)
	b, err := json.Marshal(v)
	if err != nil {
		return chart{}, fmt.Errorf("report: chart %s: %w", id, err)
	}
	return chart{ID: id, Height: height, Option: template.JS(b)}, nil
}

// drawAtOnce turns off ECharts' progressive rendering in every series of
// options v: above 3,000 cells a heat map is otherwise drawn a few hundred
// cells per frame, so a page printed or captured right after it loads
// (a headless browser's screenshot) shows the lower domains empty.
// go-echarts sets progressive only at the top level, where ECharts does
// not read it.
func drawAtOnce(v any) {
	o, _ := v.(map[string]any)
	series, _ := o["series"].([]any)
	for _, s := range series {
		if m, ok := s.(map[string]any); ok {
			m["progressive"] = 0
		}
	}
}

// timeUnit is the unit a time axis is drawn in: the largest of s, min, h
// and d in which the axis's span stays above 2.
type timeUnit struct {
	name string
	d    time.Duration
}

func unitFor(span time.Duration) timeUnit {
	switch {
	case span <= 2*time.Minute:
		return timeUnit{"s", time.Second}
	case span <= 2*time.Hour:
		return timeUnit{"min", time.Minute}
	case span <= 48*time.Hour:
		return timeUnit{"h", time.Hour}
	}
	return timeUnit{"d", 24 * time.Hour}
}

// of returns d in the unit, to three decimals.
func (u timeUnit) of(d time.Duration) float64 { return round3(float64(d) / float64(u.d)) }

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func lineChart(id, xName, yName string) *charts.Line {
	l := charts.NewLine()
	l.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: id}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0"}),
		// Axis names sit along their axes, outside the labels, where the
		// grid's margins leave them room.
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "40", Right: "30", Bottom: "40"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: xName, NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: yName, NameLocation: "middle", NameGap: 40, Min: 0, Max: 100}),
	)
	return l
}

// stepLine is a series drawn as steps that change at each sample, as
// allocation does at each event.
var stepLine = charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Step: "end"})

// utilizationChart draws one line per resource.
func utilizationChart(series []Series) (chart, error) {
	var span time.Duration
	for _, s := range series {
		if n := len(s.Points); n > 0 {
			span = max(span, s.Points[n-1].At)
		}
	}
	u := unitFor(span)
	l := lineChart("utilization", "time ("+u.name+")", "% of allocatable requested")
	for _, s := range series {
		data := make([]opts.LineData, len(s.Points))
		for i, p := range s.Points {
			data[i] = opts.LineData{Value: []float64{u.of(p.At), round3(p.Value)}}
		}
		l.AddSeries(s.Name, data, stepLine)
	}
	return newChart("utilization", 420, l)
}

// delayChart draws each bucket's empirical CDF: the share of its groups
// that started within a delay, from (0, 0) up to the largest delay, where
// it reaches 100% less the share that never started.
func delayChart(buckets []DelayBucket) (chart, error) {
	var span time.Duration
	for _, b := range buckets {
		if len(b.Delays) > 0 {
			span = max(span, slices.Max(b.Delays))
		}
	}
	u := unitFor(span)
	l := lineChart("delay-cdf", "queueing delay ("+u.name+")", "% of groups started within")
	for _, b := range buckets {
		ds := slices.Sorted(slices.Values(b.Delays))
		all := float64(len(ds) + b.Waiting)
		data := []opts.LineData{{Value: []float64{0, 0}}}
		for i, d := range ds {
			if i+1 < len(ds) && ds[i+1] == d {
				continue // one step per distinct delay, to its share
			}
			data = append(data, opts.LineData{Value: []float64{u.of(d), round3(float64(i+1) * 100 / all)}})
		}
		l.AddSeries(b.Name, data, stepLine)
	}
	return newChart("delay-cdf", 420, l)
}

// delayRow is one bucket's line of the percentile table.
type delayRow struct {
	Name                 string
	Groups, Waiting      int
	P50, P90, P99, Worst string
}

// delayRows gives each bucket's nearest-rank percentiles of its delays.
func delayRows(buckets []DelayBucket) []delayRow {
	rows := make([]delayRow, len(buckets))
	for i, b := range buckets {
		ds := slices.Sorted(slices.Values(b.Delays))
		r := delayRow{Name: b.Name, Groups: len(ds), Waiting: b.Waiting, P50: "–", P90: "–", P99: "–", Worst: "–"}
		if n := len(ds); n > 0 {
			rank := func(p int) string { return ds[max((p*n+99)/100, 1)-1].String() }
			r.P50, r.P90, r.P99, r.Worst = rank(50), rank(90), rank(99), ds[n-1].String()
		}
		rows[i] = r
	}
	return rows
}

// occupancyChart draws domains (rows) by sample times (columns), coloured
// by percent occupied.
func occupancyChart(o *Occupancy) (chart, error) {
	var span time.Duration
	if n := len(o.Times); n > 0 {
		span = o.Times[n-1]
	}
	u := unitFor(span)
	xs := make([]string, len(o.Times))
	for i, t := range o.Times {
		xs[i] = strconv.FormatFloat(u.of(t), 'f', -1, 64)
	}
	ys := make([]string, len(o.Rows))
	var data []opts.HeatMapData
	for y, r := range o.Rows {
		ys[y] = r.Domain
		for x, v := range r.Percent {
			data = append(data, opts.HeatMapData{Value: [3]any{x, y, round3(v)}})
		}
	}
	h := charts.NewHeatMap()
	h.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: "occupancy"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		// The domains' key heads the section: as an axis name it would not
		// fit beside long domain paths.
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "20", Right: "30", Bottom: "90"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "time (" + u.name + ")", NameLocation: "middle", NameGap: 28, Data: xs}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: ys, Inverse: opts.Bool(true)}), // the first domain on top
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: 0, Max: 100, Orient: "horizontal", Left: "center", Bottom: "0",
			Text: []string{"100% occupied", "0%"}}),
	)
	h.AddSeries("occupancy", data)
	return newChart("occupancy", max(320, 18*len(o.Rows)+140), h)
}

// policyCharts draws one bar chart per metric, a bar per policy.
func policyCharts(c *Comparison) ([]chart, error) {
	policies := make([]string, len(c.Rows))
	for i, r := range c.Rows {
		policies[i] = r.Policy
	}
	out := make([]chart, len(c.Metrics))
	for m, metric := range c.Metrics {
		id := fmt.Sprintf("policy-%d", m)
		data := make([]opts.BarData, len(c.Rows))
		for i, r := range c.Rows {
			data[i] = opts.BarData{Value: round3(r.Values[m])}
		}
		b := charts.NewBar()
		b.SetGlobalOptions(
			charts.WithInitializationOpts(opts.Initialization{ChartID: id}),
			charts.WithTitleOpts(opts.Title{Title: metricHead(metric)}),
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
			charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true)}),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: metric.Unit}),
		)
		b.SetXAxis(policies).AddSeries(metric.Name, data)
		ch, err := newChart(id, 300, b)
		if err != nil {
			return nil, err
		}
		out[m] = ch
	}
	return out, nil
}

// metricHead is a metric's column head: "GPUs unallocated (GPUs)".
func metricHead(m Metric) string {
	if m.Unit == "" {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}
