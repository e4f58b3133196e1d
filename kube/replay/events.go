package replay

import (
	"container/heap"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// eventKind orders the events of one moment: ends first, so that pods
// arriving then meet the room they free (all of a moment's events are
// handled before its cycles, so this order only fixes the bookkeeping).
type eventKind uint8

const (
	evEnd    eventKind = iota // a running pod ends
	evArrive                  // a pod arrives (its creationTimestamp)
	evWake                    // a parked group is queued again
)

// event is one entry of the replay's timeline.
type event struct {
	at   time.Time
	kind eventKind
	key  placement.Key // the pod, or the group for evWake
	run  int32         // for evEnd: which run of the pod ends
}

// events is a min-heap of events in a total order: time, kind, key, run.
type events []event

func (h events) Len() int { return len(h) }
func (h events) Less(i, j int) bool {
	a, b := &h[i], &h[j]
	if c := a.at.Compare(b.at); c != 0 {
		return c < 0
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	if c := a.key.Compare(b.key); c != 0 {
		return c < 0
	}
	return a.run < b.run
}
func (h events) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *events) Push(x any)   { *h = append(*h, x.(event)) }
func (h *events) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h *events) push(e event) { heap.Push(h, e) }

// popDue removes and returns the first event at or before now.
func (h *events) popDue(now time.Time) (event, bool) {
	if len(*h) == 0 || (*h)[0].at.After(now) {
		return event{}, false
	}
	return heap.Pop(h).(event), true
}

// next returns the time of the first event.
func (h events) next() (time.Time, bool) {
	if len(h) == 0 {
		return time.Time{}, false
	}
	return h[0].at, true
}
