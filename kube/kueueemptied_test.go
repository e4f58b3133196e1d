package kube

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/kube/internal/testmanifests"
	"github.com/gangsched/gangsched/placement"
)

// emptiedNodes are n nodes n0.. of 8 CPUs.
func emptiedNodes(n int) []placement.Node {
	var nodes []placement.Node
	for i := range n {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%d", i), Allocatable: placement.ResourceList{placement.ResourceCPU: 8000}})
	}
	return nodes
}

// emptiedWorkload is a queue Workload default/name with pod sets sets.
func emptiedWorkload(name string, sets ...string) *KueueWorkload {
	g := &placement.Group{Namespace: "default", Name: name}
	for _, s := range sets {
		g.PodSets = append(g.PodSets, placement.PodSet{Name: s, Count: 1})
	}
	return &KueueWorkload{Group: g}
}

// emptiedUsage is a reservation of pods one-CPU pods of group/set on node.
func emptiedUsage(group, set, node string, pods int32) placement.PodSetUsage {
	return placement.PodSetUsage{Group: placement.Key{Namespace: "default", Name: group}, PodSet: set,
		Requests: placement.ResourceList{placement.ResourceCPU: 1000}, Nodes: []placement.PodSetAssignment{{Node: node, Count: pods}}}
}

// emptiedCPU is each node's CPU requested on s, in millicores, and the
// reservations s holds, as "group/set".
func emptiedCPU(s *placement.Snapshot) ([]int64, []string) {
	var cpu []int64
	for id := range placement.NodeID(s.NumNodes()) {
		cpu = append(cpu, s.Requested(id, placement.ResourceCPU))
	}
	var rs []string
	for u := range s.PodSetUsages() {
		rs = append(rs, u.Group.Name+"/"+u.PodSet)
	}
	return cpu, rs
}

// TestKueueEmptied_Stale: the emptied snapshot kept between heads
// ([emptiedSnapshot]) is kept over a change that only reserves or
// releases queue Workloads' sets, and built again after any other: a
// reservation of another key or of a set its Workload does not name, a
// pod bound, nodes added or removed, a queue Workload replaced. Each
// step's emptied snapshot is checked exactly, and against one built
// afresh.
func TestKueueEmptied_Stale(t *testing.T) {
	s0, err := placement.NewSnapshot(emptiedNodes(3), nil)
	require.NoError(t, err)
	s0, err = s0.Apply(placement.Change{Reserve: []placement.PodSetUsage{
		emptiedUsage("a", "x", "n0", 2), emptiedUsage("b", "main", "n1", 3), emptiedUsage("other", "x", "n2", 1)}})
	require.NoError(t, err)
	a := &admitter{s: s0, queue: []*KueueWorkload{emptiedWorkload("a", "x", "y"), emptiedWorkload("b", "main")}}
	apply := func(ch placement.Change) {
		next, err := a.s.Apply(ch)
		require.NoError(t, err)
		a.moveTo(next, ch)
	}
	steps := []struct {
		name string
		do   func()
		kept bool // the snapshot before is returned again
		cpu  []int64
		res  []string
	}{
		{"first", func() {}, false, []int64{0, 0, 1000}, []string{"other/x"}},
		{"unchanged", func() {}, true, []int64{0, 0, 1000}, []string{"other/x"}},
		{"queue sets reserved and released", func() {
			apply(placement.Change{Release: []placement.PodSetRef{{Group: placement.Key{Namespace: "default", Name: "b"}, PodSet: "main"}}})
			apply(placement.Change{Reserve: []placement.PodSetUsage{emptiedUsage("a", "y", "n2", 4)}})
		}, true, []int64{0, 0, 1000}, []string{"other/x"}},
		{"a.s restored without moveTo", func() { a.s = s0 }, false, []int64{0, 0, 1000}, []string{"other/x"}},
		{"another key reserved", func() {
			apply(placement.Change{Reserve: []placement.PodSetUsage{emptiedUsage("c", "main", "n0", 2)}})
		}, false, []int64{2000, 0, 1000}, []string{"c/main", "other/x"}},
		{"a set its Workload does not name", func() {
			apply(placement.Change{Reserve: []placement.PodSetUsage{emptiedUsage("b", "extra", "n1", 1)}})
		}, false, []int64{2000, 1000, 1000}, []string{"b/extra", "c/main", "other/x"}},
		{"a pod bound", func() {
			apply(placement.Change{Bind: []placement.Pod{{Namespace: "default", Name: "p", NodeName: "n2", Requests: placement.ResourceList{placement.ResourceCPU: 500}}}})
		}, false, []int64{2000, 1000, 1500}, []string{"b/extra", "c/main", "other/x"}},
		{"a queue Workload replaced without a set it holds", func() {
			a.queue[0] = emptiedWorkload("a", "y") // in place, as issuePreemptions does

		}, false, []int64{4000, 1000, 1500}, []string{"a/x", "b/extra", "c/main", "other/x"}},
		{"a node added", func() {
			s, err := placement.NewSnapshot(emptiedNodes(4), nil)
			require.NoError(t, err)
			a.s, err = s.Apply(placement.Change{Reserve: []placement.PodSetUsage{emptiedUsage("a", "y", "n3", 1), emptiedUsage("other", "x", "n0", 1)}})
			require.NoError(t, err)
		}, false, []int64{1000, 0, 0, 0}, []string{"other/x"}},
		{"a node removed", func() {
			s, err := placement.NewSnapshot(emptiedNodes(2), nil)
			require.NoError(t, err)
			a.s = s
		}, false, []int64{0, 0}, nil},
	}
	var last *placement.Snapshot
	for _, st := range steps {
		st.do()
		before := a.s
		e, err := a.emptiedNow()
		require.NoError(t, err, st.name)
		require.Same(t, before, a.s, "%s: a.s changed", st.name)
		require.Equal(t, st.kept, e == last, "%s: kept", st.name)
		cpu, res := emptiedCPU(e)
		require.Equal(t, st.cpu, cpu, st.name)
		require.Equal(t, st.res, res, st.name)
		fresh := &admitter{s: a.s, queue: a.queue, opts: KueueOptions{noEmptied: true}}
		f, err := fresh.emptiedNow()
		require.NoError(t, err, st.name)
		require.Nil(t, fresh.emptied, "%s: noEmptied keeps nothing", st.name)
		fcpu, fres := emptiedCPU(f)
		require.Equal(t, fcpu, cpu, "%s: against a fresh build", st.name)
		require.Equal(t, fres, res, "%s: against a fresh build", st.name)
		last = e
	}
}

