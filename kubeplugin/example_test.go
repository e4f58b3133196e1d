package kubeplugin_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/gangsched/gangsched/kubeplugin"
)

// A kube-scheduler build registers the plugin in its out-of-tree registry
// (app.WithPlugin(kubeplugin.Name, kubeplugin.New) does this), and the
// scheduler builds it for each profile that enables it, with that
// profile's args.
func Example() {
	registry := frameworkruntime.Registry{}
	if err := registry.Register(kubeplugin.Name, kubeplugin.New); err != nil {
		panic(err)
	}
	args := &runtime.Unknown{Raw: []byte(`{"topologyLevels":["example.com/block","topology.kubernetes.io/rack"],"scoring":"BestFit"}`)}
	pl, err := registry[kubeplugin.Name](context.Background(), args, nil)
	fmt.Println(pl.Name(), err)

	_, err = registry[kubeplugin.Name](context.Background(), &runtime.Unknown{Raw: []byte(`{"scoring":"Spread"}`)}, nil)
	fmt.Println(err)
	// Output:
	// GangschedTopology <nil>
	// GangschedTopology args: scoring: "Spread" is not MostAllocated or BestFit
}
