package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kptr "k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// startJobFixture is a suspended Job of 4 pods at least 2, its Workload
// admitted with 3 on flavor spot, and spot.
func startJobFixture() (*batchv1.Job, *kueue.Workload, func(string) (*kueue.ResourceFlavor, bool)) {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "default",
		Annotations: map[string]string{KueueJobMinParallelism: "2", KueueJobCompletionsEqualParallelism: "true"}},
		Spec: batchv1.JobSpec{Suspend: kptr.To(true), Parallelism: kptr.To(int32(4)), Completions: kptr.To(int32(4)),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x", "job-name": "train"}},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}}}}}
	w := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "job-train-1", Namespace: "default"},
		Spec: kueue.WorkloadSpec{QueueName: "lq", PodSets: []kueue.PodSet{{Name: "main", Count: 4,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}}}}}},
		Status: kueue.WorkloadStatus{Admission: &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{
			Name: "main", Count: kptr.To(int32(3)), Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{"cpu": "spot", "memory": "spot"}}}}}}
	spot := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "spot"}, Spec: kueue.ResourceFlavorSpec{
		NodeLabels:  map[string]string{"zone": "z1"},
		Tolerations: []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}}}}
	return j, w, func(n string) (*kueue.ResourceFlavor, bool) { return spot, n == "spot" }
}

// A Job started and stopped again is the Job it was (the Job controller's
// label kept), and a check's podSetUpdate lands on the template.
func TestKueueJobStarted_RoundTrip(t *testing.T) {
	j, w, flavors := startJobFixture()
	w.Status.AdmissionChecks = []kueue.AdmissionCheckState{{Name: "prov", PodSetUpdates: []kueue.PodSetUpdate{
		{Name: "other", Labels: map[string]string{"no": "x"}},
		{Name: "main", Annotations: map[string]string{"a": "b"}, NodeSelector: map[string]string{"zone": "z1"},
			Tolerations: []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}, {Key: "gpu", Operator: corev1.TolerationOpExists}}}}}}
	got, err := KueueJobStarted(j, w, flavors)
	require.NoError(t, err)
	require.False(t, *got.Spec.Suspend)
	require.Equal(t, int32(3), *got.Spec.Parallelism)
	require.Equal(t, int32(3), *got.Spec.Completions)
	tm := got.Spec.Template
	require.Equal(t, map[string]string{"app": "x", "job-name": "train", "kueue.x-k8s.io/podset": "main",
		"kueue.x-k8s.io/local-queue-name": "lq", "kueue.x-k8s.io/cluster-queue-name": "cq"}, tm.Labels)
	require.Equal(t, map[string]string{KueueWorkloadAnnotation: "job-train-1", "a": "b"}, tm.Annotations)
	require.Equal(t, map[string]string{"disk": "ssd", "zone": "z1"}, tm.Spec.NodeSelector)
	require.Equal(t, []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}, {Key: "gpu", Operator: corev1.TolerationOpExists}}, tm.Spec.Tolerations)
	require.Empty(t, tm.Spec.SchedulingGates, "no topologyAssignment, no gate")
	again, err := KueueJobStarted(got, w, flavors)
	require.NoError(t, err)
	require.Equal(t, got, again, "starting a started Job changes nothing")
	back := KueueJobStopped(got, w)
	require.True(t, *back.Spec.Suspend)
	require.Equal(t, j.Spec, back.Spec, "stopping restores the template and the count")
	require.Equal(t, j.Spec.Template.Labels, back.Spec.Template.Labels)
}

// What keeps Kueue from starting a Job is an error naming the Job and
// the field: a flavor the input lacks, a key the template or a check
// gives another value.
func TestKueueJobStarted_Errors(t *testing.T) {
	j, w, flavors := startJobFixture()
	j.Spec.Template.Spec.NodeSelector["zone"] = "z2"
	_, err := KueueJobStarted(j, w, flavors)
	require.EqualError(t, err, `Job "default/train": spec.template: nodeSelector[zone]: "z2" conflicts with "z1"`)

	j, w, flavors = startJobFixture()
	w.Status.AdmissionChecks = []kueue.AdmissionCheckState{{Name: "prov", PodSetUpdates: []kueue.PodSetUpdate{{Name: "main", NodeSelector: map[string]string{"zone": "z9"}}}}}
	_, err = KueueJobStarted(j, w, flavors)
	require.EqualError(t, err, `Job "default/train": admission check "prov": nodeSelector[zone]: "z1" conflicts with "z9"`)

	j, w, _ = startJobFixture()
	_, err = KueueJobStarted(j, w, func(string) (*kueue.ResourceFlavor, bool) { return nil, false })
	require.ErrorContains(t, err, `names ResourceFlavor "spot", which the input lacks`)

	w.Status.Admission = nil
	_, err = KueueJobStarted(j, w, flavors)
	require.ErrorContains(t, err, "want an admission of one pod set")
}

// A set admitted by topology without asking for one gets Kueue's
// unconstrained annotation and the topology gate, once.
func TestKueueJobStarted_Topology(t *testing.T) {
	j, w, flavors := startJobFixture()
	w.Status.Admission.PodSetAssignments[0].TopologyAssignment = &kueue.TopologyAssignment{Levels: []string{"kubernetes.io/hostname"}}
	j.Spec.Template.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: KueueTopologyGate}}
	got, err := KueueJobStarted(j, w, flavors)
	require.NoError(t, err)
	require.Equal(t, "true", got.Spec.Template.Annotations["kueue.x-k8s.io/podset-unconstrained-topology"])
	require.Equal(t, []corev1.PodSchedulingGate{{Name: KueueTopologyGate}}, got.Spec.Template.Spec.SchedulingGates)
}
