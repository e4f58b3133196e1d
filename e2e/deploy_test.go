package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/gangsched/gangsched/e2e/harness"
	"github.com/gangsched/gangsched/scheduler"
)

// The Deployment manifest's RBAC and configuration are enough: its
// Namespace, ServiceAccount, roles and ConfigMap are applied, the
// ConfigMap's config file is loaded, and the scheduler runs as the service
// account (impersonated; RBAC is on), leader election included, and binds
// a gang whole, then a one-leaf CompositePodGroup tree (its watch and its
// condition are in the role too).
func TestDeploymentRBAC(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	admin := c.Client()
	ctx := ctxFor(t)
	b, err := os.ReadFile("../scheduler/deploy/gangsched-scheduler.yaml")
	require.NoError(t, err)
	var configText string
	for _, doc := range strings.Split(string(b), "\n---\n") {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		require.NoError(t, err)
		switch v := obj.(type) {
		case *corev1.Namespace:
			_, err = admin.CoreV1().Namespaces().Create(ctx, v, metav1.CreateOptions{})
		case *corev1.ServiceAccount:
			_, err = admin.CoreV1().ServiceAccounts(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = admin.RbacV1().ClusterRoles().Create(ctx, v, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, v, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = admin.RbacV1().Roles(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = admin.RbacV1().RoleBindings(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		case *corev1.ConfigMap:
			configText = v.Data["config.yaml"]
		}
		require.NoError(t, err, "apply %T", obj)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(configText), 0o600))
	cfg, err := scheduler.LoadConfig(path)
	require.NoError(t, err)
	cfg.HealthAddress, cfg.MetricsAddress = new(""), new("")
	cfg.InitialBackoff.Duration, cfg.MaxBackoff.Duration = testConfig().InitialBackoff.Duration, testConfig().MaxBackoff.Duration

	asSA := rest.CopyConfig(c.Config)
	asSA.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:gangsched-system:gangsched-scheduler",
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:gangsched-system", "system:authenticated"},
	}
	s, err := scheduler.New(kubernetes.NewForConfigOrDie(asSA), cfg, scheduler.Options{Dynamic: dynamic.NewForConfigOrDie(asSA)})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- scheduler.RunElected(runCtx, s, "deployed") }()
	t.Cleanup(func() { cancel(); <-done })

	for i := range 4 {
		create(t, admin, node(fmt.Sprintf("node-%d", i), "rack-1", 8, 1))
	}
	create(t, admin, podGroup("deployed", 4))
	for i := range 4 {
		create(t, admin, member(fmt.Sprintf("deployed-%d", i), "deployed", "", 1))
	}
	conditionIs(t, admin, "deployed", metav1.ConditionTrue, "Scheduled")
	eventually(t, "all four bound", func(ctx context.Context) (bool, error) {
		n, err := boundCount(ctx, admin, "deployed")
		return n == 4, err
	})

	// A tree: root CompositePodGroup solo (gang of 1 child), child
	// PodGroup solo-leaf (gang of 1 pod).
	create(t, admin, &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "solo"},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:      &schedulingv1alpha3.WorkloadReference{WorkloadName: "solo", TemplateName: "solo"},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 1}},
		},
	})
	leaf := podGroup("solo-leaf", 1)
	leaf.Spec.ParentCompositePodGroupName = new("solo")
	leaf.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "solo", TemplateName: "leaf"}
	create(t, admin, leaf, member("solo-0", "solo-leaf", "", 0))
	compositeConditionIs(t, admin, "solo", metav1.ConditionTrue, "Scheduled")
	boundPods(t, admin, "solo-leaf", 1, "the tree's pod bound")

	lease, err := admin.CoordinationV1().Leases("gangsched-system").Get(ctx, "gangsched-scheduler", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "deployed", *lease.Spec.HolderIdentity)
}