// TestProp_KueueEmptiedModel: after any sequence of changes of a.s
// (reservations and releases of queue Workloads' sets, of sets they do
// not name and of another key, pods bound, a.s set back to an earlier
// snapshot or to a new one of 1–4 nodes) and of the queue (a Workload
// replaced in place with other sets), the emptied snapshot equals one
// built afresh; the sequences both reuse it and build it again.
func TestProp_KueueEmptiedModel(t *testing.T) {
	kept, built := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		sets := func(label string) []string {
			return rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"x", "y"}), 1, 2, rapid.ID[string]).Draw(rt, label)
		}
		s, err := placement.NewSnapshot(emptiedNodes(2), nil)
		require.NoError(rt, err)
		a := &admitter{s: s, queue: []*KueueWorkload{emptiedWorkload("a", sets("a")...), emptiedWorkload("b", sets("b")...)}}
		history := []*placement.Snapshot{s}
		var last *placement.Snapshot
		for step := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			switch rapid.IntRange(0, 5).Draw(rt, "change") {
			case 0: // a reservation, through moveTo
				g := rapid.SampledFrom([]string{"a", "b", "o"}).Draw(rt, "group")
				set := rapid.SampledFrom([]string{"x", "y", "z"}).Draw(rt, "set")
				if _, ok := a.s.PodSetUsage(placement.Key{Namespace: "default", Name: g}, set); ok {
					continue
				}
				node := fmt.Sprintf("n%d", rapid.IntRange(0, a.s.NumNodes()-1).Draw(rt, "node"))
				ch := placement.Change{Reserve: []placement.PodSetUsage{emptiedUsage(g, set, node, int32(rapid.IntRange(1, 3).Draw(rt, "pods")))}}
				next, err := a.s.Apply(ch)
				require.NoError(rt, err)
				a.moveTo(next, ch)
			case 1: // a release, through moveTo
				var refs []placement.PodSetRef
				for u := range a.s.PodSetUsages() {
					refs = append(refs, placement.PodSetRef{Group: u.Group, PodSet: u.PodSet})
				}
				if len(refs) == 0 {
					continue
				}
				ch := placement.Change{Release: []placement.PodSetRef{rapid.SampledFrom(refs).Draw(rt, "released")}}
				next, err := a.s.Apply(ch)
				require.NoError(rt, err)
				a.moveTo(next, ch)
			case 2: // a pod bound, through moveTo
				ch := placement.Change{Bind: []placement.Pod{{Namespace: "default", Name: fmt.Sprintf("p%d", step), NodeName: "n0", Requests: placement.ResourceList{placement.ResourceCPU: 500}}}}
				next, err := a.s.Apply(ch)
				require.NoError(rt, err)
				a.moveTo(next, ch)
			case 3: // a queue Workload replaced in place
				i := rapid.IntRange(0, 1).Draw(rt, "replaced")
				a.queue[i] = emptiedWorkload(a.queue[i].Group.Name, sets("sets")...)
			case 4: // an earlier snapshot, set directly
				a.s = rapid.SampledFrom(history).Draw(rt, "earlier")
			case 5: // a new snapshot: nodes added or removed
				s, err := placement.NewSnapshot(emptiedNodes(rapid.IntRange(1, 4).Draw(rt, "nodes")), nil)
				require.NoError(rt, err)
				a.s = s
			}
			history = append(history, a.s)
			e, err := a.emptiedNow()
			require.NoError(rt, err)
			if e == last {
				kept++
			} else {
				built++
			}
			last = e
			f, err := (&admitter{s: a.s, queue: a.queue, opts: KueueOptions{noEmptied: true}}).emptiedNow()
			require.NoError(rt, err)
			cpu, res := emptiedCPU(e)
			fcpu, fres := emptiedCPU(f)
			require.Equal(rt, fcpu, cpu, "step %d: CPU requested", step)
			require.Equal(rt, fres, res, "step %d: reservations", step)
			require.Equal(rt, f.NumPods(), e.NumPods(), "step %d: pods", step)
		}
	})
	require.Positive(t, kept, "no sequence reused the emptied snapshot")
	require.Positive(t, built, "no sequence built it again")
}

