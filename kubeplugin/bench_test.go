package kubeplugin

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/gangsched/gangsched/internal/cputime"
)

// bigCluster is 5,000 eight-GPU nodes, 20 per rack, 25 racks per block,
// each node running two one-GPU pods.
func bigCluster() []fwk.NodeInfo {
	out := make([]fwk.NodeInfo, 0, 5000)
	for i := range 5000 {
		name := fmt.Sprintf("n%04d", i)
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			blockKey: fmt.Sprintf("block-%d", i/500), rackKey: fmt.Sprintf("rack-%d", i/20)}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), gpu: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110")}}}
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		for j := range 2 {
			ni.AddPod(loadPod(fmt.Sprintf("load-%s-%d", name, j), name))
		}
		out = append(out, ni)
	}
	return out
}

func loadPod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "load", Name: name, UID: types.UID(name)},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), gpu: resource.MustParse("1")}}}}}}
}

// BenchmarkGeneratePlacements5000 is one PodGroup cycle's
// GeneratePlacements (a gang of four, one block required, a rack
// preferred) at 5,000 nodes, after the framework bound or removed one pod
// on one node since the last cycle: with the plugin kept across cycles
// (its snapshot brought in step with Snapshot.Apply, its tree kept), and
// with a new plugin per cycle, which converts every node and pod and
// builds the tree again — what every cycle cost before the view was kept.
func BenchmarkGeneratePlacements5000(b *testing.B) {
	pods := []*corev1.Pod{gpuPod("pair-0", ""), gpuPod("pair-1", ""), gpuPod("pair-2", ""), gpuPod("pair-3", "")}
	for _, mode := range []string{"kept", "rebuilt"} {
		b.Run(mode, func(b *testing.B) {
			nodes := bigCluster()
			newPl := func() *Plugin {
				p, err := New(context.Background(), &runtime.Unknown{Raw: []byte(keptArgs)}, nil)
				if err != nil {
					b.Fatal(err)
				}
				return p.(*Plugin)
			}
			kept := newPl()
			i := 0
			cputime.Loop(b, func() {
				ni := nodes[(i*7919)%len(nodes)].(*framework.NodeInfo)
				extra := loadPod(fmt.Sprintf("extra-%d", i), ni.Node().Name)
				ni.AddPod(extra)
				p := kept
				if mode == "rebuilt" {
					p = newPl()
				}
				_, st := p.GeneratePlacements(context.Background(), framework.NewCycleState(), pair(pods...), &fwk.Placement{Nodes: nodes})
				if !st.IsSuccess() {
					b.Fatal(st.AsError())
				}
				if err := ni.RemovePod(klog.Background(), extra); err != nil {
					b.Fatal(err)
				}
				i++
			})
		})
	}
}
