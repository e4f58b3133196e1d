// Command gangsched-kube-scheduler is the upstream kube-scheduler v1.37
// with gangsched's topology plugin (package kubeplugin, plugin name
// GangschedTopology) registered. It takes kube-scheduler's flags; a profile
// of its --config enables the plugin (see
// kubeplugin/deploy/kube-scheduler-config.yaml):
//
//	gangsched-kube-scheduler --config kube-scheduler-config.yaml \
//	  --feature-gates GenericWorkload=true,TopologyAwareWorkloadScheduling=true
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/gangsched/gangsched/kubeplugin"
)

func main() {
	command := app.NewSchedulerCommand(app.WithPlugin(kubeplugin.Name, kubeplugin.New))
	os.Exit(cli.Run(command))
}
