package placement

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// genKeyIndex draws up to 300 pods whose keys may repeat, with a hash
// function of a handful of values, so that the key index sees equal hashes
// of different keys and buckets too full for its insertion sort.
func genKeyIndex(t *rapid.T) (*base, []uint32) {
	n := rapid.IntRange(0, 300).Draw(t, "pods")
	values := []uint32{0, 1, 1 << 30, 1<<31 + 5, 1<<31 + 7}
	mult := rapid.IntRange(1, 4).Draw(t, "mult")
	b := &base{pods: make([]Pod, n)}
	hashes := make([]uint32, n)
	for i := range b.pods {
		name := rapid.IntRange(0, 3*n).Draw(t, "name")
		b.pods[i] = Pod{Namespace: "ns", Name: "p" + strconv.Itoa(name)}
		hashes[i] = values[name*mult%len(values)]
	}
	return b, hashes
}

func checkKeyIndex(t *rapid.T) bool {
	b, hashes := genKeyIndex(t)
	unique := b.indexKeys(slices.Clone(hashes), false)
	keys := map[Key]bool{}
	for i := range b.pods {
		keys[b.pods[i].Key()] = true
	}
	require.Equal(t, len(keys) == len(b.pods), unique, "duplicate keys found or missed")
	if !unique {
		return unique
	}
	seen := make([]bool, len(b.pods))
	lo := int32(0)
	for d, hi := range b.keyEnd {
		hs := b.keyHash[lo:hi]
		require.True(t, len(hs) <= smallBucket || slices.IsSorted(hs), "long bucket %d not sorted", d)
		for i, h := range hs {
			require.Equal(t, uint32(d), h>>b.keyShift, "hash in the wrong bucket")
			p := b.keyPos[int(lo)+i]
			require.False(t, seen[p], "pod %d indexed twice", p)
			seen[p] = true
			require.Equal(t, hashes[p], h)
		}
		lo = hi
	}
	require.NotContains(t, seen, false, "a pod is not indexed")
	for i := range b.pods {
		got, ok := b.findKey(b.pods[i].Key(), hashes[i])
		require.True(t, ok, "pod %d not found", i)
		require.Equal(t, i, got)
	}
	for _, h := range hashes {
		_, ok := b.findKey(Key{Namespace: "ns", Name: "absent"}, h)
		require.False(t, ok, "found a pod that is not there")
	}
	return unique
}

func TestProp_KeyIndexFindsDuplicates(t *testing.T) {
	seen := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) { seen[checkKeyIndex(t)]++ })
	require.Positive(t, seen[true], "the generator never drew unique keys")
	require.Positive(t, seen[false], "the generator never drew a duplicate")
}

// TestNewSnapshot_ManyPods exercises the key index at a size where every
// bucket size occurs: each pod is found, and a duplicate anywhere is
// reported by name whatever the input order.
func TestNewSnapshot_ManyPods(t *testing.T) {
	nodes := []Node{{Name: "a", Allocatable: ResourceList{ResourceCPU: 1 << 40}}, {Name: "b"}}
	var pods []Pod
	for i := range 20000 {
		pods = append(pods, Pod{Namespace: "ns" + strconv.Itoa(i%7), Name: "pod-" + strconv.Itoa(i), NodeName: nodes[i%2].Name, Requests: ResourceList{ResourceCPU: 1}})
	}
	s, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	for i := range pods {
		p, ok := s.Pod(pods[i].Key())
		require.True(t, ok, pods[i].Key())
		require.Same(t, &pods[i], p)
	}
	_, ok := s.Pod(Key{Namespace: "ns0", Name: "pod-1"})
	require.False(t, ok)
	require.Equal(t, int64(10000), s.Requested(0, ResourceCPU))
	var onB []Key
	for p := range s.PodsOn(1) {
		require.Equal(t, "b", p.NodeName)
		onB = append(onB, p.Key())
	}
	require.Len(t, onB, 10000)
	require.True(t, slices.IsSortedFunc(onB, Key.Compare))

	dup := append(slices.Clone(pods), Pod{Namespace: "ns4", Name: "pod-12345", NodeName: "b"})
	_, err = NewSnapshot(nodes, dup)
	require.ErrorIs(t, err, ErrDuplicate)
	require.Contains(t, err.Error(), "ns4/pod-12345")
	slices.Reverse(dup)
	_, err2 := NewSnapshot(nodes, dup)
	require.Equal(t, err.Error(), err2.Error())
}

// TestSnapshot_LazyIndexesUnderConcurrentReaders: the orders a snapshot
// builds on first use (per node, by key, by group) are built once and read
// alike by goroutines that ask for them at the same time (go test -race
// checks the guard).
func TestSnapshot_LazyIndexesUnderConcurrentReaders(t *testing.T) {
	nodes := []Node{{Name: "a"}, {Name: "b"}}
	var pods []Pod
	for i := range 200 {
		pods = append(pods, Pod{Namespace: "ns", Name: "p" + strconv.Itoa(i), NodeName: nodes[i%2].Name, SchedulingGroup: "g" + strconv.Itoa(i%3)})
	}
	s, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	const readers = 8
	onA, all, group := make([][]Key, readers), make([][]Key, readers), make([][]Key, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			for p := range s.PodsOn(0) {
				onA[r] = append(onA[r], p.Key())
			}
			for p := range s.Pods() {
				all[r] = append(all[r], p.Key())
			}
			for _, p := range s.GroupMembers(Key{Namespace: "ns", Name: "g1"}) {
				group[r] = append(group[r], p.Key())
			}
		})
	}
	wg.Wait()
	require.Len(t, onA[0], 100)
	require.Len(t, all[0], 200)
	require.Len(t, group[0], 67)
	for r := 1; r < readers; r++ {
		require.Equal(t, onA[0], onA[r])
		require.Equal(t, all[0], all[r])
		require.Equal(t, group[0], group[r])
	}
}

// TestNewSnapshot_KeyIndexOnFirstLookup: pods in key order are proven
// unique without the key index, which the first lookup by key builds;
// pods out of order need it at once, to find a repeated key.
func TestNewSnapshot_KeyIndexOnFirstLookup(t *testing.T) {
	nodes := []Node{{Name: "a"}}
	pods := []Pod{{Namespace: "ns", Name: "p1", NodeName: "a"}, {Namespace: "ns", Name: "p2", NodeName: "a"}, {Namespace: "nt", Name: "p0", NodeName: "a"}}
	s, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	require.Nil(t, s.b.keyHash, "index built for pods in key order")
	p, ok := s.Pod(Key{Namespace: "nt", Name: "p0"})
	require.True(t, ok)
	require.Same(t, &pods[2], p)
	require.Len(t, s.b.keyHash, len(pods))

	out := []Pod{pods[0], pods[2], pods[1]}
	s, err = NewSnapshot(nodes, out)
	require.NoError(t, err)
	require.Len(t, s.b.keyHash, len(pods), "no index for pods out of order")
}
