package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// LabelAdminAccess is the namespace label that allows ResourceClaims and
// ResourceClaimTemplates in the namespace to ask for admin access to
// devices (KEP-5018; the API server refuses them elsewhere,
// pkg/registry/resource): its value must be "true".
const LabelAdminAccess = "resource.kubernetes.io/admin-access"

// checkAdminAccess refuses, as the API server does on create, a claim or
// claim template with an admin-access request in a namespace that the
// input does not give with the label [LabelAdminAccess]: "true".
func (c *Cluster) checkAdminAccess(in *inputs) error {
	allowed := map[string]bool{}
	for i := range c.objs {
		if ns, ok := c.objs[i].Obj.(*corev1.Namespace); ok && ns.Labels[LabelAdminAccess] == "true" {
			allowed[ns.Name] = true
		}
	}
	check := func(obj, field, ns string, spec *dra.ClaimSpec) error {
		for i, r := range spec.Requests {
			if r.Exactly != nil && r.Exactly.AdminAccess && !allowed[ns] {
				return c.locate(placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s.devices.requests[%d].exactly.adminAccess", field, i),
					"admin access to devices requires the label %s: \"true\" on Namespace %q", LabelAdminAccess, ns))
			}
		}
		return nil
	}
	for i := range in.templates {
		t := &in.templates[i]
		if err := check(objName("ResourceClaimTemplate", t.Namespace, t.Name), "spec.spec", t.Namespace, &t.Spec); err != nil {
			return err
		}
	}
	for i := range in.claims {
		cl := &in.claims[i]
		if err := check(objName("ResourceClaim", cl.Namespace, cl.Name), "spec", cl.Namespace, &cl.Spec); err != nil {
			return err
		}
	}
	return nil
}
