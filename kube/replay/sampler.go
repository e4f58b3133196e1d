package replay

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// maxSamples bounds the samples of each series: past it, every second one
// is dropped and the spacing doubles, so memory stays bounded however far
// the replay runs.
const maxSamples = 4096

// sampler keeps the metrics of a replay: running totals updated at each
// binding and end, and the series sampled from them.
type sampler struct {
	e     *engine
	gpu   GPUResource
	every time.Duration
	start time.Time
	next  time.Time // the next sample's time

	resources []placement.ResourceName // utilisation's, by name
	alloc     []int64
	requested map[placement.ResourceName]int64
	gpuNodes  []placement.NodeID // nodes with GPUs, for the stranded count

	domKey   string
	domRes   placement.ResourceName
	domains  []string // by name
	nodeDom  []int    // domain index by NodeID, -1 for none
	domAlloc []int64
	domReq   []int64

	shapes map[string]*shape // pending pods that request a GPU, by shape

	times    []time.Time
	util     [][]float64 // by resource, aligned with times
	stranded []float64
	occ      [][]float64 // by domain

	delays  map[int][]float64 // by size bucket
	waiting map[int]int
}

// shape is one kind of pending pod: its requests and nodeSelector.
type shape struct {
	pod   *placement.Pod
	count int
}

func newSampler(e *engine, gpu GPUResource, opts Options) *sampler {
	s := &sampler{e: e, gpu: gpu, every: opts.SampleEvery, start: e.now, next: e.now,
		requested: map[placement.ResourceName]int64{}, shapes: map[string]*shape{},
		delays: map[int][]float64{}, waiting: map[int]int{}}
	snap := e.snap
	for _, r := range snap.Resources() {
		if r == placement.ResourcePods {
			continue
		}
		var total int64
		for id := range snap.NumNodes() {
			total += snap.Allocatable(placement.NodeID(id), r)
		}
		if total > 0 {
			s.resources, s.alloc = append(s.resources, r), append(s.alloc, total)
		}
	}
	s.util = make([][]float64, len(s.resources))
	for id := range snap.NumNodes() {
		if snap.Allocatable(placement.NodeID(id), gpu.Name) > 0 {
			s.gpuNodes = append(s.gpuNodes, placement.NodeID(id))
		}
	}
	for p := range snap.Pods() {
		s.running(p, 1)
	}
	if s.every <= 0 {
		last := e.now
		var longest time.Duration
		for _, ps := range e.pods {
			if ps.pod.QueuedAt.After(last) {
				last = ps.pod.QueuedAt
			}
			longest = max(longest, ps.dur)
		}
		s.every = max(time.Second, last.Add(longest).Sub(e.now)/1000)
	}
	s.domainsOf(opts.DomainKey)
	return s
}

// domainsOf indexes the nodes by their value of key, and counts the
// domains' GPUs (or CPU, without GPUs).
func (s *sampler) domainsOf(key string) {
	if key == "" {
		return
	}
	snap := s.e.snap
	s.domKey, s.domRes = key, s.gpu.Name
	if len(s.gpuNodes) == 0 {
		s.domRes = placement.ResourceCPU
	}
	for id := range snap.NumNodes() {
		if v, ok := snap.Node(placement.NodeID(id)).Labels[key]; ok {
			s.domains = append(s.domains, v)
		}
	}
	slices.Sort(s.domains)
	s.domains = slices.Compact(s.domains)
	s.nodeDom = make([]int, snap.NumNodes())
	s.domAlloc, s.domReq = make([]int64, len(s.domains)), make([]int64, len(s.domains))
	s.occ = make([][]float64, len(s.domains))
	for id := range snap.NumNodes() {
		s.nodeDom[id] = -1
		if v, ok := snap.Node(placement.NodeID(id)).Labels[key]; ok {
			d, _ := slices.BinarySearch(s.domains, v)
			s.nodeDom[id] = d
			s.domAlloc[d] += snap.Allocatable(placement.NodeID(id), s.domRes)
			for p := range snap.PodsOn(placement.NodeID(id)) {
				s.domReq[d] += p.Requests[s.domRes]
			}
		}
	}
}

