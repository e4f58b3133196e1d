package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// TestPodScoreRequests: upstream's non-zero requests, per container, init
// containers and pod-level requests included; nil where they change
// nothing.
func TestPodScoreRequests(t *testing.T) {
	const mi = 1 << 20
	c := func(req corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: req}}
	}
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want placement.ResourceList
	}{
		{"both requested", corev1.PodSpec{Containers: []corev1.Container{c(rl("cpu", "1", "memory", "1Gi"))}}, nil},
		{"none requested", corev1.PodSpec{Containers: []corev1.Container{c(nil)}}, placement.ResourceList{"cpu": 100, "memory": 200 * mi}},
		{"per container", corev1.PodSpec{Containers: []corev1.Container{c(rl("cpu", "500m")), c(nil)}},
			placement.ResourceList{"cpu": 600, "memory": 400 * mi}},
		{"a limit is a request", corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Limits: rl("cpu", "2")}}}},
			placement.ResourceList{"cpu": 2000, "memory": 200 * mi}},
		{"an explicit zero stays", corev1.PodSpec{Containers: []corev1.Container{c(rl("cpu", "0", "memory", "1Gi"))}}, nil},
		{"init container below the containers", corev1.PodSpec{InitContainers: []corev1.Container{c(nil)}, Containers: []corev1.Container{c(rl("cpu", "1", "memory", "1Gi"))}}, nil},
		{"init container above the containers", corev1.PodSpec{InitContainers: []corev1.Container{c(nil)}, Containers: []corev1.Container{c(rl("cpu", "50m", "memory", "100Mi"))}},
			placement.ResourceList{"cpu": 100, "memory": 200 * mi}},
		{"pod-level cpu", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: rl("cpu", "2")}, Containers: []corev1.Container{c(nil)}},
			placement.ResourceList{"cpu": 2000, "memory": 200 * mi}},
		{"overhead on top", corev1.PodSpec{Overhead: rl("cpu", "10m"), Containers: []corev1.Container{c(nil)}},
			placement.ResourceList{"cpu": 110, "memory": 200 * mi}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PodScoreRequests("pod x", &tc.spec)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := PodScoreRequests("pod x", &corev1.PodSpec{Containers: []corev1.Container{c(rl("cpu", "-1"))}})
	require.ErrorIs(t, err, placement.ErrInvalid)
}
