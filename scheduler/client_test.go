package scheduler

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

func TestRESTConfig(t *testing.T) {
	for _, tc := range []struct {
		name             string
		qps, wantQPS     float32
		burst, wantBurst int
	}{
		{name: "unset: kube-scheduler's defaults", wantQPS: 50, wantBurst: 100},
		{name: "set: kept", qps: 1000, wantQPS: 1000, burst: 10000, wantBurst: 10000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &rest.Config{Host: "https://example:6443", QPS: tc.qps, Burst: tc.burst}
			got := RESTConfig(in)
			require.Equal(t, "application/vnd.kubernetes.protobuf", got.ContentType)
			require.Equal(t, "application/vnd.kubernetes.protobuf,application/json", got.AcceptContentTypes)
			require.Equal(t, tc.wantQPS, got.QPS)
			require.Equal(t, tc.wantBurst, got.Burst)
			require.Equal(t, "https://example:6443", got.Host)
			require.Empty(t, in.ContentType, "the input is not changed")
		})
	}
}
