package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hierarchyGoldens are runs on CompositePodGroup manifests
// (kube/testdata/hierarchy), each printing the tree's decision level by
// level.
var hierarchyGoldens = []golden{
	// KEP-6012's worked example binds in block-B, one child per rack.
	{"hierarchy-kep-worked-example", []string{"-f", td + "hierarchy/kep-worked-example.yaml"}, exitPlaced},
	{"hierarchy-kep-worked-example-yaml", []string{"-o", "yaml", "-f", td + "hierarchy/kep-worked-example.yaml"}, exitPlaced},
	// Resource stealing: the first child is placed at its minimum so that
	// its sibling gets a rack; its other pods wait.
	{"hierarchy-resource-stealing", []string{"-f", td + "hierarchy/resource-stealing.yaml"}, exitWaiting},
	// Three levels, block > rack > PodGroups.
	{"hierarchy-three-levels", []string{"-f", td + "hierarchy/three-levels.yaml"}, exitPlaced},
	// Preemption at the root: one victim set for the whole tree, then it
	// binds whole.
	{"hierarchy-preempt-tree", []string{"-f", td + "hierarchy/preempt-tree.yaml"}, exitPlaced},
	// Stopped after the preempting cycle: every object of the tree says,
	// as a PodGroup would, whom it preempts and waits for, and each member
	// carries the node it is nominated to (status.nominatedNodeName).
	{"hierarchy-preempt-tree-waiting-yaml", []string{"-o", "yaml", "-max-cycles", "1", "-f", td + "hierarchy/preempt-tree.yaml"}, exitWaiting},
	// v1.37 writes no condition on CompositePodGroups.
	{"hierarchy-profile-v1.37", []string{"-profile", "v1.37", "-f", td + "hierarchy/kep-worked-example.yaml"}, exitPlaced},
}

func TestGoldenHierarchy(t *testing.T) {
	checkGoldens(t, hierarchyGoldens)
}

// An explicit -profile refuses objects of API versions that version does
// not serve, naming the object; an unknown profile is a usage error.
func TestProfileFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-profile", "v1.36", "-f", td + "hierarchy/kep-worked-example.yaml"}, strings.NewReader(""), &out, &errb, false)
	require.Equal(t, exitInput, code)
	require.Empty(t, out.String())
	require.Contains(t, errb.String(), `CompositePodGroup "default/training": apiVersion: Kubernetes v1.36 does not serve scheduling.k8s.io/v1alpha3 CompositePodGroup`)

	errb.Reset()
	code = run([]string{"-profile", "v1.35", "-f", td + "hierarchy/kep-worked-example.yaml"}, strings.NewReader(""), &out, &errb, false)
	require.Equal(t, exitInput, code)
	require.Contains(t, errb.String(), `-profile: profile "v1.35": profile: must be one of v1.36, v1.37, v1.38`)
}
