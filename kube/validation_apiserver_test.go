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

// Annotations of testdata/v13x/validation.yaml: each object carries the
// answer a real kube-apiserver of that release gave when the object was
// created through it, and where gangsched answers otherwise, its answer
// and why.
const (
	// annAPIServer is the prefix of the annotation (with the release,
	// "validation.gangsched.io/v1.38") of the first field the API server
	// named when it refused the object ("accepted" when it took it).
	annAPIServer = "validation.gangsched.io/"
	// annGangsched is the field gangsched names instead, when another.
	annGangsched = "validation.gangsched.io/gangsched"
	// annDiffers says why one accepts what the other refuses.
	annDiffers = "validation.gangsched.io/differs"
)

// TestValidationMatchesV138APIServer holds package kube under profile
// v1.38 to a real v1.38.0-beta.0 kube-apiserver (see
// checkAgainstAPIServer). The answers were recorded by creating the
// file's objects through the API server (feature gates GenericWorkload,
// TopologyAwareWorkloadScheduling, CompositePodGroup; scheduling.k8s.io
// v1beta1 and v1alpha3 served); see the file's header for how to record
// them again.
func TestValidationMatchesV138APIServer(t *testing.T) {
	checkAgainstAPIServer(t, "testdata/v138/validation.yaml", gang.ProfileV138)
}

// TestValidationMatchesV136APIServer holds package kube under profile
// v1.36 to a real v1.36.3 kube-apiserver on v1alpha2 Workloads and
// PodGroups (see checkAgainstAPIServer and the file's header).
func TestValidationMatchesV136APIServer(t *testing.T) {
	checkAgainstAPIServer(t, "testdata/v136/validation.yaml", gang.ProfileV136)
}

// checkAgainstAPIServer loads each object of the file alone under
// profile (the converters and the profile's rules, as gangsim reads
// input); it must be accepted or refused as the API server of the
// profile's release did, at the field it named, unless the object's
// annotations record a difference and its reason.
func checkAgainstAPIServer(t *testing.T, file string, profile gang.Profile) {
	f, err := os.Open(file)
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
			api, ok := ann[annAPIServer+string(profile)]
			require.True(t, ok, "%s records the API server's answer", annAPIServer+string(profile))
			want := api
			if g, ok := ann[annGangsched]; ok {
				want = g
			}
			_, err := LoadWithOptions([]manifest.Object{o}, LoadOptions{Profile: profile})
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
