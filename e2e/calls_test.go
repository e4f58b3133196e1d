package e2e

import (
	"net/http"
	"sync/atomic"

	"k8s.io/client-go/rest"
)

// callCounter counts the requests a client sends, reads (GETs: gets,
// lists, watches, discovery) apart from writes, so that a benchmark can
// say what a binder asked of the API server within its timed span.
type callCounter struct{ reads, writes atomic.Int64 }

// config returns a copy of rc whose requests c counts.
func (c *callCounter) config(rc *rest.Config) *rest.Config {
	out := rest.CopyConfig(rc)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodGet {
				c.reads.Add(1)
			} else {
				c.writes.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