// TestKueueEmptied_DuplicateKeys: with two queue Workloads of one key
// nothing is kept (a change of one's sets would not say which), and
// releasing a set both name fails as it did without the cache.
func TestKueueEmptied_DuplicateKeys(t *testing.T) {
	s, err := placement.NewSnapshot(emptiedNodes(1), nil)
	require.NoError(t, err)
	a := &admitter{s: s, queue: []*KueueWorkload{emptiedWorkload("a", "x"), emptiedWorkload("a", "x")}}
	_, err = a.emptiedNow()
	require.NoError(t, err)
	require.Nil(t, a.emptied)
	a.s, err = s.Apply(placement.Change{Reserve: []placement.PodSetUsage{emptiedUsage("a", "x", "n0", 1)}})
	require.NoError(t, err)
	_, err = a.emptiedNow()
	require.Error(t, err)
}

// TestKueueEmptied_SetAside: on the set-aside world, where every even
// Workload keeps room each cycle it heads while the odd ones are
// admitted one by one, keeping the emptied snapshot changes no decision
// and no status written.
func TestKueueEmptied_SetAside(t *testing.T) {
	world := testmanifests.SetAside(2, 60)
	admit := func(noEmptied bool) (*Cluster, []KueueOutcome) {
		return admitWorld(t, world, func(o *KueueOptions) { o.noEmptied = noEmptied })
	}
	oc, oouts := admit(true)
	c, outs := admit(false)
	requireSameAdmission(t, c, outs, oc, oouts)
	admitted := 0
	for _, o := range outs {
		if o.Action == KueueAdmitted {
			admitted++
		}
	}
	require.Equal(t, 30, admitted, "the odd Workloads")
}

// TestProp_KueueEmptied: keeping the emptied snapshot between heads
// changes no decision, on the properties' random worlds and on their
// perturbed second pass.
func TestProp_KueueEmptied(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := genPropWorld(rt)
		for range 2 {
			off := w.clone()
			off.opts.noEmptied = true
			oc, _, oouts := off.admit(rt)
			c, _, outs := w.admit(rt)
			requireSameAdmission(rt, c, outs, oc, oouts)
			w.perturb(rt)
		}
	})
}

// BenchmarkAdmitKueueWorkloads_SetAside admits the tester's set-aside
// world (1,000 hosts, w pending Workloads, half of them keeping room
// every cycle they head) whole, per op. Planning each such head on a
// snapshot emptied afresh made it grow ~w² (07-kueue-admission-quadratic-in-pending).
func BenchmarkAdmitKueueWorkloads_SetAside(b *testing.B) {
	for _, w := range []int{250, 1000} {
		b.Run(fmt.Sprintf("w=%d", w), func(b *testing.B) {
			benchAdmitWorld(b, testmanifests.SetAside(10, w))
		})
	}
}
