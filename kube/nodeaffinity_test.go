package kube_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// A Kueue PodSet's template with required and preferred node affinity
// becomes a pod set template that matches the nodes the API would.
func TestPodSetNodeAffinity(t *testing.T) {
	spec := &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gen", Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}}},
			MatchFields:      []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"n9"}}},
		}}},
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 20,
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}}}},
	}}}
	a, err := kube.PodSetNodeAffinity(`job "default/train"`, spec)
	require.NoError(t, err)
	require.Equal(t, &placement.NodeAffinity{
		Required: []placement.NodeSelectorTerm{{
			MatchExpressions: []placement.NodeSelectorRequirement{{Key: "gen", Operator: placement.NodeSelectorOpGt, Values: []string{"4"}}},
			MatchFields:      []placement.NodeSelectorRequirement{{Key: "metadata.name", Operator: placement.NodeSelectorOpNotIn, Values: []string{"n9"}}},
		}},
		Preferred: []placement.PreferredSchedulingTerm{{Weight: 20, Preference: placement.NodeSelectorTerm{
			MatchExpressions: []placement.NodeSelectorRequirement{{Key: "disk", Operator: placement.NodeSelectorOpIn, Values: []string{"ssd"}}}}}},
	}, a)
	n := &placement.Node{Name: "n1", Labels: map[string]string{"gen": "5", "disk": "ssd"}}
	require.True(t, a.Matches(n))
	require.Equal(t, int64(20), a.Score(n))
	require.False(t, a.Matches(&placement.Node{Name: "n9", Labels: map[string]string{"gen": "5"}}))

	none, err := kube.PodSetNodeAffinity(`job "default/train"`, &corev1.PodSpec{})
	require.NoError(t, err)
	require.Nil(t, none)

	_, err = kube.PodSetNodeAffinity(`job "default/train"`, &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}}}})
	require.EqualError(t, err, `job "default/train": spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: must have at least one term`)
	_, err = kube.PodSetNodeAffinity(`job "default/train"`, &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 0}}}}})
	require.EqualError(t, err, `job "default/train": spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 0 is outside 1..100`)
}

// checkPodSetNodeAffinity: wild node affinity converts to terms that
// validate, or fails with a FieldError; never a panic.
func checkPodSetNodeAffinity(t *rapid.T) {
	req := func(label string) []corev1.NodeSelectorRequirement {
		var out []corev1.NodeSelectorRequirement
		for range rapid.IntRange(0, 2).Draw(t, label) {
			out = append(out, corev1.NodeSelectorRequirement{
				Key:      rapid.SampledFrom([]string{"", "gen", "metadata.name"}).Draw(t, "key"),
				Operator: corev1.NodeSelectorOperator(rapid.SampledFrom([]string{"", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Near"}).Draw(t, "op")),
				Values:   rapid.SliceOfN(rapid.SampledFrom([]string{"", "1", "x", "-7"}), 0, 2).Draw(t, "values"),
			})
		}
		return out
	}
	na := &corev1.NodeAffinity{}
	if rapid.Bool().Draw(t, "required") {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
		for range rapid.IntRange(0, 2).Draw(t, "terms") {
			na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms,
				corev1.NodeSelectorTerm{MatchExpressions: req("expressions"), MatchFields: req("fields")})
		}
	}
	for range rapid.IntRange(0, 2).Draw(t, "preferred") {
		na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: int32(rapid.IntRange(-1, 101).Draw(t, "weight")), Preference: corev1.NodeSelectorTerm{MatchExpressions: req("expressions")}})
	}
	a, err := kube.PodSetNodeAffinity("template", &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: na}})
	if err != nil {
		var fe *placement.FieldError
		require.True(t, errors.As(err, &fe), "%v", err)
		require.ErrorIs(t, err, placement.ErrInvalid)
		return
	}
	require.NoError(t, a.Validate("template", "spec.affinity.nodeAffinity"))
	a.Matches(&placement.Node{Name: "n1", Labels: map[string]string{"gen": "3"}})
}

func TestProp_PodSetNodeAffinityWildInput(t *testing.T) { rapid.Check(t, checkPodSetNodeAffinity) }

func FuzzPodSetNodeAffinity(f *testing.F) { f.Fuzz(rapid.MakeFuzz(checkPodSetNodeAffinity)) }
