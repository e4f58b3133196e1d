package topology_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// FuzzNewTree builds trees from arbitrary keys and label values (any bytes,
// empty values, values containing "/" or quotes, missing labels) and checks
// that NewTree errors or builds a tree whose domains are exactly the label
// paths: a node is in one domain per level down to its first missing label,
// paths are unique and found again, and nodes are listed once, ascending.
func FuzzNewTree(f *testing.F) {
	f.Add("zone\x00rack", []byte("\x01z1\x00\x01r1\x00\x01z1\x00\x00\x00\x01\x00\x01r/2\x00"))
	f.Add("a\x00a", []byte("\x01x\x00"))
	f.Add("", []byte{})
	f.Add("k", []byte("\x01\"\x00\x01\\\x00\x01\x00"))
	f.Fuzz(func(t *testing.T, keysRaw string, labels []byte) {
		keys := strings.Split(keysRaw, "\x00")
		if len(keys) > 4 {
			keys = keys[:4]
		}
		if keysRaw == "" {
			keys = nil
		}
		// Values: segments separated by 0; a segment starting with 1 is a
		// value (the rest), anything else a missing label.
		segs := strings.Split(string(labels), "\x00")
		var nodes []placement.Node
		for i := 0; len(keys) > 0 && i*len(keys) < len(segs) && i < 32; i++ {
			n := placement.Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{}}
			for l, k := range keys {
				if j := i*len(keys) + l; j < len(segs) && strings.HasPrefix(segs[j], "\x01") {
					n.Labels[k] = segs[j][1:]
				}
			}
			nodes = append(nodes, n)
		}
		s, err := placement.NewSnapshot(nodes, nil)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, keys)
		if err != nil {
			var fe *placement.FieldError
			require.ErrorAs(t, err, &fe)
			bad := len(keys) == 0 || slices.Contains(keys, "")
			for i, k := range keys {
				bad = bad || slices.Index(keys, k) < i
			}
			require.True(t, bad, "unexpected error %v", err)
			return
		}
		paths := map[string]topology.DomainID{}
		for l := range keys {
			seen := map[placement.NodeID]bool{}
			for d := range tr.Domains(l) {
				_, dup := paths[d.Path]
				require.False(t, dup, "path %q twice", d.Path)
				paths[d.Path] = d.ID
				found, ok := tr.Find(d.Path)
				require.True(t, ok)
				require.Equal(t, d.ID, found.ID)
				require.True(t, slices.IsSorted(d.Nodes))
				require.NotEmpty(t, d.Nodes)
				for _, id := range d.Nodes {
					require.False(t, seen[id], "node in two domains of level %d", l)
					seen[id] = true
					got, ok := tr.DomainOf(id, l)
					require.True(t, ok)
					require.Equal(t, d.ID, got.ID)
				}
			}
			for id := range placement.NodeID(s.NumNodes()) {
				labels := s.Node(id).Labels
				want := true
				for _, k := range keys[:l+1] {
					_, has := labels[k]
					want = want && has
				}
				require.Equal(t, want, seen[id], "node %d level %d", id, l)
				if want {
					d, _ := tr.DomainOf(id, l)
					require.Equal(t, labels[keys[l]], d.Value)
					if l > 0 {
						parent, _ := tr.DomainOf(id, l-1)
						require.Equal(t, parent.ID, d.Parent)
					} else {
						require.Equal(t, topology.DomainID(-1), d.Parent)
					}
				}
			}
		}
	})
}

// FuzzSolverOptions feeds arbitrary constraint keys and scorings: the
// result is an error naming the key, or options whose generator runs.
func FuzzSolverOptions(f *testing.F) {
	f.Add(rackKey, true, "", false, 0)
	f.Add(hostKey, false, rackKey, true, 1)
	f.Add("nope", true, "", true, 7)
	f.Fuzz(func(t *testing.T, k1 string, r1 bool, k2 string, r2 bool, scoring int) {
		s := snapshot(t, []placement.Node{
			node("n1", 2000, zoneKey, "z", rackKey, "r1", hostKey, "n1"),
			node("n2", 2000, zoneKey, "z", rackKey, "r2"),
		})
		tr := tree(t, s, zoneKey, rackKey, hostKey)
		opts, err := tr.SolverOptions([]topology.Constraint{{Key: k1, Preferred: !r1}, {Key: k2, Preferred: !r2}}, topology.Scoring(scoring))
		if err != nil {
			var fe *placement.FieldError
			require.ErrorAs(t, err, &fe)
			return
		}
		g := gang("pg", 1, members("pg", 2, 1000))
		d, err := placement.Solve(s, g, opts)
		require.NoError(t, err)
		require.NoError(t, placement.Verify(s, g, d))
	})
}
