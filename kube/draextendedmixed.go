package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// PluginDriver is the driver of the devices that stand, in the ledger,
// for what a device plugin serves of an extended resource on a node that
// has it in allocatable, when DRA serves the same resource on other nodes
// (see [Cluster.servePerNode]). No API object carries it: such devices
// are never written back. The angle brackets keep it apart from every
// real driver name (a DNS subdomain).
const PluginDriver = "<device-plugin>"

// pluginClassPrefix names the class a mixed resource's implicit requests
// ask for: "<device-plugin or DRA>/<class>".
const pluginClassPrefix = "<device-plugin or DRA>/"

// pluginSeparator parts a plugin device's name: "<resource>#<index>".
const pluginSeparator = "#"

// mixedResources returns the extended resources that device plugins serve
// on some nodes and DRA on others: a DeviceClass names the resource (in
// classes), some node has it in allocatable, and a ResourceSlice reaches
// a node that does not.
func (c *Cluster) mixedResources(in *inputs, classes ExtendedResourceClasses, plugin map[placement.ResourceName]bool) map[placement.ResourceName]bool {
	mixed := map[placement.ResourceName]bool{}
	for r, name := range classes {
		pr := placement.ResourceName(r)
		if name != "" && isDRAExtended(r) && plugin[pr] && c.slicesReachNodesWithout(in, pr) {
			mixed[pr] = true
		}
	}
	return mixed
}

// servePerNode makes the ledger serve each mixed resource as v1.37's
// kube-scheduler does, per node (noderesources' shouldDelegateResourceToDRA
// and DynamicResources' filterExtendedResources): a node whose allocatable
// has it serves it by its device plugin, any other node through DRA.
// Placement takes one request vector and one set of claims per pod for
// every node, so the device plugin's units become devices of
// [PluginDriver] on their node, alloc[r] of them, and a pod's implicit
// request for r asks for a class that accepts those devices and the
// class's own: on a plugin node it takes plugin devices, elsewhere DRA
// devices. Bound pods on a plugin node hold their units through a claim
// of their own, which goes when they do (preemption). None of this is
// written back: [Cluster.SetLedger] drops plugin devices, and the
// requests only they serve, from the claims it writes.
//
// Errors ([ErrUnsupported], naming the slice and device): a device of the
// serving class that a plugin node reaches, since kube-scheduler would
// not use it there and a device's class cannot depend on the node.
func (c *Cluster) servePerNode(in *inputs, classes ExtendedResourceClasses, mixed map[placement.ResourceName]bool, bound []placement.Pod) error {
	if len(mixed) == 0 {
		return nil
	}
	byName := map[string]dra.DeviceClass{}
	for _, dc := range in.classes {
		byName[dc.Name] = dc
	}
	for _, r := range slices.Sorted(maps.Keys(mixed)) {
		real, ok := byName[classes[corev1.ResourceName(r)]]
		if !ok {
			continue // a class that did not convert was refused already
		}
		if err := c.checkPluginNodesHaveNoDevices(in, r, real); err != nil {
			return err
		}
		in.classes = append(in.classes, pluginClass(r, real))
		free := map[string]int64{}
		for _, n := range c.Nodes {
			if k := n.Allocatable[r]; k > 0 {
				free[n.Name] = k
				s := dra.ResourceSlice{Name: PluginDriver + "/" + n.Name + "/" + string(r), Driver: PluginDriver, Pool: n.Name, NodeName: n.Name}
				for i := range k {
					s.Devices = append(s.Devices, dra.Device{Name: string(r) + pluginSeparator + itoa(int(i))})
				}
				in.pluginSlices = append(in.pluginSlices, s)
			}
		}
		for _, p := range bound {
			if q := min(p.Requests[r], free[p.NodeName]); q > 0 {
				in.claims = append(in.claims, boundPluginClaim(&p, r, pluginClassPrefix+real.Name, alloc(p.NodeName, r, free[p.NodeName]-q, q)))
				free[p.NodeName] -= q
			}
		}
	}
	return nil
}

// pluginClass is the class that mixed resource r's implicit requests ask
// for: the plugin devices standing for r, and every device real accepts.
func pluginClass(r placement.ResourceName, real dra.DeviceClass) dra.DeviceClass {
	prefix := string(r) + pluginSeparator
	return dra.DeviceClass{Name: pluginClassPrefix + real.Name, Selectors: []dra.Selector{func(driver string, d *dra.Device) bool {
		if driver == PluginDriver {
			return strings.HasPrefix(d.Name, prefix)
		}
		for _, s := range real.Selectors {
			if !s(driver, d) {
				return false
			}
		}
		return true
	}}}
}

