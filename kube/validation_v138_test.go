package kube

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// Annotations of testdata/v138/validation.yaml: each object carries the
// answer a real kube-apiserver v1.38.0-beta.0 gave when the object was
// created through it, and where gangsched answers otherwise, its answer
// and why.
const (
	// annAPIServer is the first field the API server named when it
	// refused the object ("accepted" when it took it).
	annAPIServer = "validation.gangsched.io/v1.38"
	// annGangsched is the field gangsched names instead, when another.
	annGangsched = "validation.gangsched.io/gangsched"
	// annDiffers says why one accepts what the other refuses.
	annDiffers = "validation.gangsched.io/differs"
)

// TestValidationMatchesV138APIServer holds package kube under profile
// v1.38 to a real v1.38.0-beta.0 kube-apiserver, object by object: each
// object of testdata/v138/validation.yaml is loaded alone (the converters
// and the profile's rules, as gangsim reads input) and must be accepted
// or refused as the API server did, at the field it named, unless the
// object's annotations record a difference and its reason. The answers
// were recorded by creating the file's objects through the API server
// (feature gates GenericWorkload, TopologyAwareWorkloadScheduling,
// CompositePodGroup; scheduling.k8s.io v1beta1 and v1alpha3 served); see
// the file's header for how to record them again.
func TestValidationMatchesV138APIServer(t *testing.T) {
	f, err := os.Open("testdata/v138/validation.yaml")
	require.NoError(t, err)
	defer f.Close()
	objs, err := manifest.Decode(f.Name(), f, manifest.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	seen := map[string]bool{}
	for i := range objs {
		o := objs[i]
		m, err := meta.Accessor(o.Obj)
		require.NoError(t, err)
		name := o.APIVersion + " " + o.Kind + "/" + m.GetName()
		require.False(t, seen[o.Kind+"/"+m.GetName()], "%s: one API server stores every version of a kind: names must differ", name)
		seen[o.Kind+"/"+m.GetName()] = true
		t.Run(name, func(t *testing.T) {
			ann := m.GetAnnotations()
			api, ok := ann[annAPIServer]
			require.True(t, ok, "%s records the API server's answer", annAPIServer)
			want := api
			if g, ok := ann[annGangsched]; ok {
				want = g
			}
			_, err := LoadWithOptions([]manifest.Object{o}, LoadOptions{Profile: gang.ProfileV138})
			got := "accepted"
			if err != nil {
				var fe *placement.FieldError
				require.True(t, errors.As(err, &fe), "gangsched names a field: %v", err)
				got = fe.Field
			}
			t.Logf("API server: %s; gangsched: %s (%v)", api, got, err)
			require.Equal(t, want, got)
			require.Equal(t, ann[annDiffers] == "", (api == "accepted") == (got == "accepted"),
				"both accept or both refuse, unless %s says why not", annDiffers)
		})
	}
}
