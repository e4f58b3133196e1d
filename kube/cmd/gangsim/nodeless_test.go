package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A dump of one node pool beside every pod (the tester kbreak's newcomer
// notes): pods running on nodes the input lacks are left out, one warning
// per node, and hold no room — the 4-CPU pod binds to n1, which the four
// 1-CPU pods on "gone" would have filled had they been charged there. A
// finished pod is not named; a PodGroup member on such a node is still
// refused, naming the node.
func TestLeaveOffNodeless(t *testing.T) {
	pod := func(name, extra string) string {
		return fmt.Sprintf("---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default}\nspec: {%scontainers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n", name, extra)
	}
	in := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"4\", pods: \"110\"}}\n"
	for i := range 4 {
		in += pod(fmt.Sprint("gone-", i), "nodeName: gone, ")
	}
	in += pod("far", "nodeName: far, ")
	in += pod("done", "nodeName: gone, ") + "status: {phase: Succeeded}\n"
	in += strings.Replace(pod("big", ""), `cpu: "1"`, `cpu: "4"`, 1)
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"-f", "-"}, strings.NewReader(in), &out, &errb, false), errb.String())
	require.Equal(t, `gangsim: warning: node "gone" is not in the input; the pods bound to it take no room on the input's nodes and are left out: default/gone-0, default/gone-1, default/gone-2 and 1 more
gangsim: warning: node "far" is not in the input; the pods bound to it take no room on the input's nodes and are left out: default/far
`, errb.String())
	require.Contains(t, out.String(), "bound 1: big→n1\n")

	grouped := in + "---\napiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: gang, namespace: default}\nspec: {schedulingPolicy: {gang: {minCount: 1}}}\n" +
		pod("member", "nodeName: gone, schedulingGroup: {podGroupName: gang}, ")
	out.Reset()
	errb.Reset()
	require.Equal(t, exitInput, run([]string{"-f", "-"}, strings.NewReader(grouped), &out, &errb, false))
	require.Contains(t, errb.String(), `pod "default/member": spec.nodeName: node "gone" is not in the snapshot`)
}
