package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gangsched/gangsched/gang"
)

// featureGates are the upstream feature gates gangsim models, as
// kube-scheduler's --feature-gates names them; the zero value is each
// gate's default in Kubernetes v1.37.2.
type featureGates struct {
	// podGroupPreemptionPolicy is PodGroupPreemptionPolicy (alpha, off in
	// v1.37.2): gang.Options.PodGroupPreemptionPolicy.
	podGroupPreemptionPolicy bool
}

// knownGates lists the gates -feature-gates accepts.
const knownGates = gang.GatePodGroupPreemptionPolicy

// parseFeatureGates reads -feature-gates, "Name=bool" pairs separated by
// commas (the form kube-scheduler's --feature-gates takes), for the
// release p decides as. Errors: a pair without "=", a value that is not
// a boolean, a gate gangsim does not model, or a gate p's release does
// not have (PodGroupPreemptionPolicy exists in v1.37 only).
func parseFeatureGates(s string, p gang.Profile) (featureGates, error) {
	var g featureGates
	if s == "" {
		return g, nil
	}
	for _, pair := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			return g, fmt.Errorf("-feature-gates %q: want Name=true or Name=false, e.g. PodGroupPreemptionPolicy=true", pair)
		}
		on, err := strconv.ParseBool(value)
		if err != nil {
			return g, fmt.Errorf("-feature-gates %s: value %q is not true or false", name, value)
		}
		switch name {
		case gang.GatePodGroupPreemptionPolicy:
			if on && !p.HasPreemptionPolicyGate() {
				return g, fmt.Errorf("-feature-gates PodGroupPreemptionPolicy: Kubernetes %s has no such gate (it exists in v1.37 only; v1.38 always honours spec.preemptionPolicy); drop it or use -profile v1.37", p)
			}
			g.podGroupPreemptionPolicy = on
		default:
			return g, fmt.Errorf("-feature-gates %s: not a gate gangsim models (known: %s)", name, knownGates)
		}
	}
	return g, nil
}
