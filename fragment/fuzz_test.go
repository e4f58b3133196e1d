package fragment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/fragment"
	"github.com/gangsched/gangsched/placement"
)

// FuzzRequestOf: any pod requests give a valid Request or an error naming
// the pod, never a panic; a valid one asks the same total GPU milli.
func FuzzRequestOf(f *testing.F) {
	for _, c := range [][2]int64{{1000, 500}, {0, 3000}, {-1, 0}, {4000, 1500}, {1, 1 << 62}} {
		f.Add(c[0], c[1], "")
	}
	f.Fuzz(func(t *testing.T, cpu, milli int64, model string) {
		p := placement.Pod{Namespace: "default", Name: "p", Requests: placement.ResourceList{placement.ResourceCPU: cpu, fragment.ResourceGPUMilli: milli},
			NodeSelector: map[string]string{fragment.ModelLabel: model}}
		r, err := fragment.RequestOf(&p)
		if err != nil {
			require.ErrorContains(t, err, `pod "default/p"`)
			return
		}
		require.NoError(t, r.Validate("pod"))
		require.Equal(t, milli, r.TotalMilli())
	})
}

// FuzzDevices: devices built from any counts take any allocation and
// release without panic and never leave a device outside 0–1000.
func FuzzDevices(f *testing.F) {
	f.Add(2, "T4", int64(500), 1, 0)
	f.Add(0, "", int64(1000), 2, 3)
	f.Add(70, "A|B", int64(-5), -1, 1)
	f.Fuzz(func(t *testing.T, count int, model string, milli int64, gpus, dev int) {
		d, err := fragment.NewDevices([]fragment.NodeGPUs{{Name: "n", Model: model, Count: count}})
		if err != nil {
			return
		}
		a, err := d.Allocate("default/p", fragment.Request{GPUMilli: milli, GPUs: gpus}, "n", 1000, onDevice(dev))
		_ = d.Release(fragment.Allocation{Node: "n", Devices: []int{dev}, Milli: milli})
		if err == nil {
			_ = d.Release(a)
		}
		_, free, _ := d.Node("n")
		for _, x := range free {
			require.True(t, x >= 0 && x <= fragment.MilliGPU, "%v", free)
		}
	})
}
