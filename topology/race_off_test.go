//go:build !race

package topology_test

// raceOn says whether the race detector is on: it instruments memory and
// makes sync.Pool drop items at random, so that allocation counts vary.
const raceOn = false
