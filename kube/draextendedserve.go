package kube

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// extendedClaim is what a pending pod's implicit claim for extended
// resources backed by DRA needs for write-back.
type extendedClaim struct {
	spec     resourcev1.ResourceClaimSpec
	mappings []corev1.ContainerExtendedResourceRequest
}

// serveExtendedResources decides, per pod, how extended resources that a
// DeviceClass names are served (KEP-5004). Upstream decides per node: a
// node whose allocatable has the resource serves it through its device
// plugin, any other node through DRA. Here:
//
//   - a bound pod on a node without the resource in allocatable holds
//     devices through its claim in the input, so the resource leaves its
//     requests;
//   - a pending pod is served through DRA when no node has the resource
//     in allocatable: the resource leaves its requests, and it gets the
//     entry [ExtendedResourceClaimName] for an implicit claim made from
//     a template built for it ([ExtendedResourceClaim]), added to in;
//   - when some node has it and no ResourceSlice reaches a node without
//     it, the pod is served by device plugins, and nodes without it do
//     not fit, as upstream's would not;
//   - when both (a node with the resource in allocatable, and a
//     ResourceSlice reaching a node without it), each node serves it its
//     own way, as upstream's do ([PerNode]): the pod keeps the resource
//     in its requests, checked against a plugin node's allocatable, and
//     gets the implicit claim, whose requests for it take DRA devices on
//     the other nodes and nothing on a plugin node.
//
// Stale implicit claims of pending pods are deleted first
// ([Cluster.deleteStaleExtendedClaims]).
func (c *Cluster) serveExtendedResources(in *inputs, bound []placement.Pod) error {
	classes := NewExtendedResourceClasses(in.apiClasses)
	if len(classes) == 0 {
		return nil
	}
	nodes := make(map[string]*placement.Node, len(c.Nodes))
	for i := range c.Nodes {
		nodes[c.Nodes[i].Name] = &c.Nodes[i]
	}
	for i := range bound {
		if n, ok := nodes[bound[i].NodeName]; ok {
			DropExtended(&bound[i], n, classes.Class)
		}
	}
	if err := c.deleteStaleExtendedClaims(in, classes); err != nil {
		return err
	}
	mixed, err := c.perNode(in, classes)
	if err != nil {
		return err
	}
	pluginClasses, pluginSlices := mixed.Inventory(c.Nodes)
	in.classes, in.pluginSlices = append(in.classes, pluginClasses...), pluginSlices
	served := ServedByDRA(classes, c.Nodes, mixed)
	made := map[placement.Key]bool{} // templates added to in
	for i := range c.Pending {
		p := &c.Pending[i]
		api := c.pods[p.Key()]
		requests := p.Requests
		tmpl, mappings, err := ServeExtendedPod(api, p, served)
		if err != nil {
			return c.locate(err)
		}
		if tmpl == nil {
			continue
		}
		mixed.ServePod(p, requests, tmpl, mappings)
		if !made[tmpl.Key()] {
			made[tmpl.Key()] = true
			in.templates = append(in.templates, tmpl.ResourceClaimTemplate)
		}
		if c.extended == nil {
			c.extended = map[placement.Key]extendedClaim{}
		}
		c.extended[p.Key()] = extendedClaim{spec: tmpl.API, mappings: mappings}
	}
	c.Nodes = mixed.Nodes(c.Nodes)
	return nil
}

// perNode returns the resources of classes that device plugins serve on
// some nodes and DRA on others ([NewPerNode]), from the newest
// generation of each pool's slices; nil when no class names a resource
// some node has in allocatable (nothing to convert).
func (c *Cluster) perNode(in *inputs, classes ExtendedResourceClasses) (PerNode, error) {
	plugin := false
	for _, n := range c.Nodes {
		for r := range classes {
			plugin = plugin || n.Allocatable[placement.ResourceName(r)] > 0
		}
	}
	if !plugin {
		return nil, nil
	}
	var ss []dra.ResourceSlice
	for _, s := range newestSlices(in.slices) {
		ds, err := ConvertResourceSlice(s)
		if err != nil {
			return nil, c.locate(err)
		}
		ss = append(ss, ds)
	}
	m, err := NewPerNode(classes, in.classes, c.Nodes, ss)
	return m, c.locate(err)
}

