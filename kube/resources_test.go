package kube

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func ctr(name string, requests corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests}}
}

func sidecar(name string, requests corev1.ResourceList) corev1.Container {
	c := ctr(name, requests)
	always := corev1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

func TestQuantity(t *testing.T) {
	cases := []struct {
		r    corev1.ResourceName
		q    string
		want int64
		err  string
	}{
		{"cpu", "100m", 100, ""},
		{"cpu", "2", 2000, ""},
		{"cpu", "0.5", 500, ""},
		{"cpu", "1u", 1, ""}, // rounded up to a whole millicore
		{"memory", "100Mi", 100 << 20, ""},
		{"memory", "1G", 1_000_000_000, ""},
		{"memory", "1500m", 2, ""}, // 1.5 bytes rounds up
		{"ephemeral-storage", "1Ki", 1024, ""},
		{"hugepages-2Mi", "4Mi", 4 << 20, ""},
		{"nvidia.com/gpu", "8", 8, ""},
		{"nvidia.com/gpu", "500m", 0, "extended resource must be a whole number"},
		{"cpu", "-1", 0, "is negative"},
		{"memory", "-1Ki", 0, "is negative"},
		{"cpu", "9223372036854775807", 0, "does not fit in int64 millicores"},
		{"memory", "10E", 0, "does not fit in int64"},
		{"memory", "9223372036854775808", 0, "does not fit in int64"},
		{"memory", "7Ei", 7 << 60, ""},
		{"cpu", "100Ei", 0, "a larger one, such as 100Ei, is clamped to it) does not fit in int64 millicores"},
	}
	for _, c := range cases {
		t.Run(string(c.r)+"="+c.q, func(t *testing.T) {
			got, err := Quantity(`node "n1"`, "status.allocatable["+string(c.r)+"]", c.r, resource.MustParse(c.q))
			if c.err != "" {
				require.ErrorIs(t, err, placement.ErrInvalid)
				require.ErrorContains(t, err, c.err)
				require.ErrorContains(t, err, `node "n1": status.allocatable[`+string(c.r)+`]`)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// CanonicalQuantity writes a quantity as Kueue v0.17 writes
// resourceUsage (kueue-oracle/units, brk9's finding 02): a binary suffix
// for memory only when the value is a whole number of one, else the
// decimal form the plain number reads back as.
func TestCanonicalQuantity(t *testing.T) {
	for _, c := range []struct {
		r    placement.ResourceName
		v    int64
		want string
	}{
		{placement.ResourceCPU, 1500, "1500m"},
		{placement.ResourceCPU, 10000, "10"},
		{placement.ResourceMemory, 3_000_000_000, "3G"},    // 1G × 3
		{placement.ResourceMemory, 1_500_000_000, "1500M"}, // 500M × 3
		{placement.ResourceMemory, 5000, "5k"},             // 1k × 5
		{placement.ResourceMemory, 3 << 30, "3Gi"},         // 1.5Gi × 2
		{placement.ResourceMemory, 128000, "125Ki"},
		{placement.ResourceMemory, 100000, "100k"},
		{placement.ResourceMemory, 1000, "1k"},
		{placement.ResourceMemory, 1001, "1001"},
		{placement.ResourceMemory, 0, "0"},
		{placement.ResourceEphemeralStorage, 2_000_000, "2M"},
		{"hugepages-2Mi", 4 << 20, "4Mi"},
		{"example.com/foo", 3000, "3k"},
		{"pods", 3, "3"},
	} {
		q := CanonicalQuantity(c.r, c.v)
		require.Equal(t, c.want, q.String(), "%s %d", c.r, c.v)
		back := resource.MustParse(q.String())
		require.Equal(t, c.want, back.String(), "%s %d reads back changed", c.r, c.v)
	}
}

// TestProp_QuantityRoundTrip: an int64 in canonical units written back as a
// resource.Quantity converts to the same int64.
func TestProp_QuantityRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.Int64Range(0, 1<<62).Draw(t, "v")
		r := corev1.ResourceName(rapid.SampledFrom([]string{"cpu", "memory", "nvidia.com/gpu", "pods"}).Draw(t, "r"))
		q := CanonicalQuantity(placement.ResourceName(r), v)
		got, err := Quantity("x", "f", r, q)
		if err != nil {
			t.Fatalf("%s=%s: %v", r, q.String(), err)
		}
		if got != v {
			t.Fatalf("%s: %d → %s → %d", r, v, q.String(), got)
		}
		// And through the string form, as it would be written in YAML.
		back, err := resource.ParseQuantity(q.String())
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := Quantity("x", "f", r, back); got != v {
			t.Fatalf("%s: %d → %q → %d", r, v, q.String(), got)
		}
	})
}

func TestPodRequests(t *testing.T) {
	cases := []struct {
		name string
		spec corev1.PodSpec
		want placement.ResourceList
		err  string
	}{
		{
			name: "containers add up",
			spec: corev1.PodSpec{Containers: []corev1.Container{
				ctr("a", rl("cpu", "100m", "memory", "100Mi")),
				ctr("b", rl("cpu", "1", "nvidia.com/gpu", "1")),
			}},
			want: placement.ResourceList{"cpu": 1100, "memory": 100 << 20, "nvidia.com/gpu": 1},
		},
		{
			name: "largest init container wins when larger than the sum",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("i1", rl("cpu", "3")), ctr("i2", rl("cpu", "500m", "memory", "1Gi"))},
				Containers:     []corev1.Container{ctr("a", rl("cpu", "1", "memory", "100Mi")), ctr("b", rl("cpu", "1"))},
			},
			want: placement.ResourceList{"cpu": 3000, "memory": 1 << 30},
		},
		{
			// KEP-753: the sidecar runs beside the regular containers and
			// beside every init container started after it.
			name: "sidecar before a regular init container",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{sidecar("s", rl("cpu", "1")), ctr("i", rl("cpu", "3"))},
				Containers:     []corev1.Container{ctr("a", rl("cpu", "2"))},
			},
			want: placement.ResourceList{"cpu": 4000},
		},
		{
			name: "regular init container before a sidecar runs alone",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("i", rl("cpu", "5")), sidecar("s", rl("cpu", "1"))},
				Containers:     []corev1.Container{ctr("a", rl("cpu", "2"))},
			},
			want: placement.ResourceList{"cpu": 5000},
		},
		{
			name: "sidecars add to the containers' sum",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("i", rl("cpu", "1")), sidecar("s", rl("cpu", "2", "memory", "1Gi"))},
				Containers:     []corev1.Container{ctr("a", rl("cpu", "1"))},
			},
			want: placement.ResourceList{"cpu": 3000, "memory": 1 << 30},
		},
		{
			name: "limits default missing requests",
			spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "a",
				Resources: corev1.ResourceRequirements{
					Requests: rl("cpu", "250m"),
					Limits:   rl("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "2"),
				},
			}}},
			want: placement.ResourceList{"cpu": 250, "memory": 1 << 30, "nvidia.com/gpu": 2},
		},
		{
			name: "overhead is added after the max",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("i", rl("cpu", "2"))},
				Containers:     []corev1.Container{ctr("a", rl("cpu", "1"))},
				Overhead:       rl("cpu", "250m", "memory", "120Mi"),
			},
			want: placement.ResourceList{"cpu": 2250, "memory": 120 << 20},
		},
		{
			name: "pod-level requests replace cpu and memory only",
			spec: corev1.PodSpec{
				Containers: []corev1.Container{ctr("a", rl("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"))},
				Resources:  &corev1.ResourceRequirements{Requests: rl("cpu", "4")},
			},
			want: placement.ResourceList{"cpu": 4000, "memory": 1 << 30, "nvidia.com/gpu": 1},
		},
		{
			name: "no requests",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", nil)}},
			want: nil,
		},
		{
			name: "zero requests are dropped",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", rl("cpu", "0", "memory", "1"))}},
			want: placement.ResourceList{"memory": 1},
		},
		{
			name: "negative request",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", nil), ctr("b", rl("cpu", "-1"))}},
			err:  `pod "ns/p": spec.containers[1].resources.requests[cpu]: -1 is negative`,
		},
		{
			name: "bad limit",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "i", Resources: corev1.ResourceRequirements{Limits: rl("example.com/fpga", "1500m")}}}},
			err:  `pod "ns/p": spec.initContainers[0].resources.limits[example.com/fpga]: 1500m: an extended resource must be a whole number`,
		},
		{
			name: "pods resource",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", rl("pods", "1"))}},
			err:  `spec.containers[0].resources.requests[pods]: the pods resource cannot be requested`,
		},
		{
			name: "overflowing sum",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", rl("memory", "7E")), ctr("b", rl("memory", "7E"))}},
			err:  `spec.containers[1].resources.requests[memory]: sum of requests overflows int64`,
		},
		{
			name: "pod-level ephemeral storage",
			spec: corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: rl("ephemeral-storage", "1Gi")}},
			err:  `spec.resources.requests[ephemeral-storage]: pod-level resources support only cpu, memory and hugepages`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PodRequests(podObj("ns", "p"), &c.spec)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				var fe *placement.FieldError
				require.True(t, errors.As(err, &fe), "want a *placement.FieldError, got %T", err)
				require.ErrorIs(t, err, placement.ErrInvalid)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// TestProp_PodRequestsBounds: the effective request is at least the
