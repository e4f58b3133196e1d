// Command dra runs DRA ResourceClaims per PodGroup (KEP-5729) through the
// gangsched scheduling cycle. A built-in cluster of two racks of two nodes
// has four GPUs per node, published as node-local devices, and one RDMA
// fabric device that only rack-2's nodes reach (a ResourceSlice with a node
// label selector). PodGroup train lists a claim from the fabric template in
// spec.resourceClaims, so its three members share one generated
// ResourceClaim; each member also gets its own claim for two GPUs. The
// scheduler allocates them through the claim ledger it is given with
// Scheduler.SetClaims. It prints where the members go and the claims the
// host writes back: the generated claim, its allocation, and a reservedFor
// of one PodGroup entry instead of a list of pods. A second group that
// needs the fabric waits on the device. It takes no arguments:
//
//	go run ./examples/dra
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dra:", err)
		os.Exit(1)
	}
}

const rackKey = "topology.kubernetes.io/rack"

func run(w io.Writer) error {
	var nodes []placement.Node
	var rslices []dra.ResourceSlice
	for _, n := range []string{"n11", "n12", "n21", "n22"} {
		nodes = append(nodes, placement.Node{Name: n, Labels: map[string]string{rackKey: "rack-" + n[1:2]},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 32000}})
		rslices = append(rslices, dra.ResourceSlice{Name: n + "-gpus", Driver: "gpu.example.com", Pool: n, NodeName: n,
			Devices: []dra.Device{{Name: "gpu-0"}, {Name: "gpu-1"}, {Name: "gpu-2"}, {Name: "gpu-3"}}})
	}
	rslices = append(rslices, dra.ResourceSlice{Name: "rack-2-fabric", Driver: "net.example.com", Pool: "rack-2",
		NodeSelector: &placement.LabelSelector{MatchLabels: map[string]string{rackKey: "rack-2"}}, Devices: []dra.Device{{Name: "rdma-0"}}})
	byDriver := func(driver string) []dra.Selector {
		return []dra.Selector{func(d string, _ *dra.Device) bool { return d == driver }}
	}
	inv, err := dra.NewInventory([]dra.DeviceClass{
		{Name: "gpu.example.com", Selectors: byDriver("gpu.example.com")},
		{Name: "fabric.example.com", Selectors: byDriver("net.example.com")},
	}, rslices)
	if err != nil {
		return err
	}
	request := func(class string, count int64) dra.ClaimSpec {
		return dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "devices", Exactly: &dra.ExactDeviceRequest{DeviceClassName: class, Count: count}}}}
	}
	ledger, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{
		{Namespace: "default", Name: "fabric", Spec: request("fabric.example.com", 1)},
		{Namespace: "default", Name: "two-gpus", Spec: request("gpu.example.com", 2)},
	}, nil)
	if err != nil {
		return err
	}
	snap, err := placement.NewSnapshot(nodes, nil)
	if err != nil {
		return err
	}
	sched := gang.NewScheduler(gang.Options{})
	sched.SetClaims(ledger)
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	fmt.Fprintln(w, "cluster: n11 n12 in rack-1, n21 n22 in rack-2; 4 GPUs per node; fabric device rdma-0 reachable from rack-2 only")

	shared := placement.PodResourceClaim{Name: "fabric", ResourceClaimTemplateName: "fabric"}
	for _, j := range []struct {
		name    string
		members int
	}{{"train", 3}, {"eval", 1}} {
		pg := &gang.PodGroup{ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: j.name, UID: "uid-" + j.name}, Spec: gang.PodGroupSpec{
			SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: int32(j.members)}},
			// The members' entry "fabric" equals this one: they share its claim.
			ResourceClaims: []gang.PodGroupResourceClaim{{Name: shared.Name, ResourceClaimTemplateName: shared.ResourceClaimTemplateName}},
		}}
		if err := sched.SetPodGroup(pg); err != nil {
			return err
		}
		for i := range j.members {
			name := fmt.Sprintf("%s-%d", j.name, i)
			if err := sched.AddPod(placement.Pod{Namespace: "default", Name: name, UID: "uid-" + name, SchedulingGroup: j.name,
				Requests: placement.ResourceList{placement.ResourceCPU: 8000}, QueuedAt: now,
				ResourceClaims: []placement.PodResourceClaim{shared, {Name: "gpus", ResourceClaimTemplateName: "two-gpus"}}}); err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "\nPodGroup %s: gang of %d; spec.resourceClaims fabric from template fabric; each member: fabric (the group's) and gpus from template two-gpus (its own)\n", j.name, j.members)
		r, ok := sched.Cycle(snap, now)
		if !ok || r.Err != nil {
			return fmt.Errorf("cycle for %s: ran %t, error %v", j.name, ok, r.Err)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "POD\tDECISION\tNODE\tRACK")
		for _, p := range r.Bind {
			id, _ := snap.NodeID(p.NodeName)
			fmt.Fprintf(tw, "%s\tbind\t%s\t%s\n", p.Name, p.NodeName, snap.Node(id).Labels[rackKey])
		}
		for _, k := range r.Requeued {
			fmt.Fprintf(tw, "%s\twait\t-\t-\n", k.Name)
		}
		tw.Flush()
		fmt.Fprintf(w, "decision: %s: %s\n", r.Decision.Status, r.Decision.Message)
		if r.Decision.Status != placement.Scheduled {
			fmt.Fprintf(w, "waits on devices: %t\n", dra.WaitsOnDevices(r.Decision))
		}
		if len(r.ClaimUpdates) > 0 {
			printClaims(w, r.ClaimUpdates, len(r.Bind))
		}
		snap = r.Snapshot
	}
	return nil
}

// printClaims shows the ResourceClaims a cycle changed, as the host writes
// them back: created or updated, owner, devices, where they are reachable
// from, and status.reservedFor.
func printClaims(w io.Writer, updates []dra.ClaimUpdate, members int) {
	var shares []string
	fmt.Fprintln(w, "ResourceClaims to write back:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAIM\tCREATED\tOWNER\tDEVICES\tALLOCATION FOR\tRESERVED FOR")
	for _, u := range updates {
		c := u.Claim
		owner := "-"
		if c.Owner != nil {
			owner = fmt.Sprintf("%s %s (entry %s)", c.Owner.Kind, c.Owner.Name, c.Owner.ClaimName)
		}
		var devices, reserved []string
		for _, d := range c.Status.Allocation.Devices {
			devices = append(devices, d.Device)
		}
		where := "node " + c.Status.Allocation.NodeName
		for _, sel := range c.Status.Allocation.NodeSelectors {
			for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
				where = fmt.Sprintf("nodes with %s=%s", k, sel.MatchLabels[k])
			}
		}
		for _, r := range c.Status.ReservedFor {
			resource := r.Resource
			if !r.IsPod() {
				resource += "." + r.APIGroup
				shares = append(shares, fmt.Sprintf("%s: status.reservedFor is 1 PodGroup entry for all %d members that use it, not a list of pods (at most %d)", c.Name, members, dra.MaxReservedFor))
			}
			reserved = append(reserved, resource+"/"+r.Name)
		}
		fmt.Fprintf(tw, "%s\t%t\t%s\t%s\t%s\t%s\n", c.Name, u.Created, owner, strings.Join(devices, ","), where, strings.Join(reserved, ","))
	}
	tw.Flush()
	for _, line := range shares {
		fmt.Fprintln(w, line)
	}
}