// ExtendedTemplate is the template standing for a pending pod's implicit
// claim for extended resources served by DRA (KEP-5004): the ledger's
// form, and the API spec the claim is created with.
type ExtendedTemplate struct {
	dra.ResourceClaimTemplate
	// API is the claim's spec as [ExtendedResourceClaim] builds it.
	API resourcev1.ResourceClaimSpec
}

// ServeExtendedPod makes pending pod p, converted from api, ask for the
// extended resources that class serves through DRA by an implicit claim:
// those resources leave its requests, and it gets the entry
// [ExtendedResourceClaimName] naming the template it returns, which pods
// asking alike share. It returns the template and the pod's request
// mappings (for status.extendedResourceClaimStatus), or a nil template
// when class serves nothing p asks for. Errors: those of
// [ExtendedResourceClaim] and [ClaimSpec]; [ErrUnsupported] for a pod
// that names the entry itself.
func ServeExtendedPod(api *corev1.Pod, p *placement.Pod, class func(corev1.ResourceName) (string, bool)) (*ExtendedTemplate, []corev1.ContainerExtendedResourceRequest, error) {
	spec, mappings, err := ExtendedResourceClaim(api, class)
	if err != nil || len(spec.Devices.Requests) == 0 {
		return nil, nil, err
	}
	obj := podObj(p.Namespace, p.Name)
	for j, rc := range p.ResourceClaims {
		if rc.Name == ExtendedResourceClaimName {
			return nil, nil, placement.Errorf(ErrUnsupported, obj, "spec.resourceClaims["+itoa(j)+"].name",
				"%q is the entry gangsched keeps for the pod's extended resources served by DRA", rc.Name)
		}
	}
	ds, err := ClaimSpec(obj, "spec.containers", &spec)
	if err != nil {
		return nil, nil, err
	}
	serves := extendedServes(&spec, mappings)
	name := extendedTemplateName(&spec, serves)
	p.ResourceClaims = append(slices.Clip(p.ResourceClaims), placement.PodResourceClaim{Name: ExtendedResourceClaimName, ResourceClaimTemplateName: name})
	for _, m := range mappings {
		dropRequest(p, placement.ResourceName(m.ResourceName))
	}
	return &ExtendedTemplate{ResourceClaimTemplate: dra.ResourceClaimTemplate{Namespace: p.Namespace, Name: name, Spec: ds, Serves: serves}, API: spec}, mappings, nil
}

// DropExtended removes from bound pod p the extended resources that
// class serves through DRA on node, whose allocatable lacks them: the
// pod's implicit claim holds its devices instead.
func DropExtended(p *placement.Pod, node *placement.Node, class func(corev1.ResourceName) (string, bool)) {
	for r := range p.Requests {
		if _, ok := class(corev1.ResourceName(r)); ok && isDRAExtended(corev1.ResourceName(r)) && node.Allocatable[r] == 0 {
			dropRequest(p, r)
		}
	}
}

// dropRequest removes resource r from pod p's requests, leaving the maps
// ConvertPod made for other pods alone.
func dropRequest(p *placement.Pod, r placement.ResourceName) {
	if _, ok := p.Requests[r]; ok {
		p.Requests = maps.Clone(p.Requests)
		delete(p.Requests, r)
	}
	if _, ok := p.ScoreRequests[r]; ok {
		p.ScoreRequests = maps.Clone(p.ScoreRequests)
		delete(p.ScoreRequests, r)
	}
}

// writeExtendedClaim turns the generated API claim of a pod's implicit
// claim into upstream's form: the extended-resource-claim annotation in
// place of the entry's, and the pod's status.extendedResourceClaimStatus
// naming it. Only the requests in served stay, with their mappings: on a
// node whose device plugin serves a resource, kube-scheduler asks no
// device for it.
func (c *Cluster) writeExtendedClaim(api *resourcev1.ResourceClaim, owner placement.Key, served map[string]bool) {
	delete(api.Annotations, AnnotationPodClaimName)
	api.Annotations[resourcev1.ExtendedResourceClaimAnnotation] = "true"
	api.Spec.Devices.Requests = slices.DeleteFunc(api.Spec.Devices.Requests, func(r resourcev1.DeviceRequest) bool { return !served[r.Name] })
	if p, ok := c.pods[owner]; ok {
		p.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{
			RequestMappings:   slices.DeleteFunc(slices.Clone(c.extended[owner].mappings), func(m corev1.ContainerExtendedResourceRequest) bool { return !served[m.RequestName] }),
			ResourceClaimName: api.Name,
		}
	}
}
