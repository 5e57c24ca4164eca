package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/internal/goldentest"
)

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
			goldentest.Check(t, filepath.Join("testdata", "golden", strings.ReplaceAll(page, "/", "__")), got)
		})
	}
}
