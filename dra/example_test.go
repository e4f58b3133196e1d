package dra_test

import (
	"fmt"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// A gang of two shares its PodGroup's network claim and each member gets
// a GPU of its own; the shared claim is allocated once and reserved for
// the PodGroup.
func Example() {
	byDriver := func(name string) dra.Selector {
		return func(driver string, _ *dra.Device) bool { return driver == name }
	}
	inv, _ := dra.NewInventory(
		[]dra.DeviceClass{
			{Name: "gpu", Selectors: []dra.Selector{byDriver("gpu.example.com")}},
			{Name: "nic", Selectors: []dra.Selector{byDriver("net.example.com")}},
		},
		[]dra.ResourceSlice{
			{Name: "n1-gpus", Driver: "gpu.example.com", Pool: "n1", NodeName: "n1", Devices: []dra.Device{{Name: "gpu0"}, {Name: "gpu1"}}},
			{Name: "rack-a", Driver: "net.example.com", Pool: "rack-a", Devices: []dra.Device{{Name: "switch"}},
				NodeSelector: &placement.LabelSelector{MatchLabels: map[string]string{"rack": "a"}}},
		})
	one := func(class string) dra.ClaimSpec {
		return dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "dev", Exactly: &dra.ExactDeviceRequest{DeviceClassName: class}}}}
	}
	ledger, _ := dra.NewLedger(inv, []dra.ResourceClaimTemplate{
		{Namespace: "ml", Name: "gpu", Spec: one("gpu")},
		{Namespace: "ml", Name: "fabric", Spec: one("nic")},
	}, nil)

	rack := map[string]string{"rack": "a"}
	snap, _ := placement.NewSnapshot([]placement.Node{
		{Name: "n1", Labels: rack, Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}},
		{Name: "n2", Labels: rack, Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}},
	}, nil)
	pg := dra.PodGroup{Namespace: "ml", Name: "train", UID: "u1",
		ResourceClaims: []dra.PodGroupResourceClaim{{Name: "fabric", ResourceClaimTemplateName: "fabric"}}}
	worker := func(name string) placement.Pod {
		return placement.Pod{Namespace: "ml", Name: name, UID: name, SchedulingGroup: "train",
			Requests: placement.ResourceList{placement.ResourceCPU: 1000},
			ResourceClaims: []placement.PodResourceClaim{
				{Name: "fabric", ResourceClaimTemplateName: "fabric"}, // the group's claim
				{Name: "gpu", ResourceClaimTemplateName: "gpu"},       // the pod's own
			}}
	}
	g := &placement.Group{Namespace: "ml", Name: "train", MinCount: 2, Members: []placement.Pod{worker("w0"), worker("w1")}}

	d, _ := placement.Solve(snap, g, placement.Options{Reservers: []placement.NewReserverFunc{ledger.Reserver(pg, dra.Options{})}})
	fmt.Println(d.Status, d.Message)
	_, updates, _ := ledger.Commit(snap, pg, g, d, dra.Options{})
	for _, u := range updates {
		a := u.Claim.Status.Allocation
		fmt.Printf("%s: %s on node %q, reserved for %s %s\n", u.Claim.Name, a.Devices[0].Device, a.NodeName,
			u.Claim.Status.ReservedFor[0].Resource, u.Claim.Status.ReservedFor[0].Name)
	}
	// Output:
	// Scheduled 2 of 2 members placed
	// train-fabric: switch on node "", reserved for podgroups train
	// w0-gpu: gpu0 on node "n1", reserved for pods w0
	// w1-gpu: gpu1 on node "n1", reserved for pods w1
}
