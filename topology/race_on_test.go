//go:build race

package topology_test

// raceOn says whether the race detector is on (see race_off_test.go).
const raceOn = true
