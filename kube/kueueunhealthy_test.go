package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
)

// status.unhealthyNodes as Kueue's API refuses it (a list map keyed by
// name, at most eight entries) is refused at load, naming the field,
// rather than read with the duplicate dropped or "" taken for a gone node.
func TestKueueWorkload_BadUnhealthyNodes(t *testing.T) {
	wl := preemptWL("w", "la", 0, 0, 1, "", "", 0)
	for _, c := range []struct {
		name, in, want string
	}{
		{"an empty name", wl + "status: {unhealthyNodes: [{name: ''}]}\n",
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.unhealthyNodes[0].name: must be set`},
		{"a node listed twice", wl + "status: {unhealthyNodes: [{name: h1}, {name: h2}, {name: h1}]}\n",
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.unhealthyNodes[2].name: node "h1" is listed twice`},
		{"nine entries", wl + "status: {unhealthyNodes: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}, {name: i}]}\n",
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.unhealthyNodes: 9 entries: Kueue's API takes at most 8`},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := manifest.Decode("f.yaml", strings.NewReader(c.in), manifest.Options{})
			require.NoError(t, err)
			_, err = Load(objs)
			require.EqualError(t, err, c.want)
		})
	}
}
