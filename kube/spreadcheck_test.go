package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// TestSpreadFilterPlacement: a whole assignment re-checked against
// DoNotSchedule constraints (zone, maxSkew 1) passes when some order of
// its members passes the filter one by one, and is refused, naming the
// first member no order places, when none does.
func TestSpreadFilterPlacement(t *testing.T) {
	nodes := []string{zoneNode("a1", "a", ""), zoneNode("a2", "a", ""), zoneNode("b1", "b", ""), zoneNode("b2", "b", "")}
	members := []string{webPod("m0", "", zoneSpread), webPod("m1", "", zoneSpread), webPod("m2", "", zoneSpread), webPod("m3", "", zoneSpread)}
	for _, c := range []struct {
		name   string
		bound  []string
		assign map[string]string
		reason string
	}{
		{"member order", nil, map[string]string{"m0": "a1", "m1": "b1", "m2": "a2", "m3": "b2"}, ""},
		// m1 to a after m0 would skew 2:0; m2 to b first makes it 2:1.
		{"another order", nil, map[string]string{"m0": "a1", "m1": "a2", "m2": "b1", "m3": "b2"}, ""},
		{"three in one zone", nil, map[string]string{"m0": "a1", "m1": "a2", "m2": "a1", "m3": "b1"},
			`pod default/m2 on node "a1": node(s) didn't match pod topology spread constraints`},
		{"bound pods skew", []string{webPod("w1", "a1", ""), webPod("w2", "a2", "")}, map[string]string{"m0": "a1"},
			`pod default/m0 on node "a1": node(s) didn't match pod topology spread constraints`},
		{"bound pods evened out", []string{webPod("w1", "a1", ""), webPod("w2", "a2", "")}, map[string]string{"m0": "b1", "m1": "b2"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := append(append(append([]string{}, nodes...), c.bound...), members...)
			objs, err := manifest.Decode("in.yaml", strings.NewReader(strings.Join(docs, "---\n")), manifest.Options{})
			require.NoError(t, err)
			cl, err := Load(objs)
			require.NoError(t, err)
			f, err := cl.TopologySpreadFilter()
			require.NoError(t, err)
			g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 1, Members: cl.Pending}
			var a []placement.Assignment
			for _, m := range []string{"m0", "m1", "m2", "m3"} {
				if n, ok := c.assign[m]; ok {
					id, _ := cl.Snapshot.NodeID(n)
					a = append(a, placement.Assignment{Pod: placement.Key{Namespace: "default", Name: m}, Node: n, NodeID: id})
				}
			}
			r := f.FilterPlacement(cl.Snapshot, placement.GroupView{Group: g}, &placement.Placement{}, a)
			require.Equal(t, c.reason, r.Reason)
		})
	}
}
