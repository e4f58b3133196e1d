package harness

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	etcd3testing "k8s.io/apiserver/pkg/storage/etcd3/testing"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// FeatureGates are the gates the cluster's kube-apiserver runs with: the
// workload API (Workload, PodGroup), its topology and preemption fields,
// CompositePodGroups, and the PodGroup claims of DRA.
var FeatureGates = []string{
	"GenericWorkload=true",
	"TopologyAwareWorkloadScheduling=true",
	"CompositePodGroup=true",
	"PodGroupPreemptionPolicy=true",
	"DRAWorkloadResourceClaims=true",
}

// RuntimeConfig enables the API versions that serve those gates' objects.
var RuntimeConfig = []string{
	"scheduling.k8s.io/v1beta1=true",
	"scheduling.k8s.io/v1alpha3=true",
}

// Options tune a [Cluster]; the zero value is a good default.
type Options struct {
	// Flags are extra kube-apiserver flags, appended after the harness's own.
	Flags []string
}

// Cluster is etcd and kube-apiserver running inside the test binary. Its
// [Cluster.Config] stays valid across [Cluster.RestartAPIServer]: clients
// reach the apiserver through a loopback proxy with a fixed address, and
// authenticate with a static token the restarted server accepts too.
type Cluster struct {
	t       testing.TB
	storage *storagebackend.Config
	flags   []string
	proxy   *proxy
	server  *apiservertesting.TestServer

	// Config reaches the cluster as a member of system:masters.
	Config *rest.Config
}

// Start runs etcd and kube-apiserver for t; both stop when t ends. It fails
// t when either cannot start.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	_, storage := etcd3testing.NewUnsecuredEtcd3TestClientServer(t)

	token := randomToken(t)
	tokenFile := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(token+`,admin,admin,"system:masters"`+"\n"), 0o600); err != nil {
		t.Fatalf("harness: write token file: %v", err)
	}
	flags := []string{
		"--runtime-config=" + strings.Join(RuntimeConfig, ","),
		"--feature-gates=" + strings.Join(FeatureGates, ","),
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		// No controller-manager runs: no service account exists to mount,
		// and no node lifecycle controller would lift the not-ready taint
		// that TaintNodesByCondition puts on new nodes. Nodes are created
		// Ready by the tests, pods without a service account.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
	}
	flags = append(flags, opts.Flags...)

	p, err := newProxy()
	if err != nil {
		t.Fatalf("harness: proxy: %v", err)
	}
	c := &Cluster{t: t, storage: storage, flags: flags, proxy: p}
	c.startAPIServer()
	ca, err := os.ReadFile(c.server.ServerOpts.SecureServing.ServerCert.CertKey.CertFile)
	if err != nil {
		t.Fatalf("harness: read serving certificate: %v", err)
	}
	c.Config = &rest.Config{
		Host:            "https://" + p.addr(),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
		QPS:             1000,
		Burst:           10000,
	}
	t.Cleanup(func() {
		c.StopAPIServer()
		p.close()
	})
	return c
}

// Client returns a clientset on [Cluster.Config].
func (c *Cluster) Client() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(c.Config)
}

// StopAPIServer stops kube-apiserver (etcd keeps running) and cuts every
// connection to it. It does nothing when the apiserver is not running.
func (c *Cluster) StopAPIServer() {
	if c.server == nil {
		return
	}
	c.proxy.setBackend("")
	c.server.TearDownFn()
	c.server = nil
}

// StartAPIServer starts kube-apiserver again on the same etcd, after
// [Cluster.StopAPIServer]; it returns once /healthz is ok.
func (c *Cluster) StartAPIServer() {
	c.t.Helper()
	if c.server != nil {
		return
	}
	c.startAPIServer()
}

// RestartAPIServer stops kube-apiserver and starts it again on the same etcd.
func (c *Cluster) RestartAPIServer() {
	c.t.Helper()
	c.StopAPIServer()
	c.StartAPIServer()
}

func (c *Cluster) startAPIServer() {
	c.t.Helper()
	server, err := apiservertesting.StartTestServer(c.t,
		&apiservertesting.TestServerInstanceOptions{DisableInvariantChecks: true}, c.flags, c.storage)
	if err != nil {
		c.t.Fatalf("harness: start kube-apiserver: %v", err)
	}
	c.server = &server
	c.proxy.setBackend(fmt.Sprintf("127.0.0.1:%d", server.ServerOpts.SecureServing.BindPort))
}

func randomToken(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("harness: token: %v", err)
	}
	return hex.EncodeToString(b)
}
