package kube

import (
	"unique"

	"github.com/gangsched/gangsched/placement"
)

// flavorResource is one resource of one flavor, as a handle that stands
// for the pair ([frOf]; its names by [flavorResource.Flavor] and
// [flavorResource.Resource]). The quota walks and victim searches key
// their maps by flavor-resource many times per search: hashing the two
// names was a tenth of a crowded run, a handle is hashed in one step.
// Handles come from the standard library's [unique] package, which keeps
// a pair only while some handle to it lives, so a long-running caller
// reading many worlds keeps no table of every name it ever met. The zero
// value is the pair of empty names. Handles order nothing: what is sorted
// is sorted by name ([compareFlavorResources]).
type flavorResource struct{ h unique.Handle[frName] }

// frName is a flavor-resource by its names.
type frName struct {
	flavor   string
	resource placement.ResourceName
}

// frOf is the flavor-resource of resource r of flavor f.
func frOf(f string, r placement.ResourceName) flavorResource {
	if f == "" && r == "" {
		return flavorResource{}
	}
	return flavorResource{unique.Make(frName{f, r})}
}

// names is fr's pair of names.
func (fr flavorResource) names() frName {
	if fr == (flavorResource{}) {
		return frName{}
	}
	return fr.h.Value()
}

// Flavor is fr's flavor name.
func (fr flavorResource) Flavor() string { return fr.names().flavor }

// Resource is fr's resource name.
func (fr flavorResource) Resource() placement.ResourceName { return fr.names().resource }
