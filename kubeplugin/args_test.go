package kubeplugin

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gangsched/gangsched/topology"
)

func TestDecodeArgs(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, raw string
		want                   config
		err                    string
	}{
		{name: "empty args are the defaults", raw: ``, want: config{scoring: topology.MostAllocated}},
		{name: "JSON", raw: `{"topologyLevels":["example.com/block","topology.kubernetes.io/rack"],"preferredTopologyKey":"topology.kubernetes.io/rack","scoring":"BestFit"}`,
			want: config{levels: []string{"example.com/block", "topology.kubernetes.io/rack"}, preferred: "topology.kubernetes.io/rack", scoring: topology.BestFit}},
		{name: "YAML", contentType: runtime.ContentTypeYAML, raw: "topologyLevels: [topology.kubernetes.io/rack]\nscoring: MostAllocated\n",
			want: config{levels: []string{"topology.kubernetes.io/rack"}, scoring: topology.MostAllocated}},
		{name: "unknown field", raw: `{"levels":["rack"]}`, err: `GangschedTopology args: unknown field "levels"`},
		{name: "wrong type", raw: `{"topologyLevels":"rack"}`, err: `GangschedTopology args: cannot unmarshal string into Go struct field Args.topologyLevels of type []string`},
		{name: "unknown scoring", raw: `{"scoring":"LeastAllocated"}`, err: `GangschedTopology args: scoring: "LeastAllocated" is not MostAllocated or BestFit`},
		{name: "bad label key", raw: `{"topologyLevels":["rack/a/b"]}`, err: `GangschedTopology args: topologyLevels[0]: "rack/a/b" is not a node label key`},
		{name: "repeated level", raw: `{"topologyLevels":["rack","block","rack"]}`, err: `GangschedTopology args: topologyLevels[2]: "rack" repeats topologyLevels[0]`},
		{name: "preferred key outside the levels", raw: `{"topologyLevels":["block"],"preferredTopologyKey":"rack"}`,
			err: `GangschedTopology args: preferredTopologyKey: "rack" is not one of topologyLevels ["block"]`},
		{name: "content type", contentType: "application/vnd.kubernetes.protobuf", raw: `x`, err: `GangschedTopology args: content type "application/vnd.kubernetes.protobuf" is not JSON or YAML`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := DecodeArgs(&runtime.Unknown{Raw: []byte(tc.raw), ContentType: tc.contentType})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			c, err := a.config()
			require.NoError(t, err)
			require.Equal(t, tc.want, c)
		})
	}
}

// No pluginConfig entry: the scheduler passes nil args.
func TestDecodeArgs_nil(t *testing.T) {
	a, err := DecodeArgs(nil)
	require.NoError(t, err)
	require.Equal(t, &Args{}, a)
}

// Args of another type than the scheduler passes out-of-tree plugins.
func TestDecodeArgs_wrongObject(t *testing.T) {
	_, err := DecodeArgs(&metav1.Status{})
	require.ErrorContains(t, err, "GangschedTopology args: want *runtime.Unknown, got *v1.Status")
}
