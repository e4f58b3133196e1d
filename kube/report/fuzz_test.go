package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// checkAnyData: Write on data from outside — names repeated or empty,
// values out of range or not finite, samples out of order, rows of the
// wrong length — writes a page or returns a FieldError with nothing
// written, and never panics.
func checkAnyData(t *rapid.T) {
	value := rapid.OneOf(rapid.Float64Range(-1, 101), rapid.SampledFrom([]float64{math.NaN(), math.Inf(1), 0, 100}))
	at := rapid.Map(rapid.Int64Range(-5, 5), func(n int64) time.Duration { return time.Duration(n) * time.Hour })
	name := rapid.SampledFrom([]string{"", "a", "b", "</script>", "é"})
	var d Data
	for range rapid.IntRange(0, 2).Draw(t, "series") {
		s := Series{Name: name.Draw(t, "name")}
		for range rapid.IntRange(0, 3).Draw(t, "points") {
			s.Points = append(s.Points, Point{At: at.Draw(t, "at"), Value: value.Draw(t, "value")})
		}
		d.Utilization = append(d.Utilization, s)
	}
	for range rapid.IntRange(0, 2).Draw(t, "buckets") {
		b := DelayBucket{Name: name.Draw(t, "name"), Waiting: rapid.IntRange(-1, 2).Draw(t, "waiting")}
		for range rapid.IntRange(0, 3).Draw(t, "delays") {
			b.Delays = append(b.Delays, at.Draw(t, "delay"))
		}
		d.Delays = append(d.Delays, b)
	}
	for range rapid.IntRange(0, 3).Draw(t, "times") {
		d.Occupancy.Times = append(d.Occupancy.Times, at.Draw(t, "time"))
	}
	for range rapid.IntRange(0, 2).Draw(t, "rows") {
		r := DomainRow{Domain: name.Draw(t, "domain")}
		for range rapid.IntRange(0, 3).Draw(t, "percent") {
			r.Percent = append(r.Percent, value.Draw(t, "value"))
		}
		d.Occupancy.Rows = append(d.Occupancy.Rows, r)
	}
	for range rapid.IntRange(0, 2).Draw(t, "metrics") {
		d.Policies.Metrics = append(d.Policies.Metrics, Metric{Name: name.Draw(t, "metric"), Unit: name.Draw(t, "unit")})
	}
	for range rapid.IntRange(0, 2).Draw(t, "policies") {
		r := PolicyRow{Policy: name.Draw(t, "policy")}
		for range rapid.IntRange(0, 2).Draw(t, "values") {
			r.Values = append(r.Values, value.Draw(t, "value"))
		}
		d.Policies.Rows = append(d.Policies.Rows, r)
	}
	var out bytes.Buffer
	if err := Write(&out, &d); err != nil {
		var fe *placement.FieldError
		require.ErrorAs(t, err, &fe)
		require.Zero(t, out.Len())
		return
	}
	page := out.String()
	require.Contains(t, page, "</html>")
	// A name like "</script>" stays data: the page closes exactly its own
	// scripts (ECharts, each chart's options, the start-up script).
	require.Equal(t, 2+strings.Count(page, `class="chart"`), strings.Count(page, "</script>"))
}

func TestProp_WriteAnyData(t *testing.T) { rapid.Check(t, checkAnyData) }

// FuzzWrite runs checkAnyData on the fuzzer's bytes.
func FuzzWrite(f *testing.F) { f.Fuzz(rapid.MakeFuzz(checkAnyData)) }
