//go:build e2e

package serve

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The test below renders 10,000 cases × 3 snapshots twice, about half a
// minute on two cores, so it runs with the tagged suites (see
// docs/testing.md), as CI does.

// TestRandomEditsEqualAFullBuildAtScale makes random edits as
// TestRandomEditsEqualAFullBuild does, on 10,000 cases × 3 snapshots: a
// few edits, then the served site compared with a fresh rendering of the
// final data (about 40,000 files).
func TestRandomEditsEqualAFullBuildAtScale(t *testing.T) {
	const steps = 6
	start := time.Now()
	randomEdits(t, generateSuite(t, 10_000), 7, steps, func(step int, _ *rand.Rand) bool { return step == steps-1 })
	t.Logf("%d edits and one comparison in %s", steps, time.Since(start).Round(time.Millisecond))
}
