package main

import (
	kueueconfigv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	kueueconfigv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
)

// kueueConfigWarnings are the warnings of the input's Kueue Configuration
// (the reader admits one): each field gangsim does not model, located at
// the object ([kube.KueueConfigurationWarnings]).
func kueueConfigWarnings(objs []manifest.Object) []string {
	var out []string
	for i := range objs {
		switch objs[i].Obj.(type) {
		case *kueueconfigv1beta1.Configuration, *kueueconfigv1beta2.Configuration:
			for _, w := range kube.KueueConfigurationWarnings(objs[i].Obj) {
				out = append(out, objs[i].Where()+": Kueue Configuration: "+w)
			}
		}
	}
	return out
}
