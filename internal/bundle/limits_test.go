package bundle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// TestDefaultLimitsAdmitLargeSuiteInputs: the inputs of a 100,000-case
// suite travel in the bundle, so the default per-file limit must admit
// them; a 64 MiB limit once refused such a bundle after its whole site
// had been rendered.
func TestDefaultLimitsAdmitLargeSuiteInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100,000-case suite")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write("../../data", dir, 100_000); err != nil {
		t.Fatal(err)
	}
	limit := DefaultLimits().MaxFileSize
	for _, name := range []string{"cases.jsonl", "outputs/candidate-v3.jsonl"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > limit {
			t.Errorf("%s of a 100,000-case suite is %d bytes, over the per-file limit of %d", name, info.Size(), limit)
		}
	}
}
