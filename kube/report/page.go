package report

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"strconv"
)

// echartsJS is Apache ECharts 5.6.0 (see assets/README.md), inlined into
// every page so that a report opens without a network.
//
//go:embed assets/echarts.min.js
var echartsJS string

// page is what the template reads.
type page struct {
	Title        string
	ECharts      template.JS
	Utilization  *chart
	Delay        *chart
	DelayRows    []delayRow
	Occupancy    *chart
	OccupancyKey string
	Policies     []chart
	Metrics      []string
	PolicyRows   []policyRow
}

type policyRow struct {
	Policy string
	Values []string
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
.chart { width: 100%; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: .3em .7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
</style>
<script>{{.ECharts}}</script>
</head>
<body>
<h1>{{.Title}}</h1>
{{- define "chart"}}
<div class="chart" id="{{.ID}}" style="height: {{.Height}}px"></div>
<script type="application/json" id="{{.ID}}-option">{{.Option}}</script>
{{- end}}
{{- with .Utilization}}
<section id="section-utilization">
<h2>Utilisation over time</h2>
{{- template "chart" .}}
</section>
{{- end}}
{{- with .Delay}}
<section id="section-delay">
<h2>Queueing delay</h2>
<table id="delay-table">
<thead><tr><th>group size</th><th>started</th><th>never started</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr></thead>
<tbody>
{{- range $.DelayRows}}
<tr><td>{{.Name}}</td><td>{{.Groups}}</td><td>{{.Waiting}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P99}}</td><td>{{.Worst}}</td></tr>
{{- end}}
</tbody>
</table>
{{- template "chart" .}}
</section>
{{- end}}
{{- with .Occupancy}}
<section id="section-occupancy">
<h2>Occupancy per domain{{with $.OccupancyKey}} of {{.}}{{end}}</h2>
{{- template "chart" .}}
</section>
{{- end}}
{{- if .PolicyRows}}
<section id="section-policies">
<h2>Policy comparison</h2>
<table id="policy-table">
<thead><tr><th>policy</th>{{range .Metrics}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .PolicyRows}}
<tr><td>{{.Policy}}</td>{{range .Values}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- range .Policies}}{{template "chart" .}}{{end}}
</section>
{{- end}}
<script>
document.querySelectorAll(".chart").forEach(function (el) {
  var c = echarts.init(el);
  c.setOption(JSON.parse(document.getElementById(el.id + "-option").textContent));
  window.addEventListener("resize", function () { c.resize(); });
});
</script>
</body>
</html>
`))

// Write writes d as one self-contained HTML page: nothing in it is fetched
// from elsewhere. A section without data (no series, no buckets, no rows)
// is left out.
//
// Errors (a *placement.FieldError naming the field; nothing is written):
// two series, buckets, domains, metrics or policies of one name; samples or
// occupancy times out of order; a negative delay; a row whose values do
// not match its times or metrics; a value that is NaN or infinite. An
// error from w is returned as is.
func Write(w io.Writer, d *Data) error {
	if err := d.validate(); err != nil {
		return err
	}
	p := page{Title: d.Title, ECharts: template.JS(echartsJS)}
	if p.Title == "" {
		p.Title = "gangsched report"
	}
	if len(d.Utilization) > 0 {
		c, err := utilizationChart(d.Utilization)
		if err != nil {
			return err
		}
		p.Utilization = &c
	}
	if len(d.Delays) > 0 {
		c, err := delayChart(d.Delays)
		if err != nil {
			return err
		}
		p.Delay, p.DelayRows = &c, delayRows(d.Delays)
	}
	if len(d.Occupancy.Rows) > 0 {
		c, err := occupancyChart(&d.Occupancy)
		if err != nil {
			return err
		}
		p.Occupancy, p.OccupancyKey = &c, d.Occupancy.Key
	}
	if cmp := &d.Policies; len(cmp.Rows) > 0 {
		var err error
		if p.Policies, err = policyCharts(cmp); err != nil {
			return err
		}
		for _, m := range cmp.Metrics {
			p.Metrics = append(p.Metrics, metricHead(m))
		}
		for _, r := range cmp.Rows {
			row := policyRow{Policy: r.Policy}
			for _, v := range r.Values {
				row.Values = append(row.Values, strconv.FormatFloat(v, 'g', 6, 64))
			}
			p.PolicyRows = append(p.PolicyRows, row)
		}
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
