package kube

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

const pgObj = `PodGroup "default/train"`

func TestDeviceConstraints(t *testing.T) {
	ann := func(v string) map[string]string { return map[string]string{AnnotationDeviceConstraints: v} }
	got, err := DeviceConstraints(pgObj, nil)
	require.NoError(t, err)
	require.Nil(t, got)

	got, err = DeviceConstraints(pgObj, ann(` [{"claims": ["nic"], "matchAttribute": "net.example.com/fabric"},
		{"requests": ["gpu", "gpu/small"], "distinctAttribute": "nvlink"}] `))
	require.NoError(t, err)
	require.Equal(t, []dra.GroupDeviceConstraint{
		{Claims: []string{"nic"}, MatchAttribute: "net.example.com/fabric"},
		{Requests: []string{"gpu", "gpu/small"}, DistinctAttribute: "nvlink"},
	}, got)
	got, err = DeviceConstraints(pgObj, ann(`[{"claims": [], "requests": [], "matchAttribute": "x"}]`))
	require.NoError(t, err)
	require.Equal(t, []dra.GroupDeviceConstraint{{MatchAttribute: "x"}}, got)

	const f = pgObj + ": metadata.annotations[gangsched.io/device-constraints]"
	for _, tc := range []struct{ in, want string }{
		{``, f + ": must be a JSON list of constraints"},
		{`null`, f + ": must be a JSON list of constraints"},
		{`{"matchAttribute": "x"}`, f + ": must be a JSON list of constraints"},
		{`[{"matchattribute": "x"}]`, f + `: unknown field "[0].matchattribute"`},
		{`[{"matchAttribute": "x", "matchAttribute": "y"}]`, f + `: duplicate field "[0].matchAttribute"`},
		{`[{"matchAttribute": "x", "claims": "nic"}]`, f + `: json: cannot unmarshal string into Go struct field deviceConstraintJSON.claims of type []string`},
		{`[{"matchAttribute": "x"}] []`, f + `: invalid character '[' after top-level value`},
		{`[{}]`, f + "[0]: exactly one of matchAttribute and distinctAttribute must be set"},
		{`[{"matchAttribute": "x"}, {"distinctAttribute": "y", "claims": ["a", "a"]}]`, f + `[1].claims[1]: "a" appears twice`},
	} {
		_, err := DeviceConstraints(pgObj, ann(tc.in))
		require.EqualError(t, err, tc.want, "input %q", tc.in)
	}
}

// FuzzDeviceConstraints: any annotation value either decodes to
// constraints that encode and decode back to themselves, or is refused
// with a field error naming the PodGroup and the annotation.
func FuzzDeviceConstraints(f *testing.F) {
	for _, s := range []string{
		`[{"claims":["nic"],"matchAttribute":"fabric"}]`,
		`[{"requests":["gpu/a"],"distinctAttribute":"d"},{"matchAttribute":"m"}]`,
		`[{"matchAttribute":"x","distinctAttribute":"y"}]`, `[{"claims":[""]}]`, `[]`, `[1]`, `"x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := DeviceConstraints(pgObj, map[string]string{AnnotationDeviceConstraints: v})
		if err != nil {
			var fe *placement.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Equal(t, pgObj, fe.Object)
			require.True(t, strings.HasPrefix(fe.Field, "metadata.annotations[gangsched.io/device-constraints]"), fe.Field)
			return
		}
		require.NoError(t, dra.CheckGroupDeviceConstraints(pgObj, "x", got))
		out := make([]deviceConstraintJSON, len(got))
		for i, c := range got {
			out[i] = deviceConstraintJSON{Claims: c.Claims, Requests: c.Requests, MatchAttribute: string(c.MatchAttribute), DistinctAttribute: string(c.DistinctAttribute)}
		}
		b, err := json.Marshal(out)
		require.NoError(t, err)
		again, err := DeviceConstraints(pgObj, map[string]string{AnnotationDeviceConstraints: string(b)})
		require.NoError(t, err)
		require.Equal(t, got, again)
	})
}
