package main

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
)

// manyGroups builds, as decoded objects, nodes of 64 CPUs and pods of
// 100m each, every one alone in a one-pod gang PodGroup or, without
// groups, a plain pod: all of them fit.
func manyGroups(nodes, pods int, groups bool) []manifest.Object {
	var objs []manifest.Object
	add := func(kind, ns, name string, o any) {
		objs = append(objs, manifest.Object{Source: "gen", Doc: len(objs) + 1, Line: 1, Item: -1, Kind: kind, Namespace: ns, Name: name, Obj: o})
	}
	for i := range nodes {
		name := fmt.Sprintf("n%04d", i)
		add("Node", "", name, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourcePods: resource.MustParse("1000")}}})
	}
	for i := range pods {
		name := fmt.Sprintf("p%06d", i)
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}
		if groups {
			pg := "g" + name
			add("PodGroup", "default", pg, &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pg},
				Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1}}}})
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &pg}
		}
		add("Pod", "default", name, p)
	}
	return objs
}

// benchmarkMany runs every cycle of pods one-pod groups (or plain pods)
// on nodes nodes: one cycle each, so the time per op over the pod count is
// the cost of a cycle, which must not grow with the groups already bound.
func benchmarkMany(b *testing.B, nodes, pods int, groups bool) {
	benchSimulate(b, manyGroups(nodes, pods, groups), func(s Summary) bool { return s.PodsBound == pods && s.Cycles == pods })
}

func BenchmarkSimulateOnePodGroups(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("groups=%d/nodes=1000", n), func(b *testing.B) { benchmarkMany(b, 1000, n, true) })
	}
}

func BenchmarkSimulatePlainPods(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("pods=%d/nodes=1000", n), func(b *testing.B) { benchmarkMany(b, 1000, n, false) })
	}
}

// twoPriorities is manyGroups with pods of 1 CPU, alternately of
// priority 100 and 0: the nodes hold 64 each, so past the first
// nodes×64 (all of priority 100 first, as the queue orders them) every
// cycle fails and searches for victims among the pods bound, none of
// them of a lower priority.
func twoPriorities(nodes, pods int, groups bool) []manifest.Object {
	objs := manyGroups(nodes, pods, groups)
	i := 0
	for _, o := range objs {
		p, ok := o.Obj.(*corev1.Pod)
		if !ok {
			continue
		}
		prio := int32(0)
		if i%2 == 0 {
			prio = 100
		}
		i++
		p.Spec.Priority = &prio
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1")
	}
	return objs
}

// BenchmarkSimulateTwoPriorities: pods of two priorities, plain or in
// one-pod groups, on 100 nodes (10,000 and 20,000 pods: 6,400 bind, 3,600
// and 13,600 cycles fail) and on 1,000 (100,000 pods: 64,000 bind, 36,000
// fail). Each failed cycle's victim search must not cost more as pods
// bind.
func BenchmarkSimulateTwoPriorities(b *testing.B) {
	for _, c := range []struct{ nodes, pods int }{{100, 10_000}, {100, 20_000}, {1000, 100_000}} {
		for _, groups := range []bool{false, true} {
			b.Run(fmt.Sprintf("pods=%d/groups=%v/nodes=%d", c.pods, groups, c.nodes), func(b *testing.B) {
				objs := twoPriorities(c.nodes, c.pods, groups)
				cpuLoop(b, func() any {
					c, err := kube.Load(objs)
					if err != nil {
						b.Fatal(err)
					}
					return c
				}, func(cl any) {
					rep, err := simulate(cl.(*kube.Cluster), options{maxCycles: 1 << 30, preemption: true})
					if err != nil || rep.Summary.PodsBound != c.nodes*64 || rep.Summary.Cycles != c.pods {
						b.Fatalf("simulate: %v, %d bound in %d cycles", err, rep.Summary.PodsBound, rep.Summary.Cycles)
					}
				})
			})
		}
	}
}
