//go:build race

package serve

// raceSlowdown is how much slower the race detector makes the code; tests
// that bound a duration allow for it, as .ci/run runs them under -race.
const raceSlowdown = 5
