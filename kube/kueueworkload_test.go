package kube

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// kueueWorkload is a Kueue Workload named w whose spec.podSets are given,
// in flow style, followed by rest (a status, say).
func kueueWorkload(podSets, rest string) string {
	return "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec:\n  podSets: " + podSets + "\n" + rest
}

const (
	kueueTmpl = "template: {spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}"
	kueueMain = "[{name: main, count: 2, " + kueueTmpl + "}]"
	// kueueReserved is a status holding quota, without its admission.
	kueueReserved = "status:\n  conditions: [{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2026-01-01T00:00:00Z'}]\n"
)

// kueueAdmission is a status holding quota whose main set has the given
// count and assignment slice.
func kueueAdmission(count, slice string) string {
	return kueueReserved + "  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: " + count +
		", topologyAssignment: {levels: [kubernetes.io/hostname], slices: [" + slice + "]}}]}\n"
}

// Bad Kueue Workloads and Topologies are refused at load, naming the object
// and the field.
func TestKueueWorkload_BadInput(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"v1beta1", "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec: {podSets: []}\n",
			`f.yaml: document 1 (line 1): Workload "w": apiVersion: kueue.x-k8s.io/v1beta1 is not supported for Workload; use kueue.x-k8s.io/v1beta2`},
		{"unknown field", kueueWorkload("[{name: main, count: 2, size: 3, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Workload "default/w": spec.podSets[0].size: unknown field`},
		{"no pod sets", kueueWorkload("[]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets: has 0 pod sets: want 1 to 8`},
		{"count negative", kueueWorkload("[{name: main, count: -1, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].count: -1 is outside 0..1048576`},
		{"count zero admitted with pods", kueueWorkload("[{name: main, count: 0, "+kueueTmpl+"}]", kueueAdmission("0", "{domainCount: 1, valuesPerLevel: [{universal: h1}], podCounts: {universal: 2}}")),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].count: 0, but the topologyAssignment places 2 pods`},
		{"bad name", kueueWorkload("[{name: Main, count: 1, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].name: "Main": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"two sets one name", kueueWorkload("[{name: a, count: 1, "+kueueTmpl+"}, {name: a, count: 1, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[1].name: "a" is also spec.podSets[0]`},
		{"required and preferred", kueueWorkload("[{name: main, count: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-preferred-topology: block}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].template.metadata.annotations: has kueue.x-k8s.io/podset-required-topology and kueue.x-k8s.io/podset-preferred-topology: at most one topology annotation`},
		{"required and preferred one key", kueueWorkload("[{name: main, count: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-preferred-topology: rack}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].template.metadata.annotations: has kueue.x-k8s.io/podset-required-topology and kueue.x-k8s.io/podset-preferred-topology: at most one topology annotation`},
		{"required and unconstrained false", kueueWorkload("[{name: main, count: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-unconstrained-topology: 'false'}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].template.metadata.annotations: has kueue.x-k8s.io/podset-required-topology and kueue.x-k8s.io/podset-unconstrained-topology: at most one topology annotation`},
		{"topologyRequest required and preferred", kueueWorkload("[{name: main, count: 2, topologyRequest: {required: rack, preferred: block}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].topologyRequest: sets required and preferred: at most one of required, preferred and unconstrained`},
		{"group required and preferred", kueueWorkload("[{name: leader, count: 1, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-group-name: lws}}, spec: {containers: [{name: c}]}}}, {name: workers, count: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-preferred-topology: rack, kueue.x-k8s.io/podset-group-name: lws}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[1].template.metadata.annotations[kueue.x-k8s.io/podset-preferred-topology]: PodSetGroup "lws": pod set "workers" prefers rack where "leader" (spec.podSets[0]) requires rack; a group's sets ask for one level, both required or both preferred`},
		{"group two levels", kueueWorkload("[{name: leader, count: 1, topologyRequest: {required: block, podSetGroupName: lws}, "+kueueTmpl+"}, {name: workers, count: 2, topologyRequest: {required: rack, podSetGroupName: lws}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[1].topologyRequest.required: PodSetGroup "lws": pod set "workers" requires rack where "leader" (spec.podSets[0]) requires block; a group's sets ask for one level, both required or both preferred`},
		{"group name a number", kueueWorkload("[{name: a, count: 2, topologyRequest: {required: rack}, "+kueueTmpl+"}, {name: l, count: 1, topologyRequest: {required: rack, podSetGroupName: '0'}, "+kueueTmpl+"}, {name: w, count: 2, topologyRequest: {required: rack, podSetGroupName: '0'}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[1].topologyRequest.podSetGroupName: "0" must be a name, not a number or empty (Kueue's scheduler keys ungrouped sets by their index)`},
		{"group name empty", kueueWorkload("[{name: main, count: 2, topologyRequest: {required: rack, podSetGroupName: ''}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].topologyRequest.podSetGroupName: "" must be a name, not a number or empty (Kueue's scheduler keys ungrouped sets by their index)`},
		{"group name too long", kueueWorkload("[{name: main, count: 2, topologyRequest: {required: rack, podSetGroupName: "+strings.Repeat("g", 257)+"}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].topologyRequest.podSetGroupName: 257 characters, more than 256`},
		// The API server counts characters, not bytes (brk7 03).
		{"group name too long in characters", kueueWorkload("[{name: main, count: 2, topologyRequest: {required: rack, podSetGroupName: "+strings.Repeat("é", 257)+"}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].topologyRequest.podSetGroupName: 257 characters, more than 256`},
		{"group annotation a number", kueueWorkload("[{name: l, count: 1, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-group-name: '0'}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].template.metadata.annotations[kueue.x-k8s.io/podset-group-name]: "0" must be a name, not a number or empty`},
		{"group of three sets", kueueWorkload("[{name: l, count: 1, topologyRequest: {required: rack, podSetGroupName: g}, "+kueueTmpl+"}, {name: w, count: 2, topologyRequest: {required: rack, podSetGroupName: g}, "+kueueTmpl+"}, {name: x, count: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-group-name: g}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[2].template.metadata.annotations[kueue.x-k8s.io/podset-group-name]: PodSetGroup "g" has a third pod set "x" (after spec.podSets[0] and [1]): a group has two pod sets, a leader and its workers; Kueue's job webhooks refuse more, and Kueue v0.17's scheduler panics on it (a nil topology assignment for the third set)`},
		{"no containers", kueueWorkload("[{name: main, count: 1, template: {spec: {}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].template.spec.containers: is empty: a pod template has at least one container (the API refuses it)`},
		{"priorityClassRef without priority", "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec:\n  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}\n  podSets: " + kueueMain + "\n",
			`f.yaml: document 1 (line 5): Kueue Workload "default/w": spec.priority: must be set when spec.priorityClassRef is (Kueue's Workload API refuses it unset)`},
		{"slice count", kueueWorkload("[{name: main, count: 6, template: {metadata: {annotations: {kueue.x-k8s.io/podset-slice-required-topology: rack, kueue.x-k8s.io/podset-slice-size: '4'}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].count: 6 pods are not a multiple of the slice size 4`},
		{"unconstrained value", kueueWorkload("[{name: main, count: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-unconstrained-topology: 'yes'}}, spec: {containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].template.metadata.annotations[kueue.x-k8s.io/podset-unconstrained-topology]: "yes": want true or false`},
		{"topologyRequest slice count", kueueWorkload("[{name: main, count: 6, topologyRequest: {podSetSliceRequiredTopology: rack, podSetSliceSize: 4}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].count: 6 pods are not a multiple of the slice size 4`},
		{"topologyRequest slice size 0", kueueWorkload("[{name: main, count: 6, topologyRequest: {podSetSliceRequiredTopology: rack, podSetSliceSize: 0}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].topologyRequest.podSetSliceSize: 0 is below 1`},
		{"topologyRequest layers count", kueueWorkload("[{name: main, count: 6, topologyRequest: {podsetSliceRequiredTopologyConstraints: [{topology: rack, size: 4}]}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].count: 6 pods are not a multiple of the slice size 4`},
		{"podSetUpdates bad toleration", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, tolerations: [{key: k, operator: Exists, value: v}]}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].tolerations[0].value: must be empty when operator is Exists`},
		{"podSetUpdates for a pod set the Workload lacks", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: nosuch, nodeSelector: {a: b}}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].name: "nosuch" is not a pod set of the Workload`},
		{"podSetUpdates bad nodeSelector key", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, nodeSelector: {'a b': c}}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].nodeSelector[a b]: "a b" is not a label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"podSetUpdates bad nodeSelector value", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, nodeSelector: {a: 'b c'}}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].nodeSelector[a]: "b c" is not a label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		// podSetUpdates' labels and annotations, each refused as Kueue
		// v0.17's own webhooks.ValidateWorkload refuses it (run on the same
		// Workloads outside the repository): labels as labels, annotation
		// keys lowercased, 256 KiB of annotations at most; annotations
		// before nodeSelector before labels.
		{"podSetUpdates bad label key", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, labels: {'a b': c}}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].labels[a b]: "a b" is not a label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"podSetUpdates label value too long", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, labels: {k: 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv'}}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].labels[k]: "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv" is not a label value: must be no more than 63 bytes`},
		{"podSetUpdates bad annotation key", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, annotations: {'a b': x}, labels: {'l m': c}, nodeSelector: {'n o': p}}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].annotations[a b]: "a b" is not an annotation key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"podSetUpdates annotations too large", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, annotations: {k: '"+strings.Repeat("x", 256<<10)+"'}}]}]\n"),
			`f.yaml: document 1 (line 10): Kueue Workload "default/w": status.admissionChecks[0].podSetUpdates[0].annotations: keys and values take 262145 bytes: at most 262144`},
		{"topologyRequest slice without size", kueueWorkload("[{name: main, count: 2, topologyRequest: {podSetSliceRequiredTopology: rack}, "+kueueTmpl+"}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].topologyRequest.podSetSliceSize: podSetSliceRequiredTopology and podSetSliceSize must be set together`},
		{"bad toleration", kueueWorkload("[{name: main, count: 2, template: {spec: {tolerations: [{key: k, operator: Exists, value: v}], containers: [{name: c}]}}}]", ""),
			`f.yaml: document 1 (line 6): Kueue Workload "default/w": spec.podSets[0].template.spec.tolerations[0].value: must be empty when operator is Exists`},
		{"reserved without admission", kueueWorkload(kueueMain, kueueReserved),
			`f.yaml: document 1 (line 7): Kueue Workload "default/w": status.admission: must be set while the QuotaReserved condition is True`},
		{"count differs", kueueWorkload(kueueMain, kueueAdmission("3", "{domainCount: 1, valuesPerLevel: [{universal: n1}], podCounts: {universal: 2}}")),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].count: 3, but the topologyAssignment places 2 pods`},
		{"roots short", kueueWorkload(kueueMain, kueueAdmission("2", "{domainCount: 2, valuesPerLevel: [{individual: {roots: [n1]}}], podCounts: {universal: 1}}")),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].individual.roots: has 1 values for domainCount 2`},
		{"universal host twice", kueueWorkload(kueueMain, kueueAdmission("2", "{domainCount: 2, valuesPerLevel: [{universal: n1}], podCounts: {universal: 1}}")),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].universal: host "n1" is assigned 2 times (domainCount 2)`},
		{"both counts", kueueWorkload(kueueMain, kueueAdmission("2", "{domainCount: 1, valuesPerLevel: [{universal: n1}], podCounts: {universal: 2, individual: [2]}}")),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts: exactly one of universal and individual must be set`},
		{"huge domainCount", kueueWorkload(kueueMain, kueueAdmission("2", "{domainCount: 2000000000, valuesPerLevel: [{universal: n1}], podCounts: {universal: 1}}")),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].topologyAssignment.slices[0].domainCount: 2000000000: want 1 or more, at most 100000 domains in all`},
		{"rack domain twice", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, topologyAssignment: {levels: [block, rack], slices: [{domainCount: 2, valuesPerLevel: [{universal: b1}, {universal: r1}], podCounts: {universal: 1}}]}}]}\n"),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel: domain "b1,r1" is assigned twice`},
		{"rack level values missing", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, topologyAssignment: {levels: [block, rack], slices: [{domainCount: 1, valuesPerLevel: [{universal: r1}], podCounts: {universal: 2}}]}}]}\n"),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel: has 1 entries for 2 levels`},
		{"rack and host levels", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, topologyAssignment: {levels: [rack, kubernetes.io/hostname], slices: [{domainCount: 1, valuesPerLevel: [{universal: r1}, {universal: n1}], podCounts: {universal: 2}}]}}]}\n"),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].topologyAssignment.levels: ["rack" "kubernetes.io/hostname"]: an assignment at the kubernetes.io/hostname level lists that level alone, as Kueue writes it`},
		{"rack level count", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, topologyAssignment: {levels: [rack], slices: [{domainCount: 1, valuesPerLevel: [{universal: r1}], podCounts: {universal: 3}}]}}]}\n"),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].count: 2, but the topologyAssignment places 3 pods`},
		{"unknown set", kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: other, count: 2}]}\n"),
			`f.yaml: document 1 (line 9): Kueue Workload "default/w": status.admission.podSetAssignments[0].name: "other" is not a pod set of spec.podSets`},
		{"topology hostname above", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: kubernetes.io/hostname}, {nodeLabel: rack}]}\n",
			`f.yaml: document 1 (line 4): Kueue Topology "t": spec.levels[0].nodeLabel: kubernetes.io/hostname must be the lowest level`},
		{"topology level twice", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: rack}, {nodeLabel: rack}]}\n",
			`f.yaml: document 1 (line 4): Kueue Topology "t": spec.levels[1].nodeLabel: "rack" is also spec.levels[0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Decode("f.yaml", strings.NewReader(tc.in), manifest.Options{})
			if err == nil {
				_, err = Load(objs)
			}
			require.EqualError(t, err, tc.want)
		})
	}
}

// podSetUpdates that Kueue v0.17's Workload webhook accepts (its
// webhooks.ValidateWorkload, run outside the repository, took these): an
// annotation key with capitals (checked lowercased) and any value, a label
// key with capitals, and annotations of exactly 256 KiB.
func TestKueueWorkload_PodSetUpdatesAccepted(t *testing.T) {
	for _, updates := range []string{
		`annotations: {"Example.COM/Key": "any value, spaces!"}, labels: {Upper.Case: V}`,
		`annotations: {k: '` + strings.Repeat("x", 256<<10-1) + `'}`,
	} {
		in := kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f}, delayedTopologyRequest: Pending}]}\n"+
			"  admissionChecks: [{name: dws, state: Ready, message: m, lastTransitionTime: '2026-01-01T00:00:00Z', podSetUpdates: [{name: main, "+updates+"}]}]\n")
		objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
		require.NoError(t, err)
		_, err = Load(objs)
		require.NoError(t, err)
	}
}

// A pod set's assignment written in the compact form reads back as the same
// pods per host, whatever the hosts' names share.
func TestProp_KueueAssignmentRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "hosts")
		names := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-c]{0,2}-?[0-9]{1,2}[a-c]{0,2}`), n, n, rapid.ID).Draw(t, "names")
		pods := make([]placement.PodSetAssignment, n)
		for i := range pods {
			pods[i] = placement.PodSetAssignment{Node: names[i], NodeID: -1, Count: int32(rapid.IntRange(1, 3).Draw(t, "count"))}
		}
		got, err := readTopologyAssignment("w", "ta", writeTopologyAssignment(pods))
		require.NoError(t, err)
		require.Equal(t, pods, got)
	})
}

// FuzzKueueWorkload: a Workload the manifest reader accepts either loads
// or fails with an error located in the input that wraps a sentinel; one
// that loads holding quota reads its assignment back from the compact form
// gangsim writes. It never panics.
func FuzzKueueWorkload(f *testing.F) {
	f.Add(kueueWorkload(kueueMain, ""))
	f.Add(kueueWorkload("[{name: main, count: 8, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-slice-required-topology: host, kueue.x-k8s.io/podset-slice-size: '4'}}, spec: {containers: [{name: c}]}}}]", ""))
	f.Add(kueueWorkload("[{name: main, count: 2, topologyRequest: {preferred: rack, podSetGroupName: g}, "+kueueTmpl+"}]", ""))
	f.Add(kueueWorkload(kueueMain, kueueAdmission("2", "{domainCount: 2, valuesPerLevel: [{individual: {prefix: n, roots: ['1', '2']}}], podCounts: {individual: [1, 1]}}")))
	f.Add(kueueWorkload("[{name: main, count: 4, minCount: 2, "+kueueTmpl+"}]", kueueAdmission("3", "{domainCount: 1, valuesPerLevel: [{universal: n1}], podCounts: {universal: 3}}")))
	f.Add(strings.Replace(kueueWorkload(kueueMain, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: 2, topologyAssignment: {levels: [rack], slices: [{domainCount: 1, valuesPerLevel: [{universal: r1}], podCounts: {universal: 2}}]}}]}\n"),
		"metadata: {name: w}", `metadata: {name: w, annotations: {gangsched.io/kueue-hosts: '{"main":{"h1":1,"h2":1}}'}}`, 1))
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
		if err != nil {
			return
		}
		c, err := Load(objs)
		if err != nil {
			var fe *placement.FieldError
			if !errors.As(err, &fe) && !errors.Is(err, ErrTooManyPods) {
				t.Fatalf("error without a field: %v", err)
			}
			return
		}
		for _, w := range c.KueueWorkloads {
			for k, pods := range w.Assigned {
				got, err := readTopologyAssignment("w", "ta", writeTopologyAssignment(pods))
				require.NoError(t, err)
				for i := range got {
					got[i].PodSet = w.Group.PodSets[k].Name
				}
				require.Equal(t, pods, got)
			}
		}
	})
}

// A pod set of count 0 is kept apart in Zero, with its place in
// spec.podSets, its request and the count status.admission gives it; the
// Group holds the others only.
func TestConvertKueueWorkload_ZeroCount(t *testing.T) {
	two := "[{name: a, count: 0, " + kueueTmpl + "}, {name: b, count: 2, " + kueueTmpl + "}]"
	bAt := "{name: b, count: 2, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, valuesPerLevel: [{universal: h1}], podCounts: {universal: 2}}]}}"
	for _, tc := range []struct {
		name, in    string
		group       []string
		zero        []KueueZeroPodSet
		admittedFor []int32
	}{
		{"pending", kueueWorkload(two, ""), []string{"b"}, []KueueZeroPodSet{{Name: "a", Index: 0, Request: topologyRequest("a")}}, nil},
		{"admitted at 0", kueueWorkload(two, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: a, count: 0, topologyAssignment: {levels: [kubernetes.io/hostname]}}, "+bAt+"]}\n"),
			[]string{"b"}, []KueueZeroPodSet{{Name: "a", Index: 0, Request: topologyRequest("a")}}, []int32{2}},
		{"shrunk to 0", kueueWorkload(two, kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: [{name: a, count: 3, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, valuesPerLevel: [{universal: h2}], podCounts: {universal: 3}}]}}, "+bAt+"]}\n"),
			[]string{"b"}, []KueueZeroPodSet{{Name: "a", Index: 0, Request: topologyRequest("a"), AdmittedCount: 3}}, []int32{2}},
		{"all zero", kueueWorkload("[{name: a, count: 0, "+kueueTmpl+"}]", ""), nil, []KueueZeroPodSet{{Name: "a", Index: 0, Request: topologyRequest("a")}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Decode("f.yaml", strings.NewReader(tc.in), manifest.Options{})
			require.NoError(t, err)
			c, err := Load(objs)
			require.NoError(t, err)
			w := c.KueueWorkloads[0]
			var names []string
			for _, ps := range w.Group.PodSets {
				names = append(names, ps.Name)
			}
			require.Equal(t, tc.group, names)
			require.Equal(t, tc.zero, w.Zero)
			require.Equal(t, tc.admittedFor, w.AdmittedCount)
		})
	}
}

func topologyRequest(set string) topology.PodSetRequest { return topology.PodSetRequest{PodSet: set} }

// The world run on the real Kueue for a PodSetGroup of three sets
// (kueue-oracle/group-three-sets.yaml; Kueue v0.17's scheduler panicked on
// it and its process exited) is refused at load, naming the third set.
func TestKueueWorkload_GroupOfThreeRecord(t *testing.T) {
	b, err := os.ReadFile("testdata/kueue-oracle/group-three-sets.yaml")
	require.NoError(t, err)
	objs, err := manifest.Decode("group-three-sets.yaml", strings.NewReader(string(b)), manifest.Options{})
	require.NoError(t, err)
	_, err = Load(objs)
	require.ErrorContains(t, err, `Kueue Workload "default/three": spec.podSets[2].topologyRequest.podSetGroupName: PodSetGroup "lws" has a third pod set "extra"`)
}

// A template's inter-pod terms are not read, as Kueue reads none (the
// tester kbreak's finding 02: required anti-affinity refused the input);
// the Workload keeps them as given.
func TestConvertKueueWorkload_InterPodTermsNotRead(t *testing.T) {
	in := kueueWorkload("[{name: main, count: 2, template: {metadata: {labels: {app: a}}, spec: {affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: a}}}]}, podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: rack, labelSelector: {matchLabels: {app: a}}}]}}, containers: [{name: c}]}}}]", "")
	objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	require.Len(t, c.KueueWorkloads, 1)
	w := c.KueueWorkloads[0]
	require.Nil(t, w.Group.PodSets[0].Template.Affinity)
	require.NotNil(t, w.Obj.Spec.PodSets[0].Template.Spec.Affinity.PodAntiAffinity, "kept on the Workload")
}