// running counts bound pod p in (n = 1) or out (n = -1) of the totals.
func (s *sampler) running(p *placement.Pod, n int64) {
	for r, q := range p.Requests {
		s.requested[r] += n * q
	}
	if s.nodeDom == nil {
		return
	}
	if id, ok := s.e.snap.NodeID(p.NodeName); ok && s.nodeDom[id] >= 0 {
		s.domReq[s.nodeDom[id]] += n * p.Requests[s.domRes]
	}
}

// pending counts pod p in (n = 1) or out (n = -1) of the pending pods
// that request a GPU.
func (s *sampler) pending(p *placement.Pod, n int) {
	if p.Requests[s.gpu.Name] <= 0 {
		return
	}
	k := shapeKey(p)
	sh, ok := s.shapes[k]
	if !ok {
		sh = &shape{pod: p}
		s.shapes[k] = sh
	}
	sh.count += n
	if sh.count == 0 {
		delete(s.shapes, k)
	}
}

// shapeKey identifies p's requests and nodeSelector.
func shapeKey(p *placement.Pod) string {
	var b strings.Builder
	for _, r := range sortedKeys(p.Requests) {
		fmt.Fprintf(&b, "%s=%d,", r, p.Requests[r])
	}
	b.WriteByte('|')
	for _, k := range sortedKeys(p.NodeSelector) {
		fmt.Fprintf(&b, "%s=%s,", k, p.NodeSelector[k])
	}
	return b.String()
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	ks := make([]K, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// delay records the queueing delay of g, which just started.
func (s *sampler) delay(g *groupState) {
	b := sizeBucket(g.out.Size)
	s.delays[b] = append(s.delays[b], g.out.Start.Sub(g.out.Arrival).Seconds())
}

// sizeBucket is b with 2^(b-1) < size ≤ 2^b (0 for size 1).
func sizeBucket(size int) int { return bits.Len(uint(max(size, 1) - 1)) }

// sampleUntil takes the samples due before t (the state is constant until
// then).
func (s *sampler) sampleUntil(t time.Time) {
	for s.next.Before(t) {
		s.sample(s.next)
		s.next = s.next.Add(s.every)
		if len(s.times) == maxSamples {
			s.decimate()
		}
	}
}

func (s *sampler) sample(t time.Time) {
	s.times = append(s.times, t)
	for i, r := range s.resources {
		s.util[i] = append(s.util[i], float64(s.requested[r])/float64(s.alloc[i]))
	}
	for d := range s.domains {
		v := 0.0
		if s.domAlloc[d] > 0 {
			v = float64(s.domReq[d]) / float64(s.domAlloc[d])
		}
		s.occ[d] = append(s.occ[d], v)
	}
	s.stranded = append(s.stranded, float64(s.strandedUnits())/float64(s.gpu.PerGPU))
}

// decimate keeps every second sample and doubles the spacing: the samples
// kept are on the coarser grid, and the next one is still due where it was.
func (s *sampler) decimate() {
	half := func(v []float64) []float64 {
		out := v[:0]
		for i := 0; i < len(v); i += 2 {
			out = append(out, v[i])
		}
		return out
	}
	times := s.times[:0]
	for i := 0; i < len(s.times); i += 2 {
		times = append(times, s.times[i])
	}
	s.times = times
	for i := range s.util {
		s.util[i] = half(s.util[i])
	}
	for i := range s.occ {
		s.occ[i] = half(s.occ[i])
	}
	s.stranded = half(s.stranded)
	s.every *= 2
	s.next = s.times[len(s.times)-1].Add(s.every)
}

// strandedUnits sums the free GPU units on nodes where no pending pod
// that requests a GPU fits. Only the minimal shapes are tried: a pod that
// needs at least as much as another, with the same nodeSelector, fits
// nowhere the other does not.
func (s *sampler) strandedUnits() int64 {
	if len(s.shapes) == 0 {
		return 0
	}
	keys := sortedKeys(s.shapes)
	var minimal []*placement.Pod
	for i, k := range keys {
		p := s.shapes[k].pod
		dominated := false
		for j, o := range keys {
			if i != j && covers(p, s.shapes[o].pod) && (!covers(s.shapes[o].pod, p) || j < i) {
				dominated = true
				break
			}
		}
		if !dominated {
			minimal = append(minimal, p)
		}
	}
	var total int64
	snap := s.e.snap
	for _, id := range s.gpuNodes {
		free := snap.Free(id, s.gpu.Name)
		if free <= 0 {
			continue
		}
		n := snap.Node(id)
		hosts := false
		for _, p := range minimal {
			if s.e.fits(id, n, p, nil) {
				hosts = true
				break
			}
		}
		if !hosts {
			total += free
		}
	}
	return total
}

// covers reports whether a requests at least what b does, with the same
// nodeSelector.
func covers(a, b *placement.Pod) bool {
	if len(a.NodeSelector) != len(b.NodeSelector) {
		return false
	}
	for k, v := range b.NodeSelector {
		if av, ok := a.NodeSelector[k]; !ok || av != v {
			return false
		}
	}
	for r, q := range b.Requests {
		if a.Requests[r] < q {
			return false
		}
	}
	return true
}

// close takes the last sample and writes the series and delays into r.
func (s *sampler) close(r *Result) {
	if len(s.times) == 0 || s.times[len(s.times)-1].Before(r.End) {
		s.sample(r.End)
	}
	series := func(v []float64) []Sample {
		out := make([]Sample, len(v))
		for i := range v {
			out[i] = Sample{At: s.times[i], Value: v[i]}
		}
		return out
	}
	for i, res := range s.resources {
		r.Utilisation = append(r.Utilisation, Series{Name: string(res), Total: s.alloc[i], Samples: series(s.util[i])})
	}
	r.StrandedGPUs = Series{Name: "stranded " + string(s.gpu.Name) + " (GPUs)", Samples: series(s.stranded)}
	for d, name := range s.domains {
		r.Domains = append(r.Domains, DomainSeries{Key: s.domKey, Domain: name, Resource: string(s.domRes), Allocatable: s.domAlloc[d], Samples: series(s.occ[d])})
	}
	for _, g := range r.Groups {
		if !g.Started {
			s.waiting[sizeBucket(g.Size)]++
		}
	}
	var all []float64
	var buckets []int
	for b := range s.delays {
		buckets = append(buckets, b)
	}
	for b := range s.waiting {
		if _, ok := s.delays[b]; !ok {
			buckets = append(buckets, b)
		}
	}
	slices.Sort(buckets)
	waiting := 0
	for _, b := range buckets {
		lo, hi := 1, 1<<b
		if b > 0 {
			lo = 1<<(b-1) + 1
		}
		db := newBucket(lo, hi, s.delays[b], s.waiting[b])
		r.Delays = append(r.Delays, db)
		all = append(all, db.Seconds...)
		waiting += db.Waiting
	}
	r.Delay = newBucket(1, 0, all, waiting)
	r.Delay.Label = "all"
	if r.Preemptions == nil {
		r.Preemptions = []Preemption{}
	}
	if r.Groups == nil {
		r.Groups = []GroupOutcome{}
	}
}

// newBucket sorts the delays of groups of lo to hi pods and takes their
// percentiles.
func newBucket(lo, hi int, secs []float64, waiting int) DelayBucket {
	secs = slices.Clone(secs)
	slices.Sort(secs)
	if secs == nil {
		secs = []float64{}
	}
	b := DelayBucket{MinSize: lo, MaxSize: hi, Seconds: secs, Waiting: waiting, Label: fmt.Sprint(lo)}
	if hi != lo {
		b.Label = fmt.Sprintf("%d-%d", lo, hi)
	}
	if n := len(secs); n > 0 {
		rank := func(p float64) float64 { return secs[max(0, int(math.Ceil(p*float64(n)))-1)] }
		b.P50, b.P90, b.P99, b.Max = rank(0.5), rank(0.9), rank(0.99), secs[n-1]
	}
	return b
}
