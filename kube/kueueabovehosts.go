package kube

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// KueueHostsAnnotation is the Workload annotation in which gangsim's
// -o yaml keeps, for each pod set admitted over a Topology whose lowest
// level is not kubernetes.io/hostname, the hosts its pods went to: a JSON
// object of pod set name to an object of hostname to pod count, e.g.
// {"main":{"b0-r0-h1":4,"b0-r0-h2":2}}. Kueue's topologyAssignment names
// only the lowest-level domains there (a rack's 6 pods), where the
// kube-scheduler puts each pod on a host; reading the hosts back holds
// the same room as the run that wrote them, whatever the order the
// Workloads are read in. Kueue neither writes nor reads it; a Workload
// without it is spread as Kueue's cache charges its domains
// ([admitter.spreadAboveHost]).
const KueueHostsAnnotation = "gangsched.io/kueue-hosts"

// maxHostsAnnotation bounds the JSON read from KueueHostsAnnotation, well
// above what any cluster's hosts need (100,000 hosts of 253-byte names
// and their counts are some 26 MB).
const maxHostsAnnotation = 64 << 20

// readAboveHostHosts reads w's KueueHostsAnnotation, if any, into the
// hosts of its sets read above the host (w.aboveHost), at obj's
// metadata.annotations. A pod set without an assignment above the host
// (a Workload evicted since, or admitted elsewhere) is passed over.
// Errors ([*placement.FieldError]): JSON that is not such an object, a
// count outside 1..[placement.MaxPending], or counts whose sum is not the
// pods its assignment places.
func (w *KueueWorkload) readAboveHostHosts(obj string) error {
	v, ok := w.Obj.Annotations[KueueHostsAnnotation]
	if !ok {
		return nil
	}
	f := "metadata.annotations[" + KueueHostsAnnotation + "]"
	if len(v) > maxHostsAnnotation {
		return placement.Errorf(placement.ErrInvalid, obj, f, "%d bytes, more than %d", len(v), maxHostsAnnotation)
	}
	var sets map[string]map[string]int64
	if err := json.Unmarshal([]byte(v), &sets); err != nil {
		return placement.Errorf(placement.ErrInvalid, obj, f, "not a JSON object of pod set names to hostnames to pod counts: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		set, ok := w.aboveHost[name]
		if !ok {
			continue
		}
		var sum, want int64
		hosts := sets[name]
		for _, h := range slices.Sorted(maps.Keys(hosts)) {
			n := hosts[h]
			if n < 1 || n > placement.MaxPending {
				return placement.Errorf(placement.ErrInvalid, obj, f, "pod set %q: host %q has %d pods, outside 1..%d", name, h, n, placement.MaxPending)
			}
			sum += n
			set.hosts = append(set.hosts, placement.PodSetAssignment{PodSet: name, Node: h, NodeID: -1, Count: int32(n)})
		}
		for _, d := range set.domains {
			want += int64(d.count)
		}
		if sum != want {
			return placement.Errorf(placement.ErrInvalid, obj, f, "pod set %q: the hosts hold %d pods, its topologyAssignment %d", name, sum, want)
		}
	}
	return nil
}

// keptHosts are the hosts of set, read from KueueHostsAnnotation, when
// every one of them is a host of the snapshot in a domain of set and
// they hold each domain's pods; otherwise nil and false (a Topology or
// nodes changed since they were written: the set is spread anew).
func (a *admitter) keptHosts(set *aboveHostSet) ([]placement.PodSetAssignment, bool) {
	if len(set.hosts) == 0 {
		return nil, false
	}
	left := map[string]int32{}
	for _, d := range set.domains {
		left[strings.Join(d.values, "\x00")] += d.count
	}
	vs := make([]string, len(set.levels))
	for _, h := range set.hosts {
		id, ok := a.host[h.Node]
		if !ok {
			return nil, false
		}
		labels := a.s.Node(id).Labels
		for l, key := range set.levels {
			if vs[l], ok = labels[key]; !ok {
				return nil, false
			}
		}
		key := strings.Join(vs, "\x00")
		if left[key] < h.Count {
			return nil, false
		}
		left[key] -= h.Count
	}
	return slices.Clone(set.hosts), true
}

// writeHosts records in w's KueueHostsAnnotation the hosts of pod set
// name, pods per hostname, beside those of its other sets already there.
func writeHosts(w *KueueWorkload, name string, pods []placement.PodSetAssignment) {
	sets := map[string]map[string]int64{}
	if v, ok := w.Obj.Annotations[KueueHostsAnnotation]; ok {
		// Read at load, so it parses; a set admitted anew replaces its entry.
		_ = json.Unmarshal([]byte(v), &sets)
	}
	hosts := map[string]int64{}
	for _, p := range pods {
		hosts[p.Node] += int64(p.Count)
	}
	sets[name] = hosts
	b, _ := json.Marshal(sets) // maps of strings to ints always marshal, keys sorted
	if w.Obj.Annotations == nil {
		w.Obj.Annotations = map[string]string{}
	}
	w.Obj.Annotations[KueueHostsAnnotation] = string(b)
}
