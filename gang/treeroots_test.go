package gang

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
)

// Leaves map to the root their parents lead to, at any depth; a missing
// parent and a cycle end the walk where they are; a PodGroup without a
// parent, and another namespace's CompositePodGroup of the same name, are
// not taken.
func TestTreeRoots(t *testing.T) {
	inner := func(ns, name, parent string) *CompositePodGroup {
		return &CompositePodGroup{ObjectMeta: ObjectMeta{Namespace: ns, Name: name}, Spec: CompositePodGroupSpec{ParentCompositePodGroupName: parent}}
	}
	leaf := func(name, parent string) *PodGroup {
		return &PodGroup{ObjectMeta: ObjectMeta{Namespace: "a", Name: name}, Spec: PodGroupSpec{ParentCompositePodGroupName: parent}}
	}
	cpgs := []*CompositePodGroup{inner("a", "llm", ""), inner("a", "train", "llm"), inner("a", "x", "y"), inner("a", "y", "x"), inner("b", "train", "other")}
	pgs := []*PodGroup{leaf("leader", "train"), leaf("eval", "llm"), leaf("orphan", "gone"), leaf("looped", "x"), leaf("flat", "")}
	key := func(name string) placement.Key { return placement.Key{Namespace: "a", Name: name} }
	got := TreeRoots(pgs, cpgs)
	require.Equal(t, map[placement.Key]placement.Key{
		key("leader"): key("llm"),
		key("eval"):   key("llm"),
		key("orphan"): key("gone"),
		key("looped"): key("x"),
	}, got)
}
