package kubeplugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/topology"
)

// Args are the plugin's arguments, given in a KubeSchedulerConfiguration
// profile's pluginConfig under the name [Name]:
//
//	pluginConfig:
//	- name: GangschedTopology
//	  args:
//	    topologyLevels: [example.com/block, topology.kubernetes.io/rack]
//	    preferredTopologyKey: topology.kubernetes.io/rack
//	    scoring: BestFit
//
// The zero value is valid: a PodGroup's required key alone makes the
// topology, ranked MostAllocated, as upstream's TopologyPlacementGenerator
// and NodeResourcesFit placement score rank it.
type Args struct {
	// TopologyLevels are the cluster's topology keys (node label keys),
	// widest first, as in a Kueue Topology: the levels of gangsched's domain
	// tree. A node is in a domain of a level only when it carries the
	// labels of that level and of every wider one. A PodGroup whose
	// required key (spec.schedulingConstraints.topology[0].key) is not
	// among them is placed on a tree of that key alone, and
	// PreferredTopologyKey does not apply to it.
	TopologyLevels []string `json:"topologyLevels,omitempty"`
	// PreferredTopologyKey is a soft constraint applied to every PodGroup
	// (the v1beta1 API has no field for one): members should share one
	// domain of this key when one can hold them all, and otherwise as few
	// as possible, widening one level at a time up to the required key (or
	// the whole cluster). It must be one of TopologyLevels; a key no
	// narrower than a group's required key adds nothing for that group.
	PreferredTopologyKey string `json:"preferredTopologyKey,omitempty"`
	// Scoring ranks feasible placements: "MostAllocated" (the default;
	// upstream's placement score, NodeResourcesFit MostAllocated plus
	// PodGroupPodsCount) or "BestFit" (hierarchical best fit: keep empty
	// racks and blocks whole, then the tightest fit); see
	// topology.MostAllocated and topology.BestFit.
	Scoring string `json:"scoring,omitempty"`
}

// config is Args checked: the tree's levels and the scoring to use.
type config struct {
	levels    []string
	preferred string
	scoring   topology.Scoring
}

// DecodeArgs decodes and checks the plugin's args as the scheduler hands
// them to a plugin factory: nil (no pluginConfig entry) or a
// *runtime.Unknown holding JSON or YAML (how the scheduler passes an
// out-of-tree plugin's args). Unknown fields are errors.
//
// Errors name the field: an unknown field; a TopologyLevels entry that is
// not a valid label key or repeats one; a PreferredTopologyKey that is not
// one of TopologyLevels; a Scoring other than MostAllocated or BestFit.
func DecodeArgs(obj runtime.Object) (*Args, error) {
	a := &Args{}
	switch o := obj.(type) {
	case nil:
	case *runtime.Unknown:
		if err := decodeStrict(o, a); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s args: want *runtime.Unknown, got %T", Name, obj)
	}
	if _, err := a.config(); err != nil {
		return nil, err
	}
	return a, nil
}

func decodeStrict(u *runtime.Unknown, a *Args) error {
	raw := u.Raw
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	switch u.ContentType {
	case runtime.ContentTypeJSON, "":
	case runtime.ContentTypeYAML:
		j, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return fmt.Errorf("%s args: %w", Name, err)
		}
		raw = j
	default:
		return fmt.Errorf("%s args: content type %q is not JSON or YAML", Name, u.ContentType)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(a); err != nil {
		// encoding/json says `json: unknown field "x"`: keep its words,
		// prefixed with whose args they are.
		return fmt.Errorf("%s args: %s", Name, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// config checks a and returns it in the form the plugin uses.
func (a *Args) config() (config, error) {
	c := config{levels: a.TopologyLevels, preferred: a.PreferredTopologyKey}
	seen := map[string]int{}
	for i, k := range a.TopologyLevels {
		f := fmt.Sprintf("topologyLevels[%d]", i)
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return config{}, fmt.Errorf("%s args: %s: %q is not a node label key: %s", Name, f, k, strings.Join(errs, "; "))
		}
		if j, dup := seen[k]; dup {
			return config{}, fmt.Errorf("%s args: %s: %q repeats topologyLevels[%d]", Name, f, k, j)
		}
		seen[k] = i
	}
	if p := a.PreferredTopologyKey; p != "" {
		if _, ok := seen[p]; !ok {
			return config{}, fmt.Errorf("%s args: preferredTopologyKey: %q is not one of topologyLevels %q", Name, p, a.TopologyLevels)
		}
	}
	switch a.Scoring {
	case "", topology.MostAllocated.String():
		c.scoring = topology.MostAllocated
	case topology.BestFit.String():
		c.scoring = topology.BestFit
	default:
		return config{}, fmt.Errorf("%s args: scoring: %q is not %s or %s", Name, a.Scoring, topology.MostAllocated, topology.BestFit)
	}
	return c, nil
}
