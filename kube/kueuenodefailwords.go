package kube

import "strings"

// nodeFailuresWords is the Evicted message (reason NodeFailures) Kueue
// v0.17's TAS node controller writes on a Workload whose second node
// fails while status.unhealthyNodes names the first: nodes are the
// failed nodes, those recorded first ([failedNodes]' order), joined by
// ", " (nodeMultipleFailuresEvictionMessageFormat in
// pkg/controller/tas/node_controller.go).
func nodeFailuresWords(nodes []string) string {
	return "Workload eviction triggered due to multiple TAS assigned node failures, including: " + strings.Join(nodes, ", ")
}

// noReplacementWords is the Evicted message (reason NodeFailures) Kueue
// v0.17's scheduler writes on a Workload whose failed node node it finds
// no replacement for under TASFailedNodeReplacementFailFast
// (evictWorkloadAfterFailedTASReplacement in pkg/scheduler/scheduler.go,
// which joins status.unhealthyNodes by ","; it names one node, as Kueue
// replaces one at a time).
func noReplacementWords(node string) string {
	return "Workload was evicted as there was no replacement for unhealthy node(s): " + node
}
