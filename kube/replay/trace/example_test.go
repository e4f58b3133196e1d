package trace_test

import (
	"fmt"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/kube/replay/trace"
)

// Replay a generated day on 16 hosts under packing and kube-scheduler's
// spreading, and compare how many GPUs each leaves stranded.
func ExampleGenerateDay() {
	in, err := trace.GenerateDay(trace.Day{Nodes: 16, Pods: 400, Seed: 1})
	if err != nil {
		panic(err)
	}
	var results []*replay.Result
	for _, name := range []string{"packing", "upstream"} {
		pol, _ := replay.LookupPolicy(name)
		r, err := replay.Run(in, replay.Options{Policy: pol})
		if err != nil {
			panic(err)
		}
		results = append(results, r)
	}
	t := replay.Compare(results)
	for i, m := range t.Metrics {
		if m.Name == "mean stranded GPUs" || m.Name == "delay p99" {
			fmt.Printf("%s: packing %.1f, upstream %.1f %s\n", m.Name, t.Rows[0].Values[i], t.Rows[1].Values[i], m.Unit)
		}
	}
	// Output:
	// delay p99: packing 35454.0, upstream 39233.0 s
	// mean stranded GPUs: packing 5.7, upstream 33.6 GPUs
}
