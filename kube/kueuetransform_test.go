package kube

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// transformConfig is a Configuration with transformations ts.
func transformConfig(ts ...configv1beta2.ResourceTransformation) *configv1beta2.Configuration {
	return &configv1beta2.Configuration{Resources: &configv1beta2.Resources{Transformations: ts}}
}

func outputs(kv ...string) corev1.ResourceList {
	rl := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		rl[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return rl
}

// Per-pod charges under Kueue v0.17's applyResourceTransformations, by its
// source (the first three rows also run on the real Kueue:
// kueue-oracle/resources/xform.json).
func TestKueueTransformations_Charges(t *testing.T) {
	replace, retain := ptr(configv1beta2.Replace), ptr(configv1beta2.Retain)
	cfg := transformConfig(
		configv1beta2.ResourceTransformation{Input: "nvidia.com/mig-1g.5gb", Strategy: replace, Outputs: outputs("example.com/accelerator-memory", "5Gi", "example.com/credits", "10")},
		configv1beta2.ResourceTransformation{Input: "cpu", Outputs: outputs("example.com/credits", "1")},
		configv1beta2.ResourceTransformation{Input: "example.com/slots", Strategy: replace, MultiplyBy: "cpu", Outputs: outputs("example.com/credits", "2")},
		configv1beta2.ResourceTransformation{Input: "example.com/vram", Strategy: retain, MultiplyBy: "example.com/gpus", Outputs: outputs("example.com/half", "500m")},
		configv1beta2.ResourceTransformation{Input: "example.com/tokens", Strategy: retain, Outputs: outputs("example.com/tokens", "3", "example.com/credits", "1")},
		configv1beta2.ResourceTransformation{Input: "example.com/cores", Strategy: replace, Outputs: outputs("example.com/cores", "2")},
	)
	ts, err := ReadKueueTransformations("Kueue Configuration", cfg)
	require.NoError(t, err)
	for _, c := range []struct {
		name      string
		req, want placement.ResourceList
	}{
		{"a MIG device replaced by memory and credits; 1.5 CPUs count as 2 whole CPUs",
			placement.ResourceList{"cpu": 1500, "nvidia.com/mig-1g.5gb": 1},
			placement.ResourceList{"cpu": 1500, "example.com/accelerator-memory": 5 << 30, "example.com/credits": 12}},
		{"slots multiplied by whole CPUs, then 2 credits each, beside the CPUs' own",
			placement.ResourceList{"cpu": 2000, "example.com/slots": 3},
			placement.ResourceList{"cpu": 2000, "example.com/credits": 14}},
		{"half a CPU is one whole CPU's credit",
			placement.ResourceList{"cpu": 500},
			placement.ResourceList{"cpu": 500, "example.com/credits": 1}},
		{"nothing transformed: the requests themselves",
			placement.ResourceList{"memory": 1 << 30},
			placement.ResourceList{"memory": 1 << 30}},
		{"Retain with multiplyBy keeps the multiplied input; 500m per unit rounded up after summing",
			placement.ResourceList{"example.com/vram": 3, "example.com/gpus": 1},
			placement.ResourceList{"example.com/vram": 3, "example.com/gpus": 1, "example.com/half": 2}},
		{"Retain with multiplyBy 2: vram 3 × 2 = 6 charged, 6 × 500m = 3",
			placement.ResourceList{"example.com/vram": 3, "example.com/gpus": 2},
			placement.ResourceList{"example.com/vram": 6, "example.com/gpus": 2, "example.com/half": 3}},
		{"multiplyBy not requested: the input as it is",
			placement.ResourceList{"example.com/slots": 3},
			placement.ResourceList{"example.com/credits": 6}},
		{"a zero input keeps its outputs at zero",
			placement.ResourceList{"nvidia.com/mig-1g.5gb": 0},
			placement.ResourceList{"example.com/accelerator-memory": 0, "example.com/credits": 0}},
		{"a Retain input's output to itself is lost: Kueue writes the input after its outputs",
			placement.ResourceList{"example.com/tokens": 2},
			placement.ResourceList{"example.com/tokens": 2, "example.com/credits": 2}},
		{"a Replace input's output to itself is its charge",
			placement.ResourceList{"example.com/cores": 3},
			placement.ResourceList{"example.com/cores": 6}},
		{"an output that the pod also requests is summed with it",
			placement.ResourceList{"cpu": 1000, "example.com/credits": 5},
			placement.ResourceList{"cpu": 1000, "example.com/credits": 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, applyKueueTransformations(c.req, ts))
		})
	}
}

