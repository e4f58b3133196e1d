package scheduler

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// Client rate limits kube-scheduler's clientConnection defaults to
// (k8s.io/kube-scheduler config v1: qps 50, burst 100), used where a
// rest.Config sets none.
const (
	defaultQPS   = 50
	defaultBurst = 100
)

// RESTConfig returns a copy of rc set up as gangsched-scheduler's client:
// protobuf on the wire, as kube-scheduler's clientConnection defaults to
// — every object the scheduler lists, watches and writes is a built-in
// type with a protobuf encoding, which costs the API server and the
// scheduler a fraction of JSON's encoding and decoding time on lists of
// thousands of Nodes and on every pod update; and kube-scheduler's
// default rate limits where rc sets none (client-go's own, 5 QPS, would
// bind five pods a second). A QPS or Burst rc sets is kept.
func RESTConfig(rc *rest.Config) *rest.Config {
	out := rest.CopyConfig(rc)
	out.ContentType = runtime.ContentTypeProtobuf
	out.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	if out.QPS == 0 {
		out.QPS = defaultQPS
	}
	if out.Burst == 0 {
		out.Burst = defaultBurst
	}
	return out
}