// alloc names n plugin devices of resource r on node from index first:
// bound pods take the highest, so the first stay free for new ones.
func alloc(node string, r placement.ResourceName, first, n int64) []dra.DeviceResult {
	out := make([]dra.DeviceResult, 0, n)
	for i := first; i < first+n; i++ {
		out = append(out, dra.DeviceResult{Request: "devices", DeviceID: dra.DeviceID{Driver: PluginDriver, Pool: node, Device: string(r) + pluginSeparator + itoa(int(i))}})
	}
	return out
}

// boundPluginClaim is the claim through which bound pod p holds the plugin
// devices devs of resource r on its node, of class (r's plugin class).
func boundPluginClaim(p *placement.Pod, r placement.ResourceName, class string, devs []dra.DeviceResult) dra.ResourceClaim {
	entry := PluginDriver + "/" + string(r)
	return dra.ResourceClaim{
		Namespace: p.Namespace, Name: PluginDriver + "/" + p.Name + "/" + string(r),
		Owner: &dra.Owner{Kind: dra.OwnerPod, Name: p.Name, UID: p.UID, ClaimName: entry},
		Spec: dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "devices", Exactly: &dra.ExactDeviceRequest{
			DeviceClassName: class, AllocationMode: dra.AllocationModeExactCount, Count: int64(len(devs))}}}},
		Status: dra.ClaimStatus{Allocation: &dra.AllocationResult{Devices: devs, NodeName: p.NodeName}, ReservedFor: []dra.ConsumerRef{dra.PodRef(p.Name, p.UID)}},
	}
}

// checkPluginNodesHaveNoDevices refuses a device of class real that a
// node serving r by its device plugin reaches.
func (c *Cluster) checkPluginNodesHaveNoDevices(in *inputs, r placement.ResourceName, real dra.DeviceClass) error {
	var plugin []*placement.Node
	for i := range c.Nodes {
		if c.Nodes[i].Allocatable[r] > 0 {
			plugin = append(plugin, &c.Nodes[i])
		}
	}
	for _, s := range newestSlices(in.slices) {
		ds, err := ConvertResourceSlice(s)
		if err != nil {
			return c.locate(err)
		}
		reached := ""
		for _, n := range plugin {
			if ds.NodeName == n.Name || ds.AllNodes || ds.PerDeviceNodeSelection || ds.NodeSelector != nil && ds.NodeSelector.Matches(n.Labels) {
				reached = n.Name
				break
			}
		}
		if reached == "" {
			continue
		}
		for i := range ds.Devices {
			d := &ds.Devices[i]
			if slices.ContainsFunc(real.Selectors, func(sel dra.Selector) bool { return !sel(ds.Driver, d) }) {
				continue
			}
			return c.locate(placement.Errorf(ErrUnsupported, objName("ResourceSlice", "", s.Name), fmt.Sprintf("spec.devices[%d]", i),
				"device %s of DeviceClass %q reaches node %s, whose device plugin serves %s: kube-scheduler does not use it there, and gangsched cannot make a device's class depend on the node",
				d.Name, real.Name, reached, r))
		}
	}
	return nil
}

// isPluginEntry reports whether a claim generated under entry stands for
// what a device plugin serves a bound pod ([Cluster.servePerNode]).
func isPluginEntry(entry string) bool { return strings.HasPrefix(entry, PluginDriver+"/") }

// VisibleUpdate returns claim update u as it is written back to the API:
// without the devices of [PluginDriver], which stand for what device
// plugins serve ([Cluster.servePerNode]), and false when nothing of it is
// written: a claim standing for a bound pod's device-plugin units, or a
// pod's implicit claim that only plugin devices serve (the pod is served
// by the node's device plugin alone, as kube-scheduler makes no claim
// then). u is not modified.
func VisibleUpdate(u dra.ClaimUpdate) (dra.ClaimUpdate, bool) {
	o := u.Claim.Owner
	if o != nil && isPluginEntry(o.ClaimName) {
		return u, false
	}
	a := u.Claim.Status.Allocation
	if a == nil || !slices.ContainsFunc(a.Devices, func(d dra.DeviceResult) bool { return d.Driver == PluginDriver }) {
		return u, true
	}
	b := *a
	b.Devices = slices.DeleteFunc(slices.Clone(a.Devices), func(d dra.DeviceResult) bool { return d.Driver == PluginDriver })
	if len(b.Devices) == 0 {
		return u, false
	}
	u.Claim.Status.Allocation = &b
	return u, true
}

// servedRequests returns the names of the requests that the devices of
// allocation a serve.
func servedRequests(a *dra.AllocationResult) map[string]bool {
	out := map[string]bool{}
	if a != nil {
		for _, d := range a.Devices {
			out[d.Request] = true
		}
	}
	return out
}
