package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// Upstream's non-zero requests (pkg/scheduler/util DefaultMilliCPURequest
// and DefaultMemoryRequest), in canonical units.
const (
	nonZeroMilliCPU = 100
	nonZeroMemory   = 200 << 20
)

// PodScoreRequests returns the cpu and memory that kube-scheduler v1.37's
// NodeResourcesFit score reads for a pod (its non-zero requests,
// pkg/scheduler/framework NodeInfo.NonZeroRequested and the plugin's
// calculatePodResourceRequest): [PodRequests] with every container, init
// containers included, that neither requests nor limits cpu counted as
// 100m, and one without memory as 200 MiB. With pod-level requests
// (spec.resources) the defaults apply only to a resource that neither the
// containers nor the pod level set. It returns nil when the result equals
// PodRequests for both, so that [placement.Pod].ScoreRequests is set only
// where it changes a score. Fit never reads it, nor does
// BalancedAllocation, whose score reads the requests as given.
//
// obj names the pod in errors, which are PodRequests'.
func PodScoreRequests(obj string, spec *corev1.PodSpec) (placement.ResourceList, error) {
	req, err := PodRequests(obj, spec)
	if err != nil {
		return nil, err
	}
	nonMissing := placement.ResourceList{placement.ResourceCPU: nonZeroMilliCPU, placement.ResourceMemory: nonZeroMemory}
	if spec.Resources != nil {
		for r := range spec.Resources.Requests {
			if podLevelResource(placement.ResourceName(r)) {
				// Upstream (getNonMissingContainerRequests): with
				// pod-level requests, only a resource missing from the
				// pod's requests gets a default.
				for _, d := range []placement.ResourceName{placement.ResourceCPU, placement.ResourceMemory} {
					if req[d] > 0 {
						delete(nonMissing, d)
					}
				}
				break
			}
		}
	}
	if len(nonMissing) == 0 {
		return nil, nil
	}
	non0, err := podRequests(obj, spec, nonMissing)
	if err != nil {
		return nil, err
	}
	cpu, mem := non0[placement.ResourceCPU], non0[placement.ResourceMemory]
	if cpu == req[placement.ResourceCPU] && mem == req[placement.ResourceMemory] {
		return nil, nil
	}
	return placement.ResourceList{placement.ResourceCPU: cpu, placement.ResourceMemory: mem}, nil
}
