package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A failed node must be known: one of the set's nodes in Existing, or a
// node of the snapshot. A name that is neither loses no pod of the set,
// so it is a mistake and an error, not ignored; a node of the snapshot
// that did not run the set only takes no replacement.
func TestReplacePodSet_FailedNodeKnown(t *testing.T) {
	req := topology.PodSetRequest{PodSet: "workers", Required: blockKey}
	s := snapshot(t, brh(uniform(1, 2, 2, 4)))
	tr := tree(t, s, blockKey, rackKey, hostKey)
	g := podSetGroup("el", 4)
	existing := []placement.PodSetAssignment{{PodSet: "workers", Node: "b1-r1-h1", Count: 2}, {PodSet: "workers", Node: "b1-r1-h2", Count: 2}}
	s, err := s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers", Requests: g.PodSets[0].Template.Requests, Nodes: existing[1:]}}})
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		failed []string
		err    string
	}{
		{"neither in the snapshot nor the set's", []string{"b1-r1-h1", "zz"},
			`pod set "workers" of PodGroup "default/el": repair.failed[1]: "zz" is neither in the snapshot nor one of the set's nodes in repair.existing`},
		{"the unknown one first", []string{"zz", "b1-r1-h1"},
			`pod set "workers" of PodGroup "default/el": repair.failed[0]: "zz" is neither in the snapshot nor one of the set's nodes in repair.existing`},
		{"a node of the snapshot the set did not use", []string{"b1-r1-h1", "b1-r2-h1"}, ""},
	} {
		for _, prof := range []topology.Profile{topology.GangschedProfile, topology.KueueProfile} {
			t.Run(tc.name+"/"+prof.String(), func(t *testing.T) {
				rep, err := tr.ReplacePodSet(s, g, req, placement.Repair{PodSet: "workers", Existing: existing, Failed: tc.failed}, prof.Options())
				if tc.err != "" {
					require.EqualError(t, err, tc.err)
					require.ErrorIs(t, err, placement.ErrNotFound)
					return
				}
				require.NoError(t, err)
				require.True(t, rep.Repairable)
				// b1-r2-h1 failed: it takes no replacement, though it is
				// free and in the block.
				require.Equal(t, map[string]int32{"b1-r1-h2": 4}, perNode(rep.Assignments))
			})
		}
	}
}

// ReplacePodSet grows the set from its survivors, so the snapshot must
// reserve the survivors alone. A reservation that still holds the failed
// node's pods — the host's state right after the failure — is refused
// with the remedy; one that differs otherwise is refused too.
func TestReplacePodSet_Reservation(t *testing.T) {
	req := topology.PodSetRequest{PodSet: "workers", Required: blockKey}
	var nodes []placement.Node
	for _, n := range brh(uniform(1, 2, 2, 4)) {
		if n.Name == "b1-r1-h1" {
			n.Taints = []placement.Taint{{Key: "node.kubernetes.io/unreachable", Effect: placement.TaintEffectNoExecute}}
		}
		nodes = append(nodes, n)
	}
	base := snapshot(t, nodes)
	tr := tree(t, base, blockKey, rackKey, hostKey)
	g := podSetGroup("el", 6)
	at := func(counts ...int32) []placement.PodSetAssignment { // on h1, h2, h3 of rack r1 and r2
		var out []placement.PodSetAssignment
		for i, n := range []string{"b1-r1-h1", "b1-r1-h2", "b1-r2-h1"} {
			if counts[i] > 0 {
				out = append(out, placement.PodSetAssignment{PodSet: "workers", Node: n, Count: counts[i]})
			}
		}
		return out
	}
	existing := at(2, 2, 2)
	for _, tc := range []struct {
		name     string
		reserved []placement.PodSetAssignment // nil: none, the survivors bound
		failed   []string
		err      string
	}{
		{"the full reservation", existing, []string{"b1-r1-h1"},
			`pod set "workers" of PodGroup "default/el": repair.existing: the snapshot's reservation of the set still holds its pods on failed node(s) "b1-r1-h1": reserve the survivors alone first (Snapshot.Apply of a Change that releases the set and reserves its entries on the nodes that did not fail)`},
		{"two failed nodes reserved", existing, []string{"b1-r1-h1", "b1-r2-h1"},
			`pod set "workers" of PodGroup "default/el": repair.existing: the snapshot's reservation of the set still holds its pods on failed node(s) "b1-r1-h1", "b1-r2-h1": reserve the survivors alone first (Snapshot.Apply of a Change that releases the set and reserves its entries on the nodes that did not fail)`},
		{"another count on a survivor", at(0, 3, 2), []string{"b1-r1-h1"},
			`pod set "workers" of PodGroup "default/el": repair.existing: its entries on nodes that did not fail (the survivors) differ from the snapshot's reservation of the set: the snapshot must reserve the survivors alone, or hold them bound without a reservation`},
		{"a survivor not reserved", at(0, 2, 0), []string{"b1-r1-h1"},
			`pod set "workers" of PodGroup "default/el": repair.existing: its entries on nodes that did not fail (the survivors) differ from the snapshot's reservation of the set: the snapshot must reserve the survivors alone, or hold them bound without a reservation`},
		{"the survivors' reservation", at(0, 2, 2), []string{"b1-r1-h1"}, ""},
	} {
		for _, prof := range []topology.Profile{topology.GangschedProfile, topology.KueueProfile} {
			t.Run(tc.name+"/"+prof.String(), func(t *testing.T) {
				s, err := base.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers", Requests: g.PodSets[0].Template.Requests, Nodes: tc.reserved}}})
				require.NoError(t, err)
				rep, err := tr.ReplacePodSet(s, g, req, placement.Repair{PodSet: "workers", Existing: existing, Failed: tc.failed}, prof.Options())
				if tc.err != "" {
					require.EqualError(t, err, tc.err)
					require.ErrorIs(t, err, placement.ErrInvalid)
					return
				}
				require.NoError(t, err)
				require.True(t, rep.Repairable)
				require.Equal(t, map[string]int32{"b1-r1-h2": 2}, perNode(rep.Replacements))
				require.Equal(t, map[string]int32{"b1-r1-h2": 4, "b1-r2-h1": 2}, perNode(rep.Assignments))
			})
		}
	}
}
