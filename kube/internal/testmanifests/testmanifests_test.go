package testmanifests

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/golden"
	"github.com/gangsched/gangsched/kube/manifest"
)

const testdata = "../../testdata"

// TestGolden: the committed manifests are what this package writes, and
// each one reads cleanly and holds what its doc comment says.
func TestGolden(t *testing.T) {
	files := Files()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		golden.Check(t, filepath.Join(testdata, name), []byte(files[name]))
	}
}

func TestContents(t *testing.T) {
	count := func(s string) map[string]int {
		objs, err := manifest.Decode("x.yaml", strings.NewReader(s), manifest.Options{})
		require.NoError(t, err)
		out := map[string]int{}
		for _, o := range objs {
			require.NotNil(t, o.Obj, "%s is not a kind the reader decodes", o.String())
			out[o.Kind]++
		}
		return out
	}
	require.Equal(t, map[string]int{"Node": 100}, count(PerfNodes(100, 10)))
	require.Equal(t, map[string]int{"PodGroup": 10, "Pod": 30}, count(PerfWorkload("tas-0", "tas", 10, 3, "topology.kubernetes.io/rack")))
	require.Equal(t, map[string]int{"Node": 8}, count(KueueKindNodes()))
	require.Equal(t, map[string]int{"Job": 3}, count(KueueSampleJobs()))
	require.Equal(t, map[string]int{"Node": 640}, count(KueuePerfNodes()))
	require.Equal(t, map[string]int{"Job": 500, "PriorityClass": 3}, count(KueuePerfWorkloads()))
}
