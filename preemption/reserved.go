package preemption

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// reservedNote is what a "cannot help" message adds when s holds room
// reserved without pods ([placement.Change].Reserve): preemption evicts
// pods only, so that room is never freed, and a reader who knows a
// lower-priority workload holds it (a Kueue Workload a batch system
// admitted, say) would otherwise read "no pod ... is in the way" as
// wrong. Empty when s holds no reservation. O(reservations).
func reservedNote(s *placement.Snapshot) string {
	var sets, pods int64
	var first placement.PodSetUsage
	for u := range s.PodSetUsages() {
		if sets == 0 {
			first = u
		}
		sets++
		pods += u.Pods()
	}
	switch sets {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; room for %d pods is reserved without pods (pod set %q of %s), which preemption never frees", pods, first.PodSet, first.Group)
	}
	return fmt.Sprintf("; room for %d pods is reserved without pods (%d pod sets, the first %q of %s), which preemption never frees", pods, sets, first.PodSet, first.Group)
}
