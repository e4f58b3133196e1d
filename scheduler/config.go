package scheduler

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/topology"
)

// ConfigKind and ConfigAPIVersion identify a [Config] file, in the manner
// of a Kubernetes ComponentConfig.
const (
	ConfigKind       = "GangSchedulerConfiguration"
	ConfigAPIVersion = "config.gangsched.io/v1alpha1"
)

// Config configures gangsched-scheduler. [LoadConfig] reads it from a file;
// [DefaultConfig] is the configuration of no file.
type Config struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// SchedulerName is the spec.schedulerName of the pods this scheduler
	// serves; default "gangsched-scheduler".
	SchedulerName string `json:"schedulerName,omitempty"`
	// TopologyLevels are the cluster's topology keys, widest first (e.g.
	// topology.kubernetes.io/zone, topology.kubernetes.io/rack); empty means
	// each PodGroup's own keys. At most [topology.MaxLevels], none empty
	// or listed twice.
	TopologyLevels []string `json:"topologyLevels,omitempty"`
	// Preemption turns workload-aware preemption on; default true.
	Preemption *bool `json:"preemption,omitempty"`
	// Profile is the Kubernetes release whose workload-aware scheduling
	// the decisions follow where releases differ (gang.Profile: "v1.37"
	// or "v1.38"; the table is gang.Profile's doc): set it to the
	// cluster's. Default "" is the newest, v1.38. v1.36 is refused: its
	// API server serves PodGroups in v1alpha2 only, and the scheduler
	// watches v1beta1. When the CompositePodGroup version the API server
	// serves names another release (v1beta1 under v1.37, v1alpha3 alone
	// under v1.38), the scheduler logs a warning at start.
	Profile string `json:"profile,omitempty"`
	// FeatureGates names the upstream feature gates of the cluster's API
	// server whose semantics the decisions must follow, as kube-scheduler's
	// --feature-gates does. The one known is PodGroupPreemptionPolicy
	// (alpha in v1.37, default off; gang.Options.PodGroupPreemptionPolicy):
	// on, every pod of a PodGroup or CompositePodGroup tree is held to its
	// group's (root's) spec.preemptionPolicy, PreemptLowerPriority when
	// unset. Only profile v1.37 has it; v1.38 has no such gate (it holds
	// the pods to the group's policy when set, else to the first pod's).
	// Other names, and the gate set true under another profile, are an
	// error.
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// InitialBackoff and MaxBackoff bound the retry of a group that did not
	// fit (defaults 1s and 10s, as kube-scheduler's).
	InitialBackoff Duration `json:"initialBackoff,omitempty"`
	MaxBackoff     Duration `json:"maxBackoff,omitempty"`
	// Parallelism is how many API calls (bindings, deletions) run at once;
	// default 16.
	Parallelism int `json:"parallelism,omitempty"`
	// LeaderElection is the Lease the replicas compete for.
	LeaderElection LeaderElection `json:"leaderElection"`
	// HealthAddress serves /healthz and /readyz, MetricsAddress /metrics;
	// "" turns a server off. Defaults ":10351" and ":10352".
	HealthAddress  *string `json:"healthAddress,omitempty"`
	MetricsAddress *string `json:"metricsAddress,omitempty"`
}

