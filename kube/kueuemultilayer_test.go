package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/topology"
)

// layersWorkload is Workload default/w of one pod set, main, of 10 one-CPU
// pods whose template has annotations ann and whose topologyRequest is tr.
func layersWorkload(ann map[string]string, tr *kueue.PodSetTopologyRequest) *kueue.Workload {
	return &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}, Spec: kueue.WorkloadSpec{PodSets: []kueue.PodSet{{
		Name: "main", Count: 10, TopologyRequest: tr,
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: ann}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}},
	}}}}
}

// The TASMultiLayerTopology gate (KueueReadOptions.MultiLayerTopology)
// decides which slice layers a Kueue Workload's pod set is read with, as
// Kueue v0.17 reads them: off (its default) the layers annotation is
// dropped unread, as its job framework drops it, and the field keeps its
// first layer; on, every layer, checked.
func TestConvertKueueWorkload_MultiLayerGate(t *testing.T) {
	const layers = `[{"topology": "block", "size": 10}, {"topology": "kubernetes.io/hostname", "size": 2}]`
	field := []kueue.PodsetSliceRequiredTopologyConstraint{{Topology: "block", Size: 10}, {Topology: "kubernetes.io/hostname", Size: 2}}
	both := []topology.SliceLayer{{Key: "block", Size: 10}, {Key: "kubernetes.io/hostname", Size: 2}}
	outer := both[:1]
	const ann = `Kueue Workload "default/w": spec.podSets[0].template.metadata.annotations`
	for _, tc := range []struct {
		name string
		ann  map[string]string
		tr   *kueue.PodSetTopologyRequest
		// wantOff and wantOn are the set's request read with the gate
		// off and on; errOff and errOn the errors instead.
		wantOff, wantOn topology.PodSetRequest
		errOff, errOn   string
	}{
		{name: "annotation",
			ann:     map[string]string{KueueRequiredTopology: "block", KueueSliceConstraints: layers},
			wantOff: topology.PodSetRequest{PodSet: "main", Required: "block"},
			wantOn:  topology.PodSetRequest{PodSet: "main", Required: "block", Slices: both}},
		{name: "annotation alone",
			ann:     map[string]string{KueueSliceConstraints: layers},
			wantOff: topology.PodSetRequest{PodSet: "main"},
			wantOn:  topology.PodSetRequest{PodSet: "main", Slices: both}},
		{name: "field",
			tr:      &kueue.PodSetTopologyRequest{Required: ptr("block"), PodsetSliceRequiredTopologyConstraints: field},
			wantOff: topology.PodSetRequest{PodSet: "main", Required: "block", Slices: outer},
			wantOn:  topology.PodSetRequest{PodSet: "main", Required: "block", Slices: both}},
		{name: "field of one layer",
			tr:      &kueue.PodSetTopologyRequest{Required: ptr("block"), PodsetSliceRequiredTopologyConstraints: field[:1]},
			wantOff: topology.PodSetRequest{PodSet: "main", Required: "block", Slices: outer},
			wantOn:  topology.PodSetRequest{PodSet: "main", Required: "block", Slices: outer}},
		{name: "field's inner layer at no level, not dividing: read only with the gate",
			tr: &kueue.PodSetTopologyRequest{Required: ptr("block"), PodsetSliceRequiredTopologyConstraints: []kueue.PodsetSliceRequiredTopologyConstraint{
				{Topology: "block", Size: 10}, {Topology: "example.com/none", Size: 3}}},
			wantOff: topology.PodSetRequest{PodSet: "main", Required: "block", Slices: outer},
			wantOn:  topology.PodSetRequest{PodSet: "main", Required: "block", Slices: []topology.SliceLayer{{Key: "block", Size: 10}, {Key: "example.com/none", Size: 3}}}},
		{name: "pair beside the annotation: the pair without the gate",
			ann:     map[string]string{KueueRequiredTopology: "block", KueueSliceRequiredTopology: "kubernetes.io/hostname", KueueSliceSize: "2", KueueSliceConstraints: `[{"topology": "block", "size": 10}]`},
			wantOff: topology.PodSetRequest{PodSet: "main", Required: "block", Slices: []topology.SliceLayer{{Key: "kubernetes.io/hostname", Size: 2}}},
			errOn:   ann + "[kueue.x-k8s.io/podset-slice-required-topology-constraints]: may not be set with kueue.x-k8s.io/podset-slice-required-topology or kueue.x-k8s.io/podset-slice-size"},
		{name: "annotation not JSON",
			ann:     map[string]string{KueueRequiredTopology: "block", KueueSliceConstraints: "not json"},
			wantOff: topology.PodSetRequest{PodSet: "main", Required: "block"},
			errOn:   ann + `[kueue.x-k8s.io/podset-slice-required-topology-constraints]: not a JSON array of {"topology", "size"}: invalid character 'o' in literal null (expecting 'u')`},
		{name: "annotation beside a group name",
			ann:     map[string]string{KueueRequiredTopology: "block", KueuePodSetGroup: "g", KueueSliceConstraints: layers},
			wantOff: topology.PodSetRequest{PodSet: "main", Required: "block", Group: "g"},
			errOn:   ann + "[kueue.x-k8s.io/podset-group-name]: may not be set with slice annotations"},
		{name: "field's inner size below 1: the CRD refuses it whatever the gate",
			tr: &kueue.PodSetTopologyRequest{Required: ptr("block"), PodsetSliceRequiredTopologyConstraints: []kueue.PodsetSliceRequiredTopologyConstraint{
				{Topology: "block", Size: 10}, {Topology: "kubernetes.io/hostname", Size: 0}}},
			errOff: `Kueue Workload "default/w": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints[1].size: 0 is below 1 (Kueue's Workload API minimum)`,
			errOn:  `Kueue Workload "default/w": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints[1].size: 0 is below 1 (Kueue's Workload API minimum)`},
		{name: "field of four layers",
			tr: &kueue.PodSetTopologyRequest{Required: ptr("block"), PodsetSliceRequiredTopologyConstraints: []kueue.PodsetSliceRequiredTopologyConstraint{
				{Topology: "a", Size: 8}, {Topology: "b", Size: 4}, {Topology: "c", Size: 2}, {Topology: "d", Size: 1}}},
			errOff: `Kueue Workload "default/w": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints: has 4 layers: Kueue's Workload API allows at most 3`,
			errOn:  `Kueue Workload "default/w": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints: has 4 layers: Kueue's Workload API allows at most 3`},
		{name: "field's empty topology",
			tr: &kueue.PodSetTopologyRequest{Required: ptr("block"), PodsetSliceRequiredTopologyConstraints: []kueue.PodsetSliceRequiredTopologyConstraint{
				{Topology: "block", Size: 10}, {Topology: "", Size: 2}}},
			errOff: `Kueue Workload "default/w": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints[1].topology: "" is 0 bytes: Kueue's Workload API wants 1 to 63`,
			errOn:  `Kueue Workload "default/w": spec.podSets[0].topologyRequest.podsetSliceRequiredTopologyConstraints[1].topology: "" is 0 bytes: Kueue's Workload API wants 1 to 63`},
	} {
		for _, gate := range []bool{false, true} {
			want, wantErr := tc.wantOff, tc.errOff
			if gate {
				want, wantErr = tc.wantOn, tc.errOn
			}
			t.Run(tc.name+map[bool]string{false: "/off", true: "/on"}[gate], func(t *testing.T) {
				w := layersWorkload(tc.ann, tc.tr)
				got, err := ConvertKueueWorkloadWith(w, nil, KueueReadOptions{MultiLayerTopology: gate})
				if wantErr != "" {
					require.EqualError(t, err, wantErr)
					return
				}
				require.NoError(t, err)
				require.Equal(t, []topology.PodSetRequest{want}, got.Requests)
				require.Equal(t, tc.ann, w.Spec.PodSets[0].Template.Annotations, "the Workload's own annotations are written back as given")
			})
		}
	}
}

// ConvertKueueWorkload reads as Kueue v0.17's default gates: the layers
// annotation dropped.
func TestConvertKueueWorkload_DefaultGates(t *testing.T) {
	w := layersWorkload(map[string]string{KueueRequiredTopology: "block", KueueSliceConstraints: "not json"}, nil)
	got, err := ConvertKueueWorkload(w, nil)
	require.NoError(t, err)
	require.Equal(t, []topology.PodSetRequest{{PodSet: "main", Required: "block"}}, got.Requests)
}
