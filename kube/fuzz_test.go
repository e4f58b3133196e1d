package kube

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// FuzzLoad: any manifest the reader accepts either loads or fails with an
// error located in the input that wraps a sentinel; it never panics.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/seed/training-job.yaml", "testdata/seed/job.yaml", "testdata/dra/cluster-and-gang.yaml", "testdata/dra/shared-gpu.yaml", "testdata/preemption/low-priority-and-gang.yaml", "testdata/scheduler-perf/tas-3x3.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(node1 + pod("p", "  nodeName: n1\n"))
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
		if err != nil {
			return
		}
		c, err := Load(objs)
		if err != nil {
			if c != nil {
				t.Fatal("a cluster returned with an error")
			}
			var me *manifest.Error
			var fe *placement.FieldError
			if !errors.As(err, &me) && !errors.As(err, &fe) {
				t.Fatalf("unlocated error %T: %v", err, err)
			}
			return
		}
		if c.Snapshot == nil {
			t.Fatal("no snapshot")
		}
	})
}
