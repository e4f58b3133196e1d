package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/config"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/e2e/harness"
	"github.com/gangsched/gangsched/kubeplugin"
)

const (
	// kubeSchedulerName is the profile of kubeplugin's example
	// configuration, which these tests run.
	kubeSchedulerName = "gangsched-kube-scheduler"
	blockKey          = "example.com/block"
)

// The seed's walkthrough through kube-scheduler v1.37 with kubeplugin's
// GangschedTopology as its placement generator and scorer: a Workload and
// its PodGroup with minCount 4, and four pods of one GPU each. With three
// one-GPU nodes all four wait (the condition says Unschedulable, no pod is
// bound); a fourth node is created and all four bind, one per node; the
// condition turns True.
func TestKubeSchedulerSeedWalkthrough(t *testing.T) {
	seedWalkthrough(t, [3]*corev1.Node{blockNode("node-a", "block-1", "rack-1"), blockNode("node-b", "block-1", "rack-1"), blockNode("node-c", "block-1", "rack-2")},
		blockNode("node-d", "block-1", "rack-2"), kubeMember, startKubeScheduler)
}

// A gang of two that must share a block and, by the plugin's args, should
// share a rack, with BestFit scoring: of the racks that could hold it
// (rack-1 with two free one-GPU nodes and rack-2 with four, both in
// block-1; rack-3 in block-2 has one left) it lands in rack-1, the tightest
// fit, one member per node. Before it, the same gang through upstream's
// default profile, whose generator offers the two blocks whole and whose
// MostAllocated placement score takes the smaller, lands in block-2 (rack-3,
// three nodes).
func TestKubeSchedulerPreferredRackBestFit(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	create(t, client,
		blockNode("r1-a", "block-1", "rack-1"), blockNode("r1-b", "block-1", "rack-1"),
		blockNode("r2-a", "block-1", "rack-2"), blockNode("r2-b", "block-1", "rack-2"), blockNode("r2-c", "block-1", "rack-2"), blockNode("r2-d", "block-1", "rack-2"),
		blockNode("r3-a", "block-2", "rack-3"), blockNode("r3-b", "block-2", "rack-3"), blockNode("r3-c", "block-2", "rack-3"))
	byBlock := func(name, schedulerName string) {
		pg := podGroup(name, 2)
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: blockKey}}}
		create(t, client, pg)
		for i := range 2 {
			p := kubeMember(fmt.Sprintf("%s-%d", name, i), name)
			p.Spec.SchedulerName = schedulerName
			create(t, client, p)
		}
		conditionIs(t, client, name, metav1.ConditionTrue, "Scheduled")
		eventually(t, name+" bound", func(ctx context.Context) (bool, error) {
			n, err := boundCount(ctx, client, name)
			return n == 2, err
		})
	}
	nodesOf := func(group string) map[string]bool {
		ps, err := pods(ctxFor(t), client, group)
		require.NoError(t, err)
		got := map[string]bool{}
		for _, p := range ps {
			got[p.Spec.NodeName] = true
		}
		return got
	}
	startKubeScheduler(t, c)

	byBlock("upstream", corev1.DefaultSchedulerName)
	for n := range nodesOf("upstream") {
		require.Contains(t, []string{"r3-a", "r3-b", "r3-c"}, n, "upstream's profile takes block-2")
	}
	byBlock("pair", kubeSchedulerName)
	require.Equal(t, map[string]bool{"r1-a": true, "r1-b": true}, nodesOf("pair"), "both members in rack-1, one per node")
}

// blockNode is a node with 8 CPUs and one GPU in rack of block.
func blockNode(name, block, rack string) *corev1.Node {
	n := node(name, rack, 8, 1)
	n.Labels[blockKey] = block
	return n
}

// kubeMember is a one-GPU member of PodGroup group for the custom
// kube-scheduler's profile.
func kubeMember(name, group string) *corev1.Pod {
	p := member(name, group, "", 1)
	p.Spec.SchedulerName = kubeSchedulerName
	return p
}

// startKubeScheduler runs kube-scheduler v1.37 with kubeplugin registered
// (as kubeplugin/cmd/gangsched-kube-scheduler builds it) in the test
// process, on kubeplugin's example configuration with upstream's default
// profile added (for pods that name default-scheduler), leader election
// off and backoff one second. It stops when t ends.
func startKubeScheduler(t testing.TB, c *harness.Cluster) {
	t.Helper()
	raw, err := os.ReadFile("../kubeplugin/deploy/kube-scheduler-config.yaml")
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &cfg))
	cfg["leaderElection"] = map[string]any{"leaderElect": false}
	cfg["podInitialBackoffSeconds"], cfg["podMaxBackoffSeconds"] = 1, 1
	cfg["profiles"] = append(cfg["profiles"].([]any), map[string]any{"schedulerName": corev1.DefaultSchedulerName})
	runKubeSchedulerConfig(t, c, cfg)
}

// runKubeSchedulerConfig runs kube-scheduler, kubeplugin registered, on
// KubeSchedulerConfiguration cfg (as YAML would decode it) in the test
// process, with its clientConnection pointed at c (with c.Config's QPS
// and burst, as gangsched-scheduler gets them in these tests) and nothing
// served. It stops when t ends.
func runKubeSchedulerConfig(t testing.TB, c *harness.Cluster, cfg map[string]any) {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"e2e": {Server: c.Config.Host, CertificateAuthorityData: c.Config.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"e2e": {Token: c.Config.BearerToken}},
		Contexts:       map[string]*clientcmdapi.Context{"e2e": {Cluster: "e2e", AuthInfo: "e2e"}},
		CurrentContext: "e2e",
	}, kubeconfig))
	cfg["clientConnection"] = map[string]any{"kubeconfig": kubeconfig, "qps": c.Config.QPS, "burst": c.Config.Burst}
	out, err := yaml.Marshal(cfg)
	require.NoError(t, err)
	configFile := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(configFile, out, 0o600))

	opts := options.NewOptions()
	opts.ConfigFile = configFile
	opts.SecureServing.BindPort = 0
	opts.SecureServing.ServerCert.CertDirectory = dir
	ctx, cancel := context.WithCancel(context.Background())
	cc, sched, err := app.Setup(ctx, opts, app.WithPlugin(kubeplugin.Name, kubeplugin.New))
	if err != nil {
		cancel()
		require.NoError(t, err, "kube-scheduler setup")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runKubeScheduler(ctx, cc, sched)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// runKubeScheduler does what app.Run does for a scheduler without leader
// election or serving, but for registering the configuration with configz,
// which a process allows once (a second kube-scheduler in the test binary
// would fail there).
func runKubeScheduler(ctx context.Context, cc *config.CompletedConfig, sched *scheduler.Scheduler) {
	cc.EventBroadcaster.StartRecordingToSink(ctx.Done())
	defer cc.EventBroadcaster.Shutdown()
	cc.InformerFactory.Start(ctx.Done())
	cc.DynInformerFactory.Start(ctx.Done())
	cc.InformerFactory.WaitForCacheSync(ctx.Done())
	cc.DynInformerFactory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		return // ctx ended first
	}
	sched.Run(ctx)
}
