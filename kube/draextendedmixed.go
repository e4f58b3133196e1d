package kube

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// PluginDriver is the driver of the devices that stand, in the ledger,
// for what a device plugin serves of an extended resource on a node that
// has it in allocatable, when DRA serves the same resource on other nodes
// (see [PerNode]). No API object carries it: such devices
// are never written back. The angle brackets keep it apart from every
// real driver name (a DNS subdomain).
const PluginDriver = "<device-plugin>"

// pluginClassPrefix names the class a mixed resource's implicit requests
// ask for: "<device-plugin or DRA>/<class>".
const pluginClassPrefix = "<device-plugin or DRA>/"

// pluginSeparator parts a plugin device's name: "<resource>#<index>".
const pluginSeparator = "#"

// PerNode holds the extended resources that device plugins serve on some
// nodes and DRA on others, each with the (converted) DeviceClass that
// serves it through DRA. v1.37's kube-scheduler serves such a resource
// per node (noderesources' shouldDelegateResourceToDRA, DynamicResources'
// filterExtendedResources): a node whose allocatable has it serves it by
// its device plugin, checked by NodeResourcesFit, and any other node
// through DRA, by the pod's implicit claim. Placement takes one request
// vector and one set of claims per pod for every node, so gangsched
// serves it thus:
//
//   - a pending pod keeps the resource in its requests and gets the
//     implicit claim as well ([PerNode.ServePod]);
//   - a plugin node keeps its allocatable, and the bound pods there their
//     requests: NodeResourcesFit's check, and what a preemption victim
//     frees there, are upstream's;
//   - a node without it in allocatable gets math.MaxInt64 of it
//     ([PerNode.Nodes]): the resource fits there, and DRA devices decide;
//   - the implicit claim's requests for the resource ask for a class that
//     accepts the DeviceClass's devices and, on plugin nodes, devices of
//     [PluginDriver] that any number of claims share ([PerNode.Inventory]):
//     there the claim holds nothing, and the node's units are the limit.
//
// None of the plugin devices is written back ([VisibleUpdate]).
type PerNode map[placement.ResourceName]dra.DeviceClass

// NewPerNode returns the extended resources of classes that device
// plugins serve on some of nodes (in allocatable) and DRA on others: a
// slice of ss (converted, each pool's newest) reaches a node that lacks
// the resource, or may (a slice without a node name, whose selector is not
// evaluated here, so the answer errs towards yes). dcs are the converted
// DeviceClasses; a resource whose class is not among them is left out.
//
// Errors ([ErrUnsupported], naming the slice and device): a device of the
// serving class that a plugin node reaches, since kube-scheduler would
// not use it there and a device's class cannot depend on the node.
func NewPerNode(classes ExtendedResourceClasses, dcs []dra.DeviceClass, nodes []placement.Node, ss []dra.ResourceSlice) (PerNode, error) {
	m := PerNode{}
	for _, r := range slices.Sorted(maps.Keys(classes)) {
		pr := placement.ResourceName(r)
		if classes[r] == "" || !isDRAExtended(r) {
			continue
		}
		var plugin []*placement.Node
		lacking := map[string]bool{}
		for i := range nodes {
			if nodes[i].Allocatable[pr] > 0 {
				plugin = append(plugin, &nodes[i])
			} else {
				lacking[nodes[i].Name] = true
			}
		}
		if len(plugin) == 0 || !reachesLacking(ss, lacking) {
			continue
		}
		i := slices.IndexFunc(dcs, func(dc dra.DeviceClass) bool { return dc.Name == classes[r] })
		if i < 0 {
			continue
		}
		if err := checkPluginNodesHaveNoDevices(ss, plugin, pr, dcs[i]); err != nil {
			return nil, err
		}
		m[pr] = dcs[i]
	}
	return m, nil
}

// ServedByDRA returns the rule [ServeExtendedPod] takes on a cluster of
// nodes that m serves per node: a resource a class of classes names is
// served through an implicit claim when no node has it in allocatable,
// or when m serves it per node.
func ServedByDRA(classes ExtendedResourceClasses, nodes []placement.Node, m PerNode) func(corev1.ResourceName) (string, bool) {
	plugin := map[placement.ResourceName]bool{}
	for _, n := range nodes {
		for r, v := range n.Allocatable {
			plugin[r] = plugin[r] || v > 0
		}
	}
	return func(r corev1.ResourceName) (string, bool) {
		name, ok := classes[r]
		_, mixed := m[placement.ResourceName(r)]
		return name, ok && (!plugin[placement.ResourceName(r)] || mixed)
	}
}

// ServePod finishes pending pod p, to which [ServeExtendedPod] gave tmpl
// and mappings: p asks again for each resource m serves per node, as
// requests (its requests before ServeExtendedPod) had it, for the check
// on plugin nodes, and tmpl's requests for it ask for the plugin class;
// the API spec keeps the real class, as written back. Scoring still
// leaves the resource out: a node without a device plugin has no
// allocatable to score it against.
func (m PerNode) ServePod(p *placement.Pod, requests placement.ResourceList, tmpl *ExtendedTemplate, mappings []corev1.ContainerExtendedResourceRequest) {
	for _, mp := range mappings {
		r := placement.ResourceName(mp.ResourceName)
		if _, ok := m[r]; !ok {
			continue
		}
		if q, ok := requests[r]; ok && p.Requests[r] != q {
			p.Requests = maps.Clone(p.Requests)
			if p.Requests == nil {
				p.Requests = placement.ResourceList{}
			}
			p.Requests[r] = q
		}
		for _, req := range tmpl.Spec.Requests {
			if req.Name == mp.RequestName && req.Exactly != nil && !strings.HasPrefix(req.Exactly.DeviceClassName, pluginClassPrefix) {
				req.Exactly.DeviceClassName = pluginClassPrefix + req.Exactly.DeviceClassName
			}
		}
	}
}

