package kube

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
)

const (
	rackLabel  = "cloud.provider.com/topology-rack"
	blockLabel = "cloud.provider.com/topology-block"
)

func TestKueueSlices(t *testing.T) {
	const obj = `Job "default/j"`
	for _, tc := range []struct {
		name string
		ann  map[string]string
		pods int32
		want []gang.TopologyConstraint
		err  string
	}{
		{"none", nil, 8, nil, ""},
		{"single layer", map[string]string{KueueSliceRequiredTopology: rackLabel, KueueSliceSize: "4"}, 8,
			[]gang.TopologyConstraint{{Key: rackLabel, SliceSize: 4}}, ""},
		{"multi layer", map[string]string{KueueSliceConstraints: `[{"topology": "` + blockLabel + `", "size": 32}, {"topology": "` + rackLabel + `", "size": 16}]`}, 64,
			[]gang.TopologyConstraint{{Key: blockLabel, SliceSize: 32}, {Key: rackLabel, SliceSize: 16}}, ""},
		{"count not a multiple", map[string]string{KueueSliceRequiredTopology: rackLabel, KueueSliceSize: "4"}, 10, nil,
			`Job "default/j": spec.parallelism: 10 pods are not a multiple of the slice size 4`},
		{"size without key", map[string]string{KueueSliceSize: "4"}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology]: must be set together with kueue.x-k8s.io/podset-slice-size`},
		{"key without size", map[string]string{KueueSliceRequiredTopology: rackLabel}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: must be set together with kueue.x-k8s.io/podset-slice-required-topology`},
		{"size not a number", map[string]string{KueueSliceRequiredTopology: rackLabel, KueueSliceSize: "four"}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: "four" is not a decimal integer`},
		{"size zero", map[string]string{KueueSliceRequiredTopology: rackLabel, KueueSliceSize: "0"}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: size 0 is below 1`},
		{"both forms", map[string]string{KueueSliceRequiredTopology: rackLabel, KueueSliceSize: "4", KueueSliceConstraints: "[]"}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology-constraints]: may not be set with kueue.x-k8s.io/podset-slice-required-topology or kueue.x-k8s.io/podset-slice-size`},
		{"inner does not divide", map[string]string{KueueSliceConstraints: `[{"topology": "` + blockLabel + `", "size": 32}, {"topology": "` + rackLabel + `", "size": 12}]`}, 64, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology-constraints][1]: size 12 does not divide the outer layer's size 32`},
		{"four layers", map[string]string{KueueSliceConstraints: `[{"topology":"a","size":8},{"topology":"b","size":4},{"topology":"c","size":2},{"topology":"d","size":1}]`}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology-constraints]: 4 slice layers, more than 3`},
		{"unknown field", map[string]string{KueueSliceConstraints: `[{"topology":"a","sizes":8}]`}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-required-topology-constraints]: not a JSON array of {"topology", "size"}: json: unknown field "sizes"`},
		{"group with slices", map[string]string{KueuePodSetGroup: "g", KueueSliceRequiredTopology: rackLabel, KueueSliceSize: "4"}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-group-name]: may not be set with slice annotations`},
		{"numeric group", map[string]string{KueuePodSetGroup: "7"}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-group-name]: "7" must be a name, not a number or empty`},
		{"bad key", map[string]string{KueueSliceRequiredTopology: "a b", KueueSliceSize: "1"}, 8, nil,
			`Job "default/j": spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: topology "a b" is not a node label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kueueSlices(obj, tc.ann, tc.pods)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// FuzzKueueSlices: any annotations give layers that Kueue accepts — at
// most three, sizes ≥ 1, each dividing the one around it, the pod count
// a multiple of the outermost — or an error, never a panic.
func FuzzKueueSlices(f *testing.F) {
	f.Add(rackLabel, "4", "", int32(8))
	f.Add("", "", `[{"topology":"a","size":8},{"topology":"b","size":4}]`, int32(16))
	f.Add("a", "-1", "[", int32(0))
	f.Fuzz(func(t *testing.T, key, size, multi string, pods int32) {
		ann := map[string]string{}
		if key != "" {
			ann[KueueSliceRequiredTopology] = key
		}
		if size != "" {
			ann[KueueSliceSize] = size
		}
		if multi != "" {
			ann[KueueSliceConstraints] = multi
		}
		got, err := kueueSlices(`Job "default/j"`, ann, pods)
		if err != nil {
			require.Nil(t, got)
			return
		}
		require.LessOrEqual(t, len(got), 3)
		for i, c := range got {
			require.Positive(t, c.SliceSize)
			if i > 0 {
				require.Zero(t, got[i-1].SliceSize%c.SliceSize)
			}
		}
		if len(got) > 0 {
			require.Zero(t, pods%got[0].SliceSize)
			require.GreaterOrEqual(t, pods, got[0].SliceSize)
		}
	})
}
