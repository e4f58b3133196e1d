package scheduler_test

import (
	"fmt"

	"github.com/gangsched/gangsched/scheduler"
)

// The configuration of a scheduler started without a file.
func ExampleDefaultConfig() {
	c := scheduler.DefaultConfig()
	fmt.Println(c.SchedulerName, c.InitialBackoff, c.MaxBackoff, *c.Preemption)
	le := c.LeaderElection
	fmt.Println(*le.LeaderElect, le.ResourceNamespace+"/"+le.ResourceName, le.LeaseDuration)
	// Output:
	// gangsched-scheduler 1s 10s true
	// true kube-system/gangsched-scheduler 15s
}
