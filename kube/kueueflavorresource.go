package kube

import (
	"sync"
	"sync/atomic"

	"github.com/gangsched/gangsched/placement"
)

// flavorResource is one resource of one flavor, as a number that stands
// for the pair ([frOf]; its names by [flavorResource.Flavor] and
// [flavorResource.Resource]). The quota walks and victim searches key
// their maps by flavor-resource many times per search: hashing the two
// names was a tenth of a crowded run, a number is hashed in one step.
// The zero value is the pair of empty names. Numbers are handed out in
// the order pairs are first met, so they order nothing: what is sorted
// is sorted by name ([compareFlavorResources]).
type flavorResource struct{ id uint32 }

// frName is a flavor-resource by its names.
type frName struct {
	flavor   string
	resource placement.ResourceName
}

// frTable numbers the flavor-resources met in this process, for every
// caller alike: the pairs are few (flavors times resources), and a
// number read in one call means the same pair in any other. names is
// replaced, never changed in place, so that it is read without the lock.
var frTable = struct {
	mu    sync.Mutex
	ids   sync.Map // frName → uint32
	names atomic.Pointer[[]frName]
}{}

func init() {
	names := []frName{{}}
	frTable.names.Store(&names)
	frTable.ids.Store(frName{}, uint32(0))
}

// frOf is the flavor-resource of resource r of flavor f.
func frOf(f string, r placement.ResourceName) flavorResource {
	k := frName{f, r}
	if id, ok := frTable.ids.Load(k); ok {
		return flavorResource{id.(uint32)}
	}
	frTable.mu.Lock()
	defer frTable.mu.Unlock()
	if id, ok := frTable.ids.Load(k); ok {
		return flavorResource{id.(uint32)}
	}
	old := *frTable.names.Load()
	names := append(old[:len(old):len(old)], k)
	id := uint32(len(old))
	frTable.names.Store(&names)
	frTable.ids.Store(k, id)
	return flavorResource{id}
}

// Flavor is fr's flavor name.
func (fr flavorResource) Flavor() string { return (*frTable.names.Load())[fr.id].flavor }

// Resource is fr's resource name.
func (fr flavorResource) Resource() placement.ResourceName {
	return (*frTable.names.Load())[fr.id].resource
}
