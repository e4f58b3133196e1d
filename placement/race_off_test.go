//go:build !race

package placement_test

// raceOn says whether the race detector is on: it makes sync.Pool drop
// items at random, so that allocation counts vary.
const raceOn = false
