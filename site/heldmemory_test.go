package site

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// heldBy is the heap that what load returns holds, once collected.
func heldBy(t *testing.T, load func() (*Input, error)) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	in, err := load()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(in)
	in.Release.Close()
	return after.HeapAlloc - before.HeapAlloc
}

// TestLoadHoldsLittlePerCase: the release that build renders keeps its
// outputs and inputs as the places of their lines (evaluator.Options.Compact),
// so it holds much less a case than the one a live server keeps whole:
// at 100,000 cases × 3, 145 MiB against 265 MiB. A field of an output or
// a case kept whole again would fail it.
func TestLoadHoldsLittlePerCase(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 4,000 cases")
	}
	const n = 4000
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, data, n); err != nil {
		t.Fatal(err)
	}
	compact := heldBy(t, func() (*Input, error) { return Load(data) })
	whole := heldBy(t, func() (*Input, error) { return LoadRemembering(data, nil, nil) })
	t.Logf("held a case (× 3 snapshots): %d bytes compact, %d whole", compact/n, whole/n)
	if compact > whole*65/100 {
		t.Errorf("the release to render holds %d bytes a case, more than 65 %% of the %d a whole one holds", compact/n, whole/n)
	}
}
