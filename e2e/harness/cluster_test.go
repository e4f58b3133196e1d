package harness

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// A node written before the apiserver restarts is read back after it by a
// client made before it: etcd kept it, and the client's address still works.
func TestClusterRestartKeepsStateAndAddress(t *testing.T) {
	c := Start(t, Options{})
	client := c.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	_, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = client.SchedulingV1beta1().PodGroups("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err, "scheduling.k8s.io/v1beta1 PodGroups are served")

	c.RestartAPIServer()
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
		return err == nil, nil
	})
	require.NoError(t, err, "node n1 readable after the restart")
}
