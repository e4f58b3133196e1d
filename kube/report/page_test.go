package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	goldenfile "github.com/gangsched/gangsched/internal/golden"
	"github.com/gangsched/gangsched/placement"
)

var optionRE = regexp.MustCompile(`<script type="application/json" id="([a-z0-9-]+)-option">([^<]*)</script>`)

// options returns the charts' options of a page, in page order, as one
// indented JSON document.
func options(t *testing.T, page []byte) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	ms := optionRE.FindAllSubmatch(page, -1)
	for i, m := range ms {
		var opt bytes.Buffer
		require.NoError(t, json.Indent(&opt, m[2], "  ", "  "))
		b.WriteString(`  {"chart": "` + string(m[1]) + `", "option": ` + opt.String() + "}")
		if i < len(ms)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// TestWrite_Options: the options of every chart of the sample, as the page
// embeds them, match the golden file.
func TestWrite_Options(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Write(&out, sample()))
	goldenfile.Check(t, filepath.Join("testdata", "sample-options.golden.json"), options(t, out.Bytes()))
}

// TestWrite_SelfContained: the page loads nothing from elsewhere — no
// script or stylesheet by address — and inlines ECharts.
func TestWrite_SelfContained(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Write(&out, sample()))
	page := out.String()
	require.NotRegexp(t, `<script[^>]+src=`, page)
	require.NotContains(t, page, "<link")
	require.NotContains(t, page, "go-echarts.github.io")
	require.Contains(t, page, echartsJS[:200])
	require.Len(t, optionRE.FindAllString(page, -1), 5, "utilisation, delay, occupancy and two policy charts")
}

// TestWrite_Sections: a section without data is left out, and an empty
// Data gives a page with its title only.
func TestWrite_Sections(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Write(&out, &Data{Utilization: sample().Utilization}))
	page := out.String()
	require.Contains(t, page, `<section id="section-utilization">`)
	for _, s := range []string{"section-delay", "section-occupancy", "section-policies"} {
		require.NotContains(t, page, s)
	}
	out.Reset()
	require.NoError(t, Write(&out, &Data{}))
	require.Contains(t, out.String(), "<h1>gangsched report</h1>")
	require.NotContains(t, out.String(), "<section")
}

// TestWrite_Escapes: names from the data stay data: a domain named like
// a closing script tag is escaped in the options and the table.
func TestWrite_Escapes(t *testing.T) {
	d := sample()
	d.Occupancy.Rows[0].Domain = "</script><script>alert(1)</script>"
	d.Policies.Rows[0].Policy = "<b>x</b>"
	var out bytes.Buffer
	require.NoError(t, Write(&out, d))
	require.NotContains(t, out.String(), "<script>alert(1)")
	require.NotContains(t, out.String(), "<b>x</b>")
	require.Contains(t, out.String(), `\u003c/script\u003e`)
}

// TestWrite_Deterministic: the same data gives the same bytes.
func TestWrite_Deterministic(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, Write(&a, sample()))
	require.NoError(t, Write(&b, sample()))
	require.Equal(t, a.String(), b.String())
}

func TestDelayRows(t *testing.T) {
	require.Equal(t, []delayRow{
		{Name: "1 pod", Groups: 4, P50: "10s", P90: "2m0s", P99: "2m0s", Worst: "2m0s"},
		{Name: "2–8 pods", Groups: 2, Waiting: 2, P50: "30s", P90: "5m0s", P99: "5m0s", Worst: "5m0s"},
		{Name: "9+ pods", Groups: 0, Waiting: 1, P50: "–", P90: "–", P99: "–", Worst: "–"},
	}, delayRows(sample().Delays))
}

func TestUnitFor(t *testing.T) {
	for _, c := range []struct {
		span time.Duration
		want string
	}{{0, "s"}, {2 * time.Minute, "s"}, {3 * time.Minute, "min"}, {2 * time.Hour, "min"}, {3 * time.Hour, "h"}, {72 * time.Hour, "d"}} {
		require.Equal(t, c.want, unitFor(c.span).name, "%v", c.span)
	}
}

// TestWrite_Errors: bad data is an error naming the field, and nothing is
// written.
func TestWrite_Errors(t *testing.T) {
	cases := []struct {
		name string
		edit func(d *Data)
		want string
	}{
		{"duplicate series", func(d *Data) { d.Utilization[1].Name = "nvidia.com/gpu" }, `report: Utilization[1].Name: "nvidia.com/gpu" appears twice`},
		{"samples out of order", func(d *Data) { d.Utilization[0].Points[2].At = 0 }, "report: Utilization[0].Points[2].At: 0s is before the sample before it (1h0m0s): samples must be in time order"},
		{"NaN", func(d *Data) { d.Utilization[1].Points[0].Value = nanValue() }, "report: Utilization[1].Points[0].Value: must be finite, got NaN"},
		{"negative delay", func(d *Data) { d.Delays[0].Delays[1] = -time.Second }, "report: Delays[0].Delays[1]: -1s is negative"},
		{"negative waiting", func(d *Data) { d.Delays[1].Waiting = -1 }, "report: Delays[1].Waiting: -1 is negative"},
		{"duplicate bucket", func(d *Data) { d.Delays[2].Name = "1 pod" }, `report: Delays[2].Name: "1 pod" appears twice`},
		{"times out of order", func(d *Data) { d.Occupancy.Times[3] = time.Minute }, "report: Occupancy.Times[3]: 1m0s is before the time before it (2h0m0s)"},
		{"short row", func(d *Data) { d.Occupancy.Rows[1].Percent = d.Occupancy.Rows[1].Percent[:3] }, "report: Occupancy.Rows[1].Percent: has 3 values for 4 times"},
		{"duplicate domain", func(d *Data) { d.Occupancy.Rows[1].Domain = "b1/r1" }, `report: Occupancy.Rows[1].Domain: "b1/r1" appears twice`},
		{"duplicate metric", func(d *Data) { d.Policies.Metrics[1].Name = "GPUs unallocated" }, `report: Policies.Metrics[1].Name: "GPUs unallocated" appears twice`},
		{"duplicate policy", func(d *Data) { d.Policies.Rows[1].Policy = "MostAllocated" }, `report: Policies.Rows[1].Policy: "MostAllocated" appears twice`},
		{"values for metrics", func(d *Data) { d.Policies.Rows[0].Values = []float64{1} }, "report: Policies.Rows[0].Values: has 1 values for 2 metrics"},
		{"infinite figure", func(d *Data) { d.Policies.Rows[1].Values[1] = infValue() }, "report: Policies.Rows[1].Values[1]: must be finite, got +Inf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := sample()
			c.edit(d)
			var out bytes.Buffer
			err := Write(&out, d)
			var fe *placement.FieldError
			require.ErrorAs(t, err, &fe)
			require.EqualError(t, err, c.want)
			require.Zero(t, out.Len())
		})
	}
}

func nanValue() float64 { return zero() / zero() }
func infValue() float64 { return 1 / zero() }
func zero() float64     { return 0 }

func TestMetricHead(t *testing.T) {
	require.Equal(t, "mean delay (s)", metricHead(Metric{Name: "mean delay", Unit: "s"}))
	require.Equal(t, "preemptions", metricHead(Metric{Name: "preemptions"}))
	require.False(t, strings.Contains(metricHead(Metric{Name: "x"}), "("))
}