// The charge drops excluded resources before it transforms: an excluded
// input is never transformed.
func TestKueueReadOptions_ChargeExcludesFirst(t *testing.T) {
	ts, err := ReadKueueTransformations("c", transformConfig(configv1beta2.ResourceTransformation{Input: "example.net/nic", Outputs: outputs("example.com/credits", "1")}))
	require.NoError(t, err)
	o := KueueReadOptions{ExcludeResourcePrefixes: []string{"example.net/"}, Transformations: ts}
	require.Equal(t, placement.ResourceList{"cpu": 1000, "memory": 0}, o.charge(placement.ResourceList{"cpu": 1000, "example.net/nic": 1}, []placement.ResourceName{"memory"}))
	require.Nil(t, KueueReadOptions{}.charge(placement.ResourceList{"cpu": 1}, nil))
}

func TestReadKueueTransformations_Errors(t *testing.T) {
	for _, c := range []struct {
		name  string
		ts    []configv1beta2.ResourceTransformation
		field string
		err   error
	}{
		{"empty input", []configv1beta2.ResourceTransformation{{Outputs: outputs("a.com/x", "1")}}, "resources.transformations[0].input", placement.ErrInvalid},
		{"input twice", []configv1beta2.ResourceTransformation{{Input: "cpu"}, {Input: "cpu"}}, "resources.transformations[1].input", placement.ErrDuplicate},
		{"bad strategy", []configv1beta2.ResourceTransformation{{Input: "cpu", Strategy: ptr(configv1beta2.ResourceTransformationStrategy("Keep"))}}, "resources.transformations[0].strategy", placement.ErrInvalid},
		{"negative output", []configv1beta2.ResourceTransformation{{Input: "cpu", Outputs: outputs("a.com/x", "-1")}}, "resources.transformations[0].outputs[a.com/x]", placement.ErrInvalid},
		{"empty output name", []configv1beta2.ResourceTransformation{{Input: "cpu", Outputs: outputs("", "1")}}, "resources.transformations[0].outputs", placement.ErrInvalid},
		{"output past int64 thousandths", []configv1beta2.ResourceTransformation{{Input: "cpu", Outputs: outputs("a.com/x", "9Ei")}}, "resources.transformations[0].outputs[a.com/x]", placement.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadKueueTransformations("Kueue Configuration", transformConfig(c.ts...))
			var fe *placement.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Equal(t, "Kueue Configuration", fe.Object)
			require.Equal(t, c.field, fe.Field)
			require.ErrorIs(t, err, c.err)
		})
	}
	ts, err := ReadKueueTransformations("c", &configv1beta2.Configuration{})
	require.NoError(t, err)
	require.Nil(t, ts)
}

// FuzzKueueTransformations reads a transformation of any input, strategy,
// multiplier and output quantity, and applies it to any requests: an
// error names the field, a read one never panics, is deterministic and
// charges nothing negative.
func FuzzKueueTransformations(f *testing.F) {
	f.Add("cpu", "Replace", "", "example.com/credits", "1500m", int64(1500), int64(2))
	f.Add("example.com/slots", "Retain", "cpu", "cpu", "2", int64(3), int64(999))
	f.Add("", "Keep", "x", "", "-1", int64(0), int64(0))
	f.Fuzz(func(t *testing.T, in, strategy, mul, out, qty string, v, m int64) {
		q, err := resource.ParseQuantity(qty)
		if err != nil || v < 0 || m < 0 {
			return
		}
		tr := configv1beta2.ResourceTransformation{Input: corev1.ResourceName(in), MultiplyBy: corev1.ResourceName(mul),
			Outputs: corev1.ResourceList{corev1.ResourceName(out): q}}
		if strategy != "" {
			tr.Strategy = ptr(configv1beta2.ResourceTransformationStrategy(strategy))
		}
		ts, err := ReadKueueTransformations("Kueue Configuration", transformConfig(tr))
		if err != nil {
			var fe *placement.FieldError
			require.True(t, errors.As(err, &fe))
			require.Contains(t, fe.Field, "resources.transformations[0]")
			return
		}
		req := placement.ResourceList{placement.ResourceName(in): v, placement.ResourceName(mul): m}
		got := applyKueueTransformations(req, ts)
		require.Equal(t, got, applyKueueTransformations(req, ts))
		for r, x := range got {
			require.GreaterOrEqual(t, x, int64(0), "%s", r)
		}
	})
}