// LeaderElection configures leader election on a coordination.k8s.io
// Lease, with kube-scheduler's defaults.
type LeaderElection struct {
	// LeaderElect turns election on; default true. Off, the replica
	// schedules at once, which is right only when it is the only one.
	LeaderElect *bool `json:"leaderElect,omitempty"`
	// ResourceNamespace and ResourceName name the Lease; defaults
	// "kube-system" and "gangsched-scheduler".
	ResourceNamespace string `json:"resourceNamespace,omitempty"`
	ResourceName      string `json:"resourceName,omitempty"`
	// LeaseDuration, RenewDeadline and RetryPeriod default to 15s, 10s, 2s.
	LeaseDuration Duration `json:"leaseDuration,omitempty"`
	RenewDeadline Duration `json:"renewDeadline,omitempty"`
	RetryPeriod   Duration `json:"retryPeriod,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("1.5s").
type Duration struct{ time.Duration }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. \"1.5s\")", s)
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return []byte(`"` + d.String() + `"`), nil }

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config {
	var c Config
	c.setDefaults()
	return c
}

// LoadConfig reads a configuration file (YAML or JSON), rejecting unknown
// fields, fills in the defaults and validates it. Errors name the file and
// the field.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	var c Config
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if c.APIVersion != ConfigAPIVersion || c.Kind != ConfigKind {
		return Config{}, fmt.Errorf("config %s: apiVersion/kind: %q/%q, want %s/%s", path, c.APIVersion, c.Kind, ConfigAPIVersion, ConfigKind)
	}
	c.setDefaults()
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

func (c *Config) setDefaults() {
	c.APIVersion, c.Kind = ConfigAPIVersion, ConfigKind
	if c.SchedulerName == "" {
		c.SchedulerName = "gangsched-scheduler"
	}
	if c.Preemption == nil {
		c.Preemption = ptr(true)
	}
	if c.InitialBackoff.Duration == 0 {
		c.InitialBackoff.Duration = time.Second
	}
	if c.MaxBackoff.Duration == 0 {
		c.MaxBackoff.Duration = 10 * time.Second
	}
	if c.Parallelism == 0 {
		c.Parallelism = 16
	}
	if c.HealthAddress == nil {
		c.HealthAddress = ptr(":10351")
	}
	if c.MetricsAddress == nil {
		c.MetricsAddress = ptr(":10352")
	}
	le := &c.LeaderElection
	if le.LeaderElect == nil {
		le.LeaderElect = ptr(true)
	}
	if le.ResourceNamespace == "" {
		le.ResourceNamespace = "kube-system"
	}
	if le.ResourceName == "" {
		le.ResourceName = "gangsched-scheduler"
	}
	if le.LeaseDuration.Duration == 0 {
		le.LeaseDuration.Duration = 15 * time.Second
	}
	if le.RenewDeadline.Duration == 0 {
		le.RenewDeadline.Duration = 10 * time.Second
	}
	if le.RetryPeriod.Duration == 0 {
		le.RetryPeriod.Duration = 2 * time.Second
	}
}

// Validate checks a configuration with its defaults filled in; the error
// names the field.
func (c *Config) Validate() error {
	le := c.LeaderElection
	switch {
	case c.InitialBackoff.Duration < 0:
		return fmt.Errorf("initialBackoff: %v is negative", c.InitialBackoff)
	case c.MaxBackoff.Duration < c.InitialBackoff.Duration:
		return fmt.Errorf("maxBackoff: %v is below initialBackoff %v", c.MaxBackoff, c.InitialBackoff)
	case c.Parallelism < 1:
		return fmt.Errorf("parallelism: %d is below 1", c.Parallelism)
	case le.RetryPeriod.Duration <= 0:
		return fmt.Errorf("leaderElection.retryPeriod: %v must be positive", le.RetryPeriod)
	case le.RenewDeadline.Duration <= le.RetryPeriod.Duration:
		return fmt.Errorf("leaderElection.renewDeadline: %v must exceed retryPeriod %v", le.RenewDeadline, le.RetryPeriod)
	case le.LeaseDuration.Duration <= le.RenewDeadline.Duration:
		return fmt.Errorf("leaderElection.leaseDuration: %v must exceed renewDeadline %v", le.LeaseDuration, le.RenewDeadline)
	}
	profile, err := gang.ParseProfile(c.Profile)
	if err != nil || profile == gang.ProfileV136 {
		// v1.36 serves PodGroups in scheduling.k8s.io/v1alpha2 only, and
		// the scheduler watches v1beta1.
		return fmt.Errorf("profile: %q: must be v1.37 or v1.38 (or empty: the newest); gangsched-scheduler watches scheduling.k8s.io/v1beta1 PodGroups, which v1.36 does not serve", c.Profile)
	}
	// In name order: of several bad gates the error names the same one
	// every run.
	for _, name := range slices.Sorted(maps.Keys(c.FeatureGates)) {
		on := c.FeatureGates[name]
		switch {
		case name != gang.GatePodGroupPreemptionPolicy:
			return fmt.Errorf("featureGates: %q is not a gate this scheduler follows (known: %s)", name, gang.GatePodGroupPreemptionPolicy)
		case on && !profile.HasPreemptionPolicyGate():
			return fmt.Errorf("featureGates: PodGroupPreemptionPolicy: Kubernetes %s has no such gate (it exists in v1.37 only); drop it or set profile: v1.37", profile)
		}
	}
	// The levels as topology.NewTree takes them: refused here, a level
	// listed twice or one too many failed every cycle of a
	// topology-constrained group instead of the start.
	if len(c.TopologyLevels) > topology.MaxLevels {
		return fmt.Errorf("topologyLevels: %d levels, more than the %d a topology may have", len(c.TopologyLevels), topology.MaxLevels)
	}
	for i, k := range c.TopologyLevels {
		if k == "" {
			return fmt.Errorf("topologyLevels[%d]: must not be empty", i)
		}
		if j := slices.Index(c.TopologyLevels[:i], k); j >= 0 {
			return fmt.Errorf("topologyLevels[%d]: %q is also topologyLevels[%d]", i, k, j)
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
