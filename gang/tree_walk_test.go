package gang_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfile_V138TreeWalkOrder: v1.38.0-beta.0 checks a tree in one
// walk (validatePodGroupSubtree): depth first, a parent's children in
// creation order, then by name, each child's own rule (depth, Workload,
// priority, policy, nesting) and then, for a leaf, its pods; so when a
// tree breaks two rules, the first named is the first in that walk, a
// pod's fault before a later sibling's group fault or depth. The first
// three cases are kube/testdata/v138/tree-walk-order.yaml's trees, run on
// the real kube-scheduler v1.38.0-beta.0 (kubeoracle stamps creation
// times in document order): upstream names the same pod. Under v1.37,
// which checks only pods (and depth apart, first), the same trees fail
// at the pod, or at the depth.
func TestProfile_V138TreeWalkOrder(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	p7 := int32(7)
	type leaf struct {
		name, parent string
		created      int
		prios        []int32 // its pods' priorities
	}
	type inner struct {
		name, parent string
		created      int
		prio         *int32 // nil: the root's
	}
	for _, tc := range []struct {
		name           string
		inner          []inner
		leaves         []leaf
		v138, v137     string // object and field named
		zeroTimestamps bool
	}{
		{name: "a leaf's pod before a later sibling's priority",
			leaves: []leaf{{"a", "root", 2, []int32{100, 5}}, {"c", "b", 6, []int32{100}}},
			inner:  []inner{{"b", "root", 5, &p7}},
			v138:   `pod "default/a-1" spec.priority`, v137: `pod "default/a-1" spec.priority`},
		{name: "a leaf's pod before a later subtree too deep",
			leaves: []leaf{{"a", "root", 2, []int32{100, 5}}, {"d", "b3", 8, []int32{100}}},
			inner:  []inner{{"b", "root", 5, nil}, {"b2", "b", 6, nil}, {"b3", "b2", 7, nil}},
			v138:   `pod "default/a-1" spec.priority`, v137: `CompositePodGroup default/b3 spec.parentCompositePodGroupName`},
		{name: "creation order before name order",
			leaves: []leaf{{"z", "root", 2, []int32{5}}, {"c", "m", 5, []int32{100}}},
			inner:  []inner{{"m", "root", 4, &p7}},
			v138:   `pod "default/z-0" spec.priority`, v137: `pod "default/z-0" spec.priority`},
		{name: "name order when created at once",
			leaves: []leaf{{"z", "root", 2, []int32{5}}, {"c", "m", 5, []int32{100}}},
			inner:  []inner{{"m", "root", 4, &p7}}, zeroTimestamps: true,
			v138: `CompositePodGroup "default/m" spec.priority`, v137: `pod "default/z-0" spec.priority`},
		{name: "an earlier subtree too deep before a leaf's pod",
			leaves: []leaf{{"a", "root", 9, []int32{100, 5}}, {"d", "b3", 8, []int32{100}}},
			inner:  []inner{{"b", "root", 5, nil}, {"b2", "b", 6, nil}, {"b3", "b2", 7, nil}},
			v138:   `CompositePodGroup default/b3 spec.parentCompositePodGroupName`, v137: `CompositePodGroup default/b3 spec.parentCompositePodGroupName`},
	} {
		for _, profile := range []Profile{ProfileV137, ProfileV138} {
			t.Run(tc.name+"/"+string(profile), func(t *testing.T) {
				h := newHarness(t, Options{Profile: profile}, []placement.Node{cpuNode("n1", 32000)})
				stamp := func(m *ObjectMeta, s int) {
					if !tc.zeroTimestamps {
						m.CreationTimestamp = at(s)
					}
				}
				root := cpg("root", "", "", 1)
				root.Spec.TemplateRef = &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "root"}
				stamp(&root.ObjectMeta, 1)
				h.setCPG(root)
				for _, in := range tc.inner {
					c := cpg(in.name, in.parent, "", 1)
					c.Spec.TemplateRef = &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: in.name}
					if in.prio != nil {
						c.Spec.Priority = in.prio
					}
					stamp(&c.ObjectMeta, in.created)
					h.setCPG(c)
				}
				queued := 0
				for _, l := range tc.leaves {
					pg := leafPG(l.name, l.parent, "", int32(len(l.prios)))
					stamp(&pg.ObjectMeta, l.created)
					h.setPG(pg)
					for i, p := range l.prios {
						m := member(l.name+"-"+string(rune('0'+i)), l.name, cpu(1000), queued)
						m.Priority = p
						h.addPods(m)
						queued++
					}
				}
				r, ok := h.s.Cycle(h.snap, h.now)
				require.True(t, ok)
				var fe *placement.FieldError
				require.True(t, errors.As(r.Err, &fe), "the cycle fails naming a field: %v", r.Err)
				want := tc.v138
				if profile == ProfileV137 {
					want = tc.v137
				}
				require.Equal(t, want, fe.Object+" "+fe.Field, "%v", r.Err)
				require.Empty(t, r.Bind)
			})
		}
	}
}
