package replay

import (
	"testing"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/stretchr/testify/require"
)

// TestMayPreempt: preemption is searched only when the input holds two
// priorities, since a victim's must be strictly lower than the preemptor's.
func TestMayPreempt(t *testing.T) {
	p := func(prio int32) Pod { return Pod{Pod: placement.Pod{Priority: prio}} }
	ten := int32(10)
	pg := &gang.PodGroup{Spec: gang.PodGroupSpec{Priority: &ten}}
	for _, tc := range []struct {
		name string
		in   Input
		want bool
	}{
		{"empty", Input{}, false},
		{"one priority", Input{Pods: []Pod{p(0), p(0), p(0)}}, false},
		{"two pod priorities", Input{Pods: []Pod{p(0), p(5)}}, true},
		{"group priority equal to pods'", Input{PodGroups: []*gang.PodGroup{pg}, Pods: []Pod{p(10)}}, false},
		{"group priority above pods'", Input{PodGroups: []*gang.PodGroup{pg}, Pods: []Pod{p(0)}}, true},
	} {
		require.Equal(t, tc.want, mayPreempt(tc.in), tc.name)
	}
}