// regular containers' sum and at least each regular init container, and at
// most the sum over all containers of every kind (plus overhead).
func TestProp_PodRequestsBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := func(label string) corev1.ResourceList {
			return rl("cpu", itoa(rapid.IntRange(0, 8).Draw(t, label+"cpu")), "memory", itoa(rapid.IntRange(0, 8).Draw(t, label+"mem")))
		}
		var spec corev1.PodSpec
		for i := range rapid.IntRange(0, 3).Draw(t, "containers") {
			spec.Containers = append(spec.Containers, ctr("c"+itoa(i), gen("c"+itoa(i))))
		}
		var regularInit []placement.ResourceList
		for i := range rapid.IntRange(0, 3).Draw(t, "inits") {
			name := "i" + itoa(i)
			if rapid.Bool().Draw(t, name+"sidecar") {
				spec.InitContainers = append(spec.InitContainers, sidecar(name, gen(name)))
			} else {
				spec.InitContainers = append(spec.InitContainers, ctr(name, gen(name)))
				r, _ := ResourceList("x", "f", spec.InitContainers[i].Resources.Requests)
				regularInit = append(regularInit, r)
			}
		}
		got, err := PodRequests("x", &spec)
		if err != nil {
			t.Fatal(err)
		}
		total := placement.ResourceList{}
		regular := placement.ResourceList{}
		for _, c := range spec.Containers {
			r, _ := ResourceList("x", "f", c.Resources.Requests)
			_ = addTo("x", "f", regular, r)
			_ = addTo("x", "f", total, r)
		}
		for _, c := range spec.InitContainers {
			r, _ := ResourceList("x", "f", c.Resources.Requests)
			_ = addTo("x", "f", total, r)
		}
		for _, res := range []placement.ResourceName{"cpu", "memory"} {
			if got[res] < regular[res] {
				t.Fatalf("%s: %d below the containers' sum %d", res, got[res], regular[res])
			}
			for _, r := range regularInit {
				if got[res] < r[res] {
					t.Fatalf("%s: %d below an init container's %d", res, got[res], r[res])
				}
			}
			if got[res] > total[res] {
				t.Fatalf("%s: %d above the sum of every container %d", res, got[res], total[res])
			}
		}
	})
}
