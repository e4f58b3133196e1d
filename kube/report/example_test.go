package report_test

import (
	"bytes"
	"fmt"
	"regexp"
	"time"

	"github.com/gangsched/gangsched/kube/report"
)

// A replay's GPU utilisation and the queueing delays of its gangs, as one
// HTML file: the page holds a chart container per section, with its
// options beside it.
func ExampleWrite() {
	h := time.Hour
	d := &report.Data{
		Title: "two hours of a replay",
		Utilization: []report.Series{{Name: "nvidia.com/gpu", Points: []report.Point{
			{At: 0, Value: 0}, {At: h, Value: 75}, {At: 2 * h, Value: 50}}}},
		Delays: []report.DelayBucket{{Name: "8 pods", Delays: []time.Duration{0, 90 * time.Second}}},
	}
	var page bytes.Buffer
	if err := report.Write(&page, d); err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range regexp.MustCompile(`<div class="chart" id="([a-z-]+)"`).FindAllStringSubmatch(page.String(), -1) {
		fmt.Println("chart", m[1])
	}
	// Output:
	// chart utilization
	// chart delay-cdf
}
