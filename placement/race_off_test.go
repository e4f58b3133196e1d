//go:build !race

package placement_test

// raceOn: the race detector is on, and sync.Pool drops items at random.
const raceOn = false
