package kube

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// zeroRequested lists the resources a template names whose effective
// request is 0, as Kueue's pod set requests keep them, and no other.
func TestZeroRequested(t *testing.T) {
	q := resource.MustParse
	rl := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = q(kv[i+1])
		}
		return out
	}
	ctr := func(req, lim corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	for _, c := range []struct {
		name string
		spec corev1.PodSpec
		want []placement.ResourceName
	}{
		{"none", corev1.PodSpec{Containers: []corev1.Container{ctr(nil, nil)}}, nil},
		{"cpu 0", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("cpu", "0"), nil)}}, []placement.ResourceName{"cpu"}},
		{"cpu 0 beside memory", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("cpu", "0", "memory", "1Gi"), nil)}}, []placement.ResourceName{"cpu"}},
		{"cpu 0 in one container, 1 in another", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("cpu", "0"), nil), ctr(rl("cpu", "1"), nil)}}, nil},
		// Kueue copies a limit to a missing request (AdjustResources).
		{"limit 0", corev1.PodSpec{Containers: []corev1.Container{ctr(nil, rl("cpu", "0"))}}, []placement.ResourceName{"cpu"}},
		{"limit 2, request 0", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("cpu", "0"), rl("cpu", "2"))}}, []placement.ResourceName{"cpu"}},
		{"init container 0", corev1.PodSpec{InitContainers: []corev1.Container{ctr(rl("example.com/foo", "0"), nil)}, Containers: []corev1.Container{ctr(nil, nil)}}, []placement.ResourceName{"example.com/foo"}},
		{"pod-level 0", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: rl("cpu", "0")}, Containers: []corev1.Container{ctr(rl("memory", "1Gi"), nil)}}, []placement.ResourceName{"cpu"}},
		{"overhead 0", corev1.PodSpec{Overhead: rl("memory", "0"), Containers: []corev1.Container{ctr(nil, nil)}}, []placement.ResourceName{"memory"}},
		{"sorted", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("memory", "0", "cpu", "0", "example.com/foo", "0"), nil)}}, []placement.ResourceName{"cpu", "example.com/foo", "memory"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			eff, err := PodRequests("pod", &c.spec)
			require.NoError(t, err)
			require.Equal(t, c.want, zeroRequested(&c.spec, eff))
		})
	}
}

// A pod set requesting a resource at 0 written out is admitted as Kueue
// v0.17 admits it (each case run on the real Kueue, kueue-oracle): the
// resource gets a flavor, a topology flavor places the set's pods, each
// taking a host's pod slot, and the admission writes the flavor and a
// resourceUsage of 0; read back, a second admission keeps it as it is. A
// set requesting nothing gets no flavor and no host; a resource at 0 the
// ClusterQueue does not cover gets neither flavor nor resourceUsage. want
// is, per Workload in input order, its action, pods per set and, admitted,
// the first set's flavors and resourceUsage.
func TestAdmitKueueWorkloads_ZeroRequest(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"zero-request", []string{
			"default/z: Admitted [main h1:1] map[cpu:tas] map[cpu:0]",
			"default/none: Admitted [] map[] map[]",
		}},
		{"zero-request-phantom", []string{
			"default/zw: Admitted [workers h3:1 leader h3:1] map[cpu:tas] map[cpu:1]",
		}},
		{"zero-request-slots", []string{
			"default/a: Admitted [main h1:1 h2:1] map[cpu:tas] map[cpu:0]",
			"default/e: Admitted [main h3:1] map[cpu:tas] map[cpu:1]",
			"default/c: Pending []",
			"default/g: Pending []",
			"default/d: Admitted [] map[] map[]",
			"default/f: Pending []",
		}},
		// Memory at 0 is requested: the flavor covering it has no Topology.
		{"zero-request-plain-flavor", []string{
			"default/mem0: Pending []",
			"default/nomem: Admitted [main h1:1] map[cpu:tas] map[cpu:1]",
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			src, err := os.ReadFile("testdata/kueue-oracle/" + c.file + ".yaml")
			require.NoError(t, err)
			cl := loadManifest(t, string(src))
			now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
			opts := KueueOptions{Now: now, Queues: cl.KueueQueues, Plan: topology.KueueProfile.Options()}
			_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, opts)
			require.NoError(t, err)
			var got []string
			for _, o := range outs {
				s := fmt.Sprintf("%s: %s [%s]", o.Workload, o.Action, setHostsOf(o))
				if o.Action == KueueAdmitted {
					psa := cl.KueueWorkloads[slices0(cl.KueueWorkloads, o.Workload.Name)].Obj.Status.Admission.PodSetAssignments[0]
					usage := map[corev1.ResourceName]string{}
					for r, v := range psa.ResourceUsage {
						usage[r] = v.String()
					}
					s += fmt.Sprintf(" %v %v", psa.Flavors, usage)
				}
				got = append(got, s)
			}
			require.Equal(t, c.want, got)

			// Read back, each admission is kept as it is.
			var again []*KueueWorkload
			for _, w := range cl.KueueWorkloads {
				if w.Obj.Status.Admission == nil {
					continue
				}
				r, err := ConvertKueueWorkload(w.Obj.DeepCopy(), nil)
				require.NoError(t, err)
				again = append(again, r)
			}
			cl2 := loadManifest(t, string(src))
			_, outs2, err := AdmitKueueWorkloads(cl2.Snapshot, nil, again, KueueOptions{Now: now, Queues: cl2.KueueQueues, Plan: topology.KueueProfile.Options()})
			require.NoError(t, err)
			for i, o := range outs2 {
				require.Equal(t, KueueKept, o.Action, "%s: %s", o.Workload, o.Message)
				require.Equal(t, cl.KueueWorkloads[slices0(cl.KueueWorkloads, again[i].Obj.Name)].Obj.Status.Admission, again[i].Obj.Status.Admission)
			}
		})
	}
}

// loadManifest loads the objects of YAML src.
func loadManifest(t *testing.T, src string) *Cluster {
	t.Helper()
	objs, err := manifest.Decode("f.yaml", strings.NewReader(src), manifest.Options{})
	require.NoError(t, err)
	cl, err := Load(objs)
	require.NoError(t, err)
	return cl
}