// Nodes returns nodes with math.MaxInt64 of each resource m serves per
// node on those that lack it in allocatable (no limit, as a node without
// a pods entry has): there DRA devices decide. nodes are not modified.
func (m PerNode) Nodes(nodes []placement.Node) []placement.Node {
	if len(m) == 0 {
		return nodes
	}
	out := slices.Clone(nodes)
	for i := range out {
		n := &out[i]
		cloned := false
		for _, r := range slices.Sorted(maps.Keys(m)) {
			if n.Allocatable[r] > 0 {
				continue
			}
			if !cloned {
				n.Allocatable, cloned = maps.Clone(n.Allocatable), true
				if n.Allocatable == nil {
					n.Allocatable = placement.ResourceList{}
				}
			}
			n.Allocatable[r] = math.MaxInt64
		}
	}
	return out
}

// Inventory returns what the ledger's inventory needs for m beside the
// cluster's own classes and slices: each resource's plugin class, and a
// slice per plugin node of nodes (as given to [NewPerNode], not as
// [PerNode.Nodes] returns them) with as many devices of [PluginDriver] as
// the node has units, each shared by any number of claims
// (allowMultipleAllocations, no capacity). They never run out: the node's
// allocatable limits its pods, as upstream's NodeResourcesFit does, so a
// preemption victim frees its units there.
func (m PerNode) Inventory(nodes []placement.Node) ([]dra.DeviceClass, []dra.ResourceSlice) {
	var classes []dra.DeviceClass
	var out []dra.ResourceSlice
	for _, r := range slices.Sorted(maps.Keys(m)) {
		classes = append(classes, pluginClass(r, m[r]))
		for _, n := range nodes {
			k := n.Allocatable[r]
			if k <= 0 || k == math.MaxInt64 {
				continue
			}
			s := dra.ResourceSlice{Name: PluginDriver + "/" + n.Name + "/" + string(r), Driver: PluginDriver, Pool: n.Name, NodeName: n.Name}
			for i := range k {
				s.Devices = append(s.Devices, dra.Device{Name: string(r) + pluginSeparator + itoa(int(i)), AllowMultipleAllocations: true})
			}
			out = append(out, s)
		}
	}
	return classes, out
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

// reachesLacking reports whether a slice of ss reaches a node of lacking,
// or may (a slice without a node name).
func reachesLacking(ss []dra.ResourceSlice, lacking map[string]bool) bool {
	for _, s := range ss {
		if s.NodeName == "" || lacking[s.NodeName] {
			return true
		}
	}
	return false
}

// checkPluginNodesHaveNoDevices refuses a device of class real that a
// node of plugin, whose device plugin serves r, reaches.
func checkPluginNodesHaveNoDevices(ss []dra.ResourceSlice, plugin []*placement.Node, r placement.ResourceName, real dra.DeviceClass) error {
	for _, ds := range ss {
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
			return placement.Errorf(ErrUnsupported, objName("ResourceSlice", "", ds.Name), fmt.Sprintf("spec.devices[%d]", i),
				"device %s of DeviceClass %q reaches node %s, whose device plugin serves %s: kube-scheduler does not use it there, and gangsched cannot make a device's class depend on the node",
				d.Name, real.Name, reached, r)
		}
	}
	return nil
}

// VisibleUpdate returns claim update u as it is written back to the API:
// without the devices of [PluginDriver], which stand for what device
// plugins serve ([PerNode]), nor the requests only they served (on a
// plugin node kube-scheduler asks no device for the resource), and false
// when nothing of it is written: a pod's implicit claim that only plugin
// devices serve (the pod is served by the node's device plugin alone, as
// kube-scheduler makes no claim then). u is not modified.
func VisibleUpdate(u dra.ClaimUpdate) (dra.ClaimUpdate, bool) {
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
	served := servedRequests(&b)
	u.Claim.Spec.Requests = slices.DeleteFunc(slices.Clone(u.Claim.Spec.Requests), func(r dra.DeviceRequest) bool { return !served[r.Name] })
	return u, true
}

// VisibleExtended returns the API spec and request mappings of a pod's
// implicit claim for claim c as [VisibleUpdate] returns it: only the
// requests c keeps, and their mappings. spec and mappings are not
// modified.
func VisibleExtended(spec resourcev1.ResourceClaimSpec, mappings []corev1.ContainerExtendedResourceRequest, c *dra.ResourceClaim) (resourcev1.ResourceClaimSpec, []corev1.ContainerExtendedResourceRequest) {
	kept := map[string]bool{}
	for _, r := range c.Spec.Requests {
		kept[r.Name] = true
	}
	spec = *spec.DeepCopy()
	spec.Devices.Requests = slices.DeleteFunc(spec.Devices.Requests, func(r resourcev1.DeviceRequest) bool { return !kept[r.Name] })
	return spec, slices.DeleteFunc(slices.Clone(mappings), func(m corev1.ContainerExtendedResourceRequest) bool { return !kept[m.RequestName] })
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
