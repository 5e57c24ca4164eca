package site

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

// TestGoldenPages compares representative pages of the sample site with
// the files in testdata/golden. After an intended change, run
//
//	go test ./site -run TestGoldenPages -update
//
// and review the diff of testdata/golden.
func TestGoldenPages(t *testing.T) {
	dir := builtSample(t)
	pages := []string{
		"index.html",
		"snapshots/candidate-v2.html",
		"snapshots/candidate-v2/ER-007.html",
		"cases/ER-007.html",
		"policy.html",
	}
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(page)))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(page, "/", "__"))
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s; first difference at line %d (run with -update after checking the change)", page, golden, firstDiffLine(got, want))
			}
		})
	}
}

func firstDiffLine(a, b []byte) int {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(al) && i < len(bl); i++ {
		if !bytes.Equal(al[i], bl[i]) {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
