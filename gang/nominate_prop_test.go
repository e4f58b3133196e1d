package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// nunit is one scheduling unit of the nomination property: a gang
// PodGroup, or a CompositePodGroup tree of one gang leaf confined to a
// rack; its name is the key Result.PodGroup reports for it.
type nunit struct {
	name string
	prio int32 // the priority it preempts with, and its nominees hold room with: a tree's root's
	pods []placement.Pod
}

// TestProp_NominatedRoomIsHeld draws PodGroups and CompositePodGroup trees
// of mixed priorities on three racks partly taken by evictable pods,
// then runs cycles (the host evicting each plan's victims at once),
// deletions and re-additions of pending pods (a gang short of its quorum
// waits with its nominations). A tree's leaf PodGroup may set a lower
// spec.priority than its root (not under v1.38, which fails such a tree),
// and under profile v1.36 (which lets a pod's priority differ from its
// group's) so may the leaf's pods. After every
// cycle of a unit of priority P (a tree's: its root's, whatever its leaf
// and pods say, as upstream ranks every pod of a hierarchy): on every node
// where it binds, its pods fit beside the room nominated, before the
// cycle, for pending pods of other units of priority at least P
// (kube-scheduler's nominator), whether the cycle and the nominees are
// PodGroups or trees; and no victim is a nominee (every victim was bound).
func TestProp_NominatedRoomIsHeld(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		profile := rapid.SampledFrom([]Profile{ProfileV136, ProfileV137, ProfileV138}).Draw(t, "profile")
		var nodes []placement.Node
		var bound []placement.Pod
		for i := range 3 {
			name := fmt.Sprintf("n%d", i)
			nodes = append(nodes, rackNode(name, "b", fmt.Sprintf("r%d", i), 2000))
			if milli := int64(rapid.IntRange(0, 2).Draw(t, "boundCPU")) * 1000; milli > 0 {
				bound = append(bound, placement.Pod{Namespace: "default", Name: "x" + name, NodeName: name, Requests: cpu(milli),
					Priority: rapid.SampledFrom([]int32{10, 1000}).Draw(t, "boundPrio")})
			}
		}
		snap, err := placement.NewSnapshot(nodes, bound)
		require.NoError(t, err)
		s := NewScheduler(Options{Preemption: true, Profile: profile})

		var units []nunit
		unitOf := map[placement.Key]int{}
		for u := range rapid.IntRange(2, 4).Draw(t, "units") {
			un := nunit{name: fmt.Sprintf("u%d", u), prio: rapid.SampledFrom([]int32{50, 100, 200}).Draw(t, "prio")}
			podPrio := un.prio
			n := rapid.IntRange(1, 2).Draw(t, "size")
			group := un.name
			if rapid.Bool().Draw(t, "tree") {
				root := cpg(un.name, "", "", 1)
				root.Spec.Priority = &un.prio
				require.NoError(t, s.SetCompositePodGroup(root))
				group = un.name + "-l"
				leaf := leafPG(group, un.name, rackKey, int32(n))
				leafPrio := min(un.prio, rapid.SampledFrom([]int32{50, 100, 200}).Draw(t, "leafPrio"))
				if profile == ProfileV138 {
					leafPrio = un.prio // v1.38 holds every group of a tree to its root's priority
				}
				leaf.Spec.Priority = &leafPrio
				if profile == ProfileV136 {
					podPrio = leafPrio
				}
				require.NoError(t, s.SetPodGroup(leaf))
			} else {
				pg := gangPG(un.name, int32(n))
				pg.Spec.Priority = &un.prio
				require.NoError(t, s.SetPodGroup(pg))
			}
			for i := range n {
				p := member(fmt.Sprintf("%s-%d", un.name, i), group, cpu(1000), rapid.IntRange(0, 9).Draw(t, "queued"))
				p.Priority = podPrio
				require.NoError(t, s.AddPod(p))
				un.pods = append(un.pods, p)
				unitOf[p.Key()] = u
			}
			units = append(units, un)
		}

		now := t0
		deleted := map[placement.Key]placement.Pod{}
		for range rapid.IntRange(1, 16).Draw(t, "steps") {
			switch rapid.IntRange(0, 4).Draw(t, "action") {
			case 0: // a pending pod is deleted (its controller makes it again later)
				u := units[rapid.IntRange(0, len(units)-1).Draw(t, "unit")]
				p := u.pods[rapid.IntRange(0, len(u.pods)-1).Draw(t, "pod")]
				if _, isBound := snap.Pod(p.Key()); !isBound && s.DeletePod(p.Key()) {
					deleted[p.Key()] = p
				}
			case 1: // and comes back
				for k, p := range deleted {
					require.NoError(t, s.AddPod(p))
					delete(deleted, k)
					break
				}
			default:
				type held struct {
					pod  placement.Key
					node string
				}
				var before []held
				for _, u := range units {
					for _, p := range u.pods {
						if node, ok := s.Nominated(p.Key()); ok {
							before = append(before, held{p.Key(), node})
						}
					}
				}
				r, ok := s.Cycle(snap, now)
				if !ok {
					now = now.Add(DefaultMaxBackoff)
					continue
				}
				require.NoError(t, r.Err)
				own := -1
				for i, u := range units {
					if u.name == r.PodGroup.Name {
						own = i
					}
				}
				require.GreaterOrEqual(t, own, 0, "cycle of %s", r.PodGroup)
				after := r.Snapshot
				var keep []placement.Pod
				for _, h := range before {
					u := unitOf[h.pod]
					if _, isBound := after.Pod(h.pod); u == own || isBound || units[u].prio < units[own].prio {
						continue
					}
					for _, p := range units[u].pods {
						if p.Key() == h.pod {
							p.NodeName = h.node
							keep = append(keep, p)
						}
					}
				}
				withHeld, err := after.Apply(placement.Change{Bind: keep})
				require.NoError(t, err)
				for _, p := range r.Bind {
					id, _ := withHeld.NodeID(p.NodeName)
					require.GreaterOrEqual(t, withHeld.Free(id, placement.ResourceCPU), int64(0),
						"%s (priority %d) bound %s on %s, into room held for %v", r.PodGroup, units[own].prio, p.Key(), p.NodeName, keep)
				}
				var victims []placement.Key
				if p := r.Preemption; p != nil && p.Outcome == preemption.Preempt {
					victims = p.EvictedPods()
				}
				if p := r.Hierarchy; p != nil && p.Preemption != nil && p.Preemption.Outcome == preemption.Preempt {
					for _, v := range p.Preemption.Victims {
						victims = append(victims, v.Pods...)
					}
				}
				for _, v := range victims {
					_, isBound := snap.Pod(v)
					require.True(t, isBound, "victim %s is not bound: a nominee", v)
				}
				snap = r.Snapshot
				if len(victims) > 0 {
					snap, err = snap.Apply(placement.Change{Remove: victims})
					require.NoError(t, err)
					for _, v := range victims {
						s.DeletePod(v)
					}
				}
			}
		}
	})
}
