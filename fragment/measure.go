package fragment

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// Unusable is the GPU milli of node n that a pod of request m cannot use
// (the paper's F_n(m), §3.2): all of n's free GPU milli when m cannot run
// on n at all — it asks no GPU, or n lacks the CPU, the model or devices
// with room for it — and otherwise the free milli of the devices too
// small for m's per-GPU share. A node without GPUs has none.
func Unusable(n *NodeState, m Request) int64 {
	total := n.freeTotal()
	if m.GPUs == 0 || !n.fits(m) {
		return total
	}
	var short int64
	for _, f := range n.Free {
		if f < m.GPUMilli {
			short += f
		}
	}
	return short
}

// Workload is the target workload of the paper (§3.2): the distribution
// of pod requests that the cluster is expected to serve, as shapes with
// their counts. A node's fragmentation is the expected [Unusable] GPU
// milli of a pod drawn from it.
type Workload struct {
	shapes []Request
	counts []int64
	total  int64
	models bool // some shape names GPU models: fragmentation depends on a node's
}

// Shape is one request of a workload with its count.
type Shape struct {
	Request Request
	Count   int64
}

// NewWorkload builds the target workload from the requests of the pods
// seen (each one count), as the paper's artifact does: equal requests are
// one shape, shapes go in descending count (ties by CPU, GPU milli, GPUs,
// models), and only the most popular shapes that together cover at least
// coverage percent of the pods are kept (its default is 95; 100 keeps
// all), their counts unchanged, so the kept distribution is renormalised
// over them. The artifact grows the prefix in steps of ten shapes; here it
// is the shortest one. Errors: coverage outside 1–100, no pods, or an
// invalid request (named by index); at most 2^32 pods.
func NewWorkload(pods []Request, coverage int) (*Workload, error) {
	if coverage < 1 || coverage > 100 {
		return nil, fmt.Errorf("fragment: workload: coverage: %d is outside 1–100", coverage)
	}
	if len(pods) == 0 || int64(len(pods)) > maxWorkloadPods {
		return nil, fmt.Errorf("fragment: workload: pods: %d, want 1–%d", len(pods), maxWorkloadPods)
	}
	count := map[Request]int64{}
	for i, r := range pods {
		if err := r.Validate(fmt.Sprintf("workload pod %d", i)); err != nil {
			return nil, err
		}
		count[r]++
	}
	shapes := slices.SortedFunc(maps.Keys(count), func(a, b Request) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a.CPU, b.CPU), cmp.Compare(a.GPUMilli, b.GPUMilli),
			cmp.Compare(a.GPUs, b.GPUs), cmp.Compare(a.Models, b.Models))
	})
	w := &Workload{}
	for _, r := range shapes {
		if 100*w.total >= int64(coverage)*int64(len(pods)) {
			break
		}
		w.shapes = append(w.shapes, r)
		w.counts = append(w.counts, count[r])
		w.total += count[r]
		w.models = w.models || r.Models != ""
	}
	return w, nil
}

// Shapes lists the workload's shapes, most popular first.
func (w *Workload) Shapes() []Shape {
	out := make([]Shape, len(w.shapes))
	for i := range w.shapes {
		out[i] = Shape{w.shapes[i], w.counts[i]}
	}
	return out
}

// Expected is node n's fragmentation: the expected GPU milli of n that a
// pod drawn from w cannot use, Σ_m p_m·F_n(m) (§3.2). Cost O(shapes ×
// devices).
func (w *Workload) Expected(n *NodeState) float64 {
	return float64(w.weighted(n)) / float64(w.total)
}

// maxWorkloadPods bounds a workload, so that its weighted fragmentation
// (at most pods × 64,000 milli) times 1,000 stays within int64.
const maxWorkloadPods int64 = 1 << 32

// weighted is Expected times the workload's pod count, exactly:
// Σ_m count_m·F_n(m).
func (w *Workload) weighted(n *NodeState) int64 {
	var sum int64
	for i, m := range w.shapes {
		sum += w.counts[i] * Unusable(n, m)
	}
	return sum
}
