package evaluator

import (
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// The results file's buffer is sized near its length: never far below
// (it would grow by doubling) nor far above (memory held for nothing).
func TestResultsSizeHint(t *testing.T) {
	dir := t.TempDir()
	if err := gensuite.Write(sampleDir, dir, 2000); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{sampleDir, dir} {
		rel, err := EvaluateDir(d, Options{KeepOutputs: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rel.Snapshots {
			hint, n := s.Result.sizeHint(), len(s.JSON())
			if hint < n*8/10 || hint > n*5/2+4096 {
				t.Errorf("%s %s: hint %d for %d bytes", d, s.Label(), hint, n)
			}
		}
	}
}
