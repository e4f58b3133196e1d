package kube

import (
	"encoding/json"
	"maps"
	"slices"

	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
)

// kueueConfigOperational are the fields of Kueue's Configuration that run
// the manager (its webhook, metrics, leader election, API client, TLS,
// visibility server, retention of finished objects) and decide no
// admission: they are not read and not warned about, as a
// KubeSchedulerConfiguration's leaderElection is not.
var kueueConfigOperational = []string{"apiVersion", "kind", "namespace", "webhook", "leaderElection", "metrics", "health",
	"pprofBindAddress", "controller", "tls", "internalCertManagement", "clientConnection", "visibilityServer",
	"queueVisibility", "objectRetentionPolicies"}

// kueueConfigWhy says, for the fields of Kueue's Configuration that gangsim
// does not model, what it does instead.
var kueueConfigWhy = map[string]string{
	"waitForPodsReady":              "not modelled: an admitted Workload is neither evicted nor requeued for pods not ready, and admission is not blocked",
	"resources.deviceClassMappings": "not modelled: DRA claims are not charged to quota",
	"admissionFairSharing":          "not modelled: LocalQueues are not ordered by their usage",
	"multiKueue":                    "not modelled: Workloads are admitted in this cluster only",
	"manageJobsWithoutQueueName":    "not modelled: only objects that name a queue are managed",
	"managedJobsNamespaceSelector":  "not modelled",
	"integrations":                  "not read",
}

// KueueConfigurationWarnings names each field of Kueue's Configuration cfg
// (a *config.kueue.x-k8s.io/v1beta1 or v1beta2 Configuration) that is set
// and that gangsim neither models nor may leave unread without changing a
// decision, with what it does instead, in field order: "field: why". Read
// are fairSharing ([ConvertKueueConfiguration]),
// resources.excludeResourcePrefixes and resources.transformations
// ([KueueReadOptions]); fields that run
// the manager and decide no admission (webhook, metrics, leader election,
// client connection, …) are no warning; a feature gate is one
// (gangsim runs Kueue v0.17's default gates but for its flags). A v1beta1
// waitForPodsReady with enable false is off, so no warning. Another type
// has no warnings.
func KueueConfigurationWarnings(cfg any) []string {
	switch c := cfg.(type) {
	case *configv1beta2.Configuration:
		if c == nil {
			return nil
		}
	case *configv1beta1.Configuration:
		if c == nil {
			return nil
		}
		if w := c.WaitForPodsReady; w != nil && !w.Enable {
			c = c.DeepCopy()
			c.WaitForPodsReady = nil
			cfg = c
		}
	default:
		return nil
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil // the API types always marshal
	}
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		v := fields[k]
		switch {
		case isZeroJSON(v) || k == "fairSharing" || slices.Contains(kueueConfigOperational, k):
		case k == "resources":
			sub, _ := v.(map[string]any)
			for _, s := range slices.Sorted(maps.Keys(sub)) {
				if s != "excludeResourcePrefixes" && s != "transformations" && !isZeroJSON(sub[s]) {
					out = append(out, "resources."+s+": "+kueueWhy("resources."+s))
				}
			}
		case k == "featureGates":
			gates, _ := v.(map[string]any)
			for _, g := range slices.Sorted(maps.Keys(gates)) {
				out = append(out, "featureGates."+g+": not read: gangsim runs Kueue v0.17's default feature gates but where its -kueue-* flags set one")
			}
		default:
			out = append(out, k+": "+kueueWhy(k))
		}
	}
	return out
}

// kueueWhy is kueueConfigWhy's entry for field f, "not modelled" without one.
func kueueWhy(f string) string {
	if w, ok := kueueConfigWhy[f]; ok {
		return w
	}
	return "not modelled"
}

// isZeroJSON reports whether a decoded JSON value is null, false, 0, "" or
// an empty object or array: a field left at its zero value.
func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}
